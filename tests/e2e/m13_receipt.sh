#!/bin/bash
# m13_receipt.sh: a job's receipt across its nodes (sbind status --job J
# --all-nodes), run by root on the host, which is neither node (its own
# state dir stays empty). Each node's part is exactly what that node's own
# `sbind status --job J --format json` says (read in the node's mount
# namespace), in the job's node order; a node without a record says so.
# The gathering step takes nothing: the nodes' records are unchanged and
# the receipt shows no step of its own, even with the site's default=
# binding every step that gives none. After scontrol suspend and resume,
# each node's receipt shows its step's moves. A suspended job, a job
# Slurm does not know and a node that cannot answer are errors naming what
# failed.
E2E_NODES=2
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/binding_helpers.sh"
need_plugin
need_two_nodes
[ -n "$E2E_SBIND" ] || { e2e_skip "$E2E_TEST: build/sbind not built"; e2e_done; }
receipt() { "$E2E_SBIND" status --state "$E2E_STATE" "$@"; }
# node's own receipt of job $1, as JSON, read there
node_receipt() { node_exec "$1" "$E2E_SBIND" status --state "$E2E_STATE" --job "$2" --format json --node "$1"; }
# the records of job $2 on node $1, without their owner check's scan field
recs_of() { node_records "$1" | grep " job=$2 " | sort; }
# "n1: batch 0 n2: 0": each node's steps in a merged JSON receipt
step_names() {
	echo "$1" | grep -oE '"node":"[^"]*"|"step_name":"[a-z0-9]*"' | sed -E 's/"node":"(.*)"/\1:/; s/"step_name":"(.*)"/\1/' |
		tr '\n' ' ' | sed 's/ $//'
}
_all_status() {	# JOB STATUS COUNT: COUNT records of JOB over both nodes, all STATUS
	local r
	r=$( { node_records "$n1"; node_records "$n2"; } | grep " job=$1 ")
	[ "$(printf '%s\n' "$r" | grep -c " status=$2 ")" = "$3" ] && ! printf '%s\n' "$r" | grep -qv " status=$2 "
}

# 1. A two-node job: the batch script on n1 and step 0 on both nodes.
job=$(sbatch_as_user -N2 -n4 --binding=linear:1 -o "$E2E_WORK/m13.out" \
	--wrap "srun --binding=linear:1 sleep 600") || { e2e_fail "sbatch -N2 refused"; e2e_done; }
wait_until 60 _all_status "$job" active 3 || { e2e_fail "job $job: 3 active records never seen: $(node_records "$n1"; node_records "$n2")"; e2e_done; }
before1=$(recs_of "$n1" "$job") before2=$(recs_of "$n2" "$job")
want="{\"job\":$job,\"nodes\":[$(node_receipt "$n1" "$job"),$(node_receipt "$n2" "$job")],\"missing\":[]}"
assert_ok "root on the host gathers job $job's receipt from both nodes" receipt --job "$job" --all-nodes --format json
assert_eq "$want" "$E2E_OUT" "the JSON is each node's own receipt, $n1 then $n2"
assert_eq "$n1: batch 0 $n2: 0" "$(step_names "$E2E_OUT")" \
	"$n1's part holds the batch script and step 0, $n2's step 0: no step of the gathering"
for n in $n1 $n2; do
	cpus=$(recs_of "$n" "$job" | grep ' step=0 ' | sed -nE 's/.* cpus=([^ ]*).*/\1/p')
	assert_match "$E2E_OUT" "\"step_name\":\"0\",[^]]*\"exec_binding_list\":\"$n=[0-9,:]+\",.*\"cpus\":\"$cpus\",\"tasks\"" \
		"$n: step 0's cpus in the receipt are its record's ($cpus)"
done
text=$(receipt --job "$job" --all-nodes)
e2e_note "$(echo "$text" | grep '^job')"
assert_eq "job $job step batch on $n1: active
job $job step 0 on $n1: active
job $job step 0 on $n2: active" "$(echo "$text" | grep '^job' | sed -E 's/ since .*//')" \
	"the text names each step's node, in the job's node order"
assert_eq 3 "$(echo "$text" | grep -c '^  task 1: ')" "the second task of each record shows (the batch script holds its node's 2 tasks' cores)"
assert_eq "$before1" "$(recs_of "$n1" "$job")" "$n1: the gathering changed no record of the job"
assert_eq "$before2" "$(recs_of "$n2" "$job")" "$n2: the gathering changed no record of the job"
assert_eq "" "$( { node_records "$n1"; node_records "$n2"; } | grep -v " job=$job ")" "no other record on either node"
pass_if "the host's own state dir stays empty" test ! -e "$E2E_STATE/state"

