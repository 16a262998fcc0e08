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
# stage's seconds say little about what it costs the others. The stage runs
# in a cgroup of its own below the one it started in (root; cgroup v1's
# cpuacct, or v2), whose counter every process it starts adds to, Slurm's
# daemons and QEMU too (not job tasks that Slurm moves into a cgroup v2
# tree of its own). Only where that cgroup cannot weigh CPU: a group that
# the cpu controller weighs against its siblings would share the CPU
# stage by stage instead of process by process, and so change the run it
# measures (cpu and cpuacct mounted together in v1, cpu enabled in v2).
# Otherwise the stage reports its length alone.
cg= cg_usage= cg_parent=
cg_enter() {
	local own ctrls
	own=$(awk -F: '$2 ~ /(^|,)cpuacct(,|$)/ { print $2 ":" $3 }' /proc/self/cgroup)
	if [ -n "$own" ]; then
		ctrls=${own%%:*} own=${own#*:}
		case ",$ctrls," in *,cpu,*) return 1 ;; esac
		cg_parent=/sys/fs/cgroup/cpuacct${own%/} cg_usage=cpuacct.usage
	elif [ -f /sys/fs/cgroup/cgroup.controllers ]; then
		own=$(sed -n 's/^0:://p' /proc/self/cgroup)
		cg_parent=/sys/fs/cgroup${own%/} cg_usage=cpu.stat
		grep -qw cpu "$cg_parent/cgroup.subtree_control" 2>/dev/null && return 1
	else
		return 1
	fi
	[ -w "$cg_parent/cgroup.procs" ] || return 1
	cg=$cg_parent/spank-binding-stage.$$
	mkdir "$cg" 2>/dev/null && echo $$ >"$cg/cgroup.procs" 2>/dev/null && return 0
	rmdir "$cg" 2>/dev/null
	cg=
	return 1
}
cg_seconds() {	# the cgroup's CPU so far, in seconds
	case $cg_usage in
	cpuacct.usage) awk '{ printf "%.0f", $1 / 1e9 }' "$cg/cpuacct.usage" ;;
	cpu.stat) awk '$1 == "usage_usec" { printf "%.0f", $2 / 1e6 }' "$cg/cpu.stat" ;;
	esac
}
cg_leave() {	# back to the parent; processes the stage left behind go too
	local p
	echo $$ >"$cg_parent/cgroup.procs" 2>/dev/null
	for p in $(cat "$cg/cgroup.procs" 2>/dev/null); do
		echo "$p" >"$cg_parent/cgroup.procs" 2>/dev/null
	done
	rmdir "$cg" 2>/dev/null
}

t0=$(cut -d' ' -f1 /proc/uptime)
[ "$(id -u)" = 0 ] && cg_enter && trap 'cg_leave; exit 130' INT TERM
"$@"
rc=$?
# Its length beside the results (a lane's time is the sum of its stages'):
# docs/testing.md's figures come from these lines.
t1=$(cut -d' ' -f1 /proc/uptime)
cpu=
if [ -n "$cg" ]; then
	cpu=$(cg_seconds)
	cg_leave
fi
awk -v n="$name" -v a="$t0" -v b="$t1" -v c="$cpu" \
	'BEGIN { printf "stage %s: %.0f s%s\n", n, b - a, c == "" ? "" : ", " c " CPU-seconds" }' |
	tee -a "$results.times"
if [ $rc -ne 0 ]; then
	echo "stage $name: exited $rc"
	echo "stage:$name 0 1 0" >>"$results"
fi
exit 0
