#!/bin/bash
# n30_numamem.sh (guest node, CR_Core_Memory): memory that Slurm books per
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
#      in Slurm's queue (Resources), also while the first is suspended and
#      after it is resumed (the booking stays with the job), and starts when
#      the first ends, its pages on its own booking, no NUMA node booked
#      beyond what the node offers (GresUsed);
#   2. a batch job of two tasks whose node memory is more than one NUMA node:
#      booked by name, a task on each node, its step's tasks' pages there;
#   3. a task larger than every NUMA node: refused at submission;
#   4. numamem=no: all five start, and at least one runs unbound (no NUMA
#      node holds two of them), as before.
# A job's output file appears some time after Slurm says RUNNING (slurmd
# creates it): every wait for its lines tests that it exists first, since
# wait_until gives up on grep's exit code 2 (no such file).
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

# One job of S MiB: its task reports its booking, then its pages, then
# waits (an hour: longer than the test, which cancels it; a job that ended
# by itself would free its booking behind the test's back).
submit() {	# NAME
	sbatch_as_user -J "$1" -o "$E2E_WORK/$1.out" -n1 --mem="$S" $STRICT --wrap \
		"echo numamem=\$SLURM_BINDING_NUMAMEM split=\$SLURM_BINDING_NUMAMEM_SPLIT; echo status=\$SLURM_BINDING_STATUS; $PAGENODE 64; exec sleep 3600"
}
# FILE ERE: FILE exists and has a line matching ERE (1 while it does not
# exist: wait_until's CMD gives up on 2).
has_line() { [ -f "$1" ] && grep -qE "$2" "$1"; }
# Slurm's booking, "0,1": the node's GRES detail, numamem:n0(CNT:<bytes>)
# (the job's own GRES= line names every type, the unbooked ones with 0).
booked_nodes() {	# JOB
	scontrol show job -d "$1" | grep -o 'numamem:n[0-9]*(CNT:[1-9]' |
		sed 's/numamem:n\([0-9]*\).*/\1/' | sort -un | tr '\n' ',' | sed 's/,$//'
}
# The job's numamem as the node's GRES detail names it: n0(CNT:<bytes>),...
booked_text() { scontrol show job -d "$1" | grep -o 'GRES=[^ ]*(CNT[^ ]*' | sed 's/GRES=//; s/numamem://g'; }
# The node's numamem in use per type, in bytes (scontrol show node -d).
gres_used() { scontrol show node -d "$E2E_NODE" | grep -o 'GresUsed=[^ ]*' | grep -o 'numamem:n[0-9]*:[0-9]*' | tr '\n' ' '; }
# The types booked beyond what the node offers: "n0 722 MiB of 417", one a line.
overbooked() {
	local t used cnt
	for t in $(gres_used); do
		used=${t##*:} t=${t%:*} t=${t#numamem:}
		cnt=$(echo "$line" | grep -o "numamem:$t:[0-9]*M" | sed -E 's/.*:([0-9]+)M/\1/')
		[ "$used" -le $((cnt * 1048576)) ] || echo "$t $((used / 1048576)) MiB of $cnt"
	done
}
# The job's task line and pages: every page on a node Slurm booked for it.
check_job() {	# NAME JOB
	local f=$E2E_WORK/$1.out nodes got pages n k
	wait_until "$HANG" has_line "$f" '^policy=' || { e2e_fail "$1: no pages: $(cat "$f" 2>&1)"; return; }
	nodes=$(booked_nodes "$2")
	got=$(sed -n 's/^numamem=\([^ ]*\) split=\(.*\)/\1 \2/p' "$f")
	pages=$(grep '^policy=' "$f")
	e2e_note "$1 (job $2): Slurm booked $(scontrol show job -d "$2" | grep -o 'GRES=[^ ]*(CNT[^ ]*'); task: $got; $pages"
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
	j=$(submit "n30_$i") || { e2e_fail "sbatch n30_$i refused"; e2e_done; }
	assert_eq RUNNING "$(wait_job_state "$j" RUNNING "$HANG")" "job n30_$i ($j) starts"
	ids+=("$j")
	check_job "n30_$i" "$j"
done
j5=$(submit n30_5) || { e2e_fail "sbatch n30_5 refused"; e2e_done; }
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
since=$(date +%Y-%m-%dT%H:%M:%S)
scontrol resume "${ids[0]}"
wait_until "$HANG" evaluated_after || e2e_fail "job $j5 was not evaluated again after $since"
assert_eq "PENDING Resources" "$(job_state "$j5") $(job_field "$j5" Reason)" \
	"the first job resumed, the fifth still waits (its booking came back with it: $(gres_used))"
scancel "${ids[0]}"
assert_eq RUNNING "$(wait_job_state "$j5" RUNNING "$HANG")" "the fifth job starts when the first ends"
check_job n30_5 "$j5"
e2e_note "Slurm's bookings: $(for j in "${ids[1]}" "${ids[2]}" "${ids[3]}" "$j5"; do printf '%s: %s; ' "$j" "$(booked_text "$j")"; done)"
over=$(overbooked)
assert_eq "" "$over" "no NUMA node is booked beyond its numamem ($(gres_used))"
scancel "${ids[@]}" "$j5"
no_records() { ! state_records | grep -q ' job='; }
wait_until "$HANG" no_records || e2e_fail "records left: $(state_records)"

# 2. Two tasks, the node's memory more than one NUMA node: each task booked
# on a NUMA node by name, its step's tasks' pages there.
f=$E2E_WORK/n30_b.out
b=$(sbatch_as_user -J n30_b -o "$f" -n2 -N1 --mem=$((2 * S)) $STRICT --wrap \
	"srun sh -c 'echo \$SLURM_PROCID numamem=\$SLURM_BINDING_NUMAMEM \$($PAGENODE 32)'; exec sleep 3600") ||
	{ e2e_fail "sbatch n30_b refused"; e2e_done; }
assert_eq RUNNING "$(wait_job_state "$b" RUNNING "$HANG")" "the two-task job ($b) runs"
assert_eq "0,1" "$(booked_nodes "$b")" "booked by name: numamem:n0:${S}M,numamem:n1:${S}M"
two_lines() { [ -f "$f" ] && [ "$(grep -c "numamem=" "$f")" = 2 ]; }
wait_until "$HANG" two_lines || e2e_fail "its step: $(cat "$f" 2>&1)"
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

# 4. numamem=no: Slurm books nothing, all five start; the node's own
# accounting binds at most one per NUMA node (each holds one job of S MiB,
# not two), so at least one runs unbound, as before this switch.
cluster_plugstack ${E2E_PLUGSTACK_DEFAULT:-} numamem=no "mem_reserve=$R"
ids=()
for i in 1 2 3 4 5; do
	j=$(submit "n30_off$i") && ids+=("$j")
	assert_eq RUNNING "$(wait_job_state "$j" RUNNING "$HANG")" "numamem=no: job $i starts"
	wait_until "$HANG" has_line "$E2E_WORK/n30_off$i.out" '^status=' ||
		e2e_fail "numamem=no: job $i: no status: $(cat "$E2E_WORK/n30_off$i.out" 2>&1)"
done
st=$(for i in 1 2 3 4 5; do grep -h '^status=' "$E2E_WORK/n30_off$i.out"; done)
e2e_note "numamem=no: $(echo "$st" | cut -c1-160 | tr '\n' '|')"
assert_eq "" "$(for i in 1 2 3 4 5; do grep -h '^numamem=' "$E2E_WORK/n30_off$i.out"; done | grep -v '^numamem= split=$')" \
	"numamem=no: no job has a booking"
bound=$(echo "$st" | grep -c '^status=bound$')
[ "$bound" -le 4 ] && echo "$st" | grep -qE '^status=unbound: .*memory' &&
	e2e_pass "numamem=no: $bound of 5 bound, the rest unbound by the node's own accounting (not enough memory on their cores' NUMA nodes), as before" ||
	e2e_fail "numamem=no: expected at most 4 bound and one unbound for memory: $st"
scancel "${ids[@]}"
e2e_done
