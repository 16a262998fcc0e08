#!/bin/bash
# t41_restart.sh: slurmd restarts under running bound jobs, and a reboot.
#   1. An srun job and a batch job, each bound to one core, run while slurmd
#      is stopped and started again: their tasks keep their cpus (/proc), the
#      state keeps exactly their records (the plugin's slurmd init touches
#      nothing in it), nothing is kept aside as corrupt.
#   2. After the restart: the srun job's cancel releases its record (its
#      slurmstepd outlived the old slurmd), a new job is bound to the core it
#      freed, a new step of the batch job is bound inside the script's core.
#   3. A reboot: the state dir is made to look written in another boot
#      (state_reboot.c rewrites the files' boot id; the plugin compares it
#      with the kernel's, which a reboot would change instead). The next
#      step discards the old boot's records as a whole and says so in the
#      log, is bound to cores those records held, writes this boot's id, and
#      the topology cache is rebuilt for this boot.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/binding_helpers.sh"
need_plugin
reboot=$E2E_BUILD/e2e/state_reboot
[ -x "$reboot" ] || { e2e_skip "t41 needs $reboot (make build/e2e/state_reboot)"; e2e_done; }
[ "$E2E_NCPUS" -eq 2 ] || { e2e_skip "t41 is written for a 2-cpu node, this one has $E2E_NCPUS"; e2e_done; }
log=$E2E_DIR/log/slurmd.log

# slurmd answers again (the node is not idle: jobs run).
node_up() {
	_e2e_started "$(_e2e_pid_of slurmd)" slurmd || return
	# One partition: the node is in two (e2e, e2e-noshare), one line each.
	case "$(sinfo -h -N -n "$E2E_NODE" -p "$E2E_PARTITION" -o %T 2>/dev/null)" in
	mixed|allocated|idle) return 0 ;;
	esac
	return 1
}

bg_srun t41_a -n1 --binding=linear:1 sleep 600
a=$(job_named t41_a) || { e2e_fail "srun job did not start"; e2e_done; }
pa=$(step_pids "$a.0" 1) || e2e_fail "srun job's task not found"
script=$(user_file t41_b.sh <<'EOF2'
#!/bin/sh
echo $$ > t41_b.$SLURM_JOB_ID.pid
exec sleep 600
EOF2
)
b=$(sbatch_as_user -n1 --binding=linear:1 -o /dev/null "$script") || { e2e_fail "sbatch refused"; e2e_done; }
pb=$(pid_from_file "$E2E_WORK/t41_b.$b.pid") || e2e_fail "batch script of job $b did not start"
ca=$(cpus_allowed_of "$pa") cb=$(cpus_allowed_of "$pb")
e2e_note "job $a task on cpu $ca, job $b script on cpu $cb"
assert_eq "bound bound" "$(task_env "$pa" SLURM_BINDING_STATUS) $(task_env "$pb" SLURM_BINDING_STATUS)" "both jobs bound"
assert_ne "$ca" "$cb" "on different cpus"
before=$(state_records)

cluster_logs_from=$(wc -l <"$log")
old_slurmd=$(_e2e_pid_of slurmd)
_e2e_kill_recorded slurmd
pass_if "slurmd $old_slurmd stopped" eval "! _e2e_alive $old_slurmd slurmd"
assert_eq "$ca $cb" "$(cpus_allowed_of "$pa") $(cpus_allowed_of "$pb")" "without slurmd the tasks run on, same cpus"
_e2e_spawn slurmd "$E2E_DIR/log/slurmd.out" slurmd -D -f "$E2E_DIR/slurm.conf" -N "$E2E_NODE"
pass_if "slurmd started again with the jobs running" wait_until 60 node_up
assert_eq "$ca $cb" "$(cpus_allowed_of "$pa") $(cpus_allowed_of "$pb")" "after the restart both tasks keep their cpus"
assert_eq "$before" "$(state_records)" "the state holds the same records"
assert_eq "" "$(ls "$E2E_STATE" | grep '^state\.corrupt\.')" "no state.corrupt.* file"
assert_eq "RUNNING RUNNING" "$(job_state "$a") $(job_state "$b")" "both jobs still run"

# 2. new steps after the restart
scancel "$a"
wait_job_done "$a" 60 >/dev/null
pass_if "job $a's record released by its slurmstepd, which outlived the old slurmd" \
	wait_until 30 eval '! state_records | grep -q "job=$a "'
out=$(run_as_user timeout 300 srun -c2 --binding=linear:1 sh -c \
	'echo "$SLURM_BINDING_STATUS|$(awk "/^Cpus_allowed_list/ { print \$2 }" /proc/self/status)"' 2>&1)
assert_eq "bound|$ca" "$(echo "$out" | tail -1)" "a new job is bound to the core job $a freed"
out=$(run_as_user timeout 300 srun --jobid="$b" --overlap -n1 --binding=linear:1 sh -c \
	'echo "$SLURM_BINDING_STATUS|$(awk "/^Cpus_allowed_list/ { print \$2 }" /proc/self/status)"' 2>&1)
assert_eq "bound|$cb" "$(echo "$out" | tail -1)" "a new step of job $b is bound inside its script's core"
assert_eq 0 "$(grep -c . <(tail -n +"$cluster_logs_from" "$log" | grep -E 'spank-binding: (state .* (damaged|refused)|warming)'))" \
	"no state or cache complaint in slurmd's log since the restart"

# 3. a reboot
me=$(cat /proc/sys/kernel/random/boot_id)
old=00000000-0000-4000-8000-$(printf '%012d' $$)
assert_ok "the state dir now looks written in boot $old" "$reboot" "$E2E_STATE" "$old"
assert_match "$(head -2 "$E2E_STATE/state")" "^boot $old$" "the state says boot $old"
assert_match "$(state_records)" "job=$b " "job $b's record is in it"
n0=$(wc -l <"$log")
out=$(run_as_user timeout 300 srun -c2 --binding=linear:2 sh -c \
	'echo "$SLURM_BINDING_STATUS|$(awk "/^Cpus_allowed_list/ { print \$2 }" /proc/self/status)"' 2>&1)
assert_eq "bound|$E2E_CPUS" "$(echo "$out" | tail -1)" "after the reboot a step gets both cores (the old boot's record of job $b held one)"
assert_match "$(tail -n +"$n0" "$log")" "state .* is from another boot \\($old\\): 1 record\\(s\\) discarded" "slurmd's log says the old boot's record was discarded"
assert_match "$(head -2 "$E2E_STATE/state")" "^boot $me$" "the state now carries this boot's id"
assert_eq "" "$(state_records)" "no record is left (job $b's was of the old boot)"
pass_if "the topology cache was rebuilt for this boot" grep -qa -- "$me" "$E2E_STATE/topology.cache"
assert_eq "" "$(ls "$E2E_STATE" | grep '^state\.corrupt\.')" "still no state.corrupt.* file"
scancel "$b"
assert_ne "" "$(wait_job_done "$b" 60)" "job $b ends"
wait_until 30 eval "! [ -e /proc/$pb ]"
"$E2E_BUILD/sbind" gc --state "$E2E_STATE" >/dev/null 2>&1
assert_eq "" "$(state_records)" "its release of a record already discarded leaves the state empty"
assert_match "$(head -1 "$E2E_STATE/state")" "^spank-binding-state 4$" "and whole"
wait_bg
e2e_done
