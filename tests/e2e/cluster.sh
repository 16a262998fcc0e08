#!/bin/bash
# A private one-node Slurm cluster (22.05, 24.11 or 26.05) on loopback, for the end-to-end
# tests and the demo. Needs root and the Debian packages munge, slurmctld,
# slurmd, slurm-client. Nothing system-wide is touched: no systemctl, no
# /etc/slurm, no /run/munge; every file lives in one temporary directory and
# only the processes started here are ever signalled (by recorded pid).
#
# Use as a library (bash):
#   . tests/e2e/cluster.sh
#   cluster_start [plugstack args...]   # e.g. cluster_start verbose on_failure=fail
#   ...                                 # SLURM_CONF etc. are exported
#   cluster_stop                        # also runs from the EXIT/INT/TERM trap
# or as a command, to keep a cluster for hands-on work:
#   bash tests/e2e/cluster.sh start [args]  # prints the dir; daemons stay up
#   bash tests/e2e/cluster.sh stop DIR
#
# Exported after cluster_start:
#   E2E_DIR      the temporary directory (mode 755; logs in $E2E_DIR/log)
#   SLURM_CONF   $E2E_DIR/slurm.conf, for every client command
#   E2E_NODE     node name (unique per cluster, see below), E2E_PARTITION
#   (the default: OverSubscribe=FORCE:2), E2E_PARTITION_NOSHARE (the same
#   nodes, OverSubscribe=NO: jobs wait for free cores, --exclusive holds)
#   E2E_USER, E2E_UID  unprivileged job user (created with useradd if missing)
#   E2E_WORK     directory owned by that user; jobs run from there
#   E2E_STATE    the plugin's state_dir= (added to plugstack args unless given)
#   E2E_PLUGIN   the plugin copy listed in plugstack.conf, or empty when
#                $BINDING_BUILD/spank_binding.so was not built
#   E2E_SBIND    a copy of $BINDING_BUILD/sbind the job user can run, or
#                empty when it was not built
#   E2E_MODE     cgroup-v1 or linuxproc (which process tracking/binding works)
#   E2E_CPUS     the node's CPUs as a list ("0-1"); E2E_NCPUS their number
#   E2E_PLUGSTACK_DEFAULT  the plugstack args cluster_start was given
#   E2E_SLURM    the Slurm release of the daemons ("22.05"); slurm_at_least 24.11
#   E2E_NODES    how many slurmd nodes (1, or 2 with E2E_NODES=2);
#   E2E_NODE_LIST  their names, space separated (E2E_NODE is the first)
#
# Two nodes on one host (E2E_NODES=2): nodes e2e-<suffix>1 and e2e-<suffix>2,
# each slurmd with its own Port, started under `unshare --uts --mount`: its
# own host name (= node name, also NodeHostname) and a private tmpfs mounted
# over $E2E_STATE, so each node has its own state file and topology cache,
# as on two machines. Both see the host's cpus. From the host, a node's
# state dir is read through its slurmd's mount namespace (node_exec).
#
# Why the node name is not the host name: with cgroup v1, slurmd's cgroups
# are /sys/fs/cgroup/<ctrl>/slurm_<node>/uid_<u>/job_<id>; two clusters on
# one machine (engineers working in parallel) would both have job 1 there.
# Debian's Slurm is built with MULTIPLE_SLURMD, so `slurmd -N <name>` works.
#
# Knobs (environment): E2E_USER (default bindtest), E2E_CGROUP=auto|v1|v2|none
# (v2: pure cgroup v2 without systemd, as in the guest node), E2E_CR
# (SelectTypeParameters, default CR_Core_Memory: Slurm then hands each step its
# memory, S_STEP_ALLOC_MEM, which the plugin accounts per NUMA node; the node's
# RealMemory is slurmd -C's), E2E_DEFMEM (DefMemPerCPU in MB, default 64: small
# enough that every job of the tests shares the node as with CR_Core), E2E_NODES=1|2, E2E_POLL (seconds
# between polls, default 0.1; a check that takes longer naps twice its time),
# E2E_DEBUG (SlurmdDebug/SlurmctldDebug level, default info), E2E_FIRST_JOB_ID
# (FirstJobId, default 1: two clusters on one state dir must not share job
# ids, tests/releases/upgrade_new.sh), E2E_GANG=1
# (PreemptMode=GANG: oversubscribed jobs are time-sliced every 5 s),
# E2E_GPUS=N (GRES: N fake GPUs, device files $E2E_DIR/dev/fakegpu0.. of
# character major 195 with no driver behind them, in $E2E_DIR/gres.conf;
# the node says Gres=gpu:N), E2E_CONSTRAIN_DEVICES=yes|no (cgroup.conf,
# default no), KEEP_E2E=1 (keep the directory after stopping), BINDING_BUILD, E2E_TMPDIR
# (where the cluster directory is made, default /tmp; every directory above
# it must be traversable by the job user), E2E_CLI_FILTER=1
# (CliFilterPlugins=cli_filter/lua with the project's cli_filter.lua, see
# cluster_cli_filter).

E2E_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
E2E_BUILD=${BINDING_BUILD:-$E2E_ROOT/build}
E2E_USER=${E2E_USER:-bindtest}
export E2E_ROOT E2E_BUILD E2E_USER

_e2e_say() { echo "cluster: $*" >&2; }

_e2e_now() { date +%s.%N; }

