#!/bin/bash
# t11_batch.sh: batch jobs. The script is bound to amount x the job's tasks
# on the node (`sbatch -n2 --binding=linear:1`, and `#SBATCH -c2` with
# `#SBATCH --binding=linear:2`); an `srun -n2` inside gets one of the
# script's cpus per task, distinct; `srun -n1 --binding=linear:2` with one
# cpu allocated runs unbound and says the allocation is too small; two
# steps running at once inside one `sbatch -n2` job get distinct cpus.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/binding_helpers.sh"
need_plugin
[ "$E2E_NCPUS" -eq 2 ] || { e2e_skip "t11 is written for a 2-cpu node, this one has $E2E_NCPUS"; e2e_done; }

# 1. sbatch -n2 --binding=linear:1 with an srun -n2 inside.
script=$(user_file t11_a.sh <<'EOF2'
#!/bin/sh
echo $$ > t11_a.$SLURM_JOB_ID.pid
srun -n2 sleep 600
EOF2
)
job=$(sbatch_as_user -n2 --binding=linear:1 -o "$E2E_WORK/t11_a.%j.out" "$script") ||
	{ e2e_fail "sbatch -n2 --binding=linear:1 refused"; e2e_done; }
spid=$(pid_from_file "$E2E_WORK/t11_a.$job.pid") || e2e_fail "batch script of job $job did not start"
scpus=$(cpus_allowed_of "$spid")
e2e_note "job $job: script pid $spid cpus $scpus"
assert_eq "$(cpulist_expand "$E2E_CPUS")" "$(cpulist_expand "$scpus")" "sbatch -n2 --binding=linear:1: the script is bound to both cpus"
assert_eq "$(cpulist_expand "$scpus")" "$(task_env "$spid" SLURM_BINDING)" "the script's SLURM_BINDING lists them"
assert_eq bound "$(task_env "$spid" SLURM_BINDING_STATUS)" "the script's SLURM_BINDING_STATUS"
assert_match "$(state_records)" "^rec job=$job step=4294967291 " "the state holds the job's batch record"
pids=$(step_pids "$job.0" 2) || e2e_fail "srun -n2 inside job $job: tasks not found ('$pids')"
# shellcheck disable=SC2086 # one word per pid
set -- $pids
c0=$(cpus_allowed_of "$1") c1=$(cpus_allowed_of "$2")
e2e_note "srun inside: task 0 cpus $c0, task 1 cpus $c1"
assert_eq 1 "$(cpulist_count "$c0")" "srun inside: task 0 on one cpu ($c0)"
assert_eq 1 "$(cpulist_count "$c1")" "srun inside: task 1 on one cpu ($c1)"
assert_ne "$c0" "$c1" "srun inside: the two tasks on distinct cpus"
pass_if "srun inside: $c0,$c1 within the script's cpus $scpus" cpulist_within "$c0,$c1" "$scpus"
assert_eq linear:1 "$(task_env "$1" SLURM_BINDING_REQUEST)" "srun inside got the job's --binding from the environment"
assert_eq "$(cpulist_expand "$c0")" "$(task_env "$1" SLURM_BINDING)" "srun inside: task 0's SLURM_BINDING replaces the script's"
scancel "$job"
wait_job_done "$job" 30 >/dev/null

# 2. #SBATCH -c2 and #SBATCH --binding=linear:2 in the script.
script=$(user_file t11_b.sh <<'EOF2'
#!/bin/sh
#SBATCH -c2
#SBATCH --binding=linear:2
echo $$ > t11_b.$SLURM_JOB_ID.pid
exec sleep 600
EOF2
)
job=$(sbatch_as_user -o "$E2E_WORK/t11_b.%j.out" "$script") ||
	{ e2e_fail "sbatch with #SBATCH --binding=linear:2 refused"; e2e_done; }
