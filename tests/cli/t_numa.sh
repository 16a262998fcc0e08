# sbind and NUMA memory (issue 11): the UGE 8.1 example through
# `sbind place --mem`, mem_reserve, --commit records the reservation, a strict
# request that no node can hold exits 3 and records nothing, nlocal, the NUMA
# topology string and the per-node figures of status and topology json.
T="pack:2 numa:1(memory=8GiB) core:2 pu:1"
D=$(mktemp -d /tmp/sbind-numa-XXXXXX); chmod 755 "$D"; SD="$D/st"
trap 'kill $owner 2>/dev/null; rm -rf "$D"' EXIT

expect_out "numa string: one bracket per node" "[SCC][SCC]" \
	$SBIND topology --topology "$T" --format numa
expect_out "UGE example: 2 tasks x 2 GiB fit on node 0" \
"task 0: 0,0 (cpus 0)
task 1: 0,1 (cpus 1)
memory: 0:4096M" \
	$SBIND place --topology "$T" --binding linear:1 --tasks 2 --mbind cores:strict --mem 4G
expect_out "UGE example: node memory short (5G reserve): 2 GiB on each of two nodes" \
"task 0: 0,0 (cpus 0)
task 1: 1,0 (cpus 2)
memory: 0:2048M 1:2048M" \
	$SBIND place --topology "$T" --binding linear:1 --tasks 2 --mbind cores:strict --mem 4G --mem-reserve 5G
expect_err "strict and no node holds a task: exit 3 with the free memory" 3 \
	"free MiB per node: 0:1024,1:1024" \
	$SBIND place --topology "$T" --binding linear:1 --tasks 2 --mbind cores:strict --mem 4G --mem-reserve 7G
expect_out "cores (prefer) never blocks" \
"task 0: 0,0 (cpus 0)
task 1: 0,1 (cpus 1)
memory: 0:4096M" \
	$SBIND place --topology "$T" --binding linear:1 --tasks 2 --mbind cores --mem 4G --mem-reserve 7G
expect_out "nlocal without --binding: one core per task on one node" \
"task 0: 0,0 (cpus 0)
task 1: 0,1 (cpus 1)
memory: 0:900M
nlocal: nodes 0 (bind)" \
	$SBIND place --topology "$T" --mbind nlocal --tasks 2 --mem 900M
# --mbind without a core binding: what the plugin does, in its words
# (request.h's rule, shared): round_robin needs no cores (UGE), cores and
# cores:strict follow the task's cores; such a step records nothing.
expect_out "round_robin without --binding: accepted, not bound" \
"task 0: not bound
task 1: not bound" $SBIND place --topology "$T" --mbind round_robin --tasks 2 --mem 900M
for m in cores:strict cores; do
	expect_err "--binding none --mbind $m: exit 3 with the plugin's reason" 3 \
		"sbind place: no binding: --mbind=$m not applied: it needs cores bound by --binding" \
		$SBIND place --topology "$T" --binding none --mbind "$m"
done
expect_err "--mbind cores:strict alone: the same" 3 "--mbind=cores:strict not applied" \
	$SBIND place --topology "$T" --mbind cores:strict
ND=$(mktemp -d /tmp/sbind-unbound-XXXXXX); chmod 755 "$ND"
$SBIND place --topology "$T" --mbind round_robin --mem 2G --state "$ND/st" --commit --job 5 --step 0 >/dev/null
expect_rc "a step that places no cores records nothing (no memory either)" 0 \
	sh -c "! grep -qs '^rec ' '$ND/st/state'"
rm -rf "$ND"
expect_err "a bad size names the token and the form" 2 'memory size "2X": expected' \
	$SBIND place --topology "$T" --binding linear:1 --mem 2X

# Commit: the first job's 6 GiB on node 0 push the second job to node 1
# although cores are free on node 0.
sleep 300 & owner=$!
expect_out "commit job 21: 6 GiB on node 0" \
"task 0: 0,0 (cpus 0)
memory: 0:6144M" \
	$SBIND place --topology "$T" --binding linear:1 --mbind cores:strict --mem 6G --state "$SD" --commit --job 21 --step 0 --owner-pid $owner
expect_out "commit job 22: node 0 has 2 GiB left, so node 1" \
"task 0: 1,0 (cpus 2)
memory: 1:4096M" \
	$SBIND place --topology "$T" --binding linear:1 --mbind cores:strict --mem 4G --state "$SD" --commit --job 22 --step 0 --owner-pid $owner
expect_err "commit job 23: 8 GiB fits nowhere: exit 3" 3 "no placement whose NUMA nodes" \
	$SBIND place --topology "$T" --binding linear:1 --mbind cores:strict --mem 8G --state "$SD" --commit --job 23 --step 0 --owner-pid $owner
