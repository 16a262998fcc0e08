#!/bin/bash
# t43_private.sh: private_files=yes, as an admin turns it on for a node.
#   1. slurmd, restarted with it, makes the state dir 0711; a pe step's
#      rankfile is root's, 0600 with a read-only ACL entry for its job's
#      user (the mode shows the ACL's mask: 0640), the state 0600 and root's.
#   2. Another user (nobody) can read neither, nor list the dir, nor see
#      the bindings with sbind status; the job's user reads the rankfile
#      (a task opens it by SLURM_BINDING_RANKFILE) but not the state.
#   3. root's sbind (which reads no plugstack.conf) keeps the state 0600.
#   4. private_files=no: the next step makes the dir 0755 again, the state
#      and rankfiles 0644, readable by all.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/binding_helpers.sh"
need_plugin
[ -n "$E2E_SBIND" ] || { e2e_skip "t43 needs $E2E_BUILD/sbind"; e2e_done; }
S=$E2E_STATE
log=$E2E_DIR/log/slurmd.log
# Another user than the job's: the job user's files are not theirs.
as_other() { setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"; }
modes() { stat -c '%a %U' "$@" 2>&1 | tr '\n' ' ' | sed 's/ $//'; }

# --- 1. turned on: slurmd applies it at its start
# shellcheck disable=SC2086
cluster_plugstack ${E2E_PLUGSTACK_DEFAULT:-} private_files=yes
n0=$(wc -l <"$log")
cluster_restart_slurmd || { e2e_fail "slurmd did not come back"; e2e_done; }
assert_match "$(tail -n +"$n0" "$log")" "settings: .*private_files=yes" "slurmd logs the setting"
assert_eq "711 root" "$(modes "$S")" "slurmd made the state dir 0711"

bg_srun t43_pe -n1 --binding=pe:linear:1 sleep 600
j=$(job_named t43_pe) || { e2e_fail "pe job did not start"; e2e_done; }
pid=$(step_pids "$j.0" 1) || e2e_fail "pe job's task not found"
rf=$(task_env "$pid" SLURM_BINDING_RANKFILE)
assert_eq "$S/rankfile.$j.0.0" "$rf" "the task's SLURM_BINDING_RANKFILE"
pass_if "its rankfile exists" wait_for_file "$rf" 20
assert_eq "640 root" "$(modes "$rf")" "the rankfile is root's, its mask r-- (an ACL entry)"
if command -v getfacl >/dev/null 2>&1; then
	assert_eq "user::rw- user:$(id -u "$E2E_USER"):r-- group::--- mask::r-- other::---" \
		"$(getfacl -cn "$rf" 2>/dev/null | grep . | tr '\n' ' ' | sed 's/ $//')" \
		"its ACL: the job's user reads, nobody else"
fi
assert_eq "600 root" "$(modes "$S/state")" "the state is 0600 and root's"

# --- 2. who reads what
assert_ok "the job's user reads its rankfile" run_as_user cat "$rf"
assert_match "$E2E_OUT" "^rank 0=" "and it is the rankfile"
assert_fails "another user cannot read the rankfile" as_other cat "$rf"
assert_match "$E2E_OUT" "Permission denied" "(permission denied)"
assert_fails "another user cannot read the state" as_other cat "$S/state"
assert_match "$E2E_OUT" "Permission denied" "(permission denied)"
assert_fails "another user cannot list the state dir" as_other ls "$S"
assert_fails "another user's sbind status shows nothing" as_other "$E2E_SBIND" status --state "$S"
assert_match "$E2E_OUT" "Permission denied" "and says why"
assert_fails "the job's user cannot read the state either (every job is in it)" run_as_user cat "$S/state"
out=$(run_as_user timeout 300 srun -n1 --binding=pe:linear:1 sh -c 'head -1 "$SLURM_BINDING_RANKFILE"' 2>&1)
assert_match "$out" "^rank 0=" "a task of a second pe step reads its own rankfile"

# --- 3. root's sbind keeps it private
"$E2E_BUILD/sbind" place --state "$S" --binding linear:1 --commit --job 999999 --step 0 >/dev/null 2>&1
"$E2E_BUILD/sbind" release --state "$S" --job 999999 >/dev/null
assert_eq "600 root" "$(modes "$S/state")" "root's sbind wrote the state 0600 too"
scancel "$j"; wait_job_done "$j" 30 >/dev/null; wait_bg
wait_until 20 eval "! [ -e '$rf' ]"
pass_if "the rankfile is removed at the step's end" eval "! [ -e '$rf' ]"

# --- 4. turned off again
# shellcheck disable=SC2086
cluster_plugstack ${E2E_PLUGSTACK_DEFAULT:-}
cluster_restart_slurmd || { e2e_fail "slurmd did not come back"; e2e_done; }
assert_eq "755 root" "$(modes "$S")" "private_files=no: the dir is 0755 again"
out=$(run_as_user timeout 300 srun -n1 --binding=pe:linear:1 sh -c 'stat -c "%a %U" "$SLURM_BINDING_RANKFILE"' 2>&1)
assert_eq "644 root" "$(printf '%s\n' "$out" | tail -1)" "a rankfile is root's and 0644 again"
assert_eq "644 root" "$(modes "$S/state")" "the state is 0644 again"
assert_ok "another user reads the state" as_other cat "$S/state"
e2e_done
