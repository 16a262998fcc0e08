#!/bin/bash
# m10_two_nodes.sh: two slurmd nodes on this host (E2E_NODES=2, each in its
# own UTS and mount namespace with its own host name and a private tmpfs
# state dir). A two-node step binds each node's tasks there, on distinct
# cpus, and each node's state file holds only its own tasks; the steps of
# an `sbatch -N2` job likewise; the pe rankfiles name both hosts with the
# slots the tasks' pe pairs say.
E2E_NODES=2
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/binding_helpers.sh"
need_plugin
need_two_nodes

# 1. srun -N2 -n4 --binding=linear:1: two tasks per node, distinct cpus.
bg_srun m10 -N2 -n4 --binding=linear:1 sleep 600
job=$(job_named m10) || { e2e_fail "srun -N2 -n4 did not start: $(cat "$E2E_WORK/m10.out")"; e2e_done; }
for n in $n1 $n2; do
	pids=$(E2E_NODE=$n step_pids "$job.0" 2) || e2e_fail "$n: step $job.0 has not 2 running tasks: '$pids'"
	# shellcheck disable=SC2086 # one word per pid
	set -- $pids
	c0=$(cpus_allowed_of "$1") c1=$(cpus_allowed_of "$2")
	e2e_note "$n: task pids $1 $2, cpus $c0 and $c1"
	assert_eq 1 "$(cpulist_count "$c0")" "$n: first task bound to one cpu ($c0)"
	assert_eq 1 "$(cpulist_count "$c1")" "$n: second task bound to one cpu ($c1)"
	assert_ne "$c0" "$c1" "$n: its two tasks are on different cpus"
	for p in "$1" "$2"; do
		assert_eq "$n" "$(nsenter -t "$p" -u hostname)" "$n: task $p runs in the node's UTS namespace"
		assert_eq bound "$(task_env "$p" SLURM_BINDING_STATUS)" "$n: task $p is bound"
	done
	recs=$(node_records "$n")
	e2e_note "$n state: $recs"
	assert_eq 1 "$(printf '%s\n' "$recs" | grep -c .)" "$n: its state file holds one record"
	assert_match "$recs" "job=$job step=0 " "$n: the record is this step's"
	held=$(echo "$recs" | sed -nE 's/.* cpus=([^ ]*).*/\1/p')
	assert_eq "$(cpulist_expand "$c0,$c1")" "$(cpulist_expand "$held")" "$n: the record holds exactly its own two tasks' cpus"
done
pass_if "the host's own state dir stays empty (each node's is private)" test ! -e "$E2E_STATE/state"
scancel "$job"
wait_job_done "$job" 30 >/dev/null
wait_bg
for n in $n1 $n2; do
	assert_eq "" "$(node_records "$n")" "$n: the record is released when the step ends"
done

# 2. sbatch -N2 -n4: the script holds its node's two cores; each step binds
# on both nodes.
# shellcheck disable=SC2016 # expanded in the job
script=$(user_file m10.sbatch <<'SCRIPT'
#!/bin/sh
echo "script $(hostname) $(awk '/^Cpus_allowed_list/ { print $2 }' /proc/self/status) $SLURM_BINDING_STATUS"
srun -n4 sh -c 'echo "s1 $SLURM_PROCID $(hostname) $(awk "/^Cpus_allowed_list/ { print \$2 }" /proc/self/status) $SLURM_BINDING_STATUS"'
srun -N2 -n2 sh -c 'echo "s2 $SLURM_PROCID $(hostname) $(awk "/^Cpus_allowed_list/ { print \$2 }" /proc/self/status) $SLURM_BINDING_STATUS"'
SCRIPT
)
bj=$(sbatch_as_user -N2 -n4 --binding=linear:1 -o "$E2E_WORK/m10-batch.out" "$script") ||
	{ e2e_fail "sbatch -N2 refused"; e2e_done; }
assert_eq COMPLETED "$(wait_job_done "$bj" 90)" "sbatch -N2 job $bj completes"
out=$(cat "$E2E_WORK/m10-batch.out")
e2e_note "$(echo "$out" | tr '\n' ';')"
assert_match "$out" "^script $n1 $E2E_CPUS bound$" "the script runs on $n1 bound to its 2 tasks' cores ($E2E_CPUS)"
for n in $n1 $n2; do
	lines=$(echo "$out" | awk -v n="$n" '$1 == "s1" && $3 == n')
	assert_eq 2 "$(echo "$lines" | grep -c ' bound$')" "step 1 on $n: two bound tasks"
	assert_eq 2 "$(echo "$lines" | awk '{ print $4 }' | sort -u | grep -cxE '[0-9]+')" "step 1 on $n: on two distinct single cpus"
	lines=$(echo "$out" | awk -v n="$n" '$1 == "s2" && $3 == n')
	assert_match "$lines" "^s2 [0-9] $n [0-9]+ bound$" "step 2 on $n: one task bound to one cpu"
done

# 3. pe over two nodes: each node's rankfile lists its own ranks, with the
# node's name and the slot of the rank's pe pair.
# shellcheck disable=SC2016 # expanded by the tasks
out=$(run_as_user timeout "$(e2e_wait_secs 60)" srun -N2 -n4 --binding=pe:linear:1 sh -c \
	'echo "pe $SLURM_PROCID $(hostname) $SLURM_BINDING_PE"; sed "s/^/rf /" "$SLURM_BINDING_RANKFILE"' 2>&1)
e2e_note "$(echo "$out" | sort -u | tr '\n' ';')"
for r in 0 1 2 3; do
	read -r host pair <<<"$(echo "$out" | awk -v r="$r" '$1 == "pe" && $2 == r { print $3, $4 }')"
	want=$n1
	[ "$r" -ge 2 ] && want=$n2
	assert_eq "$want" "$host" "pe: rank $r runs on $want"
	assert_match "$out" "^rf rank $r=$want slot=${pair/,/:}$" "pe: the rankfile of $want gives rank $r its core $pair"
done
assert_eq 4 "$(echo "$out" | grep '^rf ' | sort -u | wc -l)" "pe: the two rankfiles together list the 4 ranks once each"
e2e_done
