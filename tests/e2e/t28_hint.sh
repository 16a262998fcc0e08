#!/bin/bash
# t28_hint.sh: a user's --hint and the cli_filter (issue 32 item 9). A
# --hint=nomultithread, compute_bound or memory_bound counts one thread per
# core already; Slurm keeps either it or a --threads-per-core (22.05's
# srun: "Following options are mutually exclusive with --hint ... Ignoring
# --hint."; later srun(1): such options override the hint). So the filter
# adds only -c next to such a hint: srun -v still lists the hint among its
# defined options and never says it ignores it, and every task is bound to
# its whole cores. Next to a --cpu-bind (which drops the hint anyway) the
# filter adds --threads-per-core=1 as without a hint.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/binding_helpers.sh"
need_plugin
[ "$E2E_NCPUS" -eq 2 ] || { e2e_skip "t28 is written for a 2-cpu node, this one has $E2E_NCPUS"; e2e_done; }
cluster_cli_filter on || { e2e_fail "cluster_cli_filter on"; e2e_done; }

# shellcheck disable=SC2016 # expanded by the task
probe='echo "$SLURM_PROCID $(awk "/^Cpus_allowed_list/ { print \$2 }" /proc/self/status) $SLURM_BINDING_STATUS"'
task_line() { printf '%s\n' "$1" | awk -v r="$2" '$1 == r { $1 = ""; sub(/^ /, ""); print }'; }
usrun() { run_as_user timeout "$(e2e_wait_secs 300)" srun "$@" 2>&1; }
# srun -v prints its options as "srun: hint                : nomultithread".
kept() { printf '%s\n' "$1" | grep -c "^srun: hint *: *$2\$"; }
ignored() { printf '%s\n' "$1" | grep -c 'Ignoring --hint'; }

for hint in nomultithread compute_bound memory_bound; do
	out=$(usrun -v -n1 --hint=$hint --binding=linear:1 sh -c "$probe")
	assert_eq 0 "$(ignored "$out")" "--hint=$hint linear:1: srun keeps the hint (no 'Ignoring --hint')"
	assert_eq 1 "$(kept "$out" $hint)" "--hint=$hint linear:1: srun -v lists the hint"
	assert_not_contains "$out" "added --threads-per-core" "--hint=$hint: the filter adds no --threads-per-core"
	t0=$(task_line "$out" 0)
	assert_eq "1 bound" "$(cpulist_count "${t0% *}") ${t0#* }" "--hint=$hint linear:1: bound to one core ($t0)"
done

# Two cores per task next to the hint: -c 2 alone, both cores.
out=$(usrun -v -n1 --hint=compute_bound --binding=linear:2 sh -c "$probe")
assert_contains "$out" "added --cpus-per-task=2" "--hint=compute_bound linear:2: the filter adds -c 2"
assert_eq 0 "$(ignored "$out")" "--hint=compute_bound linear:2: the hint is kept"
assert_eq "$E2E_CPUS bound" "$(task_line "$out" 0)" "--hint=compute_bound linear:2: bound to both cores"

# memory_bound's one task per core, two tasks: a core each, not shared.
out=$(usrun -v -n2 --hint=memory_bound --binding=linear:1 sh -c "$probe")
t0=$(task_line "$out" 0) t1=$(task_line "$out" 1)
assert_eq 0 "$(ignored "$out")" "-n2 --hint=memory_bound: the hint is kept"
assert_eq "1 bound 1 bound" "$(cpulist_count "${t0% *}") ${t0#* } $(cpulist_count "${t1% *}") ${t1#* }" \
	"-n2 --hint=memory_bound linear:1: each task on one core ($t0 / $t1)"
assert_ne "${t0% *}" "${t1% *}" "-n2 --hint=memory_bound linear:1: no two tasks on one core"

# A --cpu-bind makes srun drop the hint whatever the filter does: then
# --threads-per-core=1 counts the cores, as without a hint.
out=$(usrun -v -n1 --hint=nomultithread --cpu-bind=none --binding=linear:1 sh -c "$probe")
assert_contains "$out" "added --threads-per-core=1" "--hint with --cpu-bind=none: --threads-per-core=1 added"
t0=$(task_line "$out" 0)
assert_eq "1 bound" "$(cpulist_count "${t0% *}") ${t0#* }" "--hint with --cpu-bind=none: bound to one core ($t0)"

# sbatch: the same translation, the batch script bound to its core.
job=$(run_as_user sbatch --parsable -n1 --hint=nomultithread --binding=linear:1 -o "$E2E_WORK/t28.out" \
	--wrap "$probe")
wait_job_done "$job" >/dev/null
read -r _ c st <"$E2E_WORK/t28.out"
assert_eq "1 bound" "$(cpulist_count "$c") $st" "sbatch --hint=nomultithread linear:1: the script bound to one core ($c)"
e2e_done