# Polling without starting programs. Each program started costs about
# 80 ms of CPU in the guest node (single-threaded TCG: one host CPU for all
# its vCPUs), and a wait loop that ran `date`, two `awk` and `sleep` every
# 0.1 s kept that CPU from the Slurm daemons it waited for. A deadline is
# microseconds since the epoch (bash's EPOCHREALTIME, its decimal point
# dropped); a nap is `read -t` on a pipe no one writes (E2E_POLL seconds,
# 0.1 by default, 0.2 in the guest). A poll whose check itself takes long
# (scontrol in the guest: a few tenths of a second) naps twice that long,
# so that waiting never takes more than a third of the CPU it waits for.
e2e_deadline() {	# SECONDS: the deadline that many seconds from now
	echo $(( ${EPOCHREALTIME//[!0-9]/} + ${1%.*} * 1000000 ))
}
e2e_before() { [ "${EPOCHREALTIME//[!0-9]/}" -lt "$1" ]; }	# DEADLINE
e2e_nap() {	# [CHECK_US]: E2E_POLL seconds, or twice the check's time if longer
	local p=${E2E_POLL:-0.1} i f us t
	i=${p%%.*} f=
	[ "$i" = "$p" ] || f=${p#*.}
	f=${f}000000
	us=$(( 10#${i:-0} * 1000000 + 10#${f:0:6} ))
	[ $(( 2 * ${1:-0} )) -gt "$us" ] && us=$(( 2 * $1 ))
	printf -v t '%d.%06d' $(( us / 1000000 )) $(( us % 1000000 ))
	[ -n "${_E2E_NAP_FD:-}" ] && [ "${_E2E_NAP_PID:-}" = "$BASHPID" ] ||
		{ exec {_E2E_NAP_FD}<> <(:); _E2E_NAP_PID=$BASHPID; }
	read -r -t "$t" -u "$_E2E_NAP_FD" _ || :
	return 0
}

_e2e_elapsed() { awk -v a="$1" -v b="$(_e2e_now)" 'BEGIN { printf "%.1f", b - a }'; }
# Where a cluster start spent its time (its "up in" line): _e2e_mark NAME
# appends "NAME S.S" since the previous mark, from bash's clock (no program).
_e2e_mark() {
	local now=${EPOCHREALTIME/[.,]/}
	_E2E_MARKS="${_E2E_MARKS:+$_E2E_MARKS, }$1 $(((now - _E2E_MARK0) / 1000000)).$(((now - _E2E_MARK0) / 100000 % 10))"
	_E2E_MARK0=$now
}

# Why a random probe: fixed ports collide with a second cluster or a real
# Slurm; ss tells what is listening now. Below the kernel's ephemeral range:
# a port chosen inside it could become the source port of a daemon's own
# connection before the daemon meant to listen on it binds (seen: "Unable
# to bind listen port ... Address already in use" for the second node).
_e2e_free_port() {	# [N]: N (default 1) distinct free ports, space-separated
	local p lo busy got=" " n=0 k
	read -r lo _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null
	[ "${lo:-0}" -gt 12000 ] 2>/dev/null || lo=32768
	# One listing, read in the shell: each program costs the guest node
	# about 80 ms, and this ran cut, seq and ss per port.
	busy=" $(ss -Htln 2>/dev/null | awk '{ sub(/.*:/, "", $4); printf "%s ", $4 }')"
	for ((k = 0; k < 200; k++)); do
		p=$((10000 + RANDOM % (lo - 10000)))
		case "$busy$got" in *" $p "*) continue ;; esac
		got="$got$p " n=$((n + 1))
		[ "$n" -lt "${1:-1}" ] && continue
		got=${got# } && echo "${got% }"
		return 0
	done
	return 1
}

_e2e_ensure_user() {
	if ! id -u "$E2E_USER" >/dev/null 2>&1; then
		_e2e_say "creating test user $E2E_USER (useradd, uid >= 1000, no home)"
		useradd -M -U -s /bin/sh -c "spank-binding e2e tests" "$E2E_USER" || return 1
	fi
	E2E_UID=$(id -u "$E2E_USER") E2E_GID=$(id -g "$E2E_USER")
	if [ "$E2E_UID" -lt 1000 ]; then
		_e2e_say "user $E2E_USER has uid $E2E_UID < 1000; set E2E_USER to a normal user"
		return 1
	fi
	export E2E_UID E2E_GID
}

# cgroup v1 is usable when the cpuset and freezer controllers are mounted as
# v1 hierarchies we can write to (slurmd creates slurm_<node> under them).
_e2e_cgroup_v1_usable() {
	local c
	for c in cpuset freezer; do
		[ "$(stat -f -c %T "/sys/fs/cgroup/$c" 2>/dev/null)" = cgroupfs ] || return 1
		[ -f "/sys/fs/cgroup/$c/cgroup.procs" ] || return 1
		[ -w "/sys/fs/cgroup/$c" ] || return 1
		touch "/sys/fs/cgroup/$c/cgroup.procs" 2>/dev/null || return 1
	done
	# A read-only bind mount passes -w as root; probe with a real mkdir.
	local probe=/sys/fs/cgroup/cpuset/binding-e2e-probe.$$
	mkdir "$probe" 2>/dev/null || return 1
	rmdir "$probe"
}

# CgroupAutomount=yes: 22.05's cgroup/v2 enables the controllers it needs
# with it; since 24.11 it always does, and logs the key as defunct.
_e2e_automount() { slurm_at_least 24.11 || printf '\nCgroupAutomount=yes'; }

_e2e_write_conf() {
	local mode=$1 d=$E2E_DIR
	local proctrack task
	if [ "$mode" = cgroup-v2 ]; then
		# Pure cgroup v2 without systemd (the guest node): slurmd makes its
		# own system.slice/<node>_slurmstepd.scope, which needs the
		# controllers enabled above it (tests/guest/stage2.sh does that).
		proctrack=proctrack/cgroup
		task=task/cgroup,task/affinity
		cat >"$d/cgroup.conf" <<-EOF
			CgroupPlugin=cgroup/v2
			CgroupMountpoint=/sys/fs/cgroup
			IgnoreSystemd=yes$(_e2e_automount)
			ConstrainCores=yes
			ConstrainRAMSpace=no
			ConstrainDevices=${E2E_CONSTRAIN_DEVICES:-no}
		EOF
	elif [ "$mode" = cgroup-v1 ]; then
		proctrack=proctrack/cgroup
		task=task/cgroup,task/affinity
		cat >"$d/cgroup.conf" <<-EOF
			CgroupPlugin=cgroup/v1
			CgroupMountpoint=/sys/fs/cgroup
			ConstrainCores=yes
			ConstrainRAMSpace=no
			ConstrainDevices=${E2E_CONSTRAIN_DEVICES:-no}
		EOF
	else
		proctrack=proctrack/linuxproc
		task=task/affinity
		# slurmd 22.05 loads a cgroup plugin even when no proctrack/task
		# plugin uses it. autodetect picks v1 on hybrid hosts; on a pure
		# cgroup v2 host without systemd, v2 can only start when it builds
		# its hierarchy itself (IgnoreSystemd) and enables the controllers
		# (CgroupAutomount). Both keys are ignored by cgroup/v1.
		cat >"$d/cgroup.conf" <<-EOF
			CgroupPlugin=autodetect
			IgnoreSystemd=yes$(_e2e_automount)
		EOF
	fi
	local preempt="PreemptMode=OFF"
	[ "${E2E_GANG:-0}" = 1 ] && preempt="PreemptType=preempt/none
PreemptMode=GANG"
	cat >"$d/slurm.conf" <<-EOF
		# Written by tests/e2e/cluster.sh ($mode)
		ClusterName=e2e
		SlurmctldHost=$(hostname -s)(127.0.0.1)
		SlurmctldPort=$E2E_CTLD_PORT
		SlurmdPort=$E2E_SLURMD_PORT
		SlurmUser=root
		SlurmdUser=root
		AuthType=auth/munge
		CredType=cred/munge
		AuthInfo=socket=$d/munge/munge.socket
		StateSaveLocation=$d/ctld
		SlurmdSpoolDir=$d/spool/%n
		SlurmctldPidFile=$d/run/slurmctld.pid
		SlurmdPidFile=$d/run/slurmd-%n.pid
		SlurmctldLogFile=$d/log/slurmctld.log
		SlurmdLogFile=$d/log/slurmd.log
		SlurmctldDebug=${E2E_DEBUG:-info}
		SlurmdDebug=${E2E_DEBUG:-info}
		PlugStackConfig=$d/plugstack.conf
		$(_e2e_gres_types)
		ProctrackType=$proctrack
		TaskPlugin=$task
		SelectType=select/cons_tres
		SelectTypeParameters=${E2E_CR:-CR_Core_Memory}
		DefMemPerCPU=${E2E_DEFMEM:-64}
		$([ -n "${E2E_SLURMD_PARAMS:-}" ] && echo "SlurmdParameters=$E2E_SLURMD_PARAMS")
		SchedulerType=sched/backfill
		SchedulerTimeSlice=5
		SchedulerParameters=batch_sched_delay=0
		$preempt
		AccountingStorageType=accounting_storage/none
		JobAcctGatherType=jobacct_gather/none
		JobCompType=jobcomp/none
		MailProg=/bin/true
		MpiDefault=none
		ReturnToService=2
		InactiveLimit=0
		EnforcePartLimits=ALL
		SlurmctldTimeout=60
		KillWait=2
		MinJobAge=600
		FirstJobId=${E2E_FIRST_JOB_ID:-1}
		$([ "${E2E_CLI_FILTER:-0}" = 1 ] && echo CliFilterPlugins=cli_filter/lua)
		$(_e2e_node_lines)
		PartitionName=$E2E_PARTITION Nodes=$(echo "$E2E_NODE_LIST" | tr ' ' ,) Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:2
		PartitionName=$E2E_PARTITION_NOSHARE Nodes=$(echo "$E2E_NODE_LIST" | tr ' ' ,) Default=NO MaxTime=INFINITE State=UP OverSubscribe=NO
	EOF
	chmod 644 "$d/slurm.conf" "$d/cgroup.conf"
}

_e2e_node_lines() {
	if [ "$E2E_NODES" = 1 ]; then
		echo "NodeName=$E2E_NODE NodeHostname=$(hostname -s) NodeAddr=127.0.0.1 $E2E_HW$(_e2e_gres) State=UNKNOWN"
		return
	fi
	local n i=0
	for n in $E2E_NODE_LIST; do
		i=$((i + 1))
		echo "NodeName=$n NodeHostname=$n NodeAddr=127.0.0.1 Port=$(_e2e_node_port "$i") $E2E_HW$(_e2e_gres) State=UNKNOWN"
	done
}

_e2e_node_port() { eval echo "\$E2E_SLURMD_PORT$1"; }

# The node's layout as slurmd reports it; with E2E_SLURMD_PARAMS (slurm.conf's
# SlurmdParameters, e.g. numa_node_as_socket) slurmd -C reads them from a
# slurm.conf of its own, so the node line matches what slurmd will see.
_e2e_slurmd_c() {
	if [ -z "${E2E_SLURMD_PARAMS:-}" ]; then slurmd -C 2>/dev/null; return; fi
	local c="$E2E_DIR/slurmd-C.conf"
	printf 'ClusterName=e2e\nSlurmctldHost=localhost\nSlurmdParameters=%s\n' "$E2E_SLURMD_PARAMS" >"$c"
	SLURM_CONF=$c slurmd -C -f "$c" 2>/dev/null
}

# GRES (E2E_GPUS=N, E2E_NUMAMEM): the node line's Gres=, GresTypes=, and
# gres.conf beside slurm.conf (slurmd and the plugin read it there): the
# fake GPUs' device files, and the numamem lines (docs/memory.md), which
# are `sbind gres-conf`'s (E2E_NUMAMEM=sbind, with E2E_NUMAMEM_ARGS) or a
# file's (E2E_NUMAMEM=PATH). The node line's numamem part is made from the
# same lines (Type= and Count=), so the two never disagree.
_e2e_gres() {
	local g=""
	[ "${E2E_GPUS:-0}" -gt 0 ] && g="gpu:$E2E_GPUS"
	[ -n "${E2E_NUMAMEM:-}" ] && g="$g${g:+,}$(awk '$1 == "Name=numamem" {
		t = ""; c = ""
		for (i = 2; i <= NF; i++) { if ($i ~ /^Type=/) t = substr($i, 6); if ($i ~ /^Count=/) c = substr($i, 7) }
		printf "%snumamem:%s:%s", n++ ? "," : "", t, c }' "$E2E_DIR/numamem.conf")"
	[ -n "$g" ] && echo " Gres=$g"
}

_e2e_gres_types() {
	local t=""
	[ "${E2E_GPUS:-0}" -gt 0 ] && t=gpu
	[ -n "${E2E_NUMAMEM:-}" ] && t="$t${t:+,}numamem"
	[ -n "$t" ] && echo "GresTypes=$t"
}

_e2e_gres_setup() {
	local i
	[ "${E2E_GPUS:-0}" -gt 0 ] || [ -n "${E2E_NUMAMEM:-}" ] || return 0
	: >"$E2E_DIR/gres.conf"
	chmod 644 "$E2E_DIR/gres.conf"
	if [ "${E2E_GPUS:-0}" -gt 0 ]; then
		mkdir -p "$E2E_DIR/dev" && chmod 755 "$E2E_DIR/dev" || return 1
		for i in $(seq 0 $((E2E_GPUS - 1))); do
			[ -e "$E2E_DIR/dev/fakegpu$i" ] || mknod -m 666 "$E2E_DIR/dev/fakegpu$i" c 195 "$i" ||
				return 1
		done
		printf 'AutoDetect=off\nName=gpu File=%s/dev/fakegpu[0-%d]\n' "$E2E_DIR" $((E2E_GPUS - 1)) \
			>>"$E2E_DIR/gres.conf"
	fi
	case "${E2E_NUMAMEM:-}" in
	"") return 0 ;;
	sbind) # shellcheck disable=SC2086 # several arguments
		"$E2E_BUILD/sbind" gres-conf ${E2E_NUMAMEM_ARGS:-} >"$E2E_DIR/numamem.conf" || return 1 ;;
	*) cp "$E2E_NUMAMEM" "$E2E_DIR/numamem.conf" || return 1 ;;
	esac
	grep -q '^Name=numamem ' "$E2E_DIR/numamem.conf" || return 1
	cat "$E2E_DIR/numamem.conf" >>"$E2E_DIR/gres.conf"
}

# Starts the slurmd of node NAME (recorded as slurmd). With two nodes it
# gets its own UTS and mount namespace: host name NAME and a private tmpfs
# over the plugin's state dir (unshare makes the mounts private, so nothing
# leaks to the host). unshare and sh exec, so the recorded pid is slurmd's.
_e2e_spawn_slurmd() {
	local n=$1
	mkdir -p "$E2E_DIR/spool/$n"
	if [ "$E2E_NODES" = 1 ]; then
		_e2e_spawn slurmd "$E2E_DIR/log/slurmd.out" slurmd -D -f "$E2E_DIR/slurm.conf" -N "$n"
		return
	fi
	mkdir -p "$E2E_STATE"
	# shellcheck disable=SC2016 # expanded by the inner shell
	_e2e_spawn slurmd "$E2E_DIR/log/slurmd-$n.out" unshare --uts --mount --propagation private \
		sh -c 'hostname "$1" && mount -t tmpfs -o mode=0755,size=16m binding-state "$2" &&
			exec slurmd -D -f "$3" -N "$1"' sh "$n" "$E2E_STATE" "$E2E_DIR/slurm.conf"
}

# node_exec NODE CMD...: CMD in NODE's mount and UTS namespace (its state
# dir); on a one-node cluster simply CMD. -r: with slurmd's root, not the
# mount namespace's (entering one resets the root to it; under a release
# chroot that would be the host's /).
node_exec() {
	local n=$1 pid; shift
	if [ "$E2E_NODES" = 1 ]; then "$@"; return; fi
	for pid in $(awk '$1 == "slurmd" { print $2 }' "$E2E_DIR/run/daemons"); do
		[ "$(tr -d '\n' <"/proc/$pid/comm" 2>/dev/null)" = slurmd ] || continue
		case " $(tr '\0' ' ' <"/proc/$pid/cmdline") " in
		*" -N $n "*) nsenter -t "$pid" -m -u -r -- "$@"; return ;;
		esac
	done
	_e2e_say "node_exec: no slurmd for node $n"
	return 1
}

# Writes plugstack.conf: the freshly built plugin (copied into the cluster
# dir so the job user can read it wherever the checkout lives) with ARGS, or
# nothing when it was not built. srun, sbatch and every slurmstepd re-read
# the file, so a test may call this between jobs; slurmd only at start (see
# cluster_restart_slurmd).
cluster_plugstack() {
	local args="$*" so="$E2E_BUILD/spank_binding.so"
	case " $args " in *" state_dir="*) ;; *) args="state_dir=$E2E_STATE${args:+ $args}" ;; esac
	if [ -f "$so" ]; then
		# rename, never overwrite: running slurmstepds have the old copy
		# mapped. The copy keeps the build's time (cp -p), so a copy of the
		# same time is not made again: run.sh writes plugstack.conf after
		# every file, and each program costs the guest node about 80 ms.
		if [ ! -f "$E2E_DIR/lib/spank_binding.so" ] || [ "$so" -nt "$E2E_DIR/lib/spank_binding.so" ] ||
			[ "$so" -ot "$E2E_DIR/lib/spank_binding.so" ]; then
			mkdir -p "$E2E_DIR/lib" &&
				cp -p "$so" "$E2E_DIR/lib/.spank_binding.so.new" &&
				chmod 755 "$E2E_DIR/lib/.spank_binding.so.new" &&
				mv -f "$E2E_DIR/lib/.spank_binding.so.new" "$E2E_DIR/lib/spank_binding.so" || return 1
		fi
		E2E_PLUGIN=$E2E_DIR/lib/spank_binding.so
		printf 'required %s %s\n' "$E2E_PLUGIN" "$args" >"$E2E_DIR/plugstack.conf.new"
	else
		E2E_PLUGIN=
		printf '# %s not built: no SPANK plugin\n' "$so" >"$E2E_DIR/plugstack.conf.new"
	fi
	chmod 644 "$E2E_DIR/plugstack.conf.new"
	mv -f "$E2E_DIR/plugstack.conf.new" "$E2E_DIR/plugstack.conf"
	export E2E_PLUGIN
}

