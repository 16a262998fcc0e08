#!/bin/sh
# What a change of the state code costs a launch, against another commit in
# the same run: builds REF's bench_state (git archive into a scratch dir)
# beside this tree's, then runs the two in turn, ROUNDS times each way, on
# one records case of bench_state (BENCH_STATE_RECORDS) in BINDING_BENCH_DIR
# (default /dev/shm: a tmpfs, as the default state dir /run), and prints
# each one's ratio of its transaction to the bare read-and-replace (the
# anchor each measures in the same process), their medians, and the
# change. Issue 30 (counters in the state) was measured as
#   sh bench/state_ab.sh 3942964 10 1000 9
# Figures are reported, never asserted. BENCH_CPU=N pins both to cpu N
# (taskset): this VM's two cpus run at different speeds.
#   sh bench/state_ab.sh REF [RECORDS [PAIRS [RUNS]]]   (BENCH_STATE_BUSY=1: the busy node)
set -eu
ref=${1:?usage: state_ab.sh REF [RECORDS [PAIRS [RUNS]]]}
nrec=${2:-10} pairs=${3:-1000} runs=${4:-9}
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/state-ab.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
git -C "$here" archive "$ref" | tar -xf - -C "$tmp"
make -s -C "$tmp" build/bench/bench_state >/dev/null
make -s -C "$here" build/bench/bench_state >/dev/null
export BINDING_BENCH_DIR=${BINDING_BENCH_DIR:-/dev/shm}
pin=${BENCH_CPU:+taskset -c $BENCH_CPU}
ratio() { BENCH_STATE_RECORDS="$nrec,$pairs" $pin "$1" | sed -n 's/.*ratio *\([0-9.]*\).*/\1/p'; }
for i in $(seq 1 "$runs"); do
	echo "ours $(ratio "$here/build/bench/bench_state")"
	echo "ref $(ratio "$tmp/build/bench/bench_state")"
done >"$tmp/ratios"
med() { grep "^$1 " "$tmp/ratios" | cut -d' ' -f2 | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
o=$(med ours) r=$(med ref)
echo "state_ab: $nrec records${BENCH_STATE_BUSY:+ (busy)}, $BINDING_BENCH_DIR${BENCH_CPU:+, cpu $BENCH_CPU}, $runs runs of $pairs pairs each way"
echo "  ratio to the bare transaction: this tree $o (runs: $(grep '^ours' "$tmp/ratios" | cut -d' ' -f2 | tr '\n' ' '))"
echo "                                 $ref $r (runs: $(grep '^ref' "$tmp/ratios" | cut -d' ' -f2 | tr '\n' ' '))"
awk -v o="$o" -v r="$r" 'BEGIN { printf "  change: %+.1f%%\n", (o / r - 1) * 100 }'
