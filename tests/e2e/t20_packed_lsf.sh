#!/bin/bash
# t20_packed_lsf.sh: OCS packed and LSF requests on the real cluster. Each
# running task's Cpus_allowed_list (/proc/<pid>/status, or the task's own
# /proc/self/status) is what the strategy picks on this node's 2 cores in
# one socket; SLURM_BINDING_TOPOLOGY_OCS is the node's OCS string with the
# task's units lower case, as `sbind topology --format ocs` shows the state.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/binding_helpers.sh"
need_plugin
sge=$("$E2E_BUILD/sbind" topology --state "$E2E_STATE" --format sge)
[ "$sge" = SCC ] || { e2e_skip "t20 is written for 2 single-thread cores in one socket (SCC), this node is $sge"; e2e_done; }
ocs=$("$E2E_BUILD/sbind" topology --state "$E2E_STATE" --format ocs)
# OS cpus of cores 0,0 and 0,1 (hwloc's numbering need not be 0 and 1).
core_cpus() { "$E2E_BUILD/sbind" place --state "$E2E_STATE" --binding "explicit:$1" | sed -nE 's/.*\(cpus ([^)]*)\).*/\1/p'; }
c0=$(core_cpus 0,0) c1=$(core_cpus 0,1)
e2e_note "node: $sge / $ocs, core 0,0 = cpu $c0, core 0,1 = cpu $c1"

# Within one srun task: "<Cpus_allowed_list>|SLURM_BINDING|REQUEST|STATUS|TOPOLOGY_OCS"
# shellcheck disable=SC2016 # expanded by the task's shell
probe='printf "%s|%s|%s|%s|%s\n" "$(awk "/^Cpus_allowed_list/ { print \$2 }" /proc/self/status)" "$SLURM_BINDING" "$SLURM_BINDING_REQUEST" "$SLURM_BINDING_STATUS" "$SLURM_BINDING_TOPOLOGY_OCS"'
task_line() { printf '%s\n' "$1" | sed -n "s/^$2: //p" | grep -F '|'; }
field() { printf '%s' "$1" | cut -d'|' -f"$2"; }

# 1. packed:1, a running task read from outside.
bg_srun t20_packed -n1 --binding=packed:1 sleep 600
job=$(job_named t20_packed) || { e2e_fail "srun --binding=packed:1 did not start: $(cat "$E2E_WORK/t20_packed.out")"; e2e_done; }
pid=$(step_pids "$job.0" 1) || e2e_fail "packed:1: task not found"
c=$(cpus_allowed_of "$pid")
e2e_note "packed:1: pid $pid cpus $c, OCS $(task_env "$pid" SLURM_BINDING_TOPOLOGY_OCS)"
assert_eq 1 "$(cpulist_count "$c")" "packed:1: bound to one cpu ($c)"
assert_eq "$c" "$(task_env "$pid" SLURM_BINDING)" "packed:1: SLURM_BINDING is that cpu"
assert_eq packed:1 "$(task_env "$pid" SLURM_BINDING_REQUEST)" "packed:1: SLURM_BINDING_REQUEST"
assert_eq bound "$(task_env "$pid" SLURM_BINDING_STATUS)" "packed:1: bound"
held=$(state_records | grep "job=$job step=0 " | sed -nE 's/.* cpus=([^ ]*).*/\1/p')
assert_eq "$c" "$held" "packed:1: the state file records that cpu"
now=$("$E2E_BUILD/sbind" topology --state "$E2E_STATE" --format ocs)
assert_eq "$now" "$(task_env "$pid" SLURM_BINDING_TOPOLOGY_OCS)" "packed:1: SLURM_BINDING_TOPOLOGY_OCS = sbind topology --format ocs with the job's core taken"
assert_eq 1 "$(task_env "$pid" SLURM_BINDING_TOPOLOGY_OCS | tr -cd c | wc -c)" "packed:1: one core lower case in the OCS string"
assert_eq "$ocs" "$(task_env "$pid" SLURM_BINDING_TOPOLOGY_OCS | tr '[:lower:]' '[:upper:]')" "packed:1: the OCS string is the node's"
assert_match "$(task_env "$pid" SLURM_BINDING_TOPOLOGY)" '^S[Cc]{2}$' "packed:1: the Grid Engine string is still there"
scancel "$job"; wait_job_done "$job" 30 >/dev/null; wait_bg

