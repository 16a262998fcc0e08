#!/bin/bash
# t24_compat.sh: what job scripts written for OCS/GCS and LSF read and set.
# Every task gets GCS_BINDING, GCS_BINDING_INSTANCE, LSB_BIND_CPU_LIST and
# LSB_BIND_JOB in the products' formats; a job whose environment has LSF's
# LSB_USER_BIND_JOB / LSB_USER_BIND_CPU_LIST and no --binding is bound as
# LSF would (checked in each task's Cpus_allowed_list with
# --cpu-bind=none, so Slurm's own binding cannot produce the same cpus);
# a list wins over LSB_USER_BIND_JOB, whose admin's words (USER) are ANY;
# --binding wins over them and srun -v says so.
. "$(dirname "$0")/lib.sh"
need_plugin
sge=$("$E2E_BUILD/sbind" topology --state "$E2E_STATE" --format sge)
[ "$sge" = SCC ] || { e2e_skip "t24 is written for 2 single-thread cores in one socket (SCC), this node is $sge"; e2e_done; }
core_cpus() { "$E2E_BUILD/sbind" place --state "$E2E_STATE" --binding "explicit:$1" | sed -nE 's/.*\(cpus ([^)]*)\).*/\1/p'; }
c0=$(core_cpus 0,0) c1=$(core_cpus 0,1)

# shellcheck disable=SC2016 # expanded by the task's shell
probe='printf "%s|%s|%s|%s|%s|%s\n" "$(awk "/^Cpus_allowed_list/ { print \$2 }" /proc/self/status)" "$SGE_BINDING" "$GCS_BINDING" "$GCS_BINDING_INSTANCE" "$LSB_BIND_CPU_LIST" "$LSB_BIND_JOB"'
line() { printf '%s\n' "$1" | sed -n "s/^$2: //p" | grep -F '|'; }

# 1. GE linear: every task, the products' formats.
out=$(run_as_user srun -n2 -l --cpu-bind=none --binding=linear:1 sh -c "$probe" 2>&1)
assert_eq "$c0|$c0|$c0|set|$c0|USER_CPU_LIST" "$(line "$out" 0)" "linear:1 task 0: Cpus_allowed_list, SGE_BINDING, GCS_BINDING, GCS_BINDING_INSTANCE, LSB_BIND_CPU_LIST, LSB_BIND_JOB"
assert_eq "$c1|$c1|$c1|set|$c1|USER_CPU_LIST" "$(line "$out" 1)" "linear:1 task 1: the same variables name its own cpu"

# 2. An LSF policy: LSB_BIND_JOB is its name; the env instance binds nothing.
out=$(run_as_user srun -n1 -c2 -l --cpu-bind=none --binding=env:pack:1 sh -c "$probe" 2>&1)
l=$(line "$out" 0)
assert_eq "$c0|$c0|env|$c0|PACK" "${l#*|}" "env:pack:1: GCS_BINDING_INSTANCE=env, LSB_BIND_JOB=PACK"
assert_eq 2 "$(cpulist_count "${l%%|*}")" "env:pack:1: the task itself is not bound (both cpus)"

# 3. Not bound (3 cores asked of a 2-core node): NONE.
out=$(run_as_user srun -n1 -l --cpu-bind=none --binding=linear:3 sh -c "$probe" 2>&1)
assert_match "$(line "$out" 0)" '^[^|]*\|\|\|NONE\|\|NONE$' "not bound: GCS_BINDING_INSTANCE=NONE, LSB_BIND_JOB=NONE, the lists empty"

# OCS's -bamount 0: packed:0 is accepted and binds nothing.
out=$(run_as_user srun -n1 -c2 -l --cpu-bind=none --binding=packed:0 sh -c "$probe" 2>&1)
l=$(line "$out" 0)
assert_eq "||NONE||NONE" "${l#*|}" "packed:0 (OCS -bamount 0) is accepted and binds nothing: $out"
assert_eq 2 "$(cpulist_count "${l%%|*}")" "packed:0: the task keeps both cpus"

# 4. LSF's user variables, no --binding: BALANCE puts the two tasks on
# different cores; a list binds to the listed cpu, whatever
# LSB_USER_BIND_JOB says; USER (the admin's word) is ANY, as the LSF
# document says of any other value; LSB_BIND_JOB says which.
out=$(run_as_user env LSB_USER_BIND_JOB=BALANCE srun -n2 -l --cpu-bind=none sh -c "$probe" 2>&1)
assert_eq "$c0|$c0|$c0|set|$c0|BALANCE" "$(line "$out" 0)" "LSB_USER_BIND_JOB=BALANCE -n2: task 0 on core 0,0"
assert_eq "$c1|$c1|$c1|set|$c1|BALANCE" "$(line "$out" 1)" "LSB_USER_BIND_JOB=BALANCE -n2: task 1 on core 0,1"
out=$(run_as_user env LSB_USER_BIND_JOB=PACK LSB_USER_BIND_CPU_LIST="$c1" srun -n1 -c2 -l --cpu-bind=none sh -c "$probe" 2>&1)
assert_eq "$c1|$c1|$c1|set|$c1|USER_CPU_LIST" "$(line "$out" 0)" "LSB_USER_BIND_JOB=PACK LSB_USER_BIND_CPU_LIST=$c1 with -c2: the list wins, only that cpu"
out=$(run_as_user env LSB_USER_BIND_JOB=USER srun -n1 -c2 -l --cpu-bind=none sh -c "$probe" 2>&1)
l=$(line "$out" 0)
assert_match "$l" '\|set\|[0-9,-]+\|ANY$' "LSB_USER_BIND_JOB=USER without a list: bound as ANY, not refused: $out"
assert_eq 2 "$(cpulist_count "${l%%|*}")" "LSB_USER_BIND_JOB=USER with -c2: any:2, the task's two cores"
out=$(run_as_user env LSB_USER_BIND_CPU_LIST="$c1" sbatch -W -n1 -c2 -o t24.out --wrap "sh -c '$probe'" 2>&1)
assert_match "$(cat "$E2E_WORK/t24.out" 2>/dev/null)" "^$c1\\|$c1\\|$c1\\|set\\|$c1\\|USER_CPU_LIST\$" "sbatch with LSB_USER_BIND_CPU_LIST=$c1: the batch script is bound to it"

# 5. --binding wins over them, and srun -v says so.
out=$(run_as_user env LSB_USER_BIND_JOB=USER_CPU_LIST LSB_USER_BIND_CPU_LIST="$c1" srun -v -n1 -c2 -l --cpu-bind=none --binding=linear:1 sh -c "$probe" 2>&1)
assert_eq "$c0|$c0|$c0|set|$c0|USER_CPU_LIST" "$(line "$out" 0)" "--binding=linear:1 wins over LSB_USER_BIND_CPU_LIST=$c1"
assert_contains "$out" "(--binding wins over LSB_USER_BIND_JOB=USER_CPU_LIST LSB_USER_BIND_CPU_LIST=$c1)" "srun -v says --binding wins"
e2e_done
