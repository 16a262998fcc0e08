#!/bin/bash
# g80_submit.sh (guest node, CR_Core): the binding reaches Slurm's
# scheduler on an SMT node (2 sockets x 4 cores x 2 threads, 4 NUMA
# nodes) through the project's cli_filter.lua. Every request is given
# WITHOUT -c; each task reports its own /proc/self/status and cgroup
# cpuset (--cpu-bind=none, so Slurm's own binding cannot pass for ours),
# and gets exactly its binding, no two tasks of a row on one core (but
# type=node, whose tasks share by definition). The conflicting -c and the
# impossible rows are refused at submission; with the filter off, the old
# behaviour (two tasks per core) holds. The README's table is this file.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/../e2e/binding_helpers.sh"
. "$(dirname "$0")/guest_helpers.sh"
need_plugin
cluster_cli_filter on || { e2e_fail "cluster_cli_filter on"; e2e_done; }
P=$E2E_PARTITION_NOSHARE

# expect_disjoint MSG OUT: no cpu in two tasks' lines.
expect_disjoint() {
	local all n
	all=$(echo "$2" | grep -E '^[0-9]+ ' | awk '{ print $2 }' | while read -r c; do echo "$(cpulist_expand "$c")"; done | tr ' ' '\n' | grep -v '^$')
	n=$(echo "$all" | sort | uniq -d | wc -l)
	if [ "$n" -eq 0 ]; then e2e_pass "$1: no two tasks share a cpu"
	else e2e_fail "$1: cpus in two tasks: $(echo "$all" | sort | uniq -d | tr '\n' ' ')"; fi
}
row() {	# MSG OUT CPUS...: exactly these bindings, and no sharing
	local msg=$1 out=$2; shift 2
	expect_tasks "$msg" "$out" "$@"
	[ $# -gt 1 ] && expect_disjoint "$msg" "$out"
	return 0
}
shared_row() {	# MSG OUT CPUS...: exactly these bindings (type=node: shared)
	expect_tasks "$@"
}
# A batch job's output: the script's line, then its steps' lines.
batch() {	# NAME SBATCH-ARGS... -- SCRIPT
	local name=$1 job; shift
	job=$(sbatch_as_user -o "$E2E_WORK/$name.out" "$@") || { e2e_fail "$name: sbatch refused"; return 1; }
	[ "$(wait_job_done "$job" 900)" = COMPLETED ] || e2e_fail "$name: job $job did not complete"
	grep -E '^[0-9]+ ' "$E2E_WORK/$name.out"
}

# The README's quick start, as a user types it (printed for the README).
out=$(run_as_user timeout "$(e2e_wait_secs 600)" srun -v -n4 -l --cpu-bind=none --binding=linear:1 \
	grep Cpus_allowed_list /proc/self/status 2>&1 | grep -E '^[0-9]+:|added' | sort)
e2e_note "quick start: srun -v -n4 -l --binding=linear:1 grep Cpus_allowed_list /proc/self/status:"
echo "$out" | sed 's/^/         | /'
out=$(gsrun -v --cpu-bind=none -n4 --binding=linear:1)
assert_contains "$out" "added --threads-per-core=1" "-v says what the filter added"
row "srun -n4 linear:1: four whole cores, no -c" "$out" 0-1 2-3 8-9 10-11
row "srun -n1 linear:1" "$(gsrun --cpu-bind=none -n1 --binding=linear:1)" 0-1
row "srun -n2 linear:1" "$(gsrun --cpu-bind=none -n2 --binding=linear:1)" 0-1 8-9
row "srun -n1 linear:2" "$(gsrun --cpu-bind=none -n1 --binding=linear:2)" 0-3
row "srun -n2 linear:2" "$(gsrun --cpu-bind=none -n2 --binding=linear:2)" 0-3 4-7
row "srun -n4 linear:2" "$(gsrun --cpu-bind=none -n4 --binding=linear:2)" 0-3 4-7 8-11 12-15
row "srun striding:2:2 (one task, the whole node)" \
	"$(gsrun -p "$P" --cpu-bind=none --binding=striding:2:2)" 0-1,4-5
row "srun -n2 packed:1:unit=C" "$(gsrun --cpu-bind=none -n2 --binding=packed:1:unit=C)" 0-1 8-9
row "srun -n2 packed:2:unit=T" "$(gsrun --cpu-bind=none -n2 --binding=packed:2:unit=T)" 0-1 2-3
# A user's --hint counts one thread per core: the filter adds only -c and
# srun keeps the hint (issue 32 item 9). No --cpu-bind here (it would make
# srun drop the hint): each task's cgroup cpuset is what Slurm allocated,
# whole cores only if -c counted cores.
out=$(gsrun -v -n1 --hint=compute_bound --binding=linear:2)
assert_not_contains "$out" "Ignoring --hint" "--hint=compute_bound linear:2: srun keeps the hint"
row "srun -n1 --hint=compute_bound linear:2: two whole cores" "$out" 0-3
row "srun -n2 --hint=nomultithread linear:1: a whole core each" \
	"$(gsrun -n2 --hint=nomultithread --binding=linear:1)" 0-1 8-9
shared_row "srun -N1 -n2 packed:2:type=node (shared by the node's tasks)" \
	"$(gsrun --cpu-bind=none -N1 -n2 --binding=packed:2:type=node)" 0-1,8-9 0-1,8-9
row "srun explicit:1,0:1,1 (one task, the whole node)" \
	"$(gsrun -p "$P" --cpu-bind=none --binding=explicit:1,0:1,1)" 8-11
row "srun -n1 balance:2" "$(gsrun --cpu-bind=none -n1 --binding=balance:2)" 0-3
row "srun -n2 pack:2" "$(gsrun --cpu-bind=none -n2 --binding=pack:2)" 0-3 4-7

# Whole sockets and NUMA nodes: sbatch, the script, then its step.
out=$(batch g70_s -p "$P" -n2 --binding=packed:1:unit=S --wrap "$GUEST_TASKLINE
srun --cpu-bind=none sh -c '$GUEST_TASKLINE' | sort -n")
row "sbatch -n2 packed:1:unit=S: the script" "$(echo "$out" | head -1)" 0-15
row "sbatch -n2 packed:1:unit=S: its srun step" "$(echo "$out" | tail -n +2)" 0-7 8-15
out=$(batch g70_n -p "$P" -n2 --binding=packed:1:unit=N --wrap "$GUEST_TASKLINE
srun --cpu-bind=none sh -c '$GUEST_TASKLINE' | sort -n")
row "sbatch -n2 packed:1:unit=N: the script" "$(echo "$out" | head -1)" 0-7
row "sbatch -n2 packed:1:unit=N: its srun step" "$(echo "$out" | tail -n +2)" 0-3 4-7

# Batch and steps, salloc and steps: the steps inherit the binding and ask
# within the job.
out=$(batch g70_b -n2 --binding=linear:1 --wrap "$GUEST_TASKLINE
srun --cpu-bind=none sh -c '$GUEST_TASKLINE' | sort -n")
row "sbatch -n2 linear:1: the script" "$(echo "$out" | head -1)" 0-1,8-9
row "sbatch -n2 linear:1: its srun step" "$(echo "$out" | tail -n +2)" 0-1 8-9
out=$(run_as_user timeout "$(e2e_wait_secs 900)" salloc -n2 --binding=linear:2 \
	srun --cpu-bind=none sh -c "$GUEST_TASKLINE" 2>&1 | sort -n)
row "salloc -n2 linear:2 + srun" "$out" 0-3 4-7

# Two jobs at once (a partition that does not oversubscribe): no core
# shared, and the node's state holds both.
run_as_user srun -p "$P" -J g70_a -n2 --cpu-bind=none --binding=linear:1 sh -c "$GUEST_TASKLINE; sleep 600" \
	>"$E2E_WORK/g70_a.out" 2>&1 &
pa=$!
run_as_user srun -p "$P" -J g70_c -n2 --cpu-bind=none --binding=linear:1 sh -c "$GUEST_TASKLINE; sleep 600" \
	>"$E2E_WORK/g70_c.out" 2>&1 &
pc=$!
four_lines() { [ "$(cat "$E2E_WORK/g70_a.out" "$E2E_WORK/g70_c.out" | grep -cE '^[0-9]+ ')" -ge 4 ]; }
wait_until 900 four_lines || e2e_fail "two concurrent jobs did not both start"
both=$(cat "$E2E_WORK/g70_a.out" "$E2E_WORK/g70_c.out" | grep -E '^[0-9]+ ')
e2e_note "two jobs: $(echo "$both" | tr '\n' ';')"
assert_eq "4 4 8" "$(echo "$both" | wc -l) $(echo "$both" | grep -c ' bound$') $(echo "$both" | awk '{ print $2 }' | while read -r c; do echo "$(cpulist_expand "$c")"; done | wc -w)" \
	"two concurrent jobs: 4 tasks, all bound, a whole core (2 cpus) each"
expect_disjoint "two concurrent jobs" "$both"
ja=$(job_named g70_a 600) jc=$(job_named g70_c 600)
assert_eq 2 "$(state_records | grep -E " job=($ja|$jc) step=0 " | grep -c " status=active ")" \
	"two concurrent jobs: the node's state holds both, active"
scancel -n g70_a; scancel -n g70_c
wait "$pa" "$pc" 2>/dev/null

# Refused at submission: a conflicting -c, and what no node holds.
assert_fails "-c1 linear:2 is refused" run_as_user srun -n1 -c1 --binding=linear:2 true
assert_contains "$E2E_OUT" "--binding=linear:2 needs 2 cores per task; -c 1 gives 1" "the reason names both numbers"
assert_fails "linear:9 (9 cores, the node has 8) is refused" run_as_user srun -n1 --binding=linear:9 true
assert_match "$E2E_OUT" "Requested node configuration is not available|More processors requested than permitted" \
	"linear:9: Slurm refuses it at once"
assert_fails "linear:64 is refused (EnforcePartLimits=ALL)" run_as_user sbatch -n1 --binding=linear:64 --wrap true
assert_match "$E2E_OUT" "More processors requested than permitted|Requested node configuration is not available" \
	"linear:64: Slurm refuses it at once"
assert_eq "" "$(squeue -h -o %i)" "nothing refused was queued"

# Without the filter: the old behaviour, two tasks on each core.
cluster_cli_filter off
expect_tasks "no filter: -n4 linear:1 shares the cores Slurm gave" \
	"$(gsrun --cpu-bind=none -n4 --binding=linear:1)" 0-1 0-1 8-9 8-9
e2e_done
