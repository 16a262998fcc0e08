#!/bin/bash
# g50_concurrent.sh (guest node): two jobs running at once on the node
# never share a core, and the node's state holds both.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/../e2e/binding_helpers.sh"
. "$(dirname "$0")/guest_helpers.sh"
need_plugin

bg_srun g50a -n2 -c2 --binding=linear:1 sleep 300
bg_srun g50b -n2 -c2 --binding=linear:1 sleep 300
ja=$(job_named g50a 600) || e2e_fail "job g50a did not start: $(cat "$E2E_WORK/g50a.out")"
jb=$(job_named g50b 600) || e2e_fail "job g50b did not start: $(cat "$E2E_WORK/g50b.out")"
pa=$(step_pids "$ja.0" 2 600) || e2e_fail "g50a: not 2 tasks: '$pa'"
pb=$(step_pids "$jb.0" 2 600) || e2e_fail "g50b: not 2 tasks: '$pb'"
all=
for p in $pa $pb; do
	c=$(cpus_allowed_of "$p")
	e2e_note "pid $p cpus $c status $(task_env "$p" SLURM_BINDING_STATUS)"
	assert_eq bound "$(task_env "$p" SLURM_BINDING_STATUS)" "task $p bound"
	assert_eq 2 "$(cpulist_count "$c")" "task $p on one core's two threads ($c)"
	all="$all $(cpulist_expand "$c")"
done
assert_eq 8 "$(echo $all | tr ' ' '\n' | sort -u | wc -l)" "the 4 tasks of the 2 jobs are on 4 different cores"
assert_eq 2 "$(state_records | grep -c .)" "the state holds both jobs"
scancel "$ja" "$jb"
wait_job_done "$ja" 600 >/dev/null
wait_job_done "$jb" 600 >/dev/null
wait_bg
e2e_done
