#!/bin/bash
# t23_implicit.sh: plugstack implicit=yes binds jobs that give no --binding
# to packed:<cpus per task in default_unit>:unit=<default_unit>, shown in
# SLURM_BINDING_REQUEST; --binding=none and an explicit --binding win over
# it; default= wins over implicit= and srun says so; a plain sbatch -n2
# script is bound to one core per job task.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/binding_helpers.sh"
need_plugin
[ "$E2E_NCPUS" -eq 2 ] || { e2e_skip "t23 is written for a 2-cpu node, this one has $E2E_NCPUS"; e2e_done; }
sge=$("$E2E_BUILD/sbind" topology --state "$E2E_STATE" --format sge)
ncores=$(printf '%s' "$sge" | tr -cd C | wc -c)
tpc=$((E2E_NCPUS / ncores))
# -c2 in cores, rounded up
want_c2="packed:$(((2 + tpc - 1) / tpc)):unit=C"
e2e_note "node $sge: $tpc thread(s) per core; -c2 should ask for $want_c2"
# shellcheck disable=SC2086 # several arguments
cluster_plugstack ${E2E_PLUGSTACK_DEFAULT:-} default=none implicit=yes

# 1. srun -c2 without --binding: bound to 2 cpus, read from the running task.
bg_srun t23_c2 -n1 -c2 sleep 600
job=$(job_named t23_c2) || { e2e_fail "srun -c2 did not start: $(cat "$E2E_WORK/t23_c2.out")"; e2e_done; }
pid=$(step_pids "$job.0" 1) || e2e_fail "task not found"
c=$(cpus_allowed_of "$pid")
e2e_note "-c2: pid $pid cpus $c, request $(task_env "$pid" SLURM_BINDING_REQUEST)"
assert_eq 2 "$(cpulist_count "$c")" "-c2: the task is bound to 2 cpus ($c)"
assert_eq "$(cpulist_expand "$c")" "$(task_env "$pid" SLURM_BINDING)" "-c2: SLURM_BINDING names them"
assert_eq "$want_c2" "$(task_env "$pid" SLURM_BINDING_REQUEST)" "-c2: SLURM_BINDING_REQUEST is the implicit packed request"
assert_eq bound "$(task_env "$pid" SLURM_BINDING_STATUS)" "-c2: bound"
assert_contains "$(state_records | grep "job=$job step=0 ")" "req=$want_c2" "-c2: the state file records the implicit request"
scancel "$job"; wait_job_done "$job" 30 >/dev/null; wait_bg

# shellcheck disable=SC2016 # expanded by the task's shell
probe='printf "%s|%s|%s|%s\n" "$(awk "/^Cpus_allowed_list/ { print \$2 }" /proc/self/status)" "$SLURM_BINDING" "$SLURM_BINDING_REQUEST" "$SLURM_BINDING_STATUS"'
field() { printf '%s' "$1" | cut -d'|' -f"$2"; }

# 2. Two tasks of one cpu each: one core each, different ones.
out=$(run_as_user timeout 300 srun -l -n2 sh -c "$probe" 2>&1)
t0=$(echo "$out" | sed -n 's/^0: //p') t1=$(echo "$out" | sed -n 's/^1: //p')
assert_eq "packed:1:unit=C|bound" "$(field "$t0" 3)|$(field "$t0" 4)" "-n2: task 0 gets packed:1:unit=C"
assert_eq 1 "$(cpulist_count "$(field "$t0" 1)")" "-n2: task 0 bound to one cpu ($(field "$t0" 1))"
assert_eq 1 "$(cpulist_count "$(field "$t1" 1)")" "-n2: task 1 bound to one cpu ($(field "$t1" 1))"
assert_ne "$(field "$t0" 1)" "$(field "$t1" 1)" "-n2: on different cpus"

# 3. Opting out, and an explicit --binding as given.
out=$(run_as_user timeout 300 srun -n1 -c2 --binding=none sh -c "$probe" 2>&1)
assert_eq "$E2E_CPUS||none|unbound: no binding requested" "$out" "--binding=none: not bound"
out=$(run_as_user timeout 300 srun -n1 -c2 --binding=linear:1 sh -c "$probe" 2>&1)
assert_eq "linear:1|bound|1" "$(field "$out" 3)|$(field "$out" 4)|$(cpulist_count "$(field "$out" 1)")" "an explicit --binding=linear:1 is used as given"

