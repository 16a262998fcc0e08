#!/bin/bash
# Waiting steps against another user's launch (`make bench`), on a private
# cluster (tests/e2e/cluster.sh): the job user's batch job holds core 0
# with one step and starts 40 `srun --overlap --binding=linear:2` steps that
# wait deferred (they want both cores of the job); root then makes 20
# unrelated allocate + release pairs on core 1 with sbind (a place --commit
# and a release, two changes of the state each, which every waiting step's
# watcher sees). Prints the median pair with the 40 steps waiting and with
# none, and their ratio (issue 20's goal: <= 2; before, a watcher ran a
# transaction at every change: 13.6). Needs root and Slurm; otherwise says
# why and exits 0. Environment: DEFER_STEPS (40), DEFER_ROUNDS (20),
# cluster.sh's knobs.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
here=$(cd "$(dirname "$0")" && pwd)
steps=${DEFER_STEPS:-40}
rounds=${DEFER_ROUNDS:-20}

# shellcheck source=bench/cluster_bench.sh
. "$here/cluster_bench.sh"
# shellcheck source=bench/stats.sh
. "$here/stats.sh"
bench_cluster defer
if [ "$E2E_NCPUS" -lt 2 ]; then
	echo "bench defer: skipped (needs 2 cpus)"
	exit 0
fi
sbind="$E2E_BUILD/sbind"
topo=$("$sbind" topology --state "$E2E_STATE")
# the last core only: every core and thread before it in lower case (a
# lower-case socket would mask the last core too)
mask=$(printf '%s' "$topo" | awk '{ n = split($0, c, ""); s = ""; last = 0
	for (i = 1; i <= n; i++) if (c[i] == "C") last = i
	for (i = 1; i <= n; i++) s = s ((i < last && (c[i] == "C" || c[i] == "T")) ? tolower(c[i]) : c[i]); print s }')

now() { date +%s%N; }
errs=$E2E_DIR/defer-sbind.err	# removed with the cluster's dir
pairs() {	# the median of rounds place --commit + release pairs, in us
	local i t0 t1 out=""
	for i in $(seq 1 "$rounds"); do
		t0=$(now)
		"$sbind" place --binding linear:1 --state "$E2E_STATE" --mask "$mask" --commit \
			--job 900000 --step "$i" >/dev/null 2>"$errs" || { echo fail; return; }
		"$sbind" release --job 900000 --step "$i" --state "$E2E_STATE" >/dev/null 2>"$errs" ||
			{ echo fail; return; }
		t1=$(now)
		out="$out$(((t1 - t0) / 1000))
"
	done
	printf '%s' "$out" | median
}
deferred() { "$sbind" status --state "$E2E_STATE" --format json 2>/dev/null | grep -o '"status": *"deferred"' | wc -l; }

pairs >/dev/null
idle=$(pairs)
job=$(run_as_user sbatch --parsable -N1 -n2 -o /dev/null --wrap "
	srun -n1 --overlap --binding=linear:1 sleep 600 &
	sleep 2
	for i in \$(seq 1 $steps); do srun -n1 --overlap --binding=linear:2 sleep 600 & done
	wait")
enough_waiting() { [ "$(deferred)" -ge "$steps" ]; }
wait_until 300 enough_waiting ||
	{ echo "bench defer: only $(deferred) of $steps steps waiting after 300 s"; scancel "$job"; exit 1; }
busy=$(pairs)
n=$(deferred)
scancel "$job"
wait_squeue_empty 120 >/dev/null 2>&1
if [ "$idle" = fail ] || [ "$busy" = fail ]; then
	echo "bench defer: an sbind pair failed: $(cat "$errs")"
	exit 1
fi
echo "defer: $rounds x sbind place --commit + release on core 1, no step waiting: median $(awk -v u="$idle" 'BEGIN { printf "%.1f", u / 1000 }') ms ($E2E_MODE)"
echo "defer: the same with $n steps of another user waiting deferred: median $(awk -v u="$busy" 'BEGIN { printf "%.1f", u / 1000 }') ms"
echo "defer: median ratio $(awk -v a="$idle" -v b="$busy" 'BEGIN { printf "%.2f", b / a }') (goal <= 2)"