# cluster_cli_filter on|off: Slurm's cli_filter/lua with the project's
# cli_filter.lua ($BINDING_BUILD/cli_filter.lua, as make builds it and the
# package installs it) calling a copy of $BINDING_BUILD/spank_binding_submit.so
# (or, without it, or with E2E_CLI_FILTER_MODULE= set empty, running a copy
# of $BINDING_BUILD/sbind), for every srun/sbatch/salloc from now on, or none. Clients read slurm.conf and the
# script at each run (the daemons use neither); with the plugin configured
# and the script missing every client fails, so the script is written
# before the line.
cluster_cli_filter() {
	local sb="$E2E_BUILD/sbind" lua="$E2E_BUILD/cli_filter.lua" d=$E2E_DIR conf=
	# read in the shell: run.sh turns the filter off after every file
	[ -f "$d/slurm.conf" ] && conf=$(<"$d/slurm.conf")
	case $conf in *CliFilterPlugins=*) sed -i '/^CliFilterPlugins=/d' "$d/slurm.conf" ;; esac
	[ "${1:-off}" = on ] || return 0
	[ -x "$sb" ] && [ -f "$lua" ] || { _e2e_say "cli_filter: $sb or $lua not built (make)"; return 1; }
	mkdir -p "$d/lib"
	local mod="$E2E_BUILD/spank_binding_submit.so" modpath=""
	if [ -f "$mod" ]; then
		cp "$mod" "$d/lib/.submit.so.new" && chmod 644 "$d/lib/.submit.so.new" &&
			mv -f "$d/lib/.submit.so.new" "$d/lib/spank_binding_submit.so" || return 1
		modpath=$d/lib/spank_binding_submit.so
	fi
	cp "$sb" "$d/lib/.sbind.new" && chmod 755 "$d/lib/.sbind.new" &&
		mv -f "$d/lib/.sbind.new" "$d/lib/sbind" &&
		sed -e "s|^M.sbind = .*|M.sbind = \"$d/lib/sbind\"|" \
			-e "s|^M.module = .*|M.module = \"${E2E_CLI_FILTER_MODULE-$modpath}\"|" \
			"$lua" >"$d/.cli_filter.lua.new" &&
		chmod 644 "$d/.cli_filter.lua.new" && mv -f "$d/.cli_filter.lua.new" "$d/cli_filter.lua" ||
		return 1
	[ -f "$d/slurm.conf" ] && echo "CliFilterPlugins=cli_filter/lua" >>"$d/slurm.conf"
	return 0
}

