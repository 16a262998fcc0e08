#!/bin/bash
# t00_cluster.sh: the harness itself works: real user jobs run on the private
# cluster, inside the node's CPUs, batch output lands, end states are read
# right, two jobs share the node (OverSubscribe), helpers find task pids.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

e2e_note "mode $E2E_MODE, node $E2E_NODE, cpus $E2E_CPUS, user $E2E_USER ($E2E_UID)"

# 1. srun -n2 as the job user: two tasks, the user's uid, CPUs within the node.
out=$(run_as_user timeout 300 srun -n2 -l cat /proc/self/status 2>&1)
assert_eq 2 "$(printf '%s\n' "$out" | grep -c 'Cpus_allowed_list:')" "srun -n2 runs two tasks"
for task in 0 1; do
	cpus=$(printf '%s\n' "$out" | awk -v t="$task:" '$1 == t && $2 == "Cpus_allowed_list:" { print $3 }')
	uid=$(printf '%s\n' "$out" | awk -v t="$task:" '$1 == t && $2 == "Uid:" { print $3 }')
	assert_cpus_within "$cpus" "$E2E_CPUS" "task $task runs inside the node's cpus"
	assert_eq "$E2E_UID" "$uid" "task $task runs as $E2E_USER"
done

# 2. With cgroup v1 ConstrainCores a one-task step holds exactly one core.
if [ "$E2E_MODE" = cgroup-v1 ]; then
	cpus=$(run_as_user timeout 300 srun -n1 grep Cpus_allowed_list /proc/self/status | awk '{ print $2 }')
	assert_eq 1 "$(cpulist_count "$cpus")" "srun -n1 confined to one cpu by task/cgroup ($cpus)"
fi

# 3. sbatch writes its output file and ends COMPLETED 0:0.
script=$(user_file t00_job.sh <<'EOF'
#!/bin/sh
echo "job=$SLURM_JOB_ID node=$SLURMD_NODENAME uid=$(id -u)"
grep Cpus_allowed_list /proc/self/status
EOF
)
job=$(sbatch_as_user -n1 -o "$E2E_WORK/t00_%j.out" "$script")
if [ -z "$job" ]; then
	e2e_fail "sbatch refused the job"
else
	assert_eq COMPLETED "$(wait_job_done "$job" 60)" "batch job $job ends COMPLETED"
	assert_eq 0:0 "$(job_field "$job" ExitCode)" "batch job $job exit code"
	if wait_for_file "$E2E_WORK/t00_$job.out" 10 Cpus_allowed_list; then
		o=$(cat "$E2E_WORK/t00_$job.out")
		assert_contains "$o" "job=$job node=$E2E_NODE uid=$E2E_UID" "batch output names job, node and user"
		cpus=$(printf '%s\n' "$o" | awk '/^Cpus_allowed_list/ { print $2 }')
		assert_cpus_within "$cpus" "$E2E_CPUS" "batch script runs inside the node's cpus"
	else
		e2e_fail "batch output $E2E_WORK/t00_$job.out not written"
	fi
fi

# 4. A failing job is seen as FAILED with its exit code.
job=$(sbatch_as_user -n1 -o /dev/null --wrap 'exit 3')
assert_eq FAILED "$(wait_job_done "$job" 60)" "job exiting 3 ends FAILED"
assert_eq 3:0 "$(job_field "$job" ExitCode)" "its exit code is 3"

# 5. Two jobs asking for the whole node run at the same time (OverSubscribe=FORCE:2);
#    job_task_pids finds the running tasks, /proc shows where they may run.
a=$(sbatch_as_user -n"$E2E_NCPUS" -o /dev/null --wrap 'srun sleep 600')
b=$(sbatch_as_user -n"$E2E_NCPUS" -o /dev/null --wrap 'srun sleep 600')
assert_eq RUNNING "$(wait_job_state "$a" RUNNING 30)" "first whole-node job $a runs"
assert_eq RUNNING "$(wait_job_state "$b" RUNNING 30)" "second whole-node job $b runs beside it"
pids=$(step_pids "$a.0" "$E2E_NCPUS")
assert_eq "$E2E_NCPUS" "$(echo "$pids" | wc -w)" "job_task_pids $a.0 finds $E2E_NCPUS tasks"
for pid in $pids; do
	assert_eq sleep "$(cat /proc/"$pid"/comm 2>/dev/null)" "task pid $pid is the job's sleep"
	assert_eq "$E2E_UID" "$(awk '/^Uid:/ { print $2 }' /proc/"$pid"/status 2>/dev/null)" "task pid $pid runs as $E2E_USER"
	assert_cpus_within "$(cpus_allowed_of "$pid")" "$E2E_CPUS" "task pid $pid (/proc) inside the node's cpus"
done
scancel "$a" "$b"
assert_eq CANCELLED "$(wait_job_done "$a" 30)" "scancel ends job $a"
if wait_squeue_empty 30; then e2e_pass "queue empty after scancel"; else e2e_fail "queue not empty: $(squeue -h)"; fi

# 6. plugstack.conf lists the plugin exactly when it was built.
cluster_plugstack verbose
conf=$(cat "$E2E_DIR/plugstack.conf")
if [ -f "$E2E_BUILD/spank_binding.so" ]; then
	assert_eq "required $E2E_DIR/lib/spank_binding.so state_dir=$E2E_STATE verbose" "$conf" "plugstack.conf lists the plugin"
	# slurmd logs the plugin's effective settings once at start
	assert_match "$(grep -h 'spank-binding: settings:' "$E2E_DIR"/log/slurmd*.log | head -1)" \
		"spank-binding: settings: state_dir=$E2E_STATE enabled=yes .* on_failure=defer " \
		"slurmd's log shows the plugin's effective settings"
else
	assert_not_contains "$conf" required "plugstack.conf lists no plugin while none is built"
fi

# 7. A daemon just spawned is "starting", not "exited", until it has exec'd
# (setsid, unshare and sh exec it in the same pid; on a busy machine that
# takes a while, and the start once gave up at once then). The exec waits
# on a fifo here, so each state is reached without timing.
fifo=$(mktemp -u "$E2E_DIR/t00-fifo.XXXXXX")
mkfifo "$fifo"
bash -c 'read -r _ <"$1"; exec sleep 600' bash "$fifo" &
child=$!
_e2e_started "$child" sleep; rc=$?
assert_eq 1 "$rc" "a spawned daemon that has not exec'd yet is starting (rc 1), not gone"
echo go >"$fifo"
wait_until 60 _e2e_alive "$child" sleep
_e2e_started "$child" sleep; rc=$?
assert_eq 0 "$rc" "once exec'd it runs (rc 0)"
kill "$child"; wait "$child" 2>/dev/null
_e2e_started "$child" sleep; rc=$?
assert_eq 2 "$rc" "once it exited it is gone (rc 2)"
rm -f "$fifo"

# 8. CPU lists compare as sets: a test that builds an expected list from
# parts ("8-11" then ",0-1") must match the kernel's sorted "0-1,8-11";
# g60 once failed on the order alone, when placement put the second part
# on a lower NUMA node.
if cpulist_same 8-11,0-1 0-1,8-11 && cpulist_same 0,1,2-3 0-3 && ! cpulist_same 0-1 0-2 &&
	! cpulist_same "" 0; then
	e2e_pass "cpulist_same: one set whatever the order and ranges"
else
	e2e_fail "cpulist_same compares lists by their text"
fi

e2e_done