# 2. The site's default= binds every step that gives no --binding: the
# gathering step still gets none.
cluster_plugstack default=linear:1
assert_ok "with default=linear:1 the receipt is gathered" receipt --job "$job" --all-nodes --format json
assert_eq "$n1: batch 0 $n2: 0" "$(step_names "$E2E_OUT")" "... and shows no record of the gathering step"
assert_eq "$before1" "$(recs_of "$n1" "$job")" "$n1: still no record changed"
assert_eq "$before2" "$(recs_of "$n2" "$job")" "$n2: still no record changed"
cluster_plugstack

# 3. Suspended: Slurm starts no step, and says so; resumed, each node's
# receipt shows its step's moves.
scontrol suspend "$job"
wait_until 60 _all_status "$job" suspended 3 || e2e_fail "job $job: records not suspended"
assert_fails "a suspended job's receipt cannot be gathered" receipt --job "$job" --all-nodes
assert_contains "$E2E_OUT" "sbind status: --job $job --all-nodes: job $job is SUSPENDED, and Slurm starts steps only in a running job (its records are on its nodes: sbind status --job J there, or here once it runs again); expected: sbind status --job J --all-nodes, J a running job's id" \
	"... the error names the state and the accepted form"
assert_eq 1 "$E2E_RC" "... exit 1"
scontrol resume "$job"
wait_until 60 _all_status "$job" active 3 || e2e_fail "job $job: records not active again"
text=$(receipt --job "$job" --all-nodes)
# docs/operations.md's example, the node names made generic
{ echo "\$ sbind status --job $job --all-nodes"; echo "$text"; } | sed "s/$n1/node1/g; s/$n2/node2/g" |
	doc_block receipt-nodes
for n in $n1 $n2; do
	block=$(echo "$text" | awk -v h="job $job step 0 on $n:" 'index($0, h) == 1 { on = 1; print; next } /^job / { on = 0 } on')
	assert_match "$block" "^  history:            bound .* on cpus [0-9,-]+$" "$n: step 0 was bound"
	assert_match "$block" "^                      suspended .* on cpus [0-9,-]+: slurm-suspend$" "$n: ... suspended by Slurm"
	assert_match "$block" "^                      rebound .* on cpus [0-9,-]+$" "$n: ... and bound again"
done

# 4. A node that cannot answer: n2's state file unreadable for the job's
# owner, whose step reads it.
node_exec "$n2" chmod 600 "$E2E_STATE/state"
assert_fails "a node without an answer fails the receipt" receipt --job "$job" --all-nodes
node_exec "$n2" chmod 644 "$E2E_STATE/state"
assert_contains "$E2E_OUT" "sbind status: --job $job --all-nodes: no answer from node $n2: srun exited 1: " "... naming the node"
assert_contains "$E2E_OUT" "sbind status: state file: Permission denied" "... and what its sbind said"
assert_contains "$E2E_OUT" "job $job step 0 on $n1: active" "... after the other node's receipt"
scancel "$job"
wait_job_done "$job" 30 >/dev/null

# 5. A job whose second node has no record; a job Slurm does not know;
# --all-nodes without --job.
job=$(sbatch_as_user -N2 -n2 --binding=linear:1 -o "$E2E_WORK/m13b.out" --wrap "sleep 600") ||
	{ e2e_fail "sbatch -N2 refused"; e2e_done; }
wait_until 60 _all_status "$job" active 1 || e2e_fail "job $job: the batch record never seen"
assert_ok "the job user gathers the receipt of their own job" run_as_user "$E2E_SBIND" status --state "$E2E_STATE" --job "$job" --all-nodes
assert_match "$E2E_OUT" "^job $job step batch on $n1: active since " "... $n1: the batch script"
assert_contains "$E2E_OUT" "job $job: no record on $n2 (not here, ended, or no binding asked)" "... $n2: no record"
scancel "$job"
assert_fails "a job Slurm does not know" receipt --job 999999 --all-nodes
assert_match "$E2E_OUT" "^sbind status: --job 999999 --all-nodes: Slurm knows no job 999999 \(squeue -j 999999: .*\); expected: sbind status --job J --all-nodes, J a running job's id$" \
	"... is refused naming the job and the accepted form"
assert_eq 2 "$E2E_RC" "... exit 2"
assert_fails "--all-nodes without --job" receipt --all-nodes
assert_eq "sbind status: --all-nodes needs --job J; expected: sbind status --job J --all-nodes" "$E2E_OUT" "... says what it needs"
e2e_done