_e2e_alive() {	# PID NAME: running (not a zombie) and still that program
	local st
	[ -r "/proc/$1/stat" ] || return 1
	[ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ] || return 1
	st=$(sed -E 's/^[0-9]+ \(.*\) (.).*/\1/' "/proc/$1/stat" 2>/dev/null)
	[ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

# PID NAME, for waits on a daemon just spawned: 0 it runs as NAME, 1 not
# yet (setsid, unshare and sh exec it in the same pid: on a busy machine
# that takes a while), 2 it exited: give up.
_e2e_started() {
	local st
	_e2e_alive "$1" "$2" && return 0
	st=$(sed -E 's/^[0-9]+ \(.*\) (.).*/\1/' "/proc/$1/stat" 2>/dev/null)
	[ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ] && return 1
	return 2
}

# Why setsid: a Ctrl-C at the terminal must reach the runner (whose trap
# stops the cluster in order), not the daemons directly.
_e2e_spawn() {	# NAME LOGFILE CMD...: starts a daemon, records "NAME PID"
	local name=$1 log=$2; shift 2
	SLURM_CONF=$E2E_DIR/slurm.conf setsid "$@" >>"$log" 2>&1 </dev/null &
	local pid=$!
	echo "$name $pid" >>"$E2E_DIR/run/daemons"
	eval "E2E_PID_$name=$pid"
}

_e2e_pid_of() { awk -v n="$1" '$1 == n { p = $2 } END { print p }' "$E2E_DIR/run/daemons" 2>/dev/null; }

# Every wait in the tests is a hang guard, never a verdict on speed: it
# returns as soon as its condition holds, and gives up only after at least
# E2E_WAIT_MIN seconds, whatever shorter time a caller names, so that a slow
# or busy machine cannot fail a test. (Set it lower to debug a hang faster.)
: "${E2E_WAIT_MIN:=120}"
e2e_wait_secs() { if [ "${1:-0}" -lt "$E2E_WAIT_MIN" ]; then echo "$E2E_WAIT_MIN"; else echo "$1"; fi; }

# wait_until SECONDS CMD...: what the tests use (the floor above applies).
wait_until() { local _secs; _secs=$(e2e_wait_secs "$1"); shift; _e2e_wait_until "$_secs" "$@"; }

_e2e_wait_until() {	# SECONDS CMD...: polls every E2E_POLL s; CMD's rc 2 means "give up"
	local end rc t0
	end=$(e2e_deadline "$1"); shift
	while :; do
		t0=${EPOCHREALTIME//[!0-9]/}
		"$@"; rc=$?
		[ $rc -eq 0 ] && return 0
		[ $rc -eq 2 ] && return 2
		e2e_before "$end" || return 1
		e2e_nap $(( ${EPOCHREALTIME//[!0-9]/} - t0 ))
	done
}

_e2e_node_idle() {
	local pid n
	for pid in $(awk '$1 == "slurmd" { print $2 }' "$E2E_DIR/run/daemons"); do
		_e2e_started "$pid" slurmd || return
	done
	for n in $E2E_NODE_LIST; do
		case "$(sinfo -h -N -n "$n" -o %T 2>/dev/null)" in idle*) ;; *) return 1 ;; esac
	done
	return 0
}

_e2e_ctld_up() { scontrol ping 2>/dev/null | grep -q UP; }

cluster_logs() {	# [LINES]: the daemons' log tails, for failures
	local f
	for f in "$E2E_DIR"/log/*; do
		[ -s "$f" ] || continue
		# a daemon's stderr (*.out) repeats its log file once that exists
		case "$f" in *.out) [ -s "${f%.out}.log" ] && continue ;; esac
		echo "----- $f (last ${1:-30} lines)" >&2
		tail -n "${1:-30}" "$f" >&2
	done
}

_e2e_start_slurm() {	# MODE: slurmctld + slurmd until a user's srun works
	_e2e_write_conf "$1"
	_e2e_mark munged
	_e2e_spawn slurmctld "$E2E_DIR/log/slurmctld.out" slurmctld -D -f "$E2E_DIR/slurm.conf"
	if ! _e2e_wait_until "$E2E_WAIT_MIN" _e2e_ctld_up; then
		_e2e_say "slurmctld did not answer within 15 s"
		return 1
	fi
	_e2e_mark slurmctld
	local n
	for n in $E2E_NODE_LIST; do _e2e_spawn_slurmd "$n"; done
	local rc=0
	_e2e_wait_until "$E2E_WAIT_MIN" _e2e_node_idle || rc=1
	if [ $rc -ne 0 ]; then
		_e2e_alive "$(_e2e_pid_of slurmd)" slurmd || _e2e_say "slurmd exited during start ($1)"
		_e2e_say "node(s) $E2E_NODE_LIST not idle: $(sinfo -h -N -o '%N %T %E' 2>&1)"
		return 1
	fi
	_e2e_mark slurmd
	if ! run_as_user timeout "$E2E_WAIT_MIN" srun -N"$E2E_NODES" -t 1 true >"$E2E_DIR/log/first-srun.out" 2>&1; then
		_e2e_say "first 'srun -N1 true' as $E2E_USER failed ($1):"
		cat "$E2E_DIR/log/first-srun.out" >&2
		return 1
	fi
	_e2e_mark "first srun"
}

# Runs CMD as the job user, from $E2E_WORK, with a clean environment: only
# PATH, HOME, USER, LOGNAME, LANG and SLURM_CONF. Extra variables go through
# env: run_as_user env FOO=1 srun ...
# setpriv, not runuser: the same uid, gid and groups without a PAM session,
# whose modules cost a few tenths of a second per call in the TCG guest.
run_as_user() {
	(cd "$E2E_WORK" && setpriv --reuid="$E2E_UID" --regid="$E2E_GID" --init-groups -- env -i \
		PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin HOME="$E2E_WORK" \
		USER="$E2E_USER" LOGNAME="$E2E_USER" LANG=C.UTF-8 SLURM_CONF="$SLURM_CONF" "$@")
}

# Queue helpers: run.sh clears the queue between test files.
squeue_empty() { [ -z "$(squeue -h -o %i 2>/dev/null)" ]; }

wait_squeue_empty() { wait_until "${1:-30}" squeue_empty; }

cancel_all_jobs() {
	local jobs
	jobs=$(squeue -h -o %i 2>/dev/null)
	[ -n "$jobs" ] || return 0
	# shellcheck disable=SC2086
	scancel $jobs 2>/dev/null
	wait_squeue_empty 30
}

cluster_start() {
	local t0 mode
	t0=$(_e2e_now)
	_E2E_MARKS= _E2E_MARK0=${EPOCHREALTIME/[.,]/}
	if [ "$(id -u)" != 0 ]; then
		_e2e_say "needs root to run a private Slurm cluster"
		return 1
	fi
	local b
	for b in munged slurmctld slurmd srun sbatch sinfo scontrol squeue ss setpriv setsid; do
		command -v "$b" >/dev/null 2>&1 || { _e2e_say "missing program: $b"; return 1; }
	done
	_e2e_ensure_user || return 1

	local base=${E2E_TMPDIR:-/tmp}
	# slurmd runs batch scripts from its spool dir and slurmstepd dlopens the
	# plugin copy: both need a mount that allows exec.
	if findmnt -no OPTIONS --target "$base" 2>/dev/null | grep -qw noexec; then
		_e2e_say "$base is mounted noexec; set E2E_TMPDIR to a directory on an exec mount"
		return 1
	fi
	E2E_DIR=$(mktemp -d "$base/binding-e2e.XXXXXX") || return 1
	chmod 755 "$E2E_DIR"
	export E2E_DIR SLURM_CONF=$E2E_DIR/slurm.conf
	trap 'cluster_stop' EXIT
	trap 'cluster_stop; trap - EXIT; exit 130' INT TERM
	mkdir -p "$E2E_DIR"/{munge,log,run,ctld,spool,work,lib}
	chmod 711 "$E2E_DIR/munge"
	chown "$E2E_USER:" "$E2E_DIR/work"
	export E2E_WORK=$E2E_DIR/work E2E_STATE=$E2E_DIR/binding-state
	export E2E_PLUGSTACK_DEFAULT="$*"
	# sbind for the job user, who may not reach the checkout (under /root)
	E2E_SBIND=
	if [ -x "$E2E_BUILD/sbind" ]; then
		cp "$E2E_BUILD/sbind" "$E2E_DIR/lib/sbind" && chmod 755 "$E2E_DIR/lib/sbind" &&
			E2E_SBIND=$E2E_DIR/lib/sbind
	fi
	export E2E_SBIND
	: >"$E2E_DIR/run/daemons"
	_e2e_gres_setup || { _e2e_say "cannot make the GRES (fake GPUs: mknod; numamem: ${E2E_NUMAMEM:-})"; return 1; }

	# munge: our own key, socket, pid and seed files.
	dd if=/dev/urandom of="$E2E_DIR/munge/munge.key" bs=1024 count=1 status=none
	chmod 400 "$E2E_DIR/munge/munge.key"
	_e2e_spawn munged "$E2E_DIR/log/munged.out" munged -F -f \
		--key-file="$E2E_DIR/munge/munge.key" --socket="$E2E_DIR/munge/munge.socket" \
		--pid-file="$E2E_DIR/run/munged.pid" --seed-file="$E2E_DIR/munge/munged.seed" \
		--log-file="$E2E_DIR/log/munged.log"

	local suffix
	suffix=${E2E_DIR##*.} suffix=${suffix,,} suffix=${suffix//[!a-z0-9]/}
	E2E_NODES=${E2E_NODES:-1}
	case "$E2E_NODES" in 1|2) ;; *) _e2e_say "E2E_NODES must be 1 or 2"; return 1 ;; esac
	if [ "$E2E_NODES" = 1 ]; then
		E2E_NODE_LIST="e2e-$suffix"
	else
		command -v unshare >/dev/null && command -v nsenter >/dev/null ||
			{ _e2e_say "two nodes need unshare and nsenter (util-linux)"; return 1; }
		E2E_NODE_LIST="e2e-${suffix}1 e2e-${suffix}2"
	fi
	export E2E_NODE=${E2E_NODE_LIST%% *} E2E_PARTITION=e2e E2E_PARTITION_NOSHARE=e2e-noshare E2E_NODES E2E_NODE_LIST
	local ports
	ports=$(_e2e_free_port 3) || { _e2e_say "no free port"; return 1; }
	read -r E2E_CTLD_PORT E2E_SLURMD_PORT E2E_SLURMD_PORT2 <<<"$ports"
	E2E_SLURMD_PORT1=$E2E_SLURMD_PORT
	# The node's real layout, as slurmd sees it (CPUs, boards, sockets, cores, threads).
	_e2e_mark files
	E2E_HW=$(_e2e_slurmd_c | head -1 | tr ' ' '\n' |
		grep -E '^(CPUs|Boards|SocketsPerBoard|CoresPerSocket|ThreadsPerCore|RealMemory)=' | tr '\n' ' ')
	[ -n "${E2E_NODE_HW:-}" ] && E2E_HW="$E2E_NODE_HW RealMemory=$(echo "$E2E_HW" | sed -nE 's/.*RealMemory=([0-9]+).*/\1/p')"
	[ -n "$E2E_HW" ] || { _e2e_say "slurmd -C printed no node layout"; return 1; }
	_e2e_mark "slurmd -C"
	E2E_NCPUS=$(echo "$E2E_HW" | sed -E 's/.*CPUs=([0-9]+).*/\1/')
	E2E_CPUS=$(cat /sys/fs/cgroup/cpuset/cpuset.effective_cpus 2>/dev/null ||
		grep Cpus_allowed_list /proc/self/status | awk '{print $2}')
	export E2E_NCPUS E2E_CPUS
	# The Slurm release these daemons are ("24.11"): tests that meet a
	# difference between releases ask slurm_at_least.
	E2E_SLURM=$(slurmd -V 2>/dev/null | sed -nE 's/^slurm[-a-z]* ([0-9]+)\.([0-9]+).*/\1.\2/p')
	export E2E_SLURM
	cluster_plugstack "$@" || return 1
	_e2e_mark setup
	if [ "${E2E_CLI_FILTER:-0}" = 1 ]; then cluster_cli_filter on || return 1; fi

	if ! _e2e_wait_until "$E2E_WAIT_MIN" test -S "$E2E_DIR/munge/munge.socket"; then
		_e2e_say "munged did not create its socket"
		cluster_logs
		return 1
	fi

	case "${E2E_CGROUP:-auto}" in
	v1) mode=cgroup-v1 ;;
	v2) mode=cgroup-v2 ;;
	none) mode=linuxproc ;;
	*) if _e2e_cgroup_v1_usable; then mode=cgroup-v1; else mode=linuxproc; fi ;;
	esac
	if ! _e2e_start_slurm "$mode"; then
		if [ "$mode" = cgroup-v1 ] && [ "${E2E_CGROUP:-auto}" = auto ]; then
			cluster_logs 15
			_e2e_say "cgroup v1 mode failed; retrying with proctrack/linuxproc + task/affinity"
			_e2e_stop_slurm
			rm -rf "${E2E_DIR:?}/ctld" "${E2E_DIR:?}/spool"
			mkdir -p "$E2E_DIR/ctld" "$E2E_DIR/spool"
			mv "$E2E_DIR/log/slurmd.log" "$E2E_DIR/log/slurmd-cgroup-attempt.log" 2>/dev/null
			mode=linuxproc
			_e2e_start_slurm "$mode" || { cluster_logs; return 1; }
		else
			cluster_logs
			return 1
		fi
	fi
	export E2E_MODE=$mode
	local what="ProctrackType=proctrack/linuxproc TaskPlugin=task/affinity"
	[ "$mode" = cgroup-v1 ] && what="cgroup/v1: proctrack/cgroup, task/cgroup+task/affinity, ConstrainCores"
	[ "$mode" = cgroup-v2 ] && what="cgroup/v2: proctrack/cgroup, task/cgroup+task/affinity, ConstrainCores"
	what="$what, ${E2E_CR:-CR_Core_Memory}"
	_e2e_say "up in $(_e2e_elapsed "$t0") s: node${E2E_NODES#1} $E2E_NODE_LIST (${E2E_HW% }) cpus $E2E_CPUS ($_E2E_MARKS)"
	_e2e_say "mode $mode ($what)"
	_e2e_say "plugin: ${E2E_PLUGIN:-none (build/spank_binding.so missing)}; dir $E2E_DIR"
	[ "${E2E_CLI_FILTER:-0}" = 1 ] && _e2e_say "cli_filter: $E2E_DIR/cli_filter.lua (its module, or sbind submit without it)"
	return 0
}

