#!/bin/bash
# t25_gpu.sh: GPUs as Slurm GRES on this host (its own cluster, 4 fake GPUs
# in gres.conf): the plugin learns each task's GPUs from the step's
# environment and Slurm's per-task rule, finds their device files through
# gres.conf beside slurmstepd's slurm.conf, splits a step's GPUs that Slurm
# did not split and narrows each task's visible-device variables (not with
# visible=all, not for a request that is not GPU-aware), two concurrent
# jobs get their own GPUs and cores; with ConstrainDevices=yes each task's
# GPUs are the devices its cgroup lets it open (Slurm renumbers its
# CUDA_VISIBLE_DEVICES from 0). This host has one NUMA node and no PCI
# display device: locality itself is the guest node's test (g70_gpu.sh).
. "$(dirname "$0")/gpu_helpers.sh"
gpu_file_start 4 verbose

dev() { echo "$GPU_DEV/fakegpu$1"; }

# Slurm splits (--gpus-per-task=1): task k has the step's k-th GPU.
out=$(gpu_srun -n2 --gpus-per-task=1 --binding=gpu:1 "$GPU_TASK")
e2e_note "--gpus-per-task=1: $(echo "$out" | tr '\n' ';')"
lines=$(gpu_lines "$out")
assert_eq 2 "$(echo "$lines" | grep -c .)" "two task lines"
for k in 0 1; do
	l=$(echo "$lines" | sed -n "$((k + 1))p")
	assert_eq bound "$(gpu_field "$l" 10)" "--gpus-per-task: task $k bound"
	assert_eq "$(dev "$(gpu_field "$l" 6)")" "$(gpu_field "$l" 4)" \
		"--gpus-per-task: task $k's SLURM_BINDING_GPUS is the device of its SLURM_STEP_GPUS ($(gpu_field "$l" 6))"
	assert_match "$(gpu_field "$l" 11)" "^none: no GPU of this task has a known place" \
		"--gpus-per-task: task $k: no locality on this host, and it says so"
done
assert_ne "$(gpu_field "$(echo "$lines" | sed -n 1p)" 4)" "$(gpu_field "$(echo "$lines" | sed -n 2p)" 4)" \
	"--gpus-per-task: the two tasks have different GPUs"
assert_contains "$out" "spank-binding: host=" "verbose line"
assert_match "$out" "gpus=$GPU_DEV/fakegpu[0-3]( |$)" "the verbose line names the task's GPU"

# Not split by Slurm (--gpus=2, every task sees both): the plugin splits
# them as --gpus-per-task=1 would and narrows every visible-device variable.
out=$(gpu_srun -n2 --gpus=2 --binding=gpu:1 "$GPU_TASK")
lines=$(gpu_lines "$out")
e2e_note "--gpus=2 gpu:1: $(echo "$lines" | tr '\n' ';')"
l0=$(echo "$lines" | sed -n 1p) l1=$(echo "$lines" | sed -n 2p)
pass_if "plugin split: one GPU each, distinct ($(gpu_field "$l0" 5) / $(gpu_field "$l1" 5))" \
	test "$(gpu_field "$l0" 5 | tr -cd , )" = "" -a "$(gpu_field "$l1" 5 | tr -cd ,)" = "" -a \
	"$(gpu_field "$l0" 5)" != "$(gpu_field "$l1" 5)" -a -n "$(gpu_field "$l0" 5)"
for l in "$l0" "$l1"; do
	k=$(gpu_field "$l" 1)
	assert_eq "$(gpu_field "$l" 5)" "$(gpu_field "$l" 6)" "plugin split: task $k's SLURM_STEP_GPUS narrowed like CUDA_VISIBLE_DEVICES"
	assert_eq "$(gpu_field "$l" 5)" "$(gpu_field "$l" 7)" "plugin split: task $k's ROCR_VISIBLE_DEVICES too"
	assert_eq "$(dev "$(gpu_field "$l" 5)")" "$(gpu_field "$l" 4)" "plugin split: task $k's SLURM_BINDING_GPUS is that GPU's device"
