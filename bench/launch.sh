#!/bin/bash
# Launch cost of the plugin (`make bench`): on a private cluster
# (tests/e2e/cluster.sh), LAUNCH_ROUNDS rounds of one `srun -n2 true` and
# one `srun -n2 --binding=linear:1 true` as the job user, the two in turn
# first; prints both medians, the median of the rounds' differences with
# its 95 % confidence interval, and the ratio (goal <= 1.01, on every
# Slurm release: bench/releases.sh runs this in each release's chroot).
# A launch takes 250 ms here and moves by 5-10 ms from one to the next, so
# the ratio of two medians moved by 0.02 between runs: the paired
# differences cancel what both launches of a round share, and the interval
# (order statistics of the differences: no assumption about their
# distribution) says whether the goal is met, missed, or not settled by
# this many rounds. Needs root and Slurm; otherwise says why and exits 0.
# Environment: LAUNCH_ROUNDS (default 60), cluster.sh's knobs.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
here=$(cd "$(dirname "$0")" && pwd)
rounds=${LAUNCH_ROUNDS:-60}

# shellcheck source=bench/cluster_bench.sh
. "$here/cluster_bench.sh"
bench_cluster launch

now() { date +%s%N; }
one() {	# microseconds one srun takes, or "fail"
	local t0 t1
	t0=$(now)
	run_as_user srun -n2 "$@" true >/dev/null 2>&1 || { echo fail; return; }
	t1=$(now)
	echo $(((t1 - t0) / 1000))
}
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# The sorted differences' lowest and highest order statistics that bound
# their median with at least 95 % confidence: the largest k with
# P(Binomial(n, 1/2) < k) <= 0.025 gives [d(k), d(n + 1 - k)].
median_ci() {
	sort -n | awk '{ v[NR] = $1 } END {
		n = NR; p = 0.5 ^ n; cdf = 0; k = 0
		for (i = 0; i < n && cdf + p <= 0.025; i++) { cdf += p; p = p * (n - i) / (i + 1); k = i + 1 }
		if (k < 1) { print "none none"; exit }
		print v[k], v[n + 1 - k] }'
}
ms() { awk -v u="$1" 'BEGIN { printf "%.1f", u / 1000 }'; }
ratio() { awk -v a="$1" -v d="$2" 'BEGIN { printf "%.3f", (a + d) / a }'; }

# One of each first: the topology cache and the state file exist from then on.
one >/dev/null
one --binding=linear:1 >/dev/null
plain="" bound="" diffs="" fails=0
for i in $(seq 1 "$rounds"); do
	if [ $((i % 2)) = 1 ]; then
		a=$(one) b=$(one --binding=linear:1)
	else
		b=$(one --binding=linear:1) a=$(one)
	fi
	[ "$a" = fail ] || [ "$b" = fail ] && { fails=$((fails + 1)); continue; }
	plain="$plain$a
" bound="$bound$b
" diffs="$diffs$((b - a))
"
done
[ -n "$plain" ] || { echo "launch: Slurm $E2E_SLURM: every round failed"; exit 1; }
mp=$(printf '%s' "$plain" | median) mb=$(printf '%s' "$bound" | median)
md=$(printf '%s' "$diffs" | median)
read -r lo hi < <(printf '%s' "$diffs" | median_ci)
n=$((rounds - fails))
echo "launch: Slurm $E2E_SLURM: $n x srun -n2 true, median $(ms "$mp") ms ($E2E_MODE)"
echo "launch: $n x srun -n2 --binding=linear:1 true, median $(ms "$mb") ms"
note=
[ "$fails" -gt 0 ] && note=", $fails failed rounds left out"
if [ "$lo" = none ]; then
	echo "launch: Slurm $E2E_SLURM: median difference $(ms "$md") ms, ratio $(ratio "$mp" "$md") (goal <= 1.01; too few rounds for an interval)$note"
	exit 0
fi
verdict="not settled by $n rounds"
if awk -v a="$mp" -v d="$hi" 'BEGIN { exit !((a + d) / a <= 1.01) }'; then
	verdict="met"
elif awk -v a="$mp" -v d="$lo" 'BEGIN { exit !((a + d) / a > 1.01) }'; then
	verdict="missed"
fi
echo "launch: Slurm $E2E_SLURM: median difference $(ms "$md") ms (95 % $(ms "$lo") to $(ms "$hi") ms), ratio $(ratio "$mp" "$md") ($(ratio "$mp" "$lo")-$(ratio "$mp" "$hi")); goal <= 1.01: $verdict$note"
