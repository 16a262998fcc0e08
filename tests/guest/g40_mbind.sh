#!/bin/bash
# g40_mbind.sh (guest node): the memory policy of real Slurm tasks on NUMA
# nodes 1-3: every page of a task bound with --mbind=cores:strict is on its
# cores' node (move_pages); round_robin interleaves over all four nodes;
# nlocal picks the one NUMA node that holds the whole step, least loaded
# first, binds the cores there and the memory to it.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/../e2e/binding_helpers.sh"
. "$(dirname "$0")/guest_helpers.sh"
need_plugin
[ -x "$PAGENODE" ] || { e2e_fail "no $PAGENODE (tests/guest/build-guest.sh)"; e2e_done; }

# 32 MiB = 8192 pages of 4 KiB
for v in "0,2 1 4-7" "1,0 2 8-11" "1,2 3 12-15"; do
	# shellcheck disable=SC2086 # three words
	set -- $v
	out=$(run_as_user timeout "$(e2e_wait_secs 600)" srun -n1 -c16 --binding=linear:2:$1 --mbind=cores:strict \
		sh -c "awk '/^Cpus_allowed_list/ { print \$2 }' /proc/self/status; $PAGENODE 32" 2>&1)
	e2e_note "linear:2:$1 cores:strict: $(echo "$out" | tr '\n' ' ')"
	assert_eq "$3" "$(echo "$out" | head -1)" "linear:2:$1: cpus $3 (NUMA node $2)"
	want="policy=bind mask=$(printf '%#x' $((1 << $2))) pages=8192"
	for n in 0 1 2 3; do
		if [ "$n" = "$2" ]; then want="$want node$n=8192"; else want="$want node$n=0"; fi
	done
	assert_eq "$want" "$(echo "$out" | sed -n 2p)" "cores:strict: all 8192 pages on node $2"
done

out=$(run_as_user timeout "$(e2e_wait_secs 600)" srun -n1 -c16 --binding=linear:8 --mbind=round_robin "$PAGENODE" 32 2>&1)
e2e_note "linear:8 round_robin: $out"
assert_match "$out" "^policy=interleave mask=0xf pages=8192 " "round_robin: the task interleaves over nodes 0-3"
# Interleaving deals pages out in turn; a node short of free pages may
# take fewer, so each must hold a fair share (1/8 to 3/8), where bind or
# preferred would put them all on one node.
for n in 0 1 2 3; do
	c=$(echo "$out" | sed -nE "s/.* node$n=([0-9]+).*/\1/p")
	pass_if "round_robin: node $n holds ${c:-no} of 8192 pages (1024..3072)" \
		test "${c:-0}" -ge 1024 -a "${c:-0}" -le 3072
done

# nlocal: the step's 2 cores and its memory on one NUMA node, the one with
# the most free memory (the rule of lib/memory/memplace.c; node 0, which
# holds the guest's kernel, has the least); while another job holds that
# node's cores (both jobs may share the node: OverSubscribe=FORCE:2), the
# next step goes to another node.
nlocal_step() {	# prints cpus, SLURM_MBIND_NODES, pagenode's line
	run_as_user timeout "$(e2e_wait_secs 600)" srun -n1 -c16 --binding=linear:2 --mbind=nlocal \
		sh -c "awk '/^Cpus_allowed_list/ { print \$2 }' /proc/self/status; echo \"nodes=\$SLURM_MBIND_NODES\"; $PAGENODE 32" 2>&1
}
expect_nlocal() {	# MSG OUT NODE: the node's first two cores (cpus 4N..4N+3), pages there
	local want="policy=bind mask=$(printf '%#x' $((1 << $3))) pages=8192" n
	for n in 0 1 2 3; do
		if [ "$n" = "$3" ]; then want="$want node$n=8192"; else want="$want node$n=0"; fi
	done
	e2e_note "$1: $(echo "$2" | tr '\n' ' ')"
	assert_eq "$((4 * $3))-$((4 * $3 + 3))" "$(echo "$2" | head -1)" "$1: cpus of NUMA node $3's two cores"
	assert_eq "$want" "$(echo "$2" | sed -n 3p)" "$1: all 8192 pages on node $3"
}
out=$(nlocal_step)
first=$(echo "$out" | sed -n 2p | sed -nE 's/^nodes=([0-3])$/\1/p')
if [ -z "$first" ]; then
	e2e_fail "nlocal: SLURM_MBIND_NODES is not one node: $(echo "$out" | tr '\n' ' ')"
else
	e2e_pass "nlocal: SLURM_MBIND_NODES names one node ($first)"
	expect_nlocal "nlocal on an idle node" "$out" "$first"
	# hold that node's two cores: socket first/2, cores (first%2)*2 and +1
	bg_srun g40_hold -n1 -c16 --binding=linear:2:$((first / 2)),$(((first % 2) * 2)) sleep 600
	h=$(job_named g40_hold 600) || e2e_fail "job g40_hold did not start: $(cat "$E2E_WORK/g40_hold.out")"
	hp=$(step_pids "$h.0" 1 600) || e2e_fail "g40_hold: task not found"
	assert_eq "$((4 * first))-$((4 * first + 3))" "$(cpus_allowed_of "$hp")" "the holding job is bound to node $first's cores"
	out=$(nlocal_step)
	second=$(echo "$out" | sed -n 2p | sed -nE 's/^nodes=([0-3])$/\1/p')
	assert_ne "$first" "${second:-$first}" "nlocal while node $first's cores are held: another node (${second:-none})"
	[ -n "$second" ] && expect_nlocal "nlocal while node $first's cores are held" "$out" "$second"
	scancel "$h"
	wait_job_done "$h" 600 >/dev/null
	wait_bg
fi
e2e_done