done
out=$(gpu_srun -n2 --gpus=2 --binding=gpu:1:visible=all "$GPU_TASK")
lines=$(gpu_lines "$out")
assert_eq 2 "$(echo "$lines" | cut -d'|' -f5 | grep -c ,)" "visible=all: both tasks keep both GPUs ($(echo "$lines" | cut -d'|' -f5 | tr '\n' ' '))"
out=$(gpu_srun -n2 --gpus=2 --binding=linear:1 "$GPU_TASK")
lines=$(gpu_lines "$out")
assert_eq 2 "$(echo "$lines" | cut -d'|' -f5 | grep -c ,)" "linear:1 (not GPU-aware): Slurm's variables untouched"
assert_eq "" "$(echo "$lines" | cut -d'|' -f4 | tr -d '\n')" "linear:1: no SLURM_BINDING_GPUS"

# Two jobs at once, a GPU each: their own GPUs and their own cores.
bg_srun t25a -n1 --gpus=1 --binding=gpu:1 env GPU_DEV="$GPU_DEV" "$GPU_TASK" "" 600
bg_srun t25b -n1 --gpus=1 --binding=gpu:1 env GPU_DEV="$GPU_DEV" "$GPU_TASK" "" 600
ja=$(job_named t25a 600) || e2e_fail "job t25a did not start: $(cat "$E2E_WORK/t25a.out")"
jb=$(job_named t25b 600) || e2e_fail "job t25b did not start: $(cat "$E2E_WORK/t25b.out")"
wait_for_file "$E2E_WORK/t25a.out" 600 '^0\|' >/dev/null
wait_for_file "$E2E_WORK/t25b.out" 600 '^0\|' >/dev/null
la=$(gpu_lines "$(cat "$E2E_WORK/t25a.out")") lb=$(gpu_lines "$(cat "$E2E_WORK/t25b.out")")
e2e_note "concurrent: $la ; $lb"
assert_ne "$(gpu_field "$la" 4)" "$(gpu_field "$lb" 4)" "two jobs: different GPUs"
pass_if "two jobs: both bound, on different cpus ($(gpu_field "$la" 2) / $(gpu_field "$lb" 2))" \
	test "$(gpu_field "$la" 10)" = bound -a "$(gpu_field "$lb" 10)" = bound -a \
	"$(gpu_field "$la" 2)" != "$(gpu_field "$lb" 2)"
scancel "$ja" "$jb"
wait_job_done "$ja" >/dev/null
wait_job_done "$jb" >/dev/null
wait_bg

# ConstrainDevices=yes (task/cgroup's device controller, cgroup v1 here).
if [ "$E2E_MODE" != cgroup-v1 ]; then
	e2e_skip "ConstrainDevices=yes: needs the cgroup v1 device controller here (mode $E2E_MODE)"
	e2e_done
fi
gpu_constrain yes
out=$(gpu_srun -n2 --gpus-per-task=1 --binding=gpu:1 "$GPU_TASK")
lines=$(gpu_lines "$out")
e2e_note "ConstrainDevices=yes --gpus-per-task=1: $(echo "$lines" | tr '\n' ';')"
for k in 0 1; do
	l=$(echo "$lines" | sed -n "$((k + 1))p")
	mine=$(gpu_field "$l" 4)
	mine=${mine##*fakegpu}
	opens=$(gpu_field "$l" 8)
	assert_eq 1 "$(echo "$opens" | tr ' ' '\n' | grep -c ':yes$')" "ConstrainDevices: task $k may open one GPU ($opens)"
	assert_contains "$opens" " $mine:yes" "ConstrainDevices: it is the one its SLURM_BINDING_GPUS names (fakegpu$mine)"
	assert_eq 0 "$(gpu_field "$l" 5)" "ConstrainDevices: Slurm renumbers task $k's CUDA_VISIBLE_DEVICES from 0"
done
assert_not_contains "$out" "the device cgroup lets this task open" "ConstrainDevices: the per-task rule agrees with the cgroup"
out=$(gpu_srun -n2 --gpus=2 --binding=gpu:1 "$GPU_TASK")
lines=$(gpu_lines "$out")
e2e_note "ConstrainDevices=yes --gpus=2: $(echo "$lines" | tr '\n' ';')"
assert_eq "0 1" "$(echo "$lines" | cut -d'|' -f5 | tr '\n' ' ' | sed 's/ $//')" \
	"ConstrainDevices, plugin split: the renumbered 0,1 narrowed to 0 and 1"
for l in $(echo "$lines" | tr ' ' '_'); do
	l=$(echo "$l" | tr '_' ' ')
	assert_eq 2 "$(gpu_field "$l" 8 | tr ' ' '\n' | grep -c ':yes$')" \
		"ConstrainDevices, plugin split: task $(gpu_field "$l" 1) may open the step's two GPUs"
done
gpu_constrain no
e2e_done
