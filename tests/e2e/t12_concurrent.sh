#!/bin/bash
# t12_concurrent.sh: two jobs running at once with --binding=linear:1 on the
# 2-cpu node get different cpus; a third one at the same time cannot be
# bound (its status says the cores are held by other jobs) and runs; with
# on_failure=fail that third job fails instead, with a clear message.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/binding_helpers.sh"
need_plugin
[ "$E2E_NCPUS" -eq 2 ] || { e2e_skip "t12 is written for a 2-cpu node, this one has $E2E_NCPUS"; e2e_done; }
# on_failure=unbound: the third job runs unbound for good (the default,
# defer, would bind it when cores free up: t30/t31).
cluster_plugstack on_failure=unbound

bg_srun t12_a -n1 --binding=linear:1 sleep 600
a=$(job_named t12_a) || { e2e_fail "first job did not start"; e2e_done; }
pa=$(step_pids "$a.0" 1) || e2e_fail "first job's task not found"
bg_srun t12_b -n1 --binding=linear:1 sleep 600
b=$(job_named t12_b) || { e2e_fail "second job did not start"; e2e_done; }
pb=$(step_pids "$b.0" 1) || e2e_fail "second job's task not found"
ca=$(cpus_allowed_of "$pa") cb=$(cpus_allowed_of "$pb")
e2e_note "job $a task cpus $ca, job $b task cpus $cb"
assert_eq 1 "$(cpulist_count "$ca")" "job $a bound to one cpu ($ca)"
assert_eq 1 "$(cpulist_count "$cb")" "job $b bound to one cpu ($cb)"
assert_ne "$ca" "$cb" "the two concurrent jobs are on different cpus"
assert_eq bound "$(task_env "$pb" SLURM_BINDING_STATUS)" "job $b: bound"

# The third: Slurm (OverSubscribe=FORCE:2) runs it on a cpu one of them holds.
bg_srun t12_c -n1 --binding=linear:1 sleep 600
c=$(job_named t12_c) || { e2e_fail "third job did not start"; e2e_done; }
pc=$(step_pids "$c.0" 1) || e2e_fail "third job's task not found"
st=$(task_env "$pc" SLURM_BINDING_STATUS)
e2e_note "third job $c: $st"
assert_match "$st" "^unbound: cores held by other jobs: Slurm gave this step cpus [0-9]+, of which other jobs hold cpus [0-9]+" "third job: unbound, reason in SLURM_BINDING_STATUS"
assert_eq "" "$(task_env "$pc" SLURM_BINDING)" "third job: SLURM_BINDING empty"
assert_eq "" "$(task_env "$pc" OMP_PLACES)" "third job: no OMP_PLACES"
assert_eq 2 "$(state_records | grep -c ' status=active ')" "the state holds the two bound jobs only"
assert_match "$(state_records | grep " job=$c ")" " status=unbound .* cpus= since=[0-9]+ why=held_by_other_jobs " \
	"the third is recorded as unbound, holding nothing, with the reason"
scancel "$c"
wait_job_done "$c" 30 >/dev/null

# on_failure=fail: the third job's task fails in task_init.
cluster_plugstack on_failure=fail
out=$(run_as_user timeout 300 srun -n1 --binding=linear:1 true 2>&1); rc=$?
e2e_note "srun rc $rc: $(echo "$out" | head -3 | tr '\n' '|')"
assert_ne 0 "$rc" "with on_failure=fail the third job fails"
assert_contains "$out" "binding failed (on_failure=fail): cores held by other jobs" "its message says why"
# shellcheck disable=SC2086 # several arguments
cluster_plugstack ${E2E_PLUGSTACK_DEFAULT:-}

# The first two keep their cpus all along.
assert_eq "$ca" "$(cpus_allowed_of "$pa")" "job $a still on $ca"
assert_eq "$cb" "$(cpus_allowed_of "$pb")" "job $b still on $cb"
scancel "$a" "$b"
wait_job_done "$a" 30 >/dev/null
wait_job_done "$b" 30 >/dev/null
wait_bg
e2e_done
