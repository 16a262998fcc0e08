#!/bin/bash
# g60_suspend.sh (guest node, cgroup v2): the suspend lifecycle where
# proctrack/cgroup freezes a step through cgroup.freeze, on a node with
# four NUMA nodes.
#   - A user's `scancel -s STOP` keeps the cores.
#   - `scontrol suspend` releases them (the records become suspended with
#     no cpus), so another job can take them.
#   - On `scontrol resume`, the rule of lib/suspend/rebind.c: a
#     --mbind=cores:strict task whose core is taken is deferred, although
#     cores of other NUMA nodes are free in its allocation (its memory
#     policy, which only the task can change, still points at its node),
#     and bound to its own core again once that frees; a --mbind=cores task
#     in the same spot moves to a free core at once.
#
# S (strict) and P (cores) have the whole node (-c16) and bind one core
# (two threads) each; where is the placement's choice (cores steers by
# free memory), so the test reads it. While both are suspended, C binds
# both cores of S's NUMA node and P's core (explicit): S's node has no free
# core left, other nodes have several.
#
# Evidence is what the tasks see: each task of a sampler job appends
# "<time> <pid> <Cpus_allowed_list>" of its own /proc/PID/status every
# 0.2 s to $E2E_WORK/s.<job>.<task>. Every wait is for a state, bounded by
# a hang guard; no verdict depends on the machine's speed.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/../e2e/binding_helpers.sh"
. "$(dirname "$0")/guest_helpers.sh"
need_plugin
# verbose: the watcher logs its verdicts (restored at the end)
cluster_plugstack ${E2E_PLUGSTACK_DEFAULT:-} verbose

# The host's gang helpers (sampler, waits).
. "$(dirname "$0")/../e2e/gang_helpers.sh"
HANG=$(e2e_wait_secs 600)
gang_make_sampler
held() { state_records | grep " job=$1 " | sed -E 's/.* (cpus=[^ ]* tasks=[^ ]*).*/\1/' | sort; }
one_job() {	# NAME MBIND [BINDING]: an -n1 -c16 sampler job (srun --cpu-bind=none)
	sbatch_as_user -J "$1" -n1 -c16 --binding="${3:-linear:1}" --mbind="$2" -o "$E2E_WORK/$1.out" \
		--wrap "srun --cpu-bind=none $SAMPLER"
}
_task_on() {	# JOB CPUS [AFTER]: task 0's newest sample (after sample AFTER) is on CPUS
	[ "$(nsamples "$1" 0)" -gt "${3:-0}" ] && cpulist_same "$(last_cpus "$1" 0)" "$2"
}
wait_task_on() { _e2e_wait_until "$HANG" _task_on "$@"; }
_task_on_core() {	# JOB [AFTER]: task 0's newest sample is one core (two cpus)
	[ "$(nsamples "$1" 0)" -gt "${2:-0}" ] && [ "$(cpulist_count "$(last_cpus "$1" 0)")" = 2 ]
}
step_status() { state_records | grep " job=$1 " | grep " step=0 " | sed -E 's/.* status=([a-z]+) .*/\1/'; }
pair_of_core() { echo "$(($1 / 4)),$(($1 % 4))"; }	# Slurm core k -> socket,core
stop_lines() { grep -c "job $1 step [a-z0-9]*: tasks stopped, not by a Slurm suspension" "$E2E_DIR/log/slurmd.log"; }

s=$(one_job g60s cores:strict) || { e2e_fail "sbatch g60s refused"; e2e_done; }
p=$(one_job g60p cores) || { e2e_fail "sbatch g60p refused"; e2e_done; }
_e2e_wait_until "$HANG" _task_on_core "$s" || { e2e_fail "job $s (cores:strict): not bound to one core: $(last_cpus "$s" 0)"; e2e_done; }
_e2e_wait_until "$HANG" _task_on_core "$p" || { e2e_fail "job $p (cores): not bound to one core: $(last_cpus "$p" 0)"; e2e_done; }
wait_records "$s" active || e2e_fail "job $s: records not active"
s_cpus=$(last_cpus "$s" 0) p_cpus=$(last_cpus "$p" 0)
s_first=$(cpulist_expand "$s_cpus" | cut -d' ' -f1) p_first=$(cpulist_expand "$p_cpus" | cut -d' ' -f1)
node=$((s_first / 4))
assert_eq "" "$(cpulist_expand "$s_cpus" | tr ' ' '\n' | grep -Fxf <(cpulist_expand "$p_cpus" | tr ' ' '\n'))" \
	"jobs $s and $p on different cores ($s_cpus, $p_cpus)"
e2e_note "job $s (cores:strict) on cpus $s_cpus (NUMA node $node), job $p (cores) on cpus $p_cpus"

