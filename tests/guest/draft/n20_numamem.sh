#!/bin/bash
# DRAFT, NEVER RUN YET (issue 29 item 5): kept out of the guest stage
# (in-guest.sh runs tests/guest/n[0-9][0-9]_*.sh only). Move it to
# tests/guest/n20_numamem.sh once `flock /work/team/qemu.lock env
# GUEST_FILTER=n20 sh tests/guest/run.sh` passes. Its sizes come from the
# guest's real figures (4 NUMA nodes of 458/503/503/503 MiB in hwloc).
# n20_numamem.sh (guest node, CR_Core_Memory): memory that Slurm books per
# NUMA node (numamem=yes, docs/memory.md) on four real NUMA nodes of about
# 500 MiB. The node offers each NUMA node's memory less mem_reserve=40 as
# the GRES numamem (`sbind gres-conf`), the cli_filter asks for it, the
# plugin binds where Slurm booked, and the kernel says where the pages went
# (move_pages):
#   1. jobs of S MiB, --mbind=cores:strict, one task each, S chosen so that
#      four fit the node's numamem and a fifth does not (and all five fit
#      Slurm's RealMemory): the four start, each task's pages on the NUMA
#      nodes Slurm booked for it (Slurm splits some over two nodes: the task
#      gets both and SLURM_BINDING_NUMAMEM_SPLIT=yes), and the fifth waits
#      in Slurm's queue (Resources), also while the first is suspended (the
#      booking stays with the job), and starts when one ends, its pages on
#      its own booking;
#   2. a batch job of two tasks whose node memory is more than one NUMA node:
#      booked by name, a task on each node, its step's tasks' pages there;
#   3. a task larger than every NUMA node: refused at submission;
#   4. numamem=no: the fifth starts and runs unbound, as before.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/../e2e/binding_helpers.sh"
. "$(dirname "$0")/guest_helpers.sh"
need_plugin
[ -x "$PAGENODE" ] || { e2e_fail "no $PAGENODE (tests/guest/build-guest.sh)"; e2e_done; }
HANG=$(e2e_wait_secs 900)
R=40
trap 'cluster_numamem off >/dev/null 2>&1' EXIT
cluster_numamem on --mem-reserve "$R" || { e2e_fail "the cluster did not restart with numamem"; e2e_done; }
line=$(scontrol show node "$E2E_NODE" | grep -o 'Gres=[^ ]*')
e2e_note "node: $line"
counts=$(echo "$line" | grep -o 'numamem:n[0-9]*:[0-9]*M' | sed -E 's/.*:([0-9]+)M/\1/')
assert_eq 4 "$(echo "$counts" | wc -l)" "the node offers numamem on its four NUMA nodes"
total=0 largest=0
for c in $counts; do total=$((total + c)); [ "$c" -gt "$largest" ] && largest=$c; done
real=$(scontrol show node "$E2E_NODE" | grep -o 'RealMemory=[0-9]*' | cut -d= -f2)
S=$((total / 5 + 1))
e2e_note "numamem $total MiB ($(echo $counts)), RealMemory $real MB: jobs of $S MiB"
[ $((5 * S)) -le "$real" ] && [ "$S" -le "$(echo "$counts" | sort -n | head -1)" ] ||
	{ e2e_fail "no job size fits: numamem $total, RealMemory $real"; e2e_done; }
cluster_plugstack ${E2E_PLUGSTACK_DEFAULT:-} numamem=yes "mem_reserve=$R"
cluster_cli_filter on || { e2e_fail "cli_filter on"; e2e_done; }
STRICT="--binding=linear:1 --mbind=cores:strict"

# One job of S MiB: its task reports its booking, then its pages, then waits.
submit() {	# NAME
	sbatch_as_user -J "$1" -o "$E2E_WORK/$1.out" -n1 --mem="$S" $STRICT --wrap \
		"echo numamem=\$SLURM_BINDING_NUMAMEM split=\$SLURM_BINDING_NUMAMEM_SPLIT; echo status=\$SLURM_BINDING_STATUS; $PAGENODE 64; exec sleep 600"
}
booked_nodes() {	# JOB -> Slurm's booking, "0,1"
	scontrol show job -d "$1" | grep -o 'GRES=[^ ]*' | grep -o 'numamem:n[0-9]*' |
		sed 's/numamem:n//' | sort -n | tr '\n' ',' | sed 's/,$//'
}
# The job's task line and pages: every page on a node Slurm booked for it.
check_job() {	# NAME JOB
	local f=$E2E_WORK/$1.out nodes got pages n k
	wait_until "$HANG" eval 'grep -q "^policy=" "$f"' || { e2e_fail "$1: no pages: $(cat "$f")"; return; }
	nodes=$(booked_nodes "$2")
	got=$(sed -n 's/^numamem=\([^ ]*\) split=\(.*\)/\1 \2/p' "$f")
	pages=$(grep '^policy=' "$f")
	e2e_note "$1 (job $2): Slurm booked $(scontrol show job -d "$2" | grep -o 'GRES=[^ ]*'); task: $got; $pages"
	assert_eq "$nodes" "$(echo "$got" | cut -d' ' -f1 | tr ',' '\n' | cut -d: -f1 | sort -n | tr '\n' ',' | sed 's/,$//')" \
		"$1: the task's memory is on the NUMA nodes Slurm booked ($nodes)"
	k=no; [ "$(echo "$nodes" | tr ',' '\n' | wc -l)" -gt 1 ] && k=yes
	assert_eq "$k" "$(echo "$got" | cut -d' ' -f2)" "$1: SLURM_BINDING_NUMAMEM_SPLIT=$k"
	n=0
	for k in 0 1 2 3; do
		case ",$nodes," in *",$k,"*) n=$((n + $(echo "$pages" | sed -n "s/.* node$k=\([0-9]*\).*/\1/p"))) ;; esac
	done
	assert_eq 16384 "$n" "$1: all 16384 pages of its 64 MiB on its booked nodes ($nodes)"
}

