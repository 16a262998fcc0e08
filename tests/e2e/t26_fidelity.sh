#!/bin/bash
# t26_fidelity.sh: what the Grid Engine and OCS documents say, on real
# Slurm (issue 24): explicit pairs separated by ';' and SGE_MP_PROCBIND
# (Grid Engine 6.2u5), OCS's SGE_BINDING_INSTANCE/_TOPOLOGY/_CPUSET, a
# start letter the node lacks is no binding on
# that node, not a bad request (OCS), and a node whose topology cannot be
# read reports NONE while OCS's on_any_host decides whether binding
# requests run there unbound (yes) or fail (no). The node without a
# topology is made deterministically: plugstack topology= names a file
# hwloc cannot read. Each task's own /proc/self/status is read; with
# --cpu-bind=none Slurm's own binding would give every task both cpus.
. "$(dirname "$0")/lib.sh"
need_plugin
sge=$("$E2E_BUILD/sbind" topology --state "$E2E_STATE" --format sge)
[ "$sge" = SCC ] || { e2e_skip "t26 is written for 2 single-thread cores in one socket (SCC), this node is $sge"; e2e_done; }
core_cpus() { "$E2E_BUILD/sbind" place --state "$E2E_STATE" --binding "explicit:$1" | sed -nE 's/.*\(cpus ([^)]*)\).*/\1/p'; }
c0=$(core_cpus 0,0) c1=$(core_cpus 0,1)
line() { printf '%s\n' "$1" | sed -n "s/^$2: //p" | grep -F '|'; }
# shellcheck disable=SC2016 # expanded by the task's shell
probe='printf "%s|%s|%s|%s\n" "$(awk "/^Cpus_allowed_list/ { print \$2 }" /proc/self/status)" "$SGE_BINDING" "$SGE_MP_PROCBIND" "$SLURM_BINDING_STATUS"'

# 1. Grid Engine 6.2u5: explicit pairs separated by ';', shared out in the
# order listed; SGE_MP_PROCBIND is SGE_BINDING.
out=$(run_as_user srun -n2 -l --cpu-bind=none '--binding=explicit:0,1;0,0' sh -c "$probe" 2>&1)
assert_eq "$c1|$c1|$c1|bound" "$(line "$out" 0)" "explicit:0,1;0,0 task 0: core 0,1, SGE_BINDING = SGE_MP_PROCBIND"
assert_eq "$c0|$c0|$c0|bound" "$(line "$out" 1)" "explicit:0,1;0,0 task 1: core 0,0"
# the env instance binds nothing and names the cpus in both variables
out=$(run_as_user srun -n1 -c2 -l --cpu-bind=none --binding=env:explicit:0,1 sh -c "$probe" 2>&1)
assert_eq "$E2E_CPUS|$c1|$c1|bound" "$(line "$out" 0)" "env:explicit:0,1: not bound, SGE_BINDING and SGE_MP_PROCBIND name core 0,1's cpu"
# OCS's own variables (sge_binding(5)): the instance, the OCS string with
# the task's units lower case, the cpus as hwloc prints a cpuset
# shellcheck disable=SC2016
ocs='printf "%s|%s|%s\n" "$SGE_BINDING_INSTANCE" "$SGE_BINDING_TOPOLOGY" "$SGE_BINDING_CPUSET"'
out=$(run_as_user srun -n1 -l --binding=linear:1 sh -c "$ocs" 2>&1)
assert_eq "set|$("$E2E_BUILD/sbind" place --state "$E2E_STATE" --binding explicit:0,0 --format ocs)|$(printf '0x%08x' $((1 << c0)))" \
	"$(line "$out" 0)" "OCS: SGE_BINDING_INSTANCE, SGE_BINDING_TOPOLOGY and SGE_BINDING_CPUSET of a task on core 0,0"
out=$(run_as_user srun -n1 -l --binding=linear:3 sh -c "$ocs" 2>&1)
assert_eq "NONE|NONE|0x0" "$(line "$out" 0)" "OCS: not bound, NONE, NONE and 0x0"
# an empty pair is refused where it is typed, naming it
out=$(run_as_user timeout 300 srun -n1 '--binding=explicit:0,1;;0,0' true 2>&1); rc=$?
assert_ne 0 "$rc" "explicit:0,1;;0,0 is refused before anything runs"
assert_contains "$out" 'empty pair in "0,1;;0,0"' "... with the empty pair named"

