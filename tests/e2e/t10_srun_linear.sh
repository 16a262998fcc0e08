#!/bin/bash
# t10_srun_linear.sh: `srun -n2 --binding=linear:1` puts the two running
# tasks on two different single CPUs, inside the allocation, and each
# task's SLURM_BINDING (and the rest of its environment) agrees; a user's
# OMP_PLACES stays, however long.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/binding_helpers.sh"
need_plugin
[ "$E2E_NCPUS" -ge 2 ] || { e2e_skip "t10 needs 2 cpus, the node has $E2E_NCPUS"; e2e_done; }

bg_srun t10 -n2 --binding=linear:1 sleep 600
job=$(job_named t10) || { e2e_fail "srun -n2 --binding=linear:1 did not start: $(cat "$E2E_WORK/t10.out")"; e2e_done; }
pids=$(step_pids "$job.0" 2) || e2e_fail "step $job.0 has not 2 running tasks: '$pids'"
# shellcheck disable=SC2086 # one word per pid
set -- $pids
c0=$(cpus_allowed_of "$1") c1=$(cpus_allowed_of "$2")
e2e_note "task 0 pid $1 cpus $c0, task 1 pid $2 cpus $c1"
assert_eq 1 "$(cpulist_count "$c0")" "task 0 is bound to a single cpu ($c0)"
assert_eq 1 "$(cpulist_count "$c1")" "task 1 is bound to a single cpu ($c1)"
assert_ne "$c0" "$c1" "the two tasks are on different cpus"
pass_if "both inside the node's cpus $E2E_CPUS (got $c0,$c1)" cpulist_within "$c0,$c1" "$E2E_CPUS"
for i in 0 1; do
	pid=$(eval echo "\$$((i + 1))")
	cpus=$(cpus_allowed_of "$pid")
	assert_eq "$(cpulist_expand "$cpus")" "$(task_env "$pid" SLURM_BINDING)" "task $i: SLURM_BINDING matches its Cpus_allowed_list"
	assert_eq "$(task_env "$pid" SLURM_BINDING)" "$(task_env "$pid" SGE_BINDING)" "task $i: SGE_BINDING = SLURM_BINDING"
	assert_eq bound "$(task_env "$pid" SLURM_BINDING_STATUS)" "task $i: SLURM_BINDING_STATUS"
	assert_eq linear:1 "$(task_env "$pid" SLURM_BINDING_REQUEST)" "task $i: SLURM_BINDING_REQUEST"
	assert_eq set "$(task_env "$pid" SLURM_BINDING_INSTANCE)" "task $i: SLURM_BINDING_INSTANCE"
	assert_eq "{$cpus}" "$(task_env "$pid" OMP_PLACES)" "task $i: OMP_PLACES names its core"
	assert_eq close "$(task_env "$pid" OMP_PROC_BIND)" "task $i: OMP_PROC_BIND"
	assert_match "$(task_env "$pid" SLURM_BINDING_TOPOLOGY)" '^S[Cc]+$' "task $i: SLURM_BINDING_TOPOLOGY is a Grid Engine string"
	assert_eq 1 "$(task_env "$pid" SLURM_BINDING_TOPOLOGY | tr -cd c | wc -c)" "task $i: one core lower case in SLURM_BINDING_TOPOLOGY"
done
# The placement is recorded while the step runs.
rec=$(state_records | grep "job=$job step=0 ")
held=$(echo "$rec" | sed -nE 's/.* cpus=([^ ]*).*/\1/p')
assert_eq "$(cpulist_expand "$c0,$c1")" "$(cpulist_expand "$held")" "the state file records job $job step 0 holding both cpus"
scancel "$job"
wait_job_done "$job" 30 >/dev/null
wait_bg

# A user's OMP_PLACES is never replaced, however long: one of 5 000+
# characters (once read through a 4 KiB buffer, taken as unset and
# overwritten with the task's core) reaches the task as given.
long="{0}$(printf ',{0}%.0s' $(seq 1 1300))"
# shellcheck disable=SC2016 # expanded by the task's shell
out=$(run_as_user env OMP_PLACES="$long" timeout 300 srun -n1 --binding=linear:1 sh -c 'echo "${#OMP_PLACES}|$OMP_PROC_BIND|$SLURM_BINDING_STATUS"' 2>&1)
assert_eq "${#long}|close|bound" "$out" "a ${#long}-character OMP_PLACES of the user's is left alone"

# srun -v: one line per task with host, task, cores, cpus and mempolicy.
out=$(run_as_user timeout 300 srun -v -n2 --binding=linear:1 true 2>&1)
for i in 0 1; do
	assert_match "$out" "^spank-binding: host=$E2E_NODE task=$i cores=[0-9]+,[0-9]+ cpus=[0-9]+ mempolicy=default$" "srun -v: line for task $i"
done
e2e_done
