#!/bin/bash
# t17_job_memory.sh: a job's steps share its memory (docs/memory.md), with
# the job's memory from Slurm (S_JOB_ALLOC_MEM, the records' jobmem=). An
# salloc job (no batch script) runs two steps at once on the node's one
# NUMA node, each with its own smaller --mem and --mbind=cores:strict:
# another job sees their sum reserved (the rule before counted only the
# larger step); steps sharing the job's memory with --overlap count at most
# the job's memory. A third job's cores:strict request is then placed or
# refused by exactly that: it runs while the salloc job is suspended
# (scontrol suspend: its cores go to others, its pages stay resident, so
# its reservation stays), because the salloc job's two steps hold both of
# this 2-cpu node's cores. The plugin's capacity is made smaller than
# Slurm's RealMemory with mem_reserve=, so Slurm admits every job here and
# only the plugin's accounting decides.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/binding_helpers.sh"
need_plugin
[ "$E2E_NCPUS" = 2 ] || { e2e_skip "t17 is written for a 2-cpu node, this one has $E2E_NCPUS"; e2e_done; }
assert_match "$(scontrol show config | grep -E '^SelectTypeParameters')" 'CR_CORE_MEMORY' \
	"the cluster tracks memory (CR_Core_Memory: Slurm hands the steps and the job their memory)"
json=$("$E2E_BUILD/sbind" topology --state "$E2E_STATE" --format json)
nodes=$(printf '%s' "$json" | grep -o '"numa_nodes":[0-9]*' | cut -d: -f2)
[ "$nodes" = 1 ] || { e2e_skip "t17 is written for one NUMA node, this node has $nodes"; e2e_done; }
total=$(printf '%s' "$json" | grep -o '"total_mib":[0-9]*' | head -1 | cut -d: -f2)
real=$(scontrol show node "$E2E_NODE" | grep -o 'RealMemory=[0-9]*' | cut -d= -f2)
# The plugin's capacity on node 0: 1200 MiB (the rest kept by mem_reserve=).
CAP=1200
[ "$total" -gt $((CAP + 200)) ] && [ "$real" -ge 1600 ] ||
	{ e2e_skip "t17 needs a node of at least 1600 MB (total $total MiB, RealMemory $real MB)"; e2e_done; }
cluster_plugstack ${E2E_PLUGSTACK_DEFAULT:-} "mem_reserve=$((total - CAP))"
e2e_note "node 0: $total MiB, plugin capacity $CAP MiB, Slurm RealMemory $real MB"

# What another job sees: sbind status as the job user (not root).
reserved0() { run_as_user "$E2E_BUILD/sbind" status --state "$E2E_STATE" | sed -n 's/^numa 0: \([0-9]*\) MiB reserved.*/\1/p'; }
steps_active() {	# JOB N: N active step records of JOB
	[ "$(state_records | grep " job=$1 " | grep -c ' status=active ')" = "$2" ]
}
steps_suspended() {	# JOB N
	[ "$(state_records | grep " job=$1 " | grep -c ' status=suspended ')" = "$2" ]
}
no_records() { ! state_records | grep -q " job=$1 "; }

# salloc NAME JOBMEM "OPTS1" "OPTS2": two steps at once, each bound to one
# core with the srun options given (its --mem); salloc runs in the
# background. The second starts once the first's task runs (its binding
# is made before exec), so the first is placed first.
salloc_two_steps() {
	local name=$1 jm=$2 o1=$3 o2=$4
	local script f="$E2E_WORK/$name.first"
	rm -f "$f"
	script=$(user_file "$name.sh" <<SH
#!/bin/sh
srun -n1 --exact $o1 --binding=linear:1 --mbind=cores:strict sh -c 'touch $f; exec sleep 600' &
i=0
while [ ! -e $f ] && [ \$i -lt 3000 ]; do sleep 0.1; i=\$((i + 1)); done
srun -n1 --exact $o2 --binding=linear:1 --mbind=cores:strict sleep 600 &
wait
SH
)
	run_as_user salloc -J "$name" -n2 --mem="$jm" "$script" >"$E2E_WORK/$name.out" 2>&1 &
	BG_PIDS="$BG_PIDS $!"
}

