#!/bin/bash
# g70_gpu.sh (guest node): the 4-NUMA guest plays a 4-GPU node. QEMU puts
# a PCI display device behind an expander bridge on each NUMA node
# (tests/guest/run.sh), so hwloc itself finds a device local to each node;
# 4 fake GPUs (device files, GRES gpu:4) are mapped to them with the
# plugin's gpu_devices= (the site's word for hardware whose driver does not
# say). Real Slurm places the jobs, the plugin binds: a 4-task job with
# --gpus-per-task=1, and two jobs at once with one and two GPUs, each task
# on the cores of its own GPU's NUMA node with its memory there
# (move_pages), inside its cgroup; a job whose GPU's cores another job
# holds goes to the nearest node and says which GPU's cores were taken;
# with ConstrainDevices=yes (cgroup v2's device program) each task's GPUs
# are the ones it may open. NUMA node n = cpus 4n..4n+3; Slurm core k =
# cpus 2k,2k+1.
. "$(dirname "$0")/../e2e/gpu_helpers.sh"
. "$(dirname "$0")/guest_helpers.sh"
gpu_file_start 4
[ -x "$PAGENODE" ] || { e2e_fail "no $PAGENODE (tests/guest/build-guest.sh)"; e2e_done; }
export PAGENODE

# The display device on each NUMA node, as the kernel reports it (sysfs,
# read by the test, not by the plugin).
bus=()
for d in /sys/bus/pci/devices/*; do
	[ "$(cat "$d/class")" = 0x038000 ] || continue
	n=$(cat "$d/numa_node")
	bus[$n]=${d##*/}
done
assert_eq 4 "${#bus[@]}" "a display device on each of the 4 NUMA nodes: ${bus[*]}"
map=
for n in 0 1 2 3; do map="$map${map:+,}$E2E_DIR/dev/fakegpu$n=${bus[$n]}"; done
cluster_plugstack verbose "gpu_devices=$map"

# What hwloc sees of them: sbind topology --format json.
json=$("$E2E_BUILD/sbind" topology --topology "" --format json 2>&1)
for n in 0 1 2 3; do
	assert_contains "$json" "\"busid\":\"${bus[$n]}\",\"osdev\":[],\"pci_id\":\"1234:1111\",\"pci_class\":\"0380\",\"compute\":false,\"cpus\":\"$((4 * n))-$((4 * n + 3))\",\"numa_nodes\":[$n]" \
		"hwloc: ${bus[$n]} is local to NUMA node $n (cpus $((4 * n))-$((4 * n + 3)))"
done

# node_of BUSID: the NUMA node of one of ours.
node_of() { local n; for n in 0 1 2 3; do [ "${bus[$n]}" = "$1" ] && echo "$n"; done; }

# check_local MSG LINE: the task is bound, on cpus of its GPU's node only,
# inside its cgroup's cpuset, its 2048 pages (8 MiB) on that node.
check_local() {
	local msg=$1 l=$2 n cpus cg mem
	n=$(node_of "$(gpu_field "$l" 4)")
	cpus=$(gpu_field "$l" 2) cg=$(gpu_field "$l" 3) mem=$(gpu_field "$l" 9)
	[ -n "$n" ] || { e2e_fail "$msg: SLURM_BINDING_GPUS '$(gpu_field "$l" 4)' is none of ours"; return; }
	assert_eq bound "$(gpu_field "$l" 10)" "$msg: bound"
	pass_if "$msg: cpus $cpus on NUMA node $n, its GPU's" cpulist_within "$cpus" "$((4 * n))-$((4 * n + 3))"
	pass_if "$msg: cpus $cpus inside its cgroup's cpuset $cg" cpulist_within "$cpus" "$cg"
	assert_eq "local" "$(gpu_field "$l" 11)" "$msg: SLURM_BINDING_GPU_LOCALITY"
	assert_match "$mem" "^policy=preferred mask=$(printf '%#x' $((1 << n))) pages=2048 .*node$n=2048" \
		"$msg: --mbind=gpu, all 2048 pages on node $n"
}

# A 4-task job, a GPU per task (Slurm's per_task:1), the whole node.
out=$(gpu_srun -n4 -c4 --gpus-per-task=1 --binding=gpu:2 --mbind=gpu "$GPU_TASK" 8)
lines=$(gpu_lines "$out")
e2e_note "-n4 --gpus-per-task=1 gpu:2: $(echo "$out" | tr '\n' ';')"
assert_eq 4 "$(echo "$lines" | grep -c .)" "4 task lines"
for k in 0 1 2 3; do
	l=$(echo "$lines" | sed -n "$((k + 1))p")
	check_local "4 tasks: task $k" "$l"
	assert_eq "$((4 * $(node_of "$(gpu_field "$l" 4)")))-$((4 * $(node_of "$(gpu_field "$l" 4)") + 3))" \
		"$(gpu_field "$l" 2)" "4 tasks: task $k has both cores of its GPU's node"
done
assert_eq 4 "$(echo "$lines" | cut -d'|' -f4 | sort -u | grep -c .)" "4 tasks: four different GPUs"

