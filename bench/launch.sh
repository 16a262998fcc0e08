#!/bin/bash
# Launch cost of the plugin (`make bench`): on a private cluster
# (tests/e2e/cluster.sh), alternately 20 x `srun -n2 true` and 20 x
# `srun -n2 --binding=linear:1 true` as the job user; prints both medians
# and their ratio (goal <= 1.01, on every Slurm release: bench/releases.sh
# runs this in each release's chroot). Alternating spreads machine noise
# over both series. Needs root and Slurm; otherwise says why and exits 0.
# Environment: LAUNCH_ROUNDS (default 20), cluster.sh's knobs.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
here=$(cd "$(dirname "$0")" && pwd)
rounds=${LAUNCH_ROUNDS:-20}

. "$here/cluster_bench.sh"
bench_cluster launch

now() { date +%s%N; }
one() {	# seconds one srun takes, or "fail"
	local t0 t1
	t0=$(now)
	run_as_user srun -n2 "$@" true >/dev/null 2>&1 || { echo fail; return; }
	t1=$(now)
	echo $(((t1 - t0) / 1000))
}
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# One of each first: the topology cache and the state file exist from then on.
one >/dev/null
one --binding=linear:1 >/dev/null
plain="" bound="" fails=0
for _ in $(seq 1 "$rounds"); do
	a=$(one) b=$(one --binding=linear:1)
	[ "$a" = fail ] || [ "$b" = fail ] && { fails=$((fails + 1)); continue; }
	plain="$plain$a
" bound="$bound$b
"
done
mp=$(printf '%s' "$plain" | median) mb=$(printf '%s' "$bound" | median)
echo "launch: Slurm $E2E_SLURM: $rounds x srun -n2 true, median $(awk -v u="$mp" 'BEGIN { printf "%.1f", u / 1000 }') ms ($E2E_MODE)"
echo "launch: $rounds x srun -n2 --binding=linear:1 true, median $(awk -v u="$mb" 'BEGIN { printf "%.1f", u / 1000 }') ms"
note=
[ "$fails" -gt 0 ] && note=", $fails failed rounds left out"
echo "launch: Slurm $E2E_SLURM: median ratio $(awk -v a="$mp" -v b="$mb" 'BEGIN { printf "%.3f", b / a }') (goal <= 1.01)$note"
