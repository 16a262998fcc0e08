#!/bin/bash
# The newer release's half of tests/releases/upgrade.sh, inside its chroot:
# a private cluster of this release on the state dir the old release wrote
# (UPGRADE_STATE), where job UPGRADE_JOB's task UPGRADE_TASK still runs on
# UPGRADE_CPU under the old slurmstepd UPGRADE_STEPD.
export E2E_PLUGSTACK_ARGS="state_dir=$UPGRADE_STATE"
# Job ids of its own: as after a real upgrade, where slurmctld's saved
# state goes on counting (this cluster's job 2 is not the old job 2).
export E2E_FIRST_JOB_ID=$((UPGRADE_JOB + 1000))
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/../e2e/binding_helpers.sh"
E2E_STATE=$UPGRADE_STATE
j=$UPGRADE_JOB cpu=$UPGRADE_CPU
need_plugin

assert_match "$(sbind_status)" "^$j +0 +[0-9]+ +[^ ]+ +$cpu +active" "this release's sbind shows the old release's record of job $j"
out=$(run_as_user srun -n1 -c"$E2E_NCPUS" --binding=linear:1 sh -c 'echo "$SLURM_BINDING_STATUS $(grep Cpus_allowed_list /proc/self/status | cut -f2)"')
read -r st c <<<"$out"
# -c NCPUS: Slurm (which knows nothing of the old job) gives it every cpu,
# the plugin binds it to one job $j does not hold.
assert_eq bound "$st" "a job of this release is bound beside job $j"
assert_ne "$cpu" "$c" "... to another cpu than job $j's $cpu (it read the record)"

kill -KILL "$UPGRADE_STEPD" "$UPGRADE_TASK" 2>/dev/null
gone() { ! [ -d "/proc/$UPGRADE_STEPD" ]; }
pass_if "the old slurmstepd $UPGRADE_STEPD is gone (SIGKILL)" wait_until 60 gone
out=$(run_as_user srun -n"$E2E_NCPUS" --binding=linear:1 sh -c 'echo "$SLURM_BINDING_STATUS $(grep Cpus_allowed_list /proc/self/status | cut -f2)"')
assert_eq "$E2E_NCPUS" "$(echo "$out" | grep -c '^bound ')" "$E2E_NCPUS tasks of this release all bound"
assert_contains " $(echo "$out" | awk '{ print $2 }' | tr '\n' ' ')" " $cpu " "one of them on job $j's cpu $cpu: this release released the dead record"
assert_eq "" "$(state_records | grep " job=$j ")" "no record of job $j is left"
e2e_done