# slurm_at_least MAJOR.MINOR: true when the cluster's Slurm is that release
# or newer (docs/slurm-releases.md lists what changed where).
slurm_at_least() {
	awk -v have="${E2E_SLURM:-0.0}" -v want="$1" 'BEGIN {
		split(have, h, "."); split(want, w, ".")
		exit !(h[1] > w[1] || (h[1] == w[1] && h[2] >= w[2])) }'
}

# Restarts slurmd so that it re-reads plugstack.conf (job_prolog/epilog and
# its own init only see the file at slurmd start).
cluster_restart_slurmd() {
	_e2e_kill_recorded slurmd || return 1
	_e2e_start_slurmds
}

# Each node's slurmd, until each logged that its init is over and the nodes
# are idle: slurmctld may still say idle from before a restart, and a new
# slurmd runs SPANK's slurmd init (plugstack.conf's settings, the state
# dir's mode) after it is alive.
_e2e_start_slurmds() {
	local n want
	want=$(( $(_e2e_slurmd_starts) + $(set -- $E2E_NODE_LIST; echo $#) ))
	for n in $E2E_NODE_LIST; do _e2e_spawn_slurmd "$n"; done
	_e2e_wait_until "$E2E_WAIT_MIN" _e2e_slurmd_started "$want" || { cluster_logs; return 1; }
	_e2e_wait_until "$E2E_WAIT_MIN" _e2e_node_idle || { cluster_logs; return 1; }
}

# How many times a slurmd logged "slurmd version V started", the line it
# writes once its init (SPANK's slurmd init among it) is done.
_e2e_slurmd_starts() {
	local n
	n=$(grep -c 'slurmd version .* started' "$E2E_DIR/log/slurmd.log" 2>/dev/null)
	echo "${n:-0}"
}
_e2e_slurmd_started() { [ "$(_e2e_slurmd_starts)" -ge "$1" ]; }

# cluster_numamem on [ARGS] | off: the node offers (or no longer offers)
# its NUMA memory as the GRES numamem (docs/memory.md): gres.conf and the
# node line from `sbind gres-conf ARGS` (E2E_NUMAMEM=sbind), GresTypes;
# slurmctld and slurmd restart to read them (no job may run meanwhile).
cluster_numamem() {
	if [ "${1:-off}" = on ]; then
		shift
		export E2E_NUMAMEM=sbind E2E_NUMAMEM_ARGS="$*"
	else
		export E2E_NUMAMEM= E2E_NUMAMEM_ARGS=
		rm -f "$E2E_DIR/numamem.conf"
	fi
	rm -f "$E2E_DIR/gres.conf"
	_e2e_gres_setup || { _e2e_say "numamem: sbind gres-conf $E2E_NUMAMEM_ARGS failed"; return 1; }
	_e2e_stop_daemons
	# The file's other lines stay (a test's shell has not every variable
	# cluster_start wrote them from): GresTypes= and the nodes' Gres= anew.
	local types gres c=$E2E_DIR/slurm.conf
	types=$(_e2e_gres_types) gres=$(_e2e_gres)
	sed -i -e '/^GresTypes=/d' -e 's/ Gres=[^ ]*//' "$c"
	[ -n "$types" ] && sed -i "s|^PlugStackConfig=.*|&\n$types|" "$c"
	sed -i "s|^\(NodeName=.*\) State=UNKNOWN|\1$gres State=UNKNOWN|" "$c"
	_e2e_respawn_daemons
}

# cluster_select_cr CR: SelectTypeParameters=CR (E2E_CR) from now on;
# slurmctld and slurmd restart to read it (no job may run meanwhile), and
# slurmctld must then report it. A restart of the running cluster, not a
# new one: in the guest node 3-10 s, where a new cluster took 10-37 s to
# start and about 4 s to stop.
cluster_select_cr() {
	local have
	export E2E_CR=$1
	_e2e_stop_daemons
	sed -i "s/^SelectTypeParameters=.*/SelectTypeParameters=$1/" "$E2E_DIR/slurm.conf"
	_e2e_respawn_daemons || return 1
	have=$(scontrol show config 2>/dev/null | sed -n 's/^SelectTypeParameters *= *//p')
	case ",${have,,}," in *",${1,,},"*) return 0 ;; esac
	_e2e_say "SelectTypeParameters: slurmctld reports '$have' after the restart with $1"
	return 1
}

# Every recorded slurmd, then slurmctld (a running job's slurmstepd stays).
_e2e_stop_daemons() {
	_e2e_kill_recorded slurmd
	_e2e_kill_recorded slurmctld
}

# After both daemons were stopped to change slurm.conf: slurmctld, then
# each node's slurmd, until the nodes are idle.
_e2e_respawn_daemons() {
	_e2e_spawn slurmctld "$E2E_DIR/log/slurmctld.out" slurmctld -D -f "$E2E_DIR/slurm.conf"
	_e2e_wait_until "$E2E_WAIT_MIN" _e2e_ctld_up || { cluster_logs; return 1; }
	_e2e_start_slurmds
}

_e2e_kill_pid() {	# PID NAME: TERM, up to 5 s, then KILL; reaps our children
	local pid=$1 name=$2
	[ -n "$pid" ] || return 0
	if _e2e_alive "$pid" "$name"; then
		kill -TERM "$pid" 2>/dev/null
		_e2e_wait_until 5 eval "! _e2e_alive $pid $name" ||
			{ _e2e_say "$name ($pid) ignored SIGTERM; SIGKILL"; kill -KILL "$pid" 2>/dev/null; }
		_e2e_wait_until 2 eval "! _e2e_alive $pid $name"
	fi
	wait "$pid" 2>/dev/null
	return 0
}

_e2e_kill_recorded() {	# NAME: every recorded pid of that daemon
	local pid
	for pid in $(awk -v n="$1" '$1 == n { print $2 }' "$E2E_DIR/run/daemons" 2>/dev/null); do
		_e2e_kill_pid "$pid" "$1"
	done
	sed -i "/^$1 /d" "$E2E_DIR/run/daemons" 2>/dev/null
	return 0
}

# Processes this cluster left: slurmstepds (they inherit slurmd's
# SLURM_CONF) and the job user's processes started with our SLURM_CONF.
# One grep reads every environment (NUL-separated entries): two processes
# per pid (tr, grep) made each cluster stop in the TCG guest take 40 s
# (5 s now).
_e2e_leftovers() {
	local f p uid
	for f in $(grep -lzxF "SLURM_CONF=$E2E_DIR/slurm.conf" /proc/[0-9]*/environ 2>/dev/null); do
		p=${f%/environ}
		uid=$(awk '/^Uid:/ { print $2 }' "$p/status" 2>/dev/null)
		if [ "$(cat "$p/comm" 2>/dev/null)" = slurmstepd ] || [ "$uid" = "$E2E_UID" ]; then
			echo "${p#/proc/}"
		fi
	done
}

_e2e_stop_slurm() {
	local pids
	_e2e_stop_daemons
	pids=$(_e2e_leftovers)
	if [ -n "$pids" ]; then
		_e2e_say "ending leftover job processes: $(echo "$pids" | tr '\n' ' ')"
		# A job stopped while suspended sits in a frozen cgroup, where not
		# even SIGKILL ends it: thaw our cgroups first.
		local f n
		for n in ${E2E_NODE_LIST:-$E2E_NODE}; do
			for f in $(find /sys/fs/cgroup/freezer/slurm_"$n" -name freezer.state 2>/dev/null); do
				echo THAWED >"$f" 2>/dev/null
			done
		done
		# shellcheck disable=SC2086
		kill -KILL $pids 2>/dev/null
		local pid
		for _ in $(seq 1 30); do
			for pid in $pids; do
				[ -d "/proc/$pid" ] && ! grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null && break
				pid=
			done
			[ -z "$pid" ] && break
			sleep 0.1
		done
	fi
	# slurmd leaves its (empty) cgroups behind; remove ours, deepest first.
	local c n
	for n in ${E2E_NODE_LIST:-$E2E_NODE}; do
		for c in /sys/fs/cgroup/*/slurm_"$n"; do
			[ -d "$c" ] && find "$c" -depth -type d -exec rmdir {} + 2>/dev/null
		done
	done
	return 0
}

cluster_stop() {	# [DIR]: stops the cluster of this shell, or the one in DIR
	[ -n "${1:-}" ] && export E2E_DIR=$1 SLURM_CONF=$1/slurm.conf
	[ -n "${E2E_DIR:-}" ] && [ -d "$E2E_DIR" ] || return 0
	if [ -z "${E2E_NODE:-}" ]; then
		E2E_NODE_LIST=$(sed -nE 's/^NodeName=([^ ]+).*/\1/p' "$E2E_DIR/slurm.conf" 2>/dev/null | tr '\n' ' ')
		E2E_NODE=${E2E_NODE_LIST%% *}
		E2E_UID=$(stat -c %u "$E2E_DIR/work" 2>/dev/null)
	fi
	_e2e_stop_slurm
	_e2e_kill_recorded munged
	if [ "${KEEP_E2E:-0}" = 1 ]; then
		_e2e_say "stopped; kept $E2E_DIR (KEEP_E2E=1)"
	else
		rm -rf "${E2E_DIR:?}"
	fi
	unset E2E_DIR
	trap - EXIT INT TERM
}

# Command use: bash tests/e2e/cluster.sh start [args] | stop DIR
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	case "${1:-}" in
	start)
		shift
		cluster_start "$@" || exit 1
		trap - EXIT INT TERM
		echo "export SLURM_CONF=$SLURM_CONF   # as root; the job user is $E2E_USER"
		echo "stop with: bash $0 stop $E2E_DIR"
		;;
	stop) cluster_stop "${2:?usage: $0 stop DIR}" ;;
	*) echo "usage: $0 start [plugstack args] | stop DIR" >&2; exit 2 ;;
	esac
fi
