#!/bin/bash
# n10_job_memory.sh (guest node, CR_Core_Memory): a job's steps share its
# memory, per NUMA node, on four real NUMA nodes of about 500 MiB (the
# rule of lib/state/occupancy.c, with the job's memory from Slurm in every
# record: jobmem=). An salloc job runs two steps at once on NUMA node 0
# (a core each), with their own --mem: node 0 holds their sum, the other
# nodes nothing. A third job's --mbind=cores:strict request on node 0 is
# then refused or bound by exactly that, with its pages read back from
# the kernel (move_pages). The salloc job's two steps hold node 0's two
# cores, so the third job runs while it is suspended (its cores released,
# its memory kept: a suspended job's pages stay resident).
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/../e2e/binding_helpers.sh"
. "$(dirname "$0")/guest_helpers.sh"
need_plugin
[ -x "$PAGENODE" ] || { e2e_fail "no $PAGENODE (tests/guest/build-guest.sh)"; e2e_done; }
assert_match "$(scontrol show config | grep -E '^SelectTypeParameters')" 'CR_CORE_MEMORY' \
	"this pass tracks memory (CR_Core_Memory)"
json=$("$E2E_BUILD/sbind" topology --state "$E2E_STATE" --format json)
assert_eq 4 "$(printf '%s' "$json" | grep -o '"numa_nodes":[0-9]*' | cut -d: -f2)" "four NUMA nodes"
total0=$(printf '%s' "$json" | grep -o '"total_mib":[0-9]*' | head -1 | cut -d: -f2)
real=$(scontrol show node "$E2E_NODE" | grep -o 'RealMemory=[0-9]*' | cut -d= -f2)
e2e_note "node 0: $total0 MiB (hwloc), Slurm RealMemory $real MB"
[ "${total0:-0}" -ge 350 ] || { e2e_fail "node 0 has ${total0:-no} MiB, the test needs 350"; e2e_done; }
HANG=$(e2e_wait_secs 600)

reserved() { "$E2E_BUILD/sbind" status --state "$E2E_STATE" | sed -n "s/^numa $1: \([0-9]*\) MiB reserved.*/\1/p"; }
steps_are() {	# JOB N STATUS
	[ "$(state_records | grep " job=$1 " | grep -c " status=$3 ")" = "$2" ]
}

# 1. salloc --mem=300, steps of 100 and 150 MiB at once on node 0's two
# cores (cpus 0-1 and 2-3); the second starts once the first's task runs.
f=$E2E_WORK/n10.first
script=$(user_file n10.sh <<SH
#!/bin/sh
srun -n1 -c2 --exact --mem=100 --binding=linear:1 --mbind=cores:strict sh -c 'touch $f; exec sleep 600' &
i=0
while [ ! -e $f ] && [ \$i -lt 6000 ]; do sleep 0.1; i=\$((i + 1)); done
srun -n1 -c2 --exact --mem=150 --binding=linear:1 --mbind=cores:strict sleep 600 &
wait
SH
)
run_as_user salloc -J n10_a -n2 -c2 --mem=300 "$script" >"$E2E_WORK/n10_a.out" 2>&1 &
BG_PIDS="$BG_PIDS $!"
a=$(job_named n10_a "$HANG") || { e2e_fail "the salloc job did not start: $(cat "$E2E_WORK/n10_a.out")"; e2e_done; }
wait_until "$HANG" steps_are "$a" 2 active || e2e_fail "job $a: two active step records: $(state_records | grep " job=$a ")"
recs=$(state_records | grep " job=$a " | sed -E 's/ (pid|start|uid|created)=[^ ]*//g')
e2e_note "$(echo "$recs" | tr '\n' '|')"
assert_eq "0-1 2-3" "$(echo "$recs" | sed -nE 's/.* cpus=([^ ]*) .*/\1/p' | sort | tr '\n' ' ' | sed 's/ $//')" \
	"job $a's steps hold node 0's two cores (cpus 0-1, 2-3)"
assert_eq 2 "$(echo "$recs" | grep -c ' jobmem=300 ')" "both records hold the job's memory (jobmem=300)"
assert_eq "250 0 0 0" "$(reserved 0) $(reserved 1) $(reserved 2) $(reserved 3)" \
	"NUMA nodes 0-3 reserve 250 0 0 0 MiB: the steps' sum on node 0 (the larger step alone, 150, before)"

scontrol suspend "$a"
wait_until "$HANG" steps_are "$a" 2 suspended || e2e_fail "job $a: records not suspended: $(state_records | grep " job=$a ")"
assert_eq 250 "$(reserved 0)" "suspended: its 250 MiB stay reserved on node 0"

# 2. A third job, the whole node in Slurm's allocation (it may share the
# suspended job's cores: OverSubscribe=FORCE:2), bound from core 0,0 with
# its memory strictly on node 0.
third() {	# MIB -> "cpus=", "status=" and pagenode's "policy=" lines (stderr apart)
	run_as_user timeout "$HANG" srun -n1 -c16 --mem="$1" --binding=linear:1:0,0 --mbind=cores:strict \
		sh -c "awk '/^Cpus_allowed_list/ { print \"cpus=\" \$2 }' /proc/self/status; echo \"status=\$SLURM_BINDING_STATUS\"; $PAGENODE 32" 2>/dev/null
}
field() { echo "$1" | sed -n "s/^$2=//p" | head -1; }
over=$((total0 - 250 + 50)) fits=$((total0 - 250 - 50))
out=$(third "$over")
e2e_note "--mem=$over: $(echo "$out" | tr '\n' ' ')"
assert_match "$(field "$out" status)" "^unbound: not enough free memory .*free MiB per node: 0:$((total0 - 250)),1:" \
	"a third job's strict --mem=$over on node 0 is refused: $((total0 - 250)) MiB free there ($total0 - 250; the old rule left $((total0 - 150)))"
out=$(third "$fits")
e2e_note "--mem=$fits: $(echo "$out" | tr '\n' ' ')"
assert_eq "0-1|bound" "$(field "$out" cpus)|$(field "$out" status)" \
	"a third job's strict --mem=$fits on node 0 is bound to core 0,0"
assert_eq "policy=bind mask=0x1 pages=8192 node0=8192 node1=0 node2=0 node3=0" "$(echo "$out" | grep '^policy=')" \
	"... and all 8192 pages of its 32 MiB are on node 0"

scontrol resume "$a"
scancel "$a"
wait_job_done "$a" "$HANG" >/dev/null
no_records() { ! state_records | grep -q " job=$1 "; }
wait_until "$HANG" no_records "$a" || e2e_fail "job $a: records left after scancel"
wait_bg
e2e_done
