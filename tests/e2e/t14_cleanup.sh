#!/bin/bash
# t14_cleanup.sh: no core stays lost. A job cancelled with scancel releases
# its record when its slurmstepd ends; a job whose slurmstepd is killed
# with SIGKILL leaves a record whose owner is gone, which `sbind gc` (or any
# next transaction) reclaims; afterwards `sbind status` shows no
# allocations and the node's topology string has no held core. The killed
# step is a pe step: its rankfile, left behind, goes with `sbind gc` too.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/binding_helpers.sh"
need_plugin
[ -x "$E2E_BUILD/sbind" ] || { e2e_skip "t14 needs $E2E_BUILD/sbind"; e2e_done; }

# Rows of `sbind status` (between the header and the topology line).
status_rows() { sbind_status | awk 'NR > 1 && !/^topology:/ && !/^numa [0-9]+:/ && !/^host:/ && !/^caches:/'; }

# 1. srun job, cancelled.
bg_srun t14_a -n1 --binding=linear:1 sleep 600
a=$(job_named t14_a) || { e2e_fail "srun job did not start"; e2e_done; }
step_pids "$a.0" 1 >/dev/null || e2e_fail "task of job $a not found"
assert_match "$(status_rows)" "^$a +0 +$E2E_UID " "sbind status lists job $a step 0 while it runs"

# 2. batch job (pe: with a rankfile) whose slurmstepd will be killed.
script=$(user_file t14_b.sh <<'EOF2'
#!/bin/sh
echo $$ > t14_b.$SLURM_JOB_ID.pid
exec sleep 600
EOF2
)
b=$(sbatch_as_user -n1 --binding=pe:linear:1 -o /dev/null "$script") || { e2e_fail "sbatch refused"; e2e_done; }
bpid=$(pid_from_file "$E2E_WORK/t14_b.$b.pid") || e2e_fail "batch script of job $b did not start"
stepd=$(awk '{ print $4 }' "/proc/$bpid/stat" 2>/dev/null)
assert_eq slurmstepd "$(cat "/proc/$stepd/comm" 2>/dev/null)" "job $b's script runs under slurmstepd $stepd"
assert_match "$(status_rows)" "^$b +batch +$E2E_UID " "sbind status lists job $b's batch step"
assert_match "$(state_records | grep "job=$b ")" "pid=$stepd " "the record's owner is that slurmstepd"
rf=$E2E_STATE/rankfile.$b.batch.0
pass_if "job $b's rankfile $rf exists" test -f "$rf"

scancel "$a"
assert_eq CANCELLED "$(wait_job_done "$a" 30)" "scancel ends job $a"
wait_bg
# slurmstepd runs the plugin's exit callback as it winds down.
wait_until 5 eval "! status_rows | grep -q '^$a '"
assert_eq "" "$(status_rows | grep "^$a ")" "job $a's record is released after scancel"

kill -KILL "$stepd"
pass_if "slurmstepd $stepd killed with SIGKILL" wait_until 10 eval "! [ -e /proc/$stepd ]"
# Its task would run on unattended: end it and the job too.
kill -KILL "$bpid" 2>/dev/null
scancel "$b"
wait_job_done "$b" 60 >/dev/null
assert_match "$(state_records)" "job=$b " "the killed slurmstepd's record is still in the file (nobody released it)"
pass_if "and its rankfile is still there" test -f "$rf"

out=$("$E2E_BUILD/sbind" gc --state "$E2E_STATE" 2>&1); rc=$?
e2e_note "sbind gc: $out"
assert_eq 0 "$rc" "sbind gc runs"
assert_match "$out" "removed $rf: its step has no record" "sbind gc removes the killed step's rankfile, and says so"
pass_if "the rankfile is gone" eval "! [ -e '$rf' ]"
assert_eq "" "$(status_rows)" "sbind status shows no allocations"
assert_eq "" "$(state_records)" "the state file holds no record"
assert_match "$(sbind_status | grep '^topology:')" '^topology: [SCT]+$' "no core is held in the topology string"
e2e_done
