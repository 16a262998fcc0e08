#!/bin/bash
# t16_mbind.sh: --mbind sets each task's memory policy before exec:
# cores:strict binds memory to the NUMA node of the task's cores (node 0
# here), round_robin interleaves over the nodes the task may use, cores
# prefers the local node. Read back from the running task
# (/proc/PID/numa_maps shows the policy of every mapping, its status the
# nodes it may use) and, inside it, with numactl --show (get_mempolicy).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/binding_helpers.sh"
need_plugin

# The policy numa_maps shows for the task's first mapping ("bind:0", ...).
policy_of() { awk 'NR == 1 { print $2 }' "/proc/$1/numa_maps" 2>/dev/null; }

# NUMA node of an OS cpu, from sysfs.
node_of_cpu() {
	local d
	for d in /sys/devices/system/node/node*/cpu"$1"; do
		[ -e "$d" ] && { d=${d%/cpu*}; echo "${d##*/node}"; return; }
	done
}

check_policy() {	# NAME MBIND bind|interleave|prefer
	local name=$1 mbind=$2 kind=$3 j p cpu want
	bg_srun "$name" -n1 --binding=linear:1 --mbind="$mbind" sleep 600
	j=$(job_named "$name") || { e2e_fail "--mbind=$mbind job did not start"; return 1; }
	p=$(step_pids "$j.0" 1) || e2e_fail "--mbind=$mbind task not found"
	cpu=$(single_cpu "$(cpus_allowed_of "$p")")
	assert_ne "" "$cpu" "--mbind=$mbind: the task is bound to one cpu ($(cpus_allowed_of "$p"))"
	case $kind in
	interleave) want="interleave:$(mems_allowed_of "$p")" ;;
	*) want="$kind:$(node_of_cpu "$cpu")" ;;
	esac
	e2e_note "--mbind=$mbind: cpu $cpu, numa_maps policy $(policy_of "$p"), mems $(mems_allowed_of "$p")"
	assert_eq "$want" "$(policy_of "$p")" "--mbind=$mbind: the running task's policy is $want"
	assert_eq "$mbind" "$(task_env "$p" SLURM_MBIND)" "--mbind=$mbind: SLURM_MBIND"
	scancel "$j"; wait_job_done "$j" 30 >/dev/null
}

nodes=(/sys/devices/system/node/node[0-9]*)
e2e_note "NUMA nodes: ${#nodes[@]}"
check_policy t16_strict cores:strict bind
check_policy t16_rr round_robin interleave
check_policy t16_pref cores prefer

# Inside the task, through get_mempolicy (numactl --show).
out=$(run_as_user timeout 300 srun -n1 --binding=linear:1 --mbind=cores:strict numactl --show 2>&1)
assert_match "$out" '^policy: bind$' "numactl --show in the task: policy bind"
assert_match "$out" '^membind: 0 *$' "numactl --show in the task: membind 0"
out=$(run_as_user timeout 300 srun -n1 --binding=linear:1 --mbind=round_robin numactl --show 2>&1)
assert_match "$out" '^policy: interleave$' "numactl --show in the task: policy interleave"

# srun -v names the policy.
out=$(run_as_user timeout 300 srun -v -n1 --binding=linear:1 --mbind=cores:strict true 2>&1)
assert_match "$out" "^spank-binding: host=$E2E_NODE task=0 cores=[0-9]+,[0-9]+ cpus=[0-9]+ mempolicy=bind:0$" "srun -v: the task's line shows mempolicy=bind:0"

# nlocal brings its own binding (one core per task on one NUMA node) and
# binds the memory there; the task hears which node.
out=$(run_as_user timeout 300 srun -n1 --mbind=nlocal sh -c 'numactl --show; echo "nodes=$SLURM_MBIND_NODES status=$SLURM_BINDING_STATUS numa=$SLURM_BINDING_TOPOLOGY_NUMA"' 2>&1); rc=$?
assert_eq 0 "$rc" "--mbind=nlocal runs"
assert_match "$out" '^policy: bind$' "--mbind=nlocal without --binding: policy bind"
assert_match "$out" '^nodes=0 status=bound numa=\[S?c' "--mbind=nlocal: SLURM_MBIND_NODES=0, bound, NUMA string marks the core"

