#!/bin/bash
# g10_node.sh (guest node): the node is what the guest tests assume: slurmd
# -C sees 2 sockets x 4 cores x 2 threads, hwloc 4 NUMA nodes; only cgroup2
# is mounted and Slurm runs cgroup/v2 (tasks in the step's v2 cgroup, whose
# cpuset.cpus.effective is the job's allocation).
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/guest_helpers.sh"
need_plugin

assert_contains "$(slurmd -C | head -1)" "CPUs=16 Boards=1 SocketsPerBoard=2 CoresPerSocket=4 ThreadsPerCore=2" "slurmd -C: 2 sockets x 4 cores x 2 threads"
assert_eq 4 "$(hwloc-calc --number-of numanode all 2>/dev/null)" "hwloc: 4 NUMA nodes"
assert_eq "cgroup2" "$(awk '$2 == "/sys/fs/cgroup" { print $3 }' /proc/mounts)" "only cgroup2 at /sys/fs/cgroup"
assert_eq "" "$(awk '$3 == "cgroup" { print $2 }' /proc/mounts)" "no cgroup v1 hierarchy mounted"
assert_eq cgroup-v2 "$E2E_MODE" "the cluster runs cgroup/v2"

# shellcheck disable=SC2016 # expanded by the task
out=$(run_as_user timeout "$(e2e_wait_secs 600)" srun -n1 -c4 --cpu-bind=none sh -c 'cat /proc/self/cgroup; cat "/sys/fs/cgroup$(cut -d: -f3 /proc/self/cgroup)/cpuset.cpus.effective"; awk "/^Cpus_allowed_list/ { print \$2 }" /proc/self/status' 2>&1)
e2e_note "$(echo "$out" | tr '\n' ' ')"
# 26.05 names a job's cgroup by its SLUID ("s" and 13 Crockford base32
# characters) unless cgroup.conf says CgroupJobIdPaths=yes.
jobdir='job_[0-9]+'
slurm_at_least 26.05 && jobdir='s[0-9A-HJKMNP-TV-Z]{13}'
assert_match "$out" "^0::/system.slice/${E2E_NODE}_slurmstepd.scope/$jobdir/step_0/user/task_[0-9a-z]+$" "the task is in its step's cgroup v2 tree"
cg=$(echo "$out" | sed -n 2p)
assert_eq 4 "$(cpulist_count "$cg")" "its cpuset.cpus.effective holds the 4 cpus Slurm gave (-c4: $cg)"
assert_eq "$cg" "$(echo "$out" | sed -n 3p)" "unbound (--cpu-bind=none, no --binding), the task may use all of them"

# The plugin's own cpuset check reads cgroup v2's cpuset.cpus.effective.
# With cpu 1 taken from system.slice (above every job's cgroup; slurmstepd
# rewrites a job's own cpuset.cpus at each step, never this one) Slurm
# still gives -c2 core 0 = cpus 0-1, the task's effective cpuset is cpu 0,
# and the plugin leaves the task unbound rather than bind it outside.
# Restored to every cpu (the root's), not to "": an empty cpuset.cpus
# cannot be written back while tasks live below (ENOSPC).
sl=/sys/fs/cgroup/system.slice
all=$(cat /sys/fs/cgroup/cpuset.cpus.effective)
if echo 0,2-15 >"$sl/cpuset.cpus"; then
	out=$(run_as_user timeout "$(e2e_wait_secs 600)" srun -n1 -c2 --binding=linear:1 sh -c "$GUEST_TASKLINE" 2>&1)
	echo "$all" >"$sl/cpuset.cpus"
	e2e_note "$out"
	assert_match "$out" "^0 0 0 unbound: placed cpus 0-1 are outside the task's cpuset 0$" \
		"cgroup v2: the plugin leaves a task unbound rather than bind it outside its cpuset"
else
	e2e_fail "cannot narrow $sl/cpuset.cpus"
fi
assert_eq "$all" "$(cat "$sl/cpuset.cpus.effective")" "system.slice has every cpu again ($all)"
e2e_done