# 2. balance:1 and pack:1 with two tasks: cores 0,0 and 0,1, task 0 first.
for req in balance:1 pack:1; do
	name=t20_${req%%:*}
	bg_srun "$name" -n2 --binding=$req sleep 600
	job=$(job_named "$name") || { e2e_fail "$req: did not start: $(cat "$E2E_WORK/$name.out")"; continue; }
	pids=$(step_pids "$job.0" 2) || e2e_fail "$req: tasks not found: '$pids'"
	# shellcheck disable=SC2086 # one word per pid
	set -- $pids
	assert_eq "$c0" "$(cpus_allowed_of "$1")" "$req -n2: task 0 on core 0,0 (cpu $c0)"
	assert_eq "$c1" "$(cpus_allowed_of "$2")" "$req -n2: task 1 on core 0,1 (cpu $c1)"
	assert_eq "$c1" "$(task_env "$2" SLURM_BINDING)" "$req -n2: task 1's SLURM_BINDING"
	assert_eq "$req" "$(task_env "$2" SLURM_BINDING_REQUEST)" "$req -n2: SLURM_BINDING_REQUEST"
	assert_eq "$(task_env "$2" SLURM_BINDING_TOPOLOGY_OCS | tr '[:lower:]' '[:upper:]')" "$ocs" "$req -n2: task 1's OCS string is the node's"
	assert_ne "$(task_env "$1" SLURM_BINDING_TOPOLOGY_OCS)" "$(task_env "$2" SLURM_BINDING_TOPOLOGY_OCS)" "$req -n2: each task's OCS string marks its own core"
	scancel "$job"; wait_job_done "$job" 30 >/dev/null; wait_bg
done

# 3. pack:2 for one task of -c2: both cores; for two tasks: 4 cores, too many.
out=$(run_as_user timeout 300 srun -l -n1 -c2 --binding=pack:2 sh -c "$probe" 2>&1)
l=$(task_line "$out" 0)
e2e_note "pack:2 -c2: $l"
assert_eq "$E2E_CPUS" "$(field "$l" 1)" "pack:2 -c2: the task is bound to both cores"
assert_eq "$(echo "$ocs" | tr '[:upper:]' '[:lower:]')" "$(field "$l" 5)" "pack:2 -c2: every unit of the OCS string is the task's"
out=$(run_as_user timeout 300 srun -l -n2 --binding=pack:2 sh -c "$probe" 2>&1)
assert_match "$(task_line "$out" 0)" "\|\|pack:2\|unbound: the allocation on this node is too small for --binding=pack:2: Slurm gave this step 2 cores \(cpus $E2E_CPUS\) for 2 tasks; 4 units needed \(2 per task x 2 tasks\), the node has 2 cpus" "pack:2 -n2: unbound, the reason names both numbers"
assert_match "$out" "^0: spank-binding: $E2E_NODE task 0: not bound: the allocation" "pack:2 -n2: task 0 says so on its stderr"

# 4. cpus:<core 0,1's cpu> on a -c2 allocation: exactly that cpu; a list of
# cpus the node lacks: no binding.
out=$(run_as_user timeout 300 srun -l -n1 -c2 --binding=cpus:"$c1" sh -c "$probe" 2>&1)
assert_eq "$c1|$c1|cpus:$c1|bound" "$(task_line "$out" 0 | cut -d'|' -f1-4)" "cpus:$c1 -c2: bound to cpu $c1 exactly"
out=$(run_as_user timeout 300 srun -l -n1 -c2 --binding=cpus:90,91 sh -c "$probe" 2>&1)
assert_match "$(task_line "$out" 0)" "^$E2E_CPUS\|\|cpus:90,91\|unbound: .*none of the listed cpus exists on this node" "cpus:90,91: not bound, none exists"
# 5. A request longer than 255 characters is used whole: 40 cpus the node
# lacks, then core 0,1's cpu (slurmstepd once cut the option at 255
# characters, and the cut list named no cpu of the node).
long="cpus:$(seq -s, 900000 900039),$c1"
out=$(run_as_user timeout 300 srun -l -n1 -c2 --binding="$long" sh -c "$probe" 2>&1)
e2e_note "a ${#long}-character cpus: list: $(task_line "$out" 0 | cut -d'|' -f1,2,4)"
assert_eq "$c1|$c1|$long|bound" "$(task_line "$out" 0 | cut -d'|' -f1-4)" "a ${#long}-character cpus: list: bound to cpu $c1, SLURM_BINDING_REQUEST whole"
pass_if "no record is left once the steps ended" wait_until 5 eval '[ -z "$(state_records)" ]'
e2e_done
