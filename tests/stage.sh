#!/bin/sh
# One stage of make check's lanes (Makefile: check-guests, check-rest, check-gang):
#   sh tests/stage.sh RESULTS NAME CMD...
# runs CMD and always exits 0, so that the lane's next stages run too. A
# stage that exits non-zero appends "stage:NAME 0 1 0" to RESULTS: one that
# failed without counting (a compiler error, a crash) still fails the
# summary, and one that counted its failures says which stage they came from.
[ $# -ge 3 ] || { echo "usage: $0 RESULTS NAME CMD..." >&2; exit 2; }
results=$1 name=$2
shift 2

# The CPU a stage used, not only its length: the lanes share two CPUs, so a
# stage's seconds say little about what it costs the others. Where no
# cgroup can count it (tests/cpucount.sh) the stage reports its length alone.
. "$(dirname "$0")/cpucount.sh"

t0=$(cut -d' ' -f1 /proc/uptime)
cpucount_enter spank-binding-stage && trap 'cpucount_leave; exit 130' INT TERM
"$@"
rc=$?
# Its length beside the results (a lane's time is the sum of its stages'):
# docs/testing.md's figures come from these lines.
t1=$(cut -d' ' -f1 /proc/uptime)
cpu=
if [ -n "$cpucount_dir" ]; then
	cpu=$((($(cpucount_usec) + 500000) / 1000000))
	cpucount_leave
fi
awk -v n="$name" -v a="$t0" -v b="$t1" -v c="$cpu" \
	'BEGIN { printf "stage %s: %.0f s%s\n", n, b - a, c == "" ? "" : ", " c " CPU-seconds" }' |
	tee -a "$results.times"
if [ $rc -ne 0 ]; then
	echo "stage $name: exited $rc"
	echo "stage:$name 0 1 0" >>"$results"
fi
exit 0
