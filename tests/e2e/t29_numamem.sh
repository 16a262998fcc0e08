#!/bin/bash
# t29_numamem.sh: memory that Slurm books per NUMA node (numamem=yes,
# docs/memory.md) on this node's one NUMA node. The node offers it as the
# GRES numamem (gres.conf and node line from `sbind gres-conf`, Count =
# CAP MiB, the plugin's own capacity with the same mem_reserve=), the
# cli_filter asks for it, and the plugin binds where Slurm booked:
#   - a --mbind=cores:strict job gets --gres=numamem:<its --mem>M, its task
#     sees its booking (SLURM_BINDING_NUMAMEM=0:400), the record keeps it;
#   - a second job that does not fit the NUMA node's numamem waits in
#     Slurm's queue (Resources) while the first runs and while it is
#     suspended (the booking stays with the job: Slurm keeps its GRES, the
#     plugin its record), and starts when the first ends;
#   - a batch job's steps share its booking (two tasks of 200, 400 held);
#   - a task larger than the NUMA node is refused at submission with both
#     numbers;
#   - with numamem=no the second job starts, and the plugin's own
#     accounting leaves it unbound, as before.
# Slurm's RealMemory is the whole machine, so only numamem keeps a job out.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/binding_helpers.sh"
need_plugin
json=$("$E2E_BUILD/sbind" topology --state "$E2E_STATE" --format json)
nodes=$(printf '%s' "$json" | grep -o '"numa_nodes":[0-9]*' | cut -d: -f2)
[ "$nodes" = 1 ] || { e2e_skip "t29 is written for one NUMA node, this node has $nodes"; e2e_done; }
total=$(printf '%s' "$json" | grep -o '"total_mib":[0-9]*' | head -1 | cut -d: -f2)
CAP=600
[ "$total" -gt $((CAP + 200)) ] || { e2e_skip "t29 needs a NUMA node of 800 MiB ($total)"; e2e_done; }
reserve=$((total - CAP))
HANG=$(e2e_wait_secs 300)
trap 'cluster_numamem off >/dev/null 2>&1' EXIT
cluster_numamem on --state "$E2E_STATE" --mem-reserve "$reserve" || { e2e_fail "the cluster did not restart with numamem"; e2e_done; }
assert_match "$(scontrol show node "$E2E_NODE")" "Gres=numamem:n0:${CAP}M" \
	"the node offers numamem:n0:${CAP}M (sbind gres-conf --mem-reserve $reserve)"
cluster_plugstack ${E2E_PLUGSTACK_DEFAULT:-} numamem=yes "mem_reserve=$reserve"
cluster_cli_filter on || { e2e_fail "cli_filter on"; e2e_done; }

STRICT="--binding=linear:1 --mbind=cores:strict"
reserved0() { sbind_status | sed -n 's/^numa 0: \([0-9]*\) MiB reserved.*/\1/p'; }
reason_is() { [ "$(job_field "$1" Reason)" = "$2" ]; }
record_of() {	# JOB STEP (batch: the batch step's id)
	local s=$2; [ "$s" = batch ] && s=4294967291
	state_records | grep " job=$1 step=$s "
}

# 1. One job: the filter's request, the task's booking.
out=$(run_as_user timeout "$HANG" srun -n1 --mem=400 $STRICT sh -c 'echo "numamem=$SLURM_BINDING_NUMAMEM split=$SLURM_BINDING_NUMAMEM_SPLIT nodes=$SLURM_MBIND_NODES status=$SLURM_BINDING_STATUS"; scontrol show job -d "$SLURM_JOB_ID" | grep -o "GRES=[^ ]*"' 2>&1)
e2e_note "$(echo "$out" | tr '\n' ' ')"
assert_contains "$out" "numamem=0:400 split=no nodes=0 status=bound" \
	"the task's memory is its booking on node 0 (SLURM_BINDING_NUMAMEM=0:400), bound"
assert_contains "$out" "GRES=numamem:n0(CNT:419430400)" "Slurm booked numamem:n0 400 MiB (the filter's --gres)"

# 2. A runs; B does not fit the node's numamem and waits; with A suspended
# too (its booking stays); B starts when A ends.
a=$(sbatch_as_user -J t29_a -o /dev/null --mem=400 $STRICT --wrap 'exec sleep 600') ||
	{ e2e_fail "sbatch A refused"; e2e_done; }
