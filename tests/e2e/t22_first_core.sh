#!/bin/bash
# t22_first_core.sh: plugstack filter=first_core keeps core 0,0 from every
# job. On this 2-core node only core 0,1 is left: a -c2 step is bound to it,
# a step whose allocation is core 0,0 alone, or that needs two cores, runs
# unbound with a reason naming the filter; a packed request's own filter=
# adds to it; the batch script too is kept off core 0,0.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/binding_helpers.sh"
need_plugin
sge=$("$E2E_BUILD/sbind" topology --state "$E2E_STATE" --format sge)
[ "$sge" = SCC ] || { e2e_skip "t22 is written for 2 single-thread cores in one socket (SCC), this node is $sge"; e2e_done; }
core_cpus() { "$E2E_BUILD/sbind" place --state "$E2E_STATE" --binding "explicit:$1" | sed -nE 's/.*\(cpus ([^)]*)\).*/\1/p'; }
c0=$(core_cpus 0,0) c1=$(core_cpus 0,1)
# shellcheck disable=SC2086 # several arguments
cluster_plugstack ${E2E_PLUGSTACK_DEFAULT:-} filter=first_core
e2e_note "core 0,0 = cpu $c0 (kept), core 0,1 = cpu $c1; plugstack: $(cut -d' ' -f3- "$E2E_DIR/plugstack.conf")"

# 1. -c2 linear:1: core 0,1, read from the running task.
bg_srun t22_a -n1 -c2 --binding=linear:1 sleep 600
job=$(job_named t22_a) || { e2e_fail "srun -c2 --binding=linear:1 did not start: $(cat "$E2E_WORK/t22_a.out")"; e2e_done; }
pid=$(step_pids "$job.0" 1) || e2e_fail "task not found"
assert_eq "$c1" "$(cpus_allowed_of "$pid")" "-c2 linear:1: bound to core 0,1 (cpu $c1), never 0,0"
assert_eq "$c1" "$(task_env "$pid" SLURM_BINDING)" "-c2 linear:1: SLURM_BINDING"
assert_eq SCc "$(task_env "$pid" SLURM_BINDING_TOPOLOGY)" "-c2 linear:1: SLURM_BINDING_TOPOLOGY marks core 0,1"
held=$(state_records | grep "job=$job step=0 " | sed -nE 's/.* cpus=([^ ]*).*/\1/p')
assert_eq "$c1" "$held" "the state file records cpu $c1 only"
scancel "$job"; wait_job_done "$job" 30 >/dev/null; wait_bg

# shellcheck disable=SC2016 # expanded by the task's shell
probe='printf "%s|%s|%s\n" "$(awk "/^Cpus_allowed_list/ { print \$2 }" /proc/self/status)" "$SLURM_BINDING" "$SLURM_BINDING_STATUS"'

# 2. -n2 linear:1: two cores needed, one left.
out=$(run_as_user timeout 300 srun -l -n2 --binding=linear:1 sh -c "$probe" 2>&1)
e2e_note "-n2: $(echo "$out" | grep '^0: .*|')"
assert_match "$out" "^0: [0-9]+\|\|unbound: the allocation on this node is too small for --binding=linear:1: Slurm gave this step 2 cores \(cpus $E2E_CPUS\), of which the site's filter=first_core keeps cpus $c0 from every job, for 2 tasks" "-n2 linear:1: task 0 unbound, the reason names the filter"
assert_match "$out" "^1: [0-9]+\|\|unbound: .*filter=first_core" "-n2 linear:1: task 1 unbound too"

# 3. additive with the request's own filter: it forbids core 0,1.
req="packed:1:filter=$("$E2E_BUILD/sbind" place --state "$E2E_STATE" --binding explicit:0,1 --format ocs)"
out=$(run_as_user timeout 300 srun -n1 -c2 --binding="$req" sh -c "$probe" 2>&1)
assert_match "$out" "^$E2E_CPUS\|\|unbound: .*filter=first_core keeps cpus $c0.*packed: 1 free C unit of power cores needed, 0 found" "$req: nothing left with both filters"
# shellcheck disable=SC2086 # several arguments
cluster_plugstack ${E2E_PLUGSTACK_DEFAULT:-}
out=$(run_as_user timeout 300 srun -n1 -c2 --binding="$req" sh -c "$probe" 2>&1)
assert_eq "$c0|$c0|bound" "$out" "$req without filter=first_core: core 0,0"
# shellcheck disable=SC2086 # several arguments
cluster_plugstack ${E2E_PLUGSTACK_DEFAULT:-} filter=first_core

# 4. LSF: balance:1 and a cpu list on core 0,1 work; naming cpu $c0 does not.
out=$(run_as_user timeout 300 srun -n1 -c2 --binding=balance:1 sh -c "$probe" 2>&1)
assert_eq "$c1|$c1|bound" "$out" "-c2 balance:1: core 0,1"
out=$(run_as_user timeout 300 srun -n1 -c2 --binding=cpus:"$c0" sh -c "$probe" 2>&1)
assert_match "$out" "^$E2E_CPUS\|\|unbound: .*filter=first_core" "-c2 cpus:$c0: not bound"

# 5. The batch script of sbatch -c2 --binding=linear:1: core 0,1.
js=$(user_file t22_job.sh <<'EOF2'
#!/bin/sh
awk '/^Cpus_allowed_list/ { print $2 }' /proc/self/status > t22_job.cpus
echo "$SLURM_BINDING_STATUS" >> t22_job.cpus
EOF2
)
rm -f "$E2E_WORK/t22_job.cpus"
job=$(sbatch_as_user -c2 --binding=linear:1 -o /dev/null "$js") || e2e_fail "sbatch refused"
assert_eq COMPLETED "$(wait_job_done "$job" 60)" "batch job $job completes"
assert_eq "$c1
bound" "$(cat "$E2E_WORK/t22_job.cpus" 2>/dev/null)" "the batch script was bound to core 0,1 (cpu $c1)"
pass_if "no record is left" wait_until 5 eval '[ -z "$(state_records)" ]'
# shellcheck disable=SC2086 # several arguments
cluster_plugstack ${E2E_PLUGSTACK_DEFAULT:-}
e2e_done
