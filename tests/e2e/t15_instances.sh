#!/bin/bash
# t15_instances.sh: the env and pe instances bind nothing (the task keeps
# every cpu Slurm gave it) but export the chosen cores; pe also writes an
# OpenMPI rankfile for the node's tasks, named in SLURM_BINDING_RANKFILE,
# removed when the step ends, naming the real node whatever SLURMD_NODENAME
# srun sends. `set` on the same allocation does bind.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/binding_helpers.sh"
need_plugin
[ "$E2E_NCPUS" -eq 2 ] || { e2e_skip "t15 is written for a 2-cpu node, this one has $E2E_NCPUS"; e2e_done; }

# 1. env: -c2 gives the task both cpus; env:linear:1 leaves it so.
bg_srun t15_env -n1 -c2 --binding=env:linear:1 sleep 600
j=$(job_named t15_env) || { e2e_fail "env job did not start"; e2e_done; }
p=$(step_pids "$j.0" 1) || e2e_fail "env task not found"
c=$(cpus_allowed_of "$p")
e2e_note "env: task cpus $c, SLURM_BINDING='$(task_env "$p" SLURM_BINDING)'"
assert_eq 2 "$(cpulist_count "$c")" "env: the task is not bound (keeps both allocated cpus: $c)"
assert_eq 1 "$(task_env "$p" SLURM_BINDING | wc -w)" "env: SLURM_BINDING names one cpu"
pass_if "env: that cpu is one of the task's ($c)" cpulist_within "$(task_env "$p" SLURM_BINDING | tr ' ' ',')" "$c"
assert_eq env "$(task_env "$p" SLURM_BINDING_INSTANCE)" "env: SLURM_BINDING_INSTANCE"
assert_eq bound "$(task_env "$p" SLURM_BINDING_STATUS)" "env: the cores are reserved (status bound)"
pass_if "env: no OMP_PLACES" eval "! task_has_env $p OMP_PLACES"
scancel "$j"; wait_job_done "$j" 30 >/dev/null

# The same allocation with set: bound to one cpu.
# shellcheck disable=SC2016 # awk's $2
out=$(run_as_user timeout 300 srun -n1 -c2 --binding=linear:1 awk '/^Cpus_allowed_list/ { print $2 }' /proc/self/status)
assert_eq 1 "$(cpulist_count "$out")" "set on the same allocation binds to one cpu ($out)"

# 2. pe, one task with two cpus: nothing bound, pe pairs and a rankfile.
bg_srun t15_pe1 -n1 -c2 --binding=pe:linear:1 sleep 600
j=$(job_named t15_pe1) || { e2e_fail "pe job did not start"; e2e_done; }
p=$(step_pids "$j.0" 1) || e2e_fail "pe task not found"
assert_eq 2 "$(cpulist_count "$(cpus_allowed_of "$p")")" "pe: the task is not bound"
assert_eq pe "$(task_env "$p" SLURM_BINDING_INSTANCE)" "pe: SLURM_BINDING_INSTANCE"
assert_match "$(task_env "$p" SLURM_BINDING_PE)" '^[0-9]+,[0-9]+$' "pe: SLURM_BINDING_PE is one <socket>,<core> pair"
scancel "$j"; wait_job_done "$j" 30 >/dev/null

# 3. pe, two tasks: the rankfile has one line per task, as the pe pairs say.
bg_srun t15_pe2 -n2 --binding=pe:linear:1 sleep 600
j=$(job_named t15_pe2) || { e2e_fail "pe -n2 job did not start"; e2e_done; }
pids=$(step_pids "$j.0" 2) || e2e_fail "pe -n2 tasks not found"
# shellcheck disable=SC2086 # one word per pid
set -- $pids
rf=$(task_env "$1" SLURM_BINDING_RANKFILE)
e2e_note "rankfile $rf: $(tr '\n' '|' <"$rf" 2>/dev/null)"
assert_eq "$rf" "$(task_env "$2" SLURM_BINDING_RANKFILE)" "pe: both tasks name the same rankfile"
pass_if "pe: the rankfile exists ('$rf')" test -n "$rf" -a -f "$rf"
assert_ok "pe: the job user can read the rankfile" run_as_user cat "$rf"
want=
for i in 0 1; do
	pid=$(eval echo "\$$((i + 1))")
	pair=$(task_env "$pid" SLURM_BINDING_PE)
	want="${want}rank $i=$E2E_NODE slot=${pair%%,*}:${pair#*,}
"
done
assert_eq "$(printf "%s" "$want")" "$(cat "$rf")" "pe: one 'rank N=<node> slot=<socket>:<core>' line per task"
assert_ne "$(task_env "$1" SLURM_BINDING_PE)" "$(task_env "$2" SLURM_BINDING_PE)" "pe: the two ranks have different cores"
scancel "$j"; wait_job_done "$j" 30 >/dev/null
wait_bg
pass_if "pe: the rankfile is removed when the step ends" wait_until 5 eval "! [ -e '$rf' ]"

# 4. The rankfile names the real node, whatever SLURMD_NODENAME srun sends
# (the user's environment; a newline in it once added lines to the file
# root writes).
# shellcheck disable=SC2016 # expanded by the task's shell
out=$(run_as_user env SLURMD_NODENAME="bogus
rank 7=evil slot=0:0" timeout 300 srun -n1 --binding=pe:linear:1 sh -c 'cat "$SLURM_BINDING_RANKFILE"; echo "pe=$SLURM_BINDING_PE"' 2>&1)
e2e_note "SLURMD_NODENAME=bogus: $(printf '%s' "$out" | tr '\n' '|')"
pair=$(printf '%s\n' "$out" | sed -n 's/^pe=//p')
assert_eq "rank 0=$E2E_NODE slot=${pair%%,*}:${pair#*,}" "$(printf '%s\n' "$out" | grep '^rank')" "pe with SLURMD_NODENAME=bogus: the rankfile names $E2E_NODE, one line"
assert_not_contains "$out" "evil" "pe: nothing of SLURMD_NODENAME reaches the rankfile"
e2e_done