assert_eq RUNNING "$(wait_job_state "$a" RUNNING "$HANG")" "job A ($a) runs"
wait_until "$HANG" eval 'record_of "$a" batch | grep -q " booked=0:400 "' ||
	e2e_fail "job A's record: $(record_of "$a" batch)"
assert_match "$(record_of "$a" batch)" " mem=0:400 .* booked=0:400 " "job A's record holds its booking (booked=0:400)"
b=$(sbatch_as_user -J t29_b -o /dev/null --mem=400 $STRICT --wrap 'exec sleep 600') ||
	{ e2e_fail "sbatch B refused"; e2e_done; }
pass_if "job B ($b) waits in Slurm's queue (Reason=Resources): $CAP MiB of numamem, 400 booked" \
	wait_until "$HANG" reason_is "$b" Resources
since=$(date +%Y-%m-%dT%H:%M:%S)
scontrol suspend "$a"
wait_until "$HANG" eval 'record_of "$a" batch | grep -q " status=suspended "' ||
	e2e_fail "job A's record not suspended: $(record_of "$a" batch)"
assert_eq "400" "$(reserved0)" "job A suspended: its 400 MiB stay reserved on node 0"
# Slurm evaluates B again after the suspension (its cpus freed): a pass
# later than that second, whenever it comes; B must still wait.
evaluated_after() { [[ "$(job_field "$b" LastSchedEval)" > "$since" ]]; }
wait_until "$HANG" evaluated_after || e2e_fail "job B was not evaluated again after $since"
assert_eq "PENDING Resources" "$(job_state "$b") $(job_field "$b" Reason)" \
	"job A suspended, job B still waits (Slurm keeps A's numamem: $(job_field "$b" LastSchedEval))"
scontrol resume "$a"
scancel "$a"
assert_eq RUNNING "$(wait_job_state "$b" RUNNING "$HANG")" "job B starts once job A ended"
wait_until "$HANG" eval 'record_of "$b" batch | grep -q " booked=0:400 "' ||
	e2e_fail "job B's record: $(record_of "$b" batch)"
scancel "$b"
wait_job_done "$b" "$HANG" >/dev/null

# 3. A batch job's steps share its booking.
f=$E2E_WORK/t29_steps.out
c=$(sbatch_as_user -J t29_c -o "$f" -n2 -N1 --mem=400 $STRICT \
	--wrap 'srun sh -c "echo task \$SLURM_PROCID numamem=\$SLURM_BINDING_NUMAMEM"; exec sleep 600') ||
	{ e2e_fail "sbatch C refused"; e2e_done; }
assert_eq RUNNING "$(wait_job_state "$c" RUNNING "$HANG")" "job C ($c) runs"
wait_until "$HANG" eval '[ "$(grep -c numamem= "$f" 2>/dev/null)" = 2 ]' || e2e_fail "job C's step: $(cat "$f")"
assert_eq "task 0 numamem=0:200|task 1 numamem=0:200" "$(sort "$f" | grep numamem= | tr '\n' '|' | sed 's/|$//')" \
	"its step's two tasks take 200 MiB each of the job's booking"
assert_eq 400 "$(reserved0)" "the job holds its booking once, script and step (400 MiB)"
scancel "$c"
wait_job_done "$c" "$HANG" >/dev/null

# 4. A task larger than the NUMA node: refused at submission, both numbers.
assert_fails "srun --mem=700 is refused at submission" \
	run_as_user timeout "$HANG" srun -n1 --mem=700 $STRICT true
assert_contains "$E2E_OUT" "needs 700 MiB per task on one NUMA node; the largest NUMA node holds $CAP MiB" \
	"the refusal names both numbers"

# 5. numamem=no: B starts beside A and is left unbound by the node's own
# accounting (as before numamem).
cluster_plugstack ${E2E_PLUGSTACK_DEFAULT:-} numamem=no "mem_reserve=$reserve"
a=$(sbatch_as_user -J t29_a2 -o /dev/null --mem=400 $STRICT --wrap 'exec sleep 600')
assert_eq RUNNING "$(wait_job_state "$a" RUNNING "$HANG")" "numamem=no: job A runs"
out=$(run_as_user timeout "$HANG" srun -n1 --mem=400 $STRICT sh -c 'echo "status=$SLURM_BINDING_STATUS numamem=${SLURM_BINDING_NUMAMEM-unset}"' 2>/dev/null)
assert_match "$out" "^status=unbound: .*no placement whose NUMA nodes have the memory.* numamem=unset$" \
	"numamem=no: job B starts and runs unbound (the node's accounting: 200 MiB free)"
scancel "$a"
e2e_done
