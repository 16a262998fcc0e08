# sbind status --job J --all-nodes against stand-ins for squeue, scontrol
# and srun on PATH (the real cluster: tests/e2e/m13_receipt.sh). The
# stand-in srun runs the command it is given once per node n1, n2 with that
# node's SLURMD_NODENAME, labels each line as srun --label does and cuts
# long lines into labeled pieces of 150 characters, as srun cuts them.
T="pack:1 core:4"
D=$(mktemp -d /tmp/sbind-receipts-XXXXXX); chmod 755 "$D"; SD="$D/st"
trap 'kill $owner 2>/dev/null; rm -rf "$D"' EXIT
mkdir "$D/bin"
cat >"$D/bin/squeue" <<'EOF'
#!/bin/sh
# squeue -h -j J -o FORMAT
case "$3" in
12) echo "RUNNING|2|0|n[1-2]" ;;
14) echo "SUSPENDED|2|0|n[1-2]" ;;
*) echo "slurm_load_jobs error: Invalid job id specified" >&2; exit 1 ;;
esac
EOF
cat >"$D/bin/scontrol" <<'EOF'
#!/bin/sh
[ "$1 $2 $3" = "show hostnames n[1-2]" ] && printf 'n1\nn2\n'
EOF
cat >"$D/bin/srun" <<'EOF'
#!/bin/sh
printf '%s\n' "$*" >"$STANDIN_LOG"
env | grep -E '^(SLURM|SRUN)_' | sort >>"$STANDIN_LOG"
while [ $# -gt 0 ]; do case "$1" in -*) shift ;; *) break ;; esac; done
rc=0 i=0
for n in n1 n2; do
	if [ "$n" = "${STANDIN_FAIL:-}" ]; then
		echo "$i: sbind: state file: Permission denied" >&2; rc=1
	else
		SLURMD_NODENAME=${STANDIN_NAME:-$n} "$@" | fold -w 150 | sed "s/^/$i: /"
	fi
	i=$((i + 1))
done
exit $rc
EOF
chmod 755 "$D/bin/"*
sleep 300 & owner=$!
$SBIND place --topology "$T" --binding linear:1 --tasks 2 --state "$SD" --commit --job 12 --step 0 --owner-pid $owner >/dev/null
all() { env PATH="$D/bin:$PATH" STANDIN_LOG="$D/srun.log" "$@"; }
all_text() { all $SBIND status --state "$SD" --topology "$T" --job 12 --all-nodes "$@" | norm; }
norm() { sed -E "s/since [0-9]+s/since Ns/; s/[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8} \([0-9]+s ago\)/D/; s/pid $owner/pid P/"; }

# job 12's receipt on node $1, as the stand-in's node gives it
node_text() {
	printf '%s\n' "job 12 step 0 on $1: active since Ns, uid 0, owner pid P" \
		"  binding:            set linear:1" "  exec_binding_list:  $1=0,0:0,1" \
		"  mbind:              none" "  memory:             -" \
		"  task 0:             cores 0,0 (L#0) cpus 0 (L#0) numa 0 gpus -" \
		"  task 1:             cores 0,1 (L#1) cpus 1 (L#1) numa 0 gpus -" \
		"  history:            bound D on cpus 0-1"
}
expect_out "--all-nodes: each node's receipt in the job's node order, named by Slurm's node name" \
	"$(node_text n1; node_text n2)" all_text
expect_out "srun: one overlap step of job 12, a task per node, labeled, asking for no binding" \
"--jobid=12 --overlap -N2 --ntasks-per-node=1 --label --quiet --job-name=sbind-status --binding=none /bin/sh -c" \
	sh -c "head -n 1 '$D/srun.log' | cut -d' ' -f1-10"
n1=$($SBIND status --state "$SD" --topology "$T" --job 12 --format json --node n1)
n2=$($SBIND status --state "$SD" --topology "$T" --job 12 --format json --node n2)
expect_out "--all-nodes --format json: each node's own JSON receipt, merged (long lines cut by srun joined)" \
"{\"job\":12,\"nodes\":[$n1,$n2],\"missing\":[]}" \
	all $SBIND status --state "$SD" --topology "$T" --job 12 --all-nodes --format json
slurm_env_seen() {
	all env SLURM_NTASKS=7 SRUN_CPUS_PER_TASK=2 SLURM_CONF=/etc/x.conf $SBIND status --state "$SD" \
		--topology "$T" --job 12 --all-nodes >/dev/null
	grep -E '^(SLURM|SRUN)_' "$D/srun.log"
}
expect_out "the caller's SLURM_* and SRUN_* do not shape the step (SLURM_CONF stays)" "SLURM_CONF=/etc/x.conf" \
	slurm_env_seen
expect_err "a node that cannot answer: exit 1, naming it and what srun said" 1 \
	"sbind status: --job 12 --all-nodes: no answer from node n2: srun exited 1: 1: sbind: state file: Permission denied" \
	all env STANDIN_FAIL=n2 $SBIND status --state "$SD" --topology "$T" --job 12 --all-nodes
answered_steps() { all env STANDIN_FAIL=n2 $SBIND status --state "$SD" --topology "$T" --job 12 --all-nodes 2>/dev/null | grep '^job' | sed 's/ since.*//'; }
expect_out "... after the receipt of the nodes that answered" "job 12 step 0 on n1: active" \
	answered_steps
expect_err "an answer from a node that is not the job's is refused" 1 \
	"sbind status: --job 12 --all-nodes: an answer came from node \"n9\", which is not one of job 12's nodes" \
	all env STANDIN_NAME=n9 $SBIND status --state "$SD" --topology "$T" --job 12 --all-nodes
expect_err "a job Slurm does not know: exit 2, naming it and the accepted form" 2 \
	"sbind status: --job 13 --all-nodes: Slurm knows no job 13 (squeue -j 13: slurm_load_jobs error: Invalid job id specified); expected: sbind status --job J --all-nodes, J a running job's id" \
	all $SBIND status --state "$SD" --job 13 --all-nodes
expect_err "a suspended job: exit 1, Slurm starts no step in it" 1 \
	"sbind status: --job 14 --all-nodes: job 14 is SUSPENDED, and Slurm starts steps only in a running job (its records are on its nodes: sbind status --job J there, or here once it runs again)" \
	all $SBIND status --state "$SD" --job 14 --all-nodes
expect_err "--all-nodes without --job: usage" 2 "sbind status: --all-nodes needs --job J; expected: sbind status --job J --all-nodes" \
	$SBIND status --all-nodes
expect_err "--all-nodes with --node: usage" 2 "sbind status: --all-nodes takes the node names from Slurm, not --node" \
	$SBIND status --job 12 --all-nodes --node n1
