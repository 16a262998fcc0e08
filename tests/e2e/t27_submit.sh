#!/bin/bash
# t27_submit.sh: the binding reaches Slurm's scheduler through the
# project's cli_filter.lua (cluster_cli_filter on: Slurm's cli_filter/lua
# calling the translation module, or `sbind submit` without it). Requests
# given without -c get the cores their binding needs and are bound, read
# from each task's own /proc with --cpu-bind=none; -v says what was added;
# a user's -c too small for the request, and a request no node can hold,
# are refused before anything runs; one that fits the node waits until its
# cores are free; whole-node requests (named cores, sockets) get the whole
# node through sbatch, salloc or a plain srun and are refused for an
# srun -n; a step asks within its job; the module works without sbind, and
# sbind without the module; plugstack submit=refuse only refuses and names
# the options, submit=off and no filter at all give the old behaviour,
# whose "too small" reason names the option that would have fitted.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/binding_helpers.sh"
need_plugin
[ "$E2E_NCPUS" -eq 2 ] || { e2e_skip "t27 is written for a 2-cpu node, this one has $E2E_NCPUS"; e2e_done; }
cluster_cli_filter on || { e2e_fail "cluster_cli_filter on"; e2e_done; }
P=$E2E_PARTITION_NOSHARE

# What a task reports about itself: rank, its Cpus_allowed_list, the
# plugin's status.
# shellcheck disable=SC2016 # expanded by the task
probe='echo "$SLURM_PROCID $(awk "/^Cpus_allowed_list/ { print \$2 }" /proc/self/status) $SLURM_BINDING_STATUS"'
task_line() { printf '%s\n' "$1" | awk -v r="$2" '$1 == r { $1 = ""; sub(/^ /, ""); print }'; }
usrun() { run_as_user timeout "$(e2e_wait_secs 300)" srun "$@" 2>&1; }

# 1. srun -n2 --binding=linear:1: --threads-per-core=1 added (-v says so), a core each.
out=$(usrun -v -n2 --cpu-bind=none --binding=linear:1 sh -c "$probe")
assert_contains "$out" "spank-binding: --binding=linear:1: 1 whole core per task: added --threads-per-core=1" \
	"-v shows what the filter added"
t0=$(task_line "$out" 0) t1=$(task_line "$out" 1)
assert_eq "1 bound" "$(cpulist_count "${t0% *}") ${t0#* }" "-n2 linear:1: task 0 bound to one cpu ($t0)"
assert_eq "1 bound" "$(cpulist_count "${t1% *}") ${t1#* }" "-n2 linear:1: task 1 bound to one cpu ($t1)"
assert_ne "${t0% *}" "${t1% *}" "-n2 linear:1: no two tasks on one core"

# 2. -n1 linear:2 without -c: the filter asks for -c 2 (whole cores): both cores.
out=$(usrun -n1 --cpu-bind=none --binding=linear:2 sh -c "$probe")
assert_eq "0 $E2E_CPUS bound" "$out" "-n1 linear:2 without -c: bound to both cores"

# 3. A conflicting -c is refused before anything runs, with both numbers.
marker=$E2E_WORK/t27_ran
assert_fails "-c1 linear:2 is refused" run_as_user srun -n1 -c1 --binding=linear:2 touch "$marker"
assert_contains "$E2E_OUT" "--binding=linear:2 needs 2 cores per task; -c 1 gives 1" "the reason names both numbers"
assert_eq "no" "$([ -e "$marker" ] && echo yes || echo no)" "-c1 linear:2: nothing ran"
assert_fails "sbatch -c1 linear:2 is refused" run_as_user sbatch -n1 -c1 --binding=linear:2 --wrap "touch $marker"
assert_contains "$E2E_OUT" "--binding=linear:2 needs 2 cores per task; -c 1 gives 1" "sbatch: the same reason"
assert_eq "" "$(squeue -h -o %i)" "nothing was queued"

# 4. A request no node can hold is refused at submission (EnforcePartLimits=ALL).
assert_fails "linear:3 on a 2-core node is refused" run_as_user srun -n1 --binding=linear:3 touch "$marker"
assert_match "$E2E_OUT" "More processors requested than permitted|Requested node configuration is not available" \
	"linear:3: Slurm says no node holds it"
