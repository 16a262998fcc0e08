#!/bin/bash
# Helpers of the guest node's test files (tests/guest/[gc]NN_*.sh), sourced
# after tests/e2e/lib.sh. The node: 2 sockets x 2 NUMA nodes x 2 cores x
# 2 threads; Slurm core k (socket-major) = cpus 2k,2k+1; socket 0 = cpus
# 0-7, socket 1 = cpus 8-15; NUMA node n = cpus 4n..4n+3.

# What each task prints about itself, read by the task from its own
# /proc/self/status and its own cgroup v2 directory:
#   <rank> <Cpus_allowed_list> <cpuset.cpus.effective of its cgroup> <SLURM_BINDING_STATUS...>
# Shell builtins only: awk, cat and cut cost over a second per task under
# TCG.
# shellcheck disable=SC2016 # expanded by the task
GUEST_TASKLINE='while read -r k v; do [ "$k" = Cpus_allowed_list: ] && c=$v; done </proc/self/status
IFS=: read -r _ _ g </proc/self/cgroup
read -r e <"/sys/fs/cgroup$g/cpuset.cpus.effective"
echo "$SLURM_PROCID $c $e $SLURM_BINDING_STATUS"'

# gsrun SRUN-ARGS...: a step whose tasks print their line; sorted by rank.
gsrun() {
	run_as_user timeout "$(e2e_wait_secs 600)" srun "$@" sh -c "$GUEST_TASKLINE" 2>&1 | sort -n
}

# expect_tasks MSG OUT CPUS...: task r is bound (status "bound") to CPUS[r]
# exactly, and that is inside its cgroup's cpuset (never a cpu Slurm did
# not give the step). Builtins only, as the task line.
expect_tasks() {
	local msg=$1 out=$2 r=0 want n=0 rank cpus cg st; shift 2
	local -A task_cpus=() task_cg=() task_st=()
	while read -r rank cpus cg st; do
		[[ $rank =~ ^[0-9]+$ ]] || continue
		task_cpus[$rank]=$cpus task_cg[$rank]=$cg task_st[$rank]=$st
		n=$((n + 1))
	done <<<"$out"
	e2e_note "$msg: ${out//$'\n'/;}"
	[ "$n" -eq $# ] ||
		{ e2e_fail "$msg: expected $# task lines, got: ${out:0:600}"; return 1; }
	for want in "$@"; do
		cpus=${task_cpus[$r]-} cg=${task_cg[$r]-} st=${task_st[$r]-}
		if [ "$st" != bound ]; then
			e2e_fail "$msg: task $r not bound: $st"
		elif ! cpulist_same "$cpus" "$want"; then
			e2e_fail "$msg: task $r on cpus $cpus, expected $want"
		elif ! cpulist_within "$cpus" "$cg"; then
			e2e_fail "$msg: task $r on cpus $cpus, outside its cgroup's cpuset $cg"
		else
			e2e_pass "$msg: task $r on cpus $cpus (cgroup cpuset $cg)"
		fi
		r=$((r + 1))
	done
}

PAGENODE=$E2E_BUILD/guest/pagenode
