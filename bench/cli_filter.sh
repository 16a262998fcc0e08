#!/bin/bash
# Cost of the cli_filter (`make bench`): on a private cluster
# (tests/e2e/cluster.sh), alternately 20 x `srun -n2 --binding=linear:1 true`
# without Slurm's cli_filter/lua and 20 x the same with the project's
# cli_filter.lua (which runs `sbind submit` once), as the job user; prints
# both medians, their ratio and difference (goal: the filter adds at most
# 5 ms), and, as the part of it that is ours, the median of 20 direct runs
# of the `sbind submit` the filter runs, against `sh -c true` in the same
# run (the anchor: the fork and exec every io.popen costs); and the cpu
# time of both sruns, which a loaded machine inflates far less than their
# wall time. Alternating spreads machine noise
# over both series; nothing here is asserted. Needs root and Slurm;
# otherwise says why and exits 0.
# Environment: FILTER_ROUNDS (default 20), cluster.sh's knobs.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
here=$(cd "$(dirname "$0")" && pwd)
rounds=${FILTER_ROUNDS:-20}

if [ "$(id -u)" != 0 ]; then
	echo "bench cli_filter: skipped (needs root to run a private Slurm cluster)"
	exit 0
fi
for b in munged slurmctld slurmd srun; do
	command -v "$b" >/dev/null 2>&1 || { echo "bench cli_filter: skipped (no $b)"; exit 0; }
done
# shellcheck source=tests/e2e/cluster.sh
. "$here/../tests/e2e/cluster.sh"
cluster_start >/dev/null 2>&1 || { echo "bench cli_filter: the private cluster did not start"; exit 1; }
if [ -z "$E2E_PLUGIN" ] || [ ! -x "$E2E_BUILD/sbind" ]; then
	echo "bench cli_filter: skipped ($E2E_BUILD/spank_binding.so or sbind not built)"
	exit 0
fi

# "wall cpu" of one srun in microseconds (bash's time: the cpu is user +
# system of srun and every child it waited for, the filter's sh and sbind
# included; unlike the wall time it hardly grows with the machine's load),
# or "fail".
one() {
	local t rc
	t=$( { TIMEFORMAT='%3R %3U %3S'; time run_as_user srun -n2 --binding=linear:1 true \
		>/dev/null 2>&1; } 2>&1) || { echo fail; return; }
	set -- $t
	rc=$(awk -v r="$1" -v u="$2" -v s="$3" 'BEGIN { printf "%d %d", r * 1e6, (u + s) * 1e6 }')
	echo "$rc"
}
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ms() { awk -v u="$1" 'BEGIN { printf "%.1f", u / 1000 }'; }

# One of each first: the topology cache, the state file and the script's
# page cache exist from then on.
cluster_cli_filter off; one >/dev/null
cluster_cli_filter on; one >/dev/null
plain="" filtered="" cplain="" cfiltered="" fails=0
for _ in $(seq 1 "$rounds"); do
	cluster_cli_filter off; a=$(one)
	cluster_cli_filter on; b=$(one)
	[ "$a" = fail ] || [ "$b" = fail ] && { fails=$((fails + 1)); continue; }
	plain="$plain${a% *}
" filtered="$filtered${b% *}
" cplain="$cplain${a#* }
" cfiltered="$cfiltered${b#* }
"
done
# What the filter runs, alone: sh -c + sbind submit, as the lua's
# io.popen runs it; and the anchor, sh -c true, alternating with it.
direct="" anchor=""
for _ in $(seq 1 "$rounds"); do
	t0=${EPOCHREALTIME/[.,]/}
	sh -c "'$E2E_DIR/lib/sbind' submit --command srun --binding=linear:1 --ntasks=2 2>&1" >/dev/null
	t1=${EPOCHREALTIME/[.,]/}
	sh -c true
	t2=${EPOCHREALTIME/[.,]/}
	direct="$direct$((t1 - t0))
" anchor="$anchor$((t2 - t1))
"
done
cluster_cli_filter off
mp=$(printf '%s' "$plain" | median) mf=$(printf '%s' "$filtered" | median)
cp=$(printf '%s' "$cplain" | median) cf=$(printf '%s' "$cfiltered" | median)
md=$(printf '%s' "$direct" | median) ma=$(printf '%s' "$anchor" | median)
note=
[ "$fails" -gt 0 ] && note=", $fails failed rounds left out"
echo "cli_filter: $rounds x srun -n2 --binding=linear:1 true without the filter, median $(ms "$mp") ms ($E2E_MODE)"
echo "cli_filter: $rounds x the same with cli_filter.lua, median $(ms "$mf") ms"
echo "cli_filter: median ratio $(awk -v a="$mp" -v b="$mf" 'BEGIN { printf "%.3f", b / a }'), difference $(awk -v a="$mp" -v b="$mf" 'BEGIN { printf "%.1f", (b - a) / 1000 }') ms (goal <= 5 ms)$note"
echo "cli_filter: cpu time (user + system, srun and its children): median $(ms "$cp") ms without, $(ms "$cf") ms with the filter, ratio $(awk -v a="$cp" -v b="$cf" 'BEGIN { printf "%.3f", b / a }'), difference $(awk -v a="$cp" -v b="$cf" 'BEGIN { printf "%.1f", (b - a) / 1000 }') ms"
echo "cli_filter: of which sh -c 'sbind submit ...' (the filter's io.popen) alone: median $(ms "$md") ms of $rounds, $(awk -v a="$ma" -v d="$md" 'BEGIN { printf "%.1f", d / a }') x the anchor sh -c true ($(ms "$ma") ms)"
