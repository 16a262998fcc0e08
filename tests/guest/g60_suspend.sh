#!/bin/bash
# g60_suspend.sh (guest node, cgroup v2): the suspend lifecycle where
# proctrack/cgroup freezes a step through cgroup.freeze. A user's
# `scancel -s STOP` keeps the cores; `scontrol suspend` releases them (the
# records become suspended with no cpus); after `scontrol resume` the tasks
# are bound again, one core (two threads) each.
#
# Evidence is what the tasks see: each task of a sampler job appends
# "<time> <pid> <Cpus_allowed_list>" of its own /proc/PID/status every
# 0.2 s to $E2E_WORK/s.<job>.<task>. Every wait is for a state, bounded by
# a hang guard; no verdict depends on the machine's speed.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/../e2e/binding_helpers.sh"
. "$(dirname "$0")/guest_helpers.sh"
need_plugin
# verbose: the watcher logs its verdict on a user's stop (restored at the end)
cluster_plugstack ${E2E_PLUGSTACK_DEFAULT:-} verbose

# The host's gang helpers (sampler, waits), for -n2 -c2: Slurm gives each
# task a core's two threads (cgroup cpuset); with --cpu-bind=none only this
# plugin binds them.
GANG_TASK_CPUS=2 GANG_JOB_ARGS="-n2 -c2"
. "$(dirname "$0")/../e2e/gang_helpers.sh"
HANG=$(e2e_wait_secs 600)
gang_make_sampler
held() { state_records | grep " job=$1 " | sed -E 's/.* (cpus=[^ ]* tasks=[^ ]*).*/\1/' | sort; }

a=$(sampler_job g60a) || { e2e_fail "sbatch g60a refused"; e2e_done; }
wait_bound_apart "$a" || { e2e_fail "job $a: tasks never bound a core each: $(last_cpus "$a" 0) / $(last_cpus "$a" 1)"; e2e_done; }
wait_records "$a" active || e2e_fail "job $a: records not active"
e2e_note "job $a: tasks on $(last_cpus "$a" 0) and $(last_cpus "$a" 1); records $(held "$a" | tr '\n' ' ')"

# 1. The user's own stop: the cores stay.
before=$(held "$a")
p0=$(task_pid "$a" 0) p1=$(task_pid "$a" 1)
scancel -s STOP "$a"
_e2e_wait_until "$HANG" _procs_stopped "$p0" "$p1" || e2e_fail "job $a: tasks never stopped"
stop_seen() { grep -q "job $a step 0: tasks stopped, not by a Slurm suspension" "$E2E_DIR/log/slurmd.log"; }
if _e2e_wait_until "$HANG" stop_seen; then
	e2e_pass "job $a: scancel -s STOP judged the user's stop (cgroup v2)"
else
	e2e_fail "job $a: no verdict on the user's stop in slurmd's log"
fi
assert_eq "$before" "$(held "$a")" "job $a: stopped by its user, its records keep the same cores"
assert_eq "" "$(state_records | grep " job=$a " | grep -v ' status=active ')" "job $a: records stay active"
n0=$(nsamples "$a" 0) n1=$(nsamples "$a" 1)
scancel -s CONT "$a"
wait_bound_apart "$a" "$n0" "$n1" || e2e_fail "job $a: no bound samples after CONT"

# 2. scontrol suspend: cgroup.freeze, records suspended with no cpus.
scontrol suspend "$a"
if wait_records "$a" suspended; then
	e2e_pass "job $a: records suspended after scontrol suspend (cgroup v2 freeze seen)"
else
	e2e_fail "job $a: records not suspended: $(state_records | grep " job=$a " | tr '\n' '|')"
fi
assert_eq "" "$(state_records | grep " job=$a " | grep -v ' cpus= tasks= ')" "job $a: suspended records hold no cpus"
assert_match "$(sbind_status --job "$a")" "suspended .*slurm-suspend" "sbind status --job $a: suspended, since when and why"

# 3. scontrol resume: the thaw is seen, the records are active again and
# the tasks bound again, a core each. (A job started meanwhile, and the
# deferral while it holds the cores, do not depend on the proctrack: the
# host's t30/t31 cover them.)
n0=$(nsamples "$a" 0) n1=$(nsamples "$a" 1)
scontrol resume "$a"
wait_records "$a" active || e2e_fail "job $a: records not active after resume"
if wait_bound_apart "$a" "$n0" "$n1"; then
	e2e_pass "job $a: resumed and bound again, a core each ($(last_cpus "$a" 0), $(last_cpus "$a" 1))"
else
	e2e_fail "job $a: tasks not bound again: $(last_cpus "$a" 0) / $(last_cpus "$a" 1)"
fi
scancel "$a"
wait_job_done "$a" "$HANG" >/dev/null
no_records() { [ -z "$(state_records | grep -E " job=$a ")" ]; }
_e2e_wait_until "$HANG" no_records
assert_eq "" "$(state_records | grep -E " job=$a ")" "no record of $a is left"
cluster_plugstack ${E2E_PLUGSTACK_DEFAULT:-}
e2e_done