# 4. default_unit=T: -c2 is 2 threads.
# shellcheck disable=SC2086 # several arguments
cluster_plugstack ${E2E_PLUGSTACK_DEFAULT:-} default=none implicit=yes default_unit=T
out=$(run_as_user timeout 300 srun -n1 -c2 sh -c "$probe" 2>&1)
assert_eq "packed:2:unit=T|bound|2" "$(field "$out" 3)|$(field "$out" 4)|$(cpulist_count "$(field "$out" 1)")" "default_unit=T -c2: packed:2:unit=T, 2 cpus"

# 5. The batch script of sbatch -c2, and an srun step inside it.
# shellcheck disable=SC2086 # several arguments
cluster_plugstack ${E2E_PLUGSTACK_DEFAULT:-} default=none implicit=yes
js=$(user_file t23_job.sh <<EOF2
#!/bin/sh
sh -c '$probe' > t23_job.out
srun -n1 -c1 sh -c '$probe' >> t23_job.out
srun -n1 -c2 sh -c '$probe' >> t23_job.out
EOF2
)
rm -f "$E2E_WORK/t23_job.out"
job=$(sbatch_as_user -c2 -o /dev/null "$js") || e2e_fail "sbatch refused"
assert_eq COMPLETED "$(wait_job_done "$job" 60)" "batch job $job completes"
res=$(cat "$E2E_WORK/t23_job.out" 2>/dev/null)
e2e_note "batch: $(echo "$res" | tr '\n' ' ')"
bl=$(echo "$res" | sed -n 1p) s1=$(echo "$res" | sed -n 2p) s2=$(echo "$res" | sed -n 3p)
assert_eq "$E2E_CPUS|$want_c2|bound" "$(field "$bl" 1)|$(field "$bl" 3)|$(field "$bl" 4)" "the batch script is bound to its 2 cpus by $want_c2"
# each step by its own cpus per task
assert_eq "packed:1:unit=C|bound|1" "$(field "$s1" 3)|$(field "$s1" 4)|$(cpulist_count "$(field "$s1" 1)")" "its srun -c1 step: packed:1:unit=C, one cpu"
assert_eq "$want_c2|bound|$E2E_CPUS" "$(field "$s2" 3)|$(field "$s2" 4)|$(field "$s2" 1)" "its srun -c2 step: $want_c2, the script's cpus"
pass_if "the -c1 step's cpu ($(field "$s1" 1)) is inside the script's" cpulist_within "$(field "$s1" 1)" "$(field "$bl" 1)"

# 5b. A plain sbatch -n2 (no -c): the script stands for 2 tasks of one cpu
# each, so packed:1:unit=C for each, both cpus. Slurm's cpus per task for
# the batch step is the script's whole share (2), which once made it ask
# for 2 cores per task: unbound, and with on_failure=fail the job FAILED.
if [ "$tpc" -eq 1 ]; then
	# shellcheck disable=SC2086 # several arguments
	cluster_plugstack ${E2E_PLUGSTACK_DEFAULT:-} default=none implicit=yes on_failure=fail
	js=$(user_file t23_n2.sh <<EOF2
#!/bin/sh
sh -c '$probe' > t23_n2.out
EOF2
)
	rm -f "$E2E_WORK/t23_n2.out"
	job=$(sbatch_as_user -n2 -o /dev/null "$js") || e2e_fail "sbatch -n2 refused"
	assert_eq COMPLETED "$(wait_job_done "$job" 60)" "sbatch -n2 with implicit=yes on_failure=fail completes"
	bl=$(cat "$E2E_WORK/t23_n2.out" 2>/dev/null)
	e2e_note "sbatch -n2: $bl"
	assert_eq "$E2E_CPUS|packed:1:unit=C|bound" "$(field "$bl" 1)|$(field "$bl" 3)|$(field "$bl" 4)" "sbatch -n2: the script is bound to its 2 cpus by packed:1:unit=C per task"
else
	e2e_skip "sbatch -n2 implicit: written for one thread per core, this node has $tpc"
fi

# 6. default= and implicit=yes: default= wins, and srun says so.
# shellcheck disable=SC2086 # several arguments
cluster_plugstack ${E2E_PLUGSTACK_DEFAULT:-} implicit=yes default=linear:1
out=$(run_as_user timeout 300 srun -n1 -c2 sh -c "$probe" 2>&1)
assert_contains "$out" "default=linear:1 and implicit=yes both given: default= applies to jobs without --binding, implicit= is ignored" "both set: the conflict is reported"
assert_contains "$out" "|linear:1|bound" "both set: the job gets default=linear:1"
# shellcheck disable=SC2086 # several arguments
cluster_plugstack ${E2E_PLUGSTACK_DEFAULT:-}
pass_if "no record is left" wait_until 5 eval '[ -z "$(state_records)" ]'
e2e_done
