#!/bin/bash
# Launch cost of the plugin (`make bench`): on a private cluster
# (tests/e2e/cluster.sh), LAUNCH_ROUNDS rounds of one `srun -n2 true` and
# one `srun -n2 --binding=linear:1 true` as the job user, the two in turn
# first; for the wall time and for the CPU time, prints both medians, the
# median of the rounds' differences with its 95 % confidence interval, and
# the ratio (goal <= 1.01, on every Slurm release: bench/releases.sh runs
# this in each release's chroot).
# The CPU is that of every process of the launch: srun, slurmctld, slurmd,
# slurmstepd (where the plugin's work is) and the tasks, counted by a
# cgroup the cluster starts in (tests/cpucount.sh). A launch's wall time
# here moves by tens of ms from one to the next, on Slurm's own timers,
# far more than the 1 % asked; the plugin writes no file with fsync and
# waits on no lock here, so what it adds to a launch is CPU, and the CPU
# of a launch moves by far less. The interval (order statistics of the
# differences: no assumption about their distribution) says whether the
# goal is met, missed, or not settled by this many rounds.
# Needs root and Slurm; otherwise says why and exits 0.
# Environment: LAUNCH_ROUNDS (default 60), cluster.sh's knobs.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
here=$(cd "$(dirname "$0")" && pwd)
rounds=${LAUNCH_ROUNDS:-60}

# shellcheck source=tests/cpucount.sh
. "$here/../tests/cpucount.sh"
cpucount_enter spank-binding-launch
trap 'cpucount_leave' EXIT
# shellcheck source=bench/cluster_bench.sh
. "$here/cluster_bench.sh"
# shellcheck source=bench/stats.sh
. "$here/stats.sh"
bench_cluster launch
trap 'cluster_stop; cpucount_leave' EXIT
trap 'cluster_stop; cpucount_leave; trap - EXIT; exit 130' INT TERM

now() { date +%s%N; }
one() {	# "wall cpu" of one srun in microseconds (cpu 0 uncounted), or "fail"
	local t0 t1 c0=0 c1=0
	[ -n "$cpucount_dir" ] && c0=$(cpucount_usec)
	t0=$(now)
	run_as_user srun -n2 "$@" true >/dev/null 2>&1 || { echo fail; return; }
	t1=$(now)
	[ -n "$cpucount_dir" ] && c1=$(cpucount_usec)
	echo $(((t1 - t0) / 1000)) $((c1 - c0))
}
ratio() { awk -v a="$1" -v d="$2" 'BEGIN { printf "%.3f", (a + d) / a }'; }
# report WHAT "PLAIN..." "BOUND..." "DIFFS...": one figure's lines
report() {
	local what=$1 mp mb md lo hi rlo rhi verdict
	mp=$(printf '%s' "$2" | median) mb=$(printf '%s' "$3" | median)
	md=$(printf '%s' "$4" | median)
	read -r lo hi < <(printf '%s' "$4" | median_ci)
	echo "launch: Slurm $E2E_SLURM: $what: srun -n2 true $(ms "$mp") ms, with --binding=linear:1 $(ms "$mb") ms (medians of $n)"
	if [ "$lo" = none ]; then
		echo "launch: Slurm $E2E_SLURM: $what: median difference $(ms "$md") ms, ratio $(ratio "$mp" "$md") (goal <= 1.01; too few rounds for an interval)$note"
		return
	fi
	# judged on the interval's ends as printed
	rlo=$(ratio "$mp" "$lo") rhi=$(ratio "$mp" "$hi")
	verdict=$(awk -v lo="$rlo" -v hi="$rhi" -v n="$n" 'BEGIN {
		if (hi <= 1.01) print "met"; else if (lo > 1.01) print "missed"
		else print "not settled by " n " rounds" }')
	echo "launch: Slurm $E2E_SLURM: $what: median difference $(ms "$md") ms (95 % $(ms "$lo") to $(ms "$hi")), ratio $(ratio "$mp" "$md") ($rlo to $rhi); goal <= 1.01: $verdict$note"
}

# One of each first: the topology cache and the state file exist from then on.
one >/dev/null
one --binding=linear:1 >/dev/null
wp="" wb="" wd="" cp="" cb="" cdiff="" fails=0
for i in $(seq 1 "$rounds"); do
	if [ $((i % 2)) = 1 ]; then
		a=$(one) b=$(one --binding=linear:1)
	else
		b=$(one --binding=linear:1) a=$(one)
	fi
	[ "$a" = fail ] || [ "$b" = fail ] && { fails=$((fails + 1)); continue; }
	read -r aw ac <<<"$a"
	read -r bw bc <<<"$b"
	wp="$wp$aw
" wb="$wb$bw
" wd="$wd$((bw - aw))
" cp="$cp$ac
" cb="$cb$bc
" cdiff="$cdiff$((bc - ac))
"
done
n=$((rounds - fails))
[ "$n" -gt 0 ] || { echo "launch: Slurm $E2E_SLURM: every round failed"; exit 1; }
note=
[ "$fails" -gt 0 ] && note=", $fails failed rounds left out"
echo "launch: Slurm $E2E_SLURM ($E2E_MODE), $n rounds"
report "wall time" "$wp" "$wb" "$wd"
if [ -n "$cpucount_dir" ]; then
	report "CPU time" "$cp" "$cb" "$cdiff"
else
	echo "launch: Slurm $E2E_SLURM: CPU time: not counted (no cgroup could count it: tests/cpucount.sh)"
fi