spid=$(pid_from_file "$E2E_WORK/t11_b.$job.pid") || e2e_fail "batch script of job $job did not start"
scpus=$(cpus_allowed_of "$spid")
e2e_note "job $job: script pid $spid cpus $scpus"
assert_eq "$(cpulist_expand "$E2E_CPUS")" "$(cpulist_expand "$scpus")" "#SBATCH -c2 --binding=linear:2: the script is bound to both cpus"
assert_eq linear:2 "$(task_env "$spid" SLURM_BINDING_REQUEST)" "#SBATCH --binding reached the batch step"
scancel "$job"
wait_job_done "$job" 30 >/dev/null

# 2b. Two concurrent one-task steps of one `sbatch -n2 --binding=linear:1`
# job, each given the whole allocation (--overlap --whole): the plugin, not
# Slurm, keeps them apart. Each gets one of the script's cpus, not the same.
script=$(user_file t11_d.sh <<'EOF2'
#!/bin/sh
echo $$ > t11_d.$SLURM_JOB_ID.pid
srun -n1 --overlap --whole sleep 600 &
srun -n1 --overlap --whole sleep 600 &
wait
EOF2
)
job=$(sbatch_as_user -n2 --binding=linear:1 -o "$E2E_WORK/t11_d.%j.out" "$script") ||
	{ e2e_fail "sbatch -n2 --binding=linear:1 (two steps) refused"; e2e_done; }
spid=$(pid_from_file "$E2E_WORK/t11_d.$job.pid") || e2e_fail "batch script of job $job did not start"
scpus=$(cpus_allowed_of "$spid")
p0=$(step_pids "$job.0" 1) || e2e_fail "step $job.0 not found ('$p0')"
p1=$(step_pids "$job.1" 1) || e2e_fail "step $job.1 not found ('$p1')"
c0=$(cpus_allowed_of "$p0") c1=$(cpus_allowed_of "$p1")
e2e_note "job $job: script cpus $scpus, step 0 cpus $c0, step 1 cpus $c1"
assert_eq 1 "$(cpulist_count "$c0")" "concurrent steps: step 0 on one cpu ($c0)"
assert_eq 1 "$(cpulist_count "$c1")" "concurrent steps: step 1 on one cpu ($c1)"
assert_ne "$c0" "$c1" "concurrent steps of one job on distinct cpus"
pass_if "concurrent steps: $c0,$c1 within the script's cpus $scpus" cpulist_within "$c0,$c1" "$scpus"
assert_eq bound "$(task_env "$p1" SLURM_BINDING_STATUS)" "the second step is bound"
scancel "$job"
wait_job_done "$job" 30 >/dev/null

# 3. srun -n1 --binding=linear:2: one cpu allocated, two cores asked.
bg_srun t11_c -n1 --binding=linear:2 sleep 600
job=$(job_named t11_c) || { e2e_fail "srun -n1 --binding=linear:2 did not start"; e2e_done; }
pids=$(step_pids "$job.0" 1) || e2e_fail "task of job $job not found"
st=$(task_env "$pids" SLURM_BINDING_STATUS)
e2e_note "status: $st"
assert_match "$st" "^unbound: the allocation on this node is too small" "srun -n1 --binding=linear:2: unbound, the allocation is too small"
assert_match "$st" "Slurm gave this step 1 core \(cpus [0-9]+\) for 1 task; linear: 2 cores needed" "the reason names the allocation (1 core) and the need (2)"
assert_eq "" "$(task_env "$pids" SLURM_BINDING)" "SLURM_BINDING is empty"
assert_match "$(state_records | grep "job=$job ")" " status=unbound created=[0-9]+ cpus= since=[0-9]+ why=allocation_too_small tasks= mem= " \
	"job $job is recorded as unbound, holding no cpus and no memory, with the reason"
scancel "$job"
wait_job_done "$job" 30 >/dev/null
wait_bg
assert_contains "$(cat "$E2E_WORK/t11_c.out")" "spank-binding: $E2E_NODE task 0: not bound: the allocation on this node is too small" "the task's stderr says why"
e2e_done