# A third job (another user job): one task, --mem=X, cores:strict.
third_job() {	# X -> its SLURM_BINDING_STATUS
	run_as_user timeout 300 srun -n1 --mem="$1" --binding=linear:1 --mbind=cores:strict \
		sh -c 'echo "$SLURM_BINDING_STATUS"' 2>/dev/null | head -1
}

# 1. The sum: 200 + 300 MiB of a 600 MiB job reserve 500 (the larger step
# alone, 300, before); free for others 1200 - 500 = 700.
salloc_two_steps t17_sum 600 --mem=200 --mem=300
a=$(job_named t17_sum 60) || e2e_fail "the salloc job did not start"
wait_until 120 steps_active "$a" 2 || e2e_fail "job $a: two active step records: $(state_records | grep " job=$a ")"
e2e_note "$(state_records | grep " job=$a " | sed -E 's/ (pid|start|uid|created)=[^ ]*//g' | tr '\n' '|')"
assert_eq 2 "$(state_records | grep " job=$a " | grep -o ' cpus=[0-9]* ' | sort -u | wc -l)" \
	"job $a's two steps run at once on the two cores"
assert_match "$(state_records | grep " job=$a step=0 ")" " jobmem=600 " "each record holds the job's memory (jobmem=600, S_JOB_ALLOC_MEM)"
assert_eq 500 "$(reserved0)" "sbind status (as another user): 200 + 300 MiB reserved on node 0, the steps' sum"
# Both cores are the salloc job's; suspended, its cores go to others and
# its memory stays (a suspended job's pages stay resident).
scontrol suspend "$a"
wait_until 120 steps_suspended "$a" 2 || e2e_fail "job $a: records not suspended: $(state_records | grep " job=$a ")"
assert_eq 500 "$(reserved0)" "suspended: still 500 MiB reserved"
st=$(third_job 800)
assert_match "$st" "^unbound: not enough free memory on the NUMA nodes of this step's cores.*0:700" \
	"a third job's strict --mem=800 is refused: 700 MiB free (1200 - 500); the old rule left 900"
st=$(third_job 650)
assert_eq bound "$st" "a third job's strict --mem=650 is placed (650 <= 700)"
scontrol resume "$a"
scancel "$a"; wait_job_done "$a" 60 >/dev/null
wait_until 60 no_records "$a" || e2e_fail "job $a: records left after scancel"

# 2. The cap: a step sharing the job's memory (--overlap: Slurm lets the
# steps' --mem add up past the job's) counts within the job's 600 MiB,
# not 400 + 500; free for others 600. The overlapping step asks for both
# cpus (-c2: Slurm gives an overlapping -n1 step the first cpu, which its
# sibling holds) and is bound to the other core.
salloc_two_steps t17_cap 600 --mem=400 "-c2 --overlap --mem=500"
a=$(job_named t17_cap 60) || e2e_fail "the salloc job did not start"
wait_until 120 steps_active "$a" 2 || e2e_fail "job $a: two active step records: $(state_records | grep " job=$a ")"
e2e_note "$(state_records | grep " job=$a " | sed -E 's/ (pid|start|uid|created)=[^ ]*//g' | tr '\n' '|')"
assert_eq 2 "$(state_records | grep " job=$a " | grep -o ' cpus=[0-9]* ' | sort -u | wc -l)" \
	"job $a's two steps run at once on the two cores"
assert_eq 600 "$(reserved0)" "sbind status: 400 + 500 MiB of a 600 MiB job reserve 600, the job's memory"
scontrol suspend "$a"
wait_until 120 steps_suspended "$a" 2 || e2e_fail "job $a: records not suspended"
st=$(third_job 650)
assert_match "$st" "^unbound: not enough free memory.*0:600" \
	"a third job's strict --mem=650 is refused: 600 MiB free (1200 - 600)"
st=$(third_job 550)
assert_eq bound "$st" "a third job's strict --mem=550 is placed: the job counts 600, not 900"
scontrol resume "$a"
scancel "$a"; wait_job_done "$a" 60 >/dev/null
wait_until 60 no_records "$a" || e2e_fail "job $a: records left after scancel"
wait_bg
cluster_plugstack ${E2E_PLUGSTACK_DEFAULT:-}
e2e_done