assert_fails "sbatch linear:3 is refused" run_as_user sbatch -n1 --binding=linear:3 --wrap "touch $marker"
assert_eq "no" "$([ -e "$marker" ] && echo yes || echo no)" "linear:3: nothing ran"
assert_eq "" "$(squeue -h -o %i)" "linear:3: nothing was queued"

# 5. One that fits the node waits for its cores (a partition that does not
# oversubscribe), then runs bound.
bg_srun t27_hold -p "$P" -n1 --binding=linear:2 sleep 600
hold=$(job_named t27_hold) || e2e_fail "the job holding both cores did not start: $(cat "$E2E_WORK/t27_hold.out")"
job=$(sbatch_as_user -p "$P" -n1 --binding=linear:1 -o "$E2E_WORK/t27_wait.out" --wrap "$probe")
reason_is() { [ "$(job_field "$1" Reason)" = "$2" ]; }
wait_until 120 reason_is "$job" Resources
assert_eq "PENDING Resources" "$(job_state "$job") $(job_field "$job" Reason)" \
	"linear:1 while both cores are held: job $job pends for resources"
scancel "$hold"
assert_eq COMPLETED "$(wait_job_done "$job" 120)" "linear:1 runs once the cores are free"
read -r _ c s < <(grep -v '^spank' "$E2E_WORK/t27_wait.out")
assert_eq "1 bound" "$(cpulist_count "$c") $s" "the waiting job is bound to one core ($c)"
wait_bg

# 6. Whole sockets: sbatch gets the whole node, the script and its step the socket.
job=$(sbatch_as_user -p "$P" -n1 --binding=packed:1:unit=S -o "$E2E_WORK/t27_sock.out" \
	--wrap "$probe; srun --cpu-bind=none sh -c '$probe'")
assert_eq COMPLETED "$(wait_job_done "$job" 120)" "sbatch packed:1:unit=S completes"
assert_eq "$E2E_NCPUS" "$(job_field "$job" NumCPUs)" "sbatch -n1 packed:1:unit=S: the job holds its whole node (--exclusive)"
assert_eq "0 $E2E_CPUS bound
0 $E2E_CPUS bound" "$(grep -v '^spank' "$E2E_WORK/t27_sock.out")" "packed:1:unit=S: script and step bound to the socket"

# 7. Named cores: a plain srun (one task per node) gets the whole node;
# srun -n is refused with the way to do it.
out=$(usrun -p "$P" --cpu-bind=none --binding=explicit:0,1 sh -c "$probe")
assert_eq "0 1 bound" "$out" "srun explicit:0,1: bound to core 0,1 (cpu 1)"
assert_fails "srun -n1 explicit:0,1 is refused" run_as_user srun -n1 --binding=explicit:0,1 true
assert_contains "$E2E_OUT" "run the tasks inside salloc or sbatch" "srun -n explicit: the reason says what to do"
out=$(run_as_user timeout "$(e2e_wait_secs 300)" salloc -p "$P" -n1 --binding=explicit:0,1 \
	srun --cpu-bind=none sh -c "$probe" 2>&1 | grep -v '^salloc:')
assert_eq "0 1 bound" "$out" "salloc -n1 explicit:0,1 + srun: bound to cpu 1"

# 8. salloc + steps: the step inherits the binding and asks within the job.
out=$(run_as_user timeout "$(e2e_wait_secs 300)" salloc -n2 --binding=linear:1 \
	srun -n2 --cpu-bind=none sh -c "$probe" 2>&1 | grep -v '^salloc:')
t0=$(task_line "$out" 0) t1=$(task_line "$out" 1)
assert_eq "1 1 bound bound" "$(cpulist_count "${t0% *}") $(cpulist_count "${t1% *}") ${t0#* } ${t1#* }" \
	"salloc -n2 linear:1 + srun -n2: a core each ($t0; $t1)"
assert_ne "${t0% *}" "${t1% *}" "salloc + step: no two tasks on one core"

# 9. A step with a binding of its own asks within the job: -c 2 added.
job=$(sbatch_as_user -n2 --binding=linear:1 -o "$E2E_WORK/t27_step.out" \
	--wrap "srun -v -n1 --cpu-bind=none --binding=linear:2 sh -c '$probe' 2>&1 | grep -E '^0 |added'")
