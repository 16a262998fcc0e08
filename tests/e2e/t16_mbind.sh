#!/bin/bash
# t16_mbind.sh: --mbind sets each task's memory policy before exec:
# cores:strict binds memory to the NUMA node of the task's cores (node 0
# here), round_robin interleaves over the nodes the task may use, cores
# prefers the local node. Read back from the running task
# (/proc/PID/numa_maps shows the policy of every mapping, its status the
# nodes it may use) and, inside it, with numactl --show (get_mempolicy).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/binding_helpers.sh"
need_plugin

# The policy numa_maps shows for the task's first mapping ("bind:0", ...).
policy_of() { awk 'NR == 1 { print $2 }' "/proc/$1/numa_maps" 2>/dev/null; }

# NUMA node of an OS cpu, from sysfs.
node_of_cpu() {
	local d
	for d in /sys/devices/system/node/node*/cpu"$1"; do
		[ -e "$d" ] && { d=${d%/cpu*}; echo "${d##*/node}"; return; }
	done
}

check_policy() {	# NAME MBIND bind|interleave|prefer
	local name=$1 mbind=$2 kind=$3 j p cpu want
	bg_srun "$name" -n1 --binding=linear:1 --mbind="$mbind" sleep 600
	j=$(job_named "$name") || { e2e_fail "--mbind=$mbind job did not start"; return 1; }
	p=$(step_pids "$j.0" 1) || e2e_fail "--mbind=$mbind task not found"
	cpu=$(single_cpu "$(cpus_allowed_of "$p")")
	assert_ne "" "$cpu" "--mbind=$mbind: the task is bound to one cpu ($(cpus_allowed_of "$p"))"
	case $kind in
	interleave) want="interleave:$(mems_allowed_of "$p")" ;;
	*) want="$kind:$(node_of_cpu "$cpu")" ;;
	esac
	e2e_note "--mbind=$mbind: cpu $cpu, numa_maps policy $(policy_of "$p"), mems $(mems_allowed_of "$p")"
	assert_eq "$want" "$(policy_of "$p")" "--mbind=$mbind: the running task's policy is $want"
	assert_eq "$mbind" "$(task_env "$p" SLURM_MBIND)" "--mbind=$mbind: SLURM_MBIND"
	scancel "$j"; wait_job_done "$j" 30 >/dev/null
}

nodes=(/sys/devices/system/node/node[0-9]*)
e2e_note "NUMA nodes: ${#nodes[@]}"
check_policy t16_strict cores:strict bind
check_policy t16_rr round_robin interleave
check_policy t16_pref cores prefer

# Inside the task, through get_mempolicy (numactl --show).
out=$(run_as_user timeout 300 srun -n1 --binding=linear:1 --mbind=cores:strict numactl --show 2>&1)
assert_match "$out" '^policy: bind$' "numactl --show in the task: policy bind"
assert_match "$out" '^membind: 0 *$' "numactl --show in the task: membind 0"
out=$(run_as_user timeout 300 srun -n1 --binding=linear:1 --mbind=round_robin numactl --show 2>&1)
assert_match "$out" '^policy: interleave$' "numactl --show in the task: policy interleave"

# srun -v names the policy; nlocal is accepted but says it is not supported yet.
out=$(run_as_user timeout 300 srun -v -n1 --binding=linear:1 --mbind=cores:strict true 2>&1)
assert_match "$out" "^spank-binding: host=$E2E_NODE task=0 cores=[0-9]+,[0-9]+ cpus=[0-9]+ mempolicy=bind:0$" "srun -v: the task's line shows mempolicy=bind:0"
out=$(run_as_user timeout 300 srun -n1 --binding=linear:1 --mbind=nlocal true 2>&1); rc=$?
assert_eq 0 "$rc" "--mbind=nlocal runs"
assert_contains "$out" "nlocal: not supported yet" "--mbind=nlocal says it is not supported yet"
wait_bg
e2e_done
