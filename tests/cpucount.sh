# Sourced (sh or bash): a cgroup that counts the CPU of every process
# started in it, Slurm's daemons and QEMU too (not job tasks that Slurm
# moves into a cgroup v2 tree of its own). tests/stage.sh counts each of
# make check's stages in one, bench/launch.sh each launch.
#   cpucount_enter NAME  moves this shell into a new cgroup NAME.PID below
#                        its own (root; cgroup v1's cpuacct, or v2);
#                        returns 1, and counts nothing, where it cannot
#   cpucount_usec        the cgroup's CPU so far, in microseconds (shell
#                        builtins only: reading it starts no process)
#   cpucount_leave       back to the parent, with whatever is left inside
# None is made where the cpu controller would weigh the cgroup against its
# siblings (cpu and cpuacct mounted together in v1, cpu enabled in v2):
# the processes would then share the CPU group by group instead of process
# by process, and so change the run being measured.
cpucount_dir= cpucount_file= cpucount_parent=
cpucount_enter() {
	local own ctrls
	[ "$(id -u)" = 0 ] || return 1
	own=$(awk -F: '$2 ~ /(^|,)cpuacct(,|$)/ { print $2 ":" $3 }' /proc/self/cgroup)
	if [ -n "$own" ]; then
		ctrls=${own%%:*} own=${own#*:}
		case ",$ctrls," in *,cpu,*) return 1 ;; esac
		cpucount_parent=/sys/fs/cgroup/cpuacct${own%/} cpucount_file=cpuacct.usage
	elif [ -f /sys/fs/cgroup/cgroup.controllers ]; then
		own=$(sed -n 's/^0:://p' /proc/self/cgroup)
		cpucount_parent=/sys/fs/cgroup${own%/} cpucount_file=cpu.stat
		grep -qw cpu "$cpucount_parent/cgroup.subtree_control" 2>/dev/null && return 1
	else
		return 1
	fi
	[ -w "$cpucount_parent/cgroup.procs" ] || return 1
	cpucount_dir=$cpucount_parent/$1.$$
	mkdir "$cpucount_dir" 2>/dev/null && echo $$ >"$cpucount_dir/cgroup.procs" 2>/dev/null && return 0
	rmdir "$cpucount_dir" 2>/dev/null
	cpucount_dir=
	return 1
}
cpucount_usec() {
	local k v
	case $cpucount_file in
	cpuacct.usage)
		read -r v <"$cpucount_dir/cpuacct.usage"
		echo $((v / 1000)) ;;
	cpu.stat)
		while read -r k v; do
			[ "$k" = usage_usec ] && { echo "$v"; return; }
		done <"$cpucount_dir/cpu.stat" ;;
	esac
}
cpucount_leave() {
	local p
	[ -n "$cpucount_dir" ] || return 0
	echo $$ >"$cpucount_parent/cgroup.procs" 2>/dev/null
	for p in $(cat "$cpucount_dir/cgroup.procs" 2>/dev/null); do
		echo "$p" >"$cpucount_parent/cgroup.procs" 2>/dev/null
	done
	rmdir "$cpucount_dir" 2>/dev/null
	cpucount_dir=
}