assert_eq COMPLETED "$(wait_job_done "$job" 120)" "batch job with a linear:2 step completes"
assert_contains "$(cat "$E2E_WORK/t27_step.out")" "added --cpus-per-task=2" "the step's filter added -c 2"
assert_contains "$(cat "$E2E_WORK/t27_step.out")" "0 $E2E_CPUS bound" "the linear:2 step is bound to both cores"

# 10. Which translation runs: the module in srun's own process when it is
# built (with sbind out of reach, only the module can have added -c 2), and
# sbind when the module cannot be loaded (a package built without it).
if [ -f "$E2E_BUILD/spank_binding_submit.so" ]; then
	sed -i 's|^M.sbind = .*|M.sbind = "/nonexistent/sbind"|' "$E2E_DIR/cli_filter.lua"
	out=$(usrun -v -n1 --cpu-bind=none --binding=linear:2 sh -c "$probe")
	assert_contains "$out" "added --cpus-per-task=2" "the module, sbind out of reach: -c 2 added"
	assert_eq "0 $E2E_CPUS bound" "$(printf '%s\n' "$out" | grep '^0 ')" \
		"the module, sbind out of reach: linear:2 bound to both cores"
else
	e2e_skip "the translation module is not built (liblua5.1-0-dev)"
fi
E2E_CLI_FILTER_MODULE=$E2E_DIR/lib/missing.so cluster_cli_filter on ||
	e2e_fail "cluster_cli_filter on (module missing)"
out=$(usrun -v -n2 --cpu-bind=none --binding=linear:1 sh -c "$probe")
assert_contains "$out" "added --threads-per-core=1" "no module, sbind submit: --threads-per-core=1 added"
t0=$(task_line "$out" 0) t1=$(task_line "$out" 1)
assert_eq "1 1 bound bound" "$(cpulist_count "${t0% *}") $(cpulist_count "${t1% *}") ${t0#* } ${t1#* }" \
	"no module, sbind submit: -n2 linear:1 a core each ($t0; $t1)"
assert_ne "${t0% *}" "${t1% *}" "no module, sbind submit: no two tasks on one core"
assert_fails "no module, sbind submit: -c1 linear:2 is refused" run_as_user srun -n1 -c1 --binding=linear:2 true
assert_contains "$E2E_OUT" "--binding=linear:2 needs 2 cores per task; -c 1 gives 1" \
	"no module, sbind submit: the reason names both numbers"
cluster_cli_filter on || e2e_fail "cluster_cli_filter on"

# 11. submit=refuse: refused, naming the options to add; given, it runs.
# shellcheck disable=SC2086 # several arguments
cluster_plugstack ${E2E_PLUGSTACK_DEFAULT:-} submit=refuse
assert_fails "submit=refuse: linear:2 without -c is refused" run_as_user srun -n1 --binding=linear:2 true
assert_contains "$E2E_OUT" "needs --cpus-per-task=2 --threads-per-core=1" "submit=refuse names the options"
out=$(usrun -n1 -c2 --threads-per-core=1 --cpu-bind=none --binding=linear:2 sh -c "$probe")
assert_eq "0 $E2E_CPUS bound" "$out" "submit=refuse: with the options given it runs bound"

# 12. submit=off, and no filter at all: the old behaviour, whose reason
# names the option that would have fitted.
# shellcheck disable=SC2086 # several arguments
cluster_plugstack ${E2E_PLUGSTACK_DEFAULT:-} submit=off
out=$(usrun -n1 --cpu-bind=none --binding=linear:2 sh -c "$probe")
assert_contains "$out" "unbound: the allocation on this node is too small for --binding=linear:2" \
	"submit=off: linear:2 without -c runs unbound as before"
assert_contains "$out" "the job's --cpus-per-task=2 --threads-per-core=1 would have fitted" \
	"the reason names the options that would have fitted"
# shellcheck disable=SC2086 # several arguments
cluster_plugstack ${E2E_PLUGSTACK_DEFAULT:-}
cluster_cli_filter off
out=$(usrun -n1 -c1 --cpu-bind=none --binding=linear:2 sh -c "$probe")
assert_contains "$out" "unbound: the allocation on this node is too small for --binding=linear:2" \
	"no filter: -c1 linear:2 is not refused, runs unbound as before"
e2e_done