# 2. OCS: a start position that cannot be found means no binding on this
# host. E is a unit letter, this node has no efficiency core: the step
# runs unbound with the reason, is never deferred, never refused.
out=$(run_as_user timeout 300 srun -n1 -c2 -l --cpu-bind=none --binding=packed:1:start=E sh -c "$probe" 2>&1); rc=$?
assert_eq 0 "$rc" "packed:1:start=E is accepted and the step runs"
assert_match "$(line "$out" 0)" "^$E2E_CPUS\|\|\|unbound: --binding=packed:1:start=E cannot be placed on this node for 1 task: packed: start=E: this node has no such unit \(its units: NS" \
	"packed:1:start=E: unbound, the reason names the node and the missing start (not the allocation)"
assert_not_contains "$out" "deferred" "... and not deferred (no other job's end can make it fit)"
# a stop letter it lacks walks to the end of the string: bound
out=$(run_as_user timeout 300 srun -n1 -l --cpu-bind=none --binding=packed:1:stop=E sh -c "$probe" 2>&1)
assert_eq "$c0|$c0|$c0|bound" "$(line "$out" 0)" "packed:1:stop=E: no stop on this node, bound to the first core"
# what the node does hold stays a matter of the allocation: 2 cores for 1
out=$(run_as_user timeout 300 srun -n1 -l --cpu-bind=none --binding=packed:2 sh -c "$probe" 2>&1)
assert_match "$(line "$out" 0)" "unbound: the allocation on this node is too small for --binding=packed:2" \
	"packed:2 on one core: the allocation is too small (the node holds 2)"

# 3. A node whose topology cannot be read: NONE, and on_any_host decides.
printf '<topology>not an hwloc export</topology>\n' >"$E2E_DIR/t26-broken.xml"
chmod 644 "$E2E_DIR/t26-broken.xml"
# shellcheck disable=SC2016
topo='printf "%s|%s|%s|%s\n" "$(awk "/^Cpus_allowed_list/ { print \$2 }" /proc/self/status)" "$SLURM_BINDING_TOPOLOGY" "$SLURM_BINDING_TOPOLOGY_OCS" "$SLURM_BINDING_STATUS"'
cluster_plugstack ${E2E_PLUGSTACK_DEFAULT:-} "topology=$E2E_DIR/t26-broken.xml"
out=$(run_as_user timeout 300 srun -n1 -c2 -l --cpu-bind=none --binding=linear:1 sh -c "$topo" 2>&1); rc=$?
assert_eq 0 "$rc" "on_any_host=yes (the default): a binding request runs on a node without topology"
assert_match "$(line "$out" 0)" "^$E2E_CPUS\|NONE\|NONE\|unbound: this node's topology is NONE: .*t26-broken.xml.* \(on_any_host=yes: runs unbound\)$" \
	"... unbound, SLURM_BINDING_TOPOLOGY=NONE (Grid Engine's m_topology=NONE), the reason says so"
assert_contains "$out" "task 0: not bound: this node's topology is NONE" "... and its stderr says so"
cluster_plugstack ${E2E_PLUGSTACK_DEFAULT:-} "topology=$E2E_DIR/t26-broken.xml" on_any_host=no
out=$(run_as_user timeout 300 srun -n1 --binding=linear:1 true 2>&1); rc=$?
assert_ne 0 "$rc" "on_any_host=no: the step with a binding request fails"
assert_contains "$out" "binding failed (on_any_host=no): this node's topology is NONE" "... with the reason"
out=$(run_as_user timeout 300 srun -n1 -l --binding=none sh -c "$topo" 2>&1); rc=$?
assert_eq 0 "$rc" "on_any_host=no: --binding=none still runs"
out=$(run_as_user timeout 300 srun -n1 true 2>&1); rc=$?
assert_eq 0 "$rc" "on_any_host=no: a job without a request is not touched"
# topology= naming a readable XML of this node: bound as with discovery
lstopo-no-graphics --of xml "$E2E_DIR/t26-node.xml" 2>/dev/null && chmod 644 "$E2E_DIR/t26-node.xml"
if [ -s "$E2E_DIR/t26-node.xml" ]; then
	cluster_plugstack ${E2E_PLUGSTACK_DEFAULT:-} "topology=$E2E_DIR/t26-node.xml" on_any_host=no
	out=$(run_as_user timeout 300 srun -n2 -l --cpu-bind=none --binding=linear:1 sh -c "$topo" 2>&1)
	assert_eq "$c0|ScC|$("$E2E_BUILD/sbind" topology --topology "$E2E_DIR/t26-node.xml" --mask ScC --format ocs)|bound" \
		"$(line "$out" 0)" "topology=<this node's XML>: task 0 bound to core 0,0, the string from the file"
	assert_eq "$c1" "$(line "$out" 1 | cut -d'|' -f1)" "... task 1 to core 0,1"
else
	e2e_skip "lstopo-no-graphics cannot export this node's XML"
fi
cluster_plugstack ${E2E_PLUGSTACK_DEFAULT:-}
e2e_done
