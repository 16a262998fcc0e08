#!/bin/bash
# m12_submit.sh: the cli_filter on two nodes (cluster_cli_filter on). A
# heterogeneous srun (its components never share a node) gets each
# component's cores for the one --binding Slurm keeps for all components
# (the last one given: a SPANK option is one value per job), and every
# task is bound to exactly them, read from its own /proc; a component that
# would change the binding is refused before anything runs; srun -N2 with
# a whole-socket binding (one task per node) gets both nodes whole.
E2E_NODES=2
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/binding_helpers.sh"
need_plugin
need_two_nodes
cluster_cli_filter on || { e2e_fail "cluster_cli_filter on"; e2e_done; }
# shellcheck disable=SC2016 # expanded by the task
probe='echo "$(hostname) $(awk "/^Cpus_allowed_list/ { print \$2 }" /proc/self/status) $SLURM_BINDING_STATUS $SLURM_BINDING_REQUEST"'
usrun() { run_as_user timeout "$(e2e_wait_secs 300)" srun "$@" 2>&1; }

# 1. A heterogeneous job: --binding given once, before the first ':'.
out=$(usrun -v -n1 --cpu-bind=none --binding=linear:2 sh -c "$probe" : -n1 --cpu-bind=none sh -c "$probe")
e2e_note "het: $(echo "$out" | grep -v '^srun:' | tr '\n' ';')"
assert_contains "$out" "(het component 1): added --cpus-per-task=2" "-v: component 1 asked for -c 2 too"
lines=$(echo "$out" | grep -E "^e2e-[a-z0-9]+ ")
assert_eq 2 "$(echo "$lines" | grep -c " $E2E_CPUS bound linear:2$")" \
	"het: both components' tasks bound to linear:2's two cores ($E2E_CPUS)"
assert_eq 2 "$(echo "$lines" | awk '{ print $1 }' | sort -u | wc -l)" "het: the components ran on the two nodes"

# 2. A component that would change the binding: refused, nothing runs.
marker=$E2E_WORK/m12_ran
assert_fails "het: a second --binding is refused" run_as_user srun -n1 --binding=linear:2 true : \
	-n1 --binding=linear:1 touch "$marker"
assert_contains "$E2E_OUT" "component 1 would change --binding=linear:2" "het: the reason names both bindings"
assert_eq no "$([ -e "$marker" ] && echo yes || echo no)" "het: nothing ran"

# 3. srun -N2 with whole sockets: one task per node, each node whole.
out=$(usrun -N2 --cpu-bind=none --binding=packed:1:unit=S sh -c "$probe")
assert_eq 2 "$(echo "$out" | grep -c " $E2E_CPUS bound packed:1:unit=S$")" \
	"srun -N2 packed:1:unit=S: each node's task bound to its whole socket ($(echo "$out" | tr '\n' ';'))"
e2e_done