# 1. Four jobs start, the fifth waits.
ids=()
for i in 1 2 3 4; do
	j=$(submit "n20_$i") || { e2e_fail "sbatch n20_$i refused"; e2e_done; }
	assert_eq RUNNING "$(wait_job_state "$j" RUNNING "$HANG")" "job n20_$i ($j) starts"
	ids+=("$j")
	check_job "n20_$i" "$j"
done
j5=$(submit n20_5) || { e2e_fail "sbatch n20_5 refused"; e2e_done; }
reason_is() { [ "$(job_field "$1" Reason)" = "$2" ]; }
pass_if "the fifth job ($j5) waits in Slurm's queue (Reason=Resources): $((total - 4 * S)) MiB of numamem left" \
	wait_until "$HANG" reason_is "$j5" Resources
since=$(date +%Y-%m-%dT%H:%M:%S)
scontrol suspend "${ids[0]}"
evaluated_after() { [[ "$(job_field "$j5" LastSchedEval)" > "$since" ]]; }
wait_until "$HANG" evaluated_after || e2e_fail "job $j5 was not evaluated again after $since"
assert_eq "PENDING Resources" "$(job_state "$j5") $(job_field "$j5" Reason)" \
	"the first job suspended, the fifth still waits (the booking stays with the job)"
assert_match "$(state_records | grep " job=${ids[0]} ")" " status=suspended .* booked=" \
	"the suspended job's record keeps its booking"
scontrol resume "${ids[0]}"
scancel "${ids[1]}"
assert_eq RUNNING "$(wait_job_state "$j5" RUNNING "$HANG")" "the fifth job starts when the second ends"
check_job n20_5 "$j5"
scancel "${ids[@]}" "$j5"
no_records() { ! state_records | grep -q ' job='; }
wait_until "$HANG" no_records || e2e_fail "records left: $(state_records)"

# 2. Two tasks, the node's memory more than one NUMA node: each task booked
# on a NUMA node by name, its step's tasks' pages there.
f=$E2E_WORK/n20_b.out
b=$(sbatch_as_user -J n20_b -o "$f" -n2 -N1 --mem=$((2 * S)) $STRICT --wrap \
	"srun sh -c 'echo \$SLURM_PROCID numamem=\$SLURM_BINDING_NUMAMEM \$($PAGENODE 32)'; exec sleep 600") ||
	{ e2e_fail "sbatch n20_b refused"; e2e_done; }
assert_eq RUNNING "$(wait_job_state "$b" RUNNING "$HANG")" "the two-task job ($b) runs"
assert_eq "0,1" "$(booked_nodes "$b")" "booked by name: numamem:n0:${S}M,numamem:n1:${S}M"
wait_until "$HANG" eval '[ "$(grep -c "numamem=" "$f")" = 2 ]' || e2e_fail "its step: $(cat "$f")"
e2e_note "$(tr '\n' '|' <"$f")"
assert_match "$(grep '^0 ' "$f")" "^0 numamem=0:$S policy=bind mask=0x1 pages=8192 node0=8192 " \
	"its step's task 0: bound to node 0, all its pages there"
assert_match "$(grep '^1 ' "$f")" "^1 numamem=1:$S policy=bind mask=0x2 pages=8192 node0=0 node1=8192 " \
	"its step's task 1: bound to node 1, all its pages there"
assert_eq "$S $S 0 0" "$(for n in 0 1 2 3; do sbind_status | sed -n "s/^numa $n: \([0-9]*\) MiB reserved.*/\1/p"; done | tr '\n' ' ' | sed 's/ $//')" \
	"script and step hold the job's booking once: $S MiB on nodes 0 and 1"
scancel "$b"
wait_until "$HANG" no_records || e2e_fail "records left: $(state_records)"

# 3. Larger than every NUMA node: refused at submission, both numbers.
assert_fails "a task of $((largest + 1)) MiB is refused at submission" \
	run_as_user timeout "$HANG" srun -n1 --mem=$((largest + 1)) $STRICT true
assert_contains "$E2E_OUT" "needs $((largest + 1)) MiB per task on one NUMA node; the largest NUMA node holds $largest MiB" \
	"the refusal names both numbers"

# 4. numamem=no: the fifth starts, unbound by the node's own accounting.
cluster_plugstack ${E2E_PLUGSTACK_DEFAULT:-} numamem=no "mem_reserve=$R"
ids=()
for i in 1 2 3 4; do
	j=$(submit "n20_off$i") && ids+=("$j")
	assert_eq RUNNING "$(wait_job_state "$j" RUNNING "$HANG")" "numamem=no: job $i starts"
	wait_until "$HANG" eval 'grep -q "^policy=" "$E2E_WORK/n20_off$i.out"'
done
j5=$(submit n20_off5)
assert_eq RUNNING "$(wait_job_state "$j5" RUNNING "$HANG")" "numamem=no: the fifth starts too"
wait_until "$HANG" eval 'grep -q "^policy=" "$E2E_WORK/n20_off5.out"'
e2e_note "the fifth: $(tr '\n' '|' <"$E2E_WORK/n20_off5.out")"
assert_match "$(cat "$E2E_WORK/n20_off5.out")" "^status=unbound: .*no placement whose NUMA nodes have the memory" \
	"numamem=no: the fifth runs unbound (the node's own accounting), as before"
assert_match "$(cat "$E2E_WORK/n20_off5.out")" "^numamem= split=$" "numamem=no: no booking"
scancel "${ids[@]}" "$j5"
e2e_done
