#!/bin/bash
# g40_mbind.sh (guest node): the memory policy of real Slurm tasks on NUMA
# nodes 1-3: every page of a task bound with --mbind=cores:strict is on its
# cores' node (move_pages); round_robin interleaves over all four nodes.
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
e2e_done