# srun --mem records the step's memory on the NUMA node of its core in the
# state (mem=<node>:<MiB>); the record and its memory are gone after the step.
# Slurm hands the step its memory (S_STEP_ALLOC_MEM) only when it tracks
# memory: cluster.sh runs CR_Core_Memory with the node's RealMemory (under
# CR_Core the item reads 0 and the record's mem= stays empty).
assert_match "$(scontrol show config | grep -E '^SelectTypeParameters')" 'CR_CORE_MEMORY' "the cluster tracks memory (CR_Core_Memory)"
bg_srun t16_mem -n1 --mem=3 --binding=linear:1 --mbind=cores:strict sleep 600
j=$(job_named t16_mem) || e2e_fail "--mem job did not start"
p=$(step_pids "$j.0" 1) || e2e_fail "--mem task not found"
assert_match "$(state_records | grep " job=$j step=0 ")" " mem=0:3 " "srun --mem=3: the record reserves 3 MiB on node 0"
assert_match "$(sbind_status)" "^numa 0: 3 MiB reserved" "sbind status shows the node's reserved MiB"
scancel "$j"; wait_job_done "$j" 30 >/dev/null
no_record() { ! state_records | grep -q " job=$j "; }
wait_until 30 no_record
assert_eq "" "$(state_records | grep " job=$j ")" "after the step its record and memory are gone"

# --mem-per-cpu: Slurm gives the step cpus x MiB; two tasks of one core
# each share it, one task's share on the node of each core.
bg_srun t16_mpc -n2 --mem-per-cpu=5 --cpu-bind=none --binding=linear:1 --mbind=cores sleep 600
j=$(job_named t16_mpc) || e2e_fail "--mem-per-cpu job did not start"
p=$(step_pids "$j.0" 2) || e2e_fail "--mem-per-cpu tasks not found"
assert_match "$(state_records | grep " job=$j step=0 ")" " mem=0:10 " "srun -n2 --mem-per-cpu=5: the record reserves 2 x 5 MiB on node 0"
scancel "$j"; wait_job_done "$j" 30 >/dev/null
wait_until 30 no_record
assert_eq "" "$(state_records | grep " job=$j ")" "after the --mem-per-cpu step its record and memory are gone"

# A job's steps share its memory, as in Slurm: the batch script's
# reservation never keeps its own srun step from binding with
# --mbind=cores:strict (it did: the step found node 0 full of its own
# script's memory and ran unbound). The job asks for 3/4 of node 0's free
# memory, so counting it twice on node 0 could not fit.
free0=$("$E2E_BUILD/sbind" topology --state "$E2E_STATE" --format json | grep -o '"free_mib":[0-9]*' | head -1 | cut -d: -f2)
assert_match "$free0" '^[0-9]+$' "sbind topology: node 0's free MiB ($free0)"
mem=$((free0 * 3 / 4))
script=$(user_file t16_share.sh <<'SH'
#!/bin/sh
echo "script status=$SLURM_BINDING_STATUS"
srun -n1 --binding=linear:1 --mbind=cores:strict sh -c 'echo "step status=$SLURM_BINDING_STATUS mbind=$SLURM_MBIND"; numactl --show | grep "^policy"'
SH
)
j=$(sbatch_as_user --mem="$mem" -n1 --binding=linear:1 --mbind=cores:strict -o "$E2E_WORK/t16_share.out" "$script")
assert_eq COMPLETED "$(wait_job_done "$j" 300)" "sbatch --mem=$mem (3/4 of node 0) with an srun step completes"
out=$(cat "$E2E_WORK/t16_share.out" 2>&1)
e2e_note "$out"
assert_match "$out" '^script status=bound' "the script is bound with its $mem MiB"
assert_match "$out" '^step status=bound mbind=cores:strict$' "its srun step is bound too: the script's memory is the job's, not another job's"
assert_match "$out" '^policy: bind$' "the step's memory is bound to its cores' node"
wait_bg
e2e_done