# Two jobs at once (both get the whole node from Slurm, OverSubscribe=FORCE:2),
# one GPU and two GPUs: every task next to its own GPU, no cpu shared.
bg_srun g70a -n1 -c16 --gpus=1 --binding=gpu:1 --mbind=gpu env GPU_DEV="$GPU_DEV" PAGENODE="$PAGENODE" "$GPU_TASK" 8 600
bg_srun g70b -n2 -c8 --gpus=2 --binding=gpu:1 --mbind=gpu env GPU_DEV="$GPU_DEV" PAGENODE="$PAGENODE" "$GPU_TASK" 8 600
ja=$(job_named g70a 600) || e2e_fail "job g70a did not start: $(cat "$E2E_WORK/g70a.out")"
jb=$(job_named g70b 600) || e2e_fail "job g70b did not start: $(cat "$E2E_WORK/g70b.out")"
wait_for_file "$E2E_WORK/g70a.out" 600 '^0\|' >/dev/null
wait_for_file "$E2E_WORK/g70b.out" 600 '^1\|' >/dev/null
wait_for_file "$E2E_WORK/g70b.out" 600 '^0\|' >/dev/null
la=$(gpu_lines "$(cat "$E2E_WORK/g70a.out")")
lb=$(gpu_lines "$(cat "$E2E_WORK/g70b.out")")
e2e_note "job g70a: $la"
e2e_note "job g70b: $(echo "$lb" | tr '\n' ';')"
check_local "two jobs: g70a's task" "$la"
check_local "two jobs: g70b's task 0" "$(echo "$lb" | sed -n 1p)"
check_local "two jobs: g70b's task 1" "$(echo "$lb" | sed -n 2p)"
all="$(cpulist_expand "$(gpu_field "$la" 2)") $(cpulist_expand "$(gpu_field "$(echo "$lb" | sed -n 1p)" 2)") $(cpulist_expand "$(gpu_field "$(echo "$lb" | sed -n 2p)" 2)")"
assert_eq 6 "$(echo $all | tr ' ' '\n' | sort -u | wc -l)" "two jobs: three tasks on three different cores ($all)"
assert_eq 3 "$( (gpu_field "$la" 4; echo "$lb" | cut -d'|' -f4) | sort -u | wc -l)" "two jobs: three different GPUs"
assert_eq 2 "$(state_records | grep -c .)" "the state holds both jobs"
scancel "$ja" "$jb"
wait_job_done "$ja" 600 >/dev/null
wait_job_done "$jb" 600 >/dev/null
wait_bg

# A job holds NUMA node 1's cores (and GPU 0: the lowest free); the next
# GPU job gets GPU 1, whose cores are held: the nearest node (0, distance
# 12, same socket), and the reason names the GPU whose cores were taken.
bg_srun g70x -n1 -c16 --gpus=1 --binding=explicit:0,2:0,3 sleep 600
jx=$(job_named g70x 600) || e2e_fail "job g70x did not start: $(cat "$E2E_WORK/g70x.out")"
wait_until 600 grep -q '^rec ' "$E2E_STATE/state" || e2e_fail "g70x's step has no record" 
out=$(gpu_srun -n1 -c16 --gpus=1 --binding=gpu:2 "$GPU_TASK")
l=$(gpu_lines "$out")
e2e_note "gpu:2 while node 1's cores are held: $(echo "$out" | tr '\n' ';')"
g=$(node_of "$(gpu_field "$l" 4)")
if [ "$g" = 1 ]; then
	assert_eq bound "$(gpu_field "$l" 10)" "fallback: bound"
	assert_eq 0-3 "$(gpu_field "$l" 2)" "fallback: GPU 1's cores held, node 0's instead (distance 12)"
	assert_match "$(gpu_field "$l" 11)" "^nearest: 0 of 2 cores next to ${bus[1]}; task 0: ${bus[1]} has 2 local cores \(cpus 4-7\): 2 held by other jobs.*NUMA distance 12$" \
		"fallback: the task says whose cores were taken and how far it went"
else
	e2e_fail "fallback: Slurm gave the second job GPU on node ${g:-?}, not 1 (test assumption)"
fi
scancel "$jx"
wait_job_done "$jx" 600 >/dev/null
wait_bg

# ConstrainDevices=yes: Slurm's cgroup v2 device program; each task may open
# only its own GPU, which is the one the plugin placed it next to.
gpu_constrain yes
out=$(gpu_srun -n4 -c4 --gpus-per-task=1 --binding=gpu:2 "$GPU_TASK")
lines=$(gpu_lines "$out")
e2e_note "ConstrainDevices=yes -n4 --gpus-per-task=1: $(echo "$out" | tr '\n' ';')"
assert_eq 4 "$(echo "$lines" | grep -c .)" "ConstrainDevices: 4 task lines"
for k in 0 1 2 3; do
	l=$(echo "$lines" | sed -n "$((k + 1))p")
	n=$(node_of "$(gpu_field "$l" 4)")
	opens=$(gpu_field "$l" 8)
	assert_eq " $n:yes" "$(echo "$opens" | tr ' ' '\n' | grep ':yes$' | sed 's/^/ /')" \
		"ConstrainDevices: task $k may open only fakegpu$n, the GPU it was placed next to ($opens)"
	assert_eq "$((4 * n))-$((4 * n + 3))" "$(gpu_field "$l" 2)" "ConstrainDevices: task $k on node $n's cores"
	assert_eq 0 "$(gpu_field "$l" 5)" "ConstrainDevices: Slurm renumbers task $k's CUDA_VISIBLE_DEVICES to 0"
done
assert_not_contains "$out" "the device cgroup lets this task open" "ConstrainDevices: the rule and the cgroup agree"
gpu_constrain no
e2e_done