# 1. The user's own stop: the cores stay.
before=$(held "$s")
pid=$(task_pid "$s" 0)
scancel -s STOP "$s"
_e2e_wait_until "$HANG" _procs_stopped "$pid" || e2e_fail "job $s: task never stopped"
stop_seen() { [ "$(stop_lines "$s")" -gt 0 ]; }
if _e2e_wait_until "$HANG" stop_seen; then
	e2e_pass "job $s: scancel -s STOP judged the user's stop (cgroup v2)"
else
	e2e_fail "job $s: no verdict on the user's stop in slurmd's log"
fi
assert_eq "$before" "$(held "$s")" "job $s: stopped by its user, its records keep the same cores"
assert_eq "" "$(state_records | grep " job=$s " | grep -v ' status=active ')" "job $s: records stay active"
n=$(nsamples "$s" 0)
scancel -s CONT "$s"
wait_task_on "$s" "$s_cpus" "$n" || e2e_fail "job $s: no bound samples after CONT"

# 2. scontrol suspend: cgroup.freeze, records suspended with no cpus.
scontrol suspend "$s"
scontrol suspend "$p"
if wait_records "$s" suspended; then
	e2e_pass "job $s: records suspended after scontrol suspend (cgroup v2 freeze seen)"
else
	e2e_fail "job $s: records not suspended: $(state_records | grep " job=$s " | tr '\n' '|')"
fi
wait_records "$p" suspended || e2e_fail "job $p: records not suspended"
assert_eq "" "$(state_records | grep -E " job=($s|$p) " | grep -vE ' cpus= (since=[0-9]+ why=[^ ]* )?tasks= ')" "jobs $s and $p: suspended records hold no cpus"
assert_match "$(sbind_status --job "$s")" "suspended .*slurm-suspend" "sbind status --job $s: suspended, since when and why"
stops=$(stop_lines "$s")

# 3. C takes S's NUMA node and P's core.
held_by_c="explicit:$(pair_of_core $((2 * node))):$(pair_of_core $((2 * node + 1)))"
c_cpus="$((4 * node))-$((4 * node + 3))"
if [ $((p_first / 4)) -ne "$node" ]; then
	held_by_c="$held_by_c:$(pair_of_core $((p_first / 2)))"
	c_cpus="$c_cpus,$p_cpus"
fi
c=$(one_job g60c none "$held_by_c") || { e2e_fail "sbatch g60c ($held_by_c) refused"; e2e_done; }
wait_task_on "$c" "$c_cpus" || e2e_fail "job $c ($held_by_c): not bound to cpus $c_cpus: $(last_cpus "$c" 0)"

# 4. Resume: S deferred, P moved.
scontrol resume "$s"
if wait_log "job $s step 0: deferred: held-by-job:$c"; then
	e2e_pass "job $s (cores:strict): resumed while $c holds its NUMA node's cores: deferred, not moved to another node"
else
	e2e_fail "job $s (cores:strict): not deferred after resume: $(state_records | grep " job=$s " | tr '\n' '|')"
fi
assert_eq deferred "$(step_status "$s")" "job $s: its step's record is deferred"
n=$(nsamples "$p" 0)
scontrol resume "$p"
if _e2e_wait_until "$HANG" _task_on_core "$p" "$n" && [ "$(last_cpus "$p" 0)" != "$p_cpus" ] &&
	! cpulist_within "$(last_cpus "$p" 0)" "$c_cpus"; then
	e2e_pass "job $p (cores): resumed on another core ($(last_cpus "$p" 0)) while $c holds its own"
else
	e2e_fail "job $p (cores): not moved after resume: $(last_cpus "$p" 0) (was $p_cpus, $c holds $c_cpus)"
fi
assert_eq active "$(step_status "$p")" "job $p: its step's record is active again"
assert_eq deferred "$(step_status "$s")" "job $s: still deferred while $c runs"

# 5. C ends: S back on its own core.
n=$(nsamples "$s" 0)
scancel "$c"
if wait_task_on "$s" "$s_cpus" "$n"; then
	e2e_pass "job $s (cores:strict): bound to its own core again (cpus $s_cpus) once $c ended"
else
	e2e_fail "job $s (cores:strict): not bound again on cpus $s_cpus: $(last_cpus "$s" 0)"
fi
wait_records "$s" active || e2e_fail "job $s: records not active again"
# Slurm's SIGTSTP still on the task at the thaw is no user's stop
assert_eq "$stops" "$(stop_lines "$s")" "job $s: its resume was not taken for a user's stop"
scancel "$s" "$p"
for j in "$s" "$p" "$c"; do wait_job_done "$j" "$HANG" >/dev/null; done
no_records() { [ -z "$(state_records | grep -E " job=($s|$p|$c) ")" ]; }
_e2e_wait_until "$HANG" no_records
assert_eq "" "$(state_records | grep -E " job=($s|$p|$c) ")" "no record of $s, $p or $c is left"
# cgroup v2's cgroup.events wakes the watcher at each change only (it once
# spun there: a CPU per step)
gang_watchers_quiet "$s" "$p" "$c"
cluster_plugstack ${E2E_PLUGSTACK_DEFAULT:-}
e2e_done