expect_out "the state holds two records with their memory, none for job 23" \
"rec job=21 mem=0:6144
rec job=22 mem=1:4096" \
	sh -c "grep '^rec ' '$SD/state' | sed -E 's/^rec (job=[0-9]+) .* (mem=[^ ]*) .*/rec \\1 \\2/'"
expect_out "a dry run sees the reservations" \
"task 0: 1,1 (cpus 3)
memory: 1:4096M" \
	$SBIND place --topology "$T" --binding linear:1 --mbind cores:strict --mem 4G --state "$SD"
expect_out "status: MiB per node per record and per node totals" \
"21 0:6144
22 1:4096
numa 0: 6144 MiB reserved of 8192 MiB
numa 1: 4096 MiB reserved of 8192 MiB" \
	sh -c "$SBIND status --state '$SD' --topology '$T' | awk '/^2[12] / { print \$1, \$NF } /^numa / { print }'"
expect_out "topology json: per node total, reserves, free" \
'"node":0,"cpus":"0-1","total_mib":8192,"reserved_os_mib":0,"reserved_jobs_mib":6144,"free_mib":2048
"node":1,"cpus":"2-3","total_mib":8192,"reserved_os_mib":0,"reserved_jobs_mib":4096,"free_mib":4096' \
	sh -c "$SBIND topology --topology '$T' --state '$SD' --format json | grep -o '\"node\":[0-9]*,[^}]*\"free_mib\":[0-9]*'"
# UGE's host-level values next to the per node ones they sum (issue 24)
expect_out "status: the host line sums the nodes, with UGE's m_mem_* values" \
"host: 10240 MiB reserved of 16384 MiB (m_mem_total=16.000G m_mem_used=10.000G m_mem_free=6.000G)" \
	sh -c "$SBIND status --state '$SD' --topology '$T' | grep '^host:'"
expect_out "topology --format uge: UGE's load values as qhost -F lists them, in the UGE 8.1 document's groups and notation (1 GiB kept per node)" \
"hl:m_topology=SCCSCC
hl:m_topology_inuse=ScCScC
hl:m_socket=2.000000
hl:m_core=4.000000
hl:m_thread=4.000000
hl:m_topology_numa=[ScC][ScC]
hl:m_numa_nodes=2.000000
hl:m_cache_l1=0.000
hl:m_cache_l2=0.000
hl:m_cache_l3=0.000
hl:m_mem_total=16.000G
hl:m_mem_used=12.000G
hl:m_mem_free=4.000G
hl:m_mem_total_n0=8.000G
hl:m_mem_total_n1=8.000G
hl:m_mem_used_n0=7.000G
hl:m_mem_used_n1=5.000G
hl:m_mem_free_n0=1.000G
hl:m_mem_free_n1=3.000G" $SBIND topology --topology "$T" --state "$SD" --mem-reserve 1G --format uge
# The document's own host (two NUMA nodes of four cores, 31.250G, 32K L1,
# 12M L3) with 500 MiB reserved on node 0: its four values as it prints them
UT="pack:2 numa:1(memory=16000MiB) l3:1(size=12MiB) l2:4(size=256KiB) l1d:1(size=32KiB) core:1 pu:1"
UD=$(mktemp -d /tmp/sbind-uge-XXXXXX); chmod 755 "$UD"
$SBIND place --topology "$UT" --binding linear:1 --mbind cores:strict --mem 500M --state "$UD/st" \
	--commit --job 1 --step 0 >/dev/null
expect_out "topology --format uge: the UGE 8.1 document's hl:m_cache_l1=32.000K, hl:m_cache_l3=12.000M, hl:m_mem_total=31.250G, hl:m_mem_used_n0=500.000M" \
"hl:m_cache_l1=32.000K
hl:m_cache_l3=12.000M
hl:m_mem_total=31.250G
hl:m_mem_used_n0=500.000M" \
	sh -c "$SBIND topology --topology '$UT' --state '$UD/st' --format uge | grep -E '^hl:m_(cache_l[13]|mem_total|mem_used_n0)='"
rm -rf "$UD"
expect_out "topology json: host_memory sums numa_memory" \
'"host_memory":{"total_mib":16384,"reserved_os_mib":2048,"reserved_jobs_mib":10240,"free_mib":4096,"used_mib":12288}' \
	sh -c "$SBIND topology --topology '$T' --state '$SD' --mem-reserve 1G --format json | grep -o '\"host_memory\":{[^}]*}'"
expect_out "topology json: the same UGE values, as strings in their notation" '"m_mem_free":"4.000G"' \
	sh -c "$SBIND topology --topology '$T' --state '$SD' --mem-reserve 1G --format json | grep -o '\"m_mem_free\":\"[^\"]*\"'"
expect_out "release job 21: its memory is free again" \
"task 0: 0,0 (cpus 0)
memory: 0:6144M" \
	sh -c "$SBIND release --state '$SD' --job 21 >/dev/null && $SBIND place --topology '$T' --binding linear:1 --mbind cores:strict --mem 6G --state '$SD'"
