# sbind status / release / gc against a private state dir (issue: state file).
T="pack:2 core:4 pu:2"
D=$(mktemp -d /tmp/sbind-state-XXXXXX); chmod 755 "$D"; SD="$D/st"
trap 'kill $owner 2>/dev/null; rm -rf "$D"' EXIT
HDR="JOB        STEP        UID    CORES                CPUS             STATUS            AGE      MEM(node:MiB)"
# the memory trailer: each NUMA node, the host (their sum, with UGE's
# m_mem_* load values) and UGE's cache sizes (a synthetic topology has none)
NUMA0="numa 0: 0 MiB reserved of 1024 MiB
host: 0 MiB reserved of 1024 MiB (m_mem_total=1.000G m_mem_used=0.000 m_mem_free=1.000G)
caches: m_cache_l1=0.000 m_cache_l2=0.000 m_cache_l3=0.000"

# status with the age column (seconds, may tick) replaced by <age>
status_noage() { $SBIND status --state "$SD" --topology "$T" "$@" | sed -E 's/ [0-9]+[smhd]([0-9]+[smh])? +([^ ]+)$/ <age> \2/'; }

expect_out "status of a missing state dir: no records, nothing created" \
"$HDR
topology: SCTTCTTCTTCTTSCTTCTTCTTCTT
$NUMA0" $SBIND status --state "$SD" --topology "$T"
expect_rc "status created no dir" 1 test -e "$SD"

sleep 300 & owner=$!
expect_out "place --commit records job 12 step 0 (two tasks)" \
"task 0: 0,0 0,1 (cpus 0-3)
task 1: 0,2 0,3 (cpus 4-7)" \
	$SBIND place --topology "$T" --binding linear:2 --tasks 2 --state "$SD" --commit --job 12 --step 0 --owner-pid $owner
expect_out "place --commit records job 13's batch step" "task 0: 1,0 (cpus 8-9)" \
	$SBIND place --topology "$T" --binding linear:1 --state "$SD" --commit --job 13 --step 4294967291 --owner-pid $owner
expect_out "status lists both, cores as s,c, held cores lower case" \
"$HDR
12         0           0      0,0:0,1:0,2:0,3      0-7              active            <age> -
13         batch       0      1,0                  8-9              active            <age> -
topology: scttcttcttcttScttCTTCTTCTT
$NUMA0" status_noage
expect_out "the state file is readable text" \
"rec job=12 step=0 pid=$owner cpus=0-7 tasks=0-3;4-7 hist=1/bound@T=0-7 req=linear:2
rec job=13 step=4294967291 pid=$owner cpus=8-9 tasks=8-9 hist=1/bound@T=8-9 req=linear:1" \
	sh -c "grep '^rec ' '$SD/state' | sed -E 's/ start=[0-9]+ uid=0 status=active created=[0-9]+//; s/ mem= / /; s/@[0-9]+/@T/g'"

expect_out "status json (created and age normalised)" \
'{"state_dir":"'"$SD"'","records":[{"job":12,"step":0,"step_name":"0","uid":0,"owner_pid":'$owner',"owner_alive":true,"status":"active","created":C,"age":A,"cpus":"0-7","cores":["0,0","0,1","0,2","0,3"],"tasks":["0-3","4-7"],"mem_mib":{},"request":"linear:2"},{"job":13,"step":4294967291,"step_name":"batch","uid":0,"owner_pid":'$owner',"owner_alive":true,"status":"active","created":C,"age":A,"cpus":"8-9","cores":["1,0"],"tasks":["8-9"],"mem_mib":{},"request":"linear:1"}],"topology_sge":"scttcttcttcttScttCTTCTTCTT","topology_ocs":"NscttcttcttcttScttCTTCTTCTT","numa":[{"node":0,"total_mib":1024,"reserved_mib":0,"free_mib":1024}],"host":{"total_mib":1024,"reserved_mib":0,"free_mib":1024},"uge":{"m_topology":"SCTTCTTCTTCTTSCTTCTTCTTCTT","m_topology_inuse":"scttcttcttcttScttCTTCTTCTT","m_socket":"2.000000","m_core":"8.000000","m_thread":"16.000000","m_topology_numa":"[SccccScCCC]","m_numa_nodes":"1.000000","m_cache_l1":"0.000","m_cache_l2":"0.000","m_cache_l3":"0.000","m_mem_total":"1.000G","m_mem_used":"0.000","m_mem_free":"1.000G","m_mem_total_n0":"1.000G","m_mem_used_n0":"0.000","m_mem_free_n0":"1.000G"}}' \
	sh -c "$SBIND status --state '$SD' --topology '$T' --format json | sed -E 's/\"created\":[0-9]+,\"age\":[0-9]+/\"created\":C,\"age\":A/g'"
# the receipt, with this host's name, the times and the owner normalised
receipt() { $SBIND status --state "$SD" --topology "$T" "$@" | sed -E "s/$(hostname)/H/g; s/since [0-9]+s/since Ns/; s/[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8} \([0-9]+s ago\)/D/; s/\"(ms|since_ms)\":[0-9]+/\"\1\":M/g; s/pid $owner/pid P/; s/\"owner_pid\":$owner/\"owner_pid\":P/"; }
expect_out "status --job: the job's receipt here, each task's cores and cpus by both numberings" \
"job 12 step 0 on H: active since Ns, uid 0, owner pid P
  binding:            set linear:2
  exec_binding_list:  H=0,0:0,1:0,2:0,3
  mbind:              none
  memory:             -
  task 0:             cores 0,0 0,1 (L#0-1) cpus 0-3 (L#0-3) numa 0 gpus -
  task 1:             cores 0,2 0,3 (L#2-3) cpus 4-7 (L#4-7) numa 0 gpus -
  history:            bound D on cpus 0-7" receipt --job 12
expect_out "status --job json: the receipt for collectors" \
'{"job":13,"node":"H","steps":[{"step":4294967291,"step_name":"batch","uid":0,"owner_pid":P,"owner_alive":true,"status":"active","since_ms":M,"why":"","request":"linear:1","instance":"set","strategy":"linear","binding":"set linear:1","exec_binding_list":"H=1,0","mbind":"none","memory_mib":{},"job_memory_mib":0,"cpus":"8-9","tasks":[{"task":0,"cores":["1,0"],"cores_logical":[4],"cpus":"8-9","cpus_logical":"8-9","numa":[0],"gpus":[]}],"history":[{"event":"bound","ms":M,"cpus":"8-9","why":""}],"history_total":1}]}' \
	receipt --job 13 --format json
expect_out "status --job --node: the node's name as Slurm knows it" "job 13 step batch on n9: active since Ns, uid 0, owner pid P
  exec_binding_list:  n9=1,0" sh -c "$SBIND status --state '$SD' --topology '$T' --job 13 --node n9 | sed -E 's/since [0-9]+s/since Ns/; s/pid $owner/pid P/' | grep -E '^job|exec_binding'"
expect_out "status --job of a job with nothing here says so" "job 77: no record on H (not here, ended, or no binding asked)" \
	receipt --job 77
expect_rc "status --job with a bad id: usage error" 2 $SBIND status --state "$SD" --topology "$T" --job x

expect_out "release one step by name" "released 1 record(s) of job 13 step batch" \
	$SBIND release --state "$SD" --job 13 --step batch
expect_out "release a job that has nothing" "released 0 record(s) of job 99" \
	$SBIND release --state "$SD" --job 99
expect_err "release without --job is exit 2" 2 "--job" $SBIND release --state "$SD"
expect_err "release with a bad step is exit 2" 2 "--step" $SBIND release --state "$SD" --job 1 --step x

# rankfiles: gc removes those whose step has no record and that are older
# than the state it read (a killed slurmstepd never removes its own)
touch -d '1 hour ago' "$SD/rankfile.12.0.0" "$SD/rankfile.14.batch.0"
touch "$SD/rankfile.15.0.0"
expect_out "gc keeps a running step's rankfile, removes a gone one's" "reclaimed 0 record(s)
removed 1 rankfile(s) of gone steps" $SBIND gc --state "$SD"
expect_out "which are the ones left" "rankfile.12.0.0 rankfile.15.0.0" \
	sh -c "cd '$SD' && ls rankfile.* | tr '\n' ' ' | sed 's/ \$//'"
rm -f "$SD/rankfile.15.0.0"
kill $owner; wait $owner 2>/dev/null
expect_out "status marks a dead owner's record stale" \
"$HDR
12         0           0      0,0:0,1:0,2:0,3      0-7              active(stale)     <age> -
topology: scttcttcttcttSCTTCTTCTTCTT
$NUMA0" status_noage
expect_err "gc reclaims it and says so on stderr" 0 "reclaimed job 12 step 0 (owner pid $owner, cpus 0-7): owner is gone" \
	$SBIND gc --state "$SD"
expect_rc "and its step's rankfile is gone with it" 1 test -e "$SD/rankfile.12.0.0"
expect_out "gc again: nothing left" "reclaimed 0 record(s)
removed 0 rankfile(s) of gone steps" $SBIND gc --state "$SD"
expect_out "BINDING_STATE_DIR picks the dir" "$HDR
topology: SCTTCTTCTTCTTSCTTCTTCTTCTT
$NUMA0" env BINDING_STATE_DIR="$SD" $SBIND status --topology "$T"
expect_out "state dir is root's 0755, state 0644, lock 0600" "755 644 600" \
	sh -c "stat -c %a '$SD' '$SD/state' '$SD/lock' | tr '\n' ' ' | sed 's/ \$//'"
# private files (plugstack private_files=yes makes the dir 0711): every
# writer, sbind too, writes the state 0600 there, and 0644 again after
chmod 711 "$SD"
$SBIND place --state "$SD" --topology "$T" --binding linear:1 --commit --job 31 --step 0 --owner-pid $$ >/dev/null
expect_out "a dir others cannot list gets a state only root reads" "600" stat -c %a "$SD/state"
chmod 755 "$SD"
$SBIND release --state "$SD" --job 31 >/dev/null
expect_out "and a listable one a state all read" "644" stat -c %a "$SD/state"

ln -s "$SD" "$D/link"
expect_err "a symlinked state dir is refused" 1 "is a symlink, refused" $SBIND gc --state "$D/link"
expect_err "status refuses it too" 1 "is a symlink, refused" $SBIND status --state "$D/link" --topology "$T"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	expect_err "an unprivileged user cannot gc, and is told why" 1 "Permission denied (changing the state takes root)" \
		setpriv --reuid=65534 --regid=65534 --clear-groups $SBIND gc --state "$SD"
	expect_err "nor release" 1 "Permission denied" \
		setpriv --reuid=65534 --regid=65534 --clear-groups $SBIND release --state "$SD" --job 12
	expect_rc "but can read the status" 0 \
		setpriv --reuid=65534 --regid=65534 --clear-groups $SBIND status --state "$SD" --topology "$T"
else
	skip "unprivileged user cannot change the state" "needs root and setpriv"
fi
expect_err "bad format is exit 2" 2 "--format" $SBIND status --state "$SD" --format xml
expect_out "place --commit takes a step name" "task 0: 0,0 (cpus 0-1)" \
	$SBIND place --state "$SD" --topology "$T" --binding explicit:0,0 --commit --job 77 --step batch --owner-pid $$
_st=$($SBIND status --state "$SD" --topology "$T" | awk '$1 == 77 { print $2 }')
if [ "$_st" = batch ]; then _report 1 "status shows the batch step by name"; else _report 0 "status shows the batch step by name" "got: $_st"; fi
expect_err "a bad step is exit 2" 2 'expected a number from 0 to 4294967295, batch' \
	$SBIND place --state "$SD" --topology "$T" --binding linear:1 --commit --job 78 --step bogus
$SBIND release --state "$SD" --job 77 >/dev/null

# Fault points exist only in the unit-test build of the library: the sbind
# (and plugin) that ships ignores BINDING_FAULT at every point.
for _fp in lock.init txn.locked txn.loaded txn.temp_written txn.exchanged txn.committed; do
	expect_out "shipped sbind ignores BINDING_FAULT=$_fp" "task 0: 0,0 (cpus 0-1)" \
		env BINDING_FAULT="$_fp:kill" $SBIND place --state "$D/fault" --topology "$T" \
		--binding explicit:0,0 --commit --job 90 --step 0 --owner-pid $$
	$SBIND release --state "$D/fault" --job 90 >/dev/null
done
expect_rc "the shipped sbind has no fault point code" 1 sh -c "strings '$SBIND' | grep -q 'txn.exchanged'"

# --topology FILE.cache: the state dir's topology cache, as the plugin reads it
CD="$D/cachedir"; mkdir -m 755 "$CD"
$SBIND place --state "$CD" --binding linear:1 >/dev/null 2>&1
expect_out "--topology <state dir>/topology.cache reads the plugin's cache (this machine)" \
"$($SBIND topology)" $SBIND topology --topology "$CD/topology.cache"
printf 'garbage' >"$CD/bad.cache"
expect_err "--topology of a damaged cache file: refused, saying why" 1 "bad.cache: truncated" \
	$SBIND topology --topology "$CD/bad.cache"

# A topology that cannot be read is Grid Engine's NONE (m_topology=NONE)
printf '<topology>not an hwloc export</topology>\n' >"$D/broken.xml"
expect_out "topology that cannot be read: NONE on stdout" "NONE" \
	sh -c "$SBIND topology --topology '$D/broken.xml' 2>/dev/null; exit 0"
expect_err "... with the reason and exit 1" 1 "hwloc cannot" $SBIND topology --topology "$D/broken.xml"
expect_out "... NONE in every form" "NONE NONE {\"sge\":\"NONE\",\"ocs\":\"NONE\",\"numa\":\"NONE\"}" \
	sh -c "echo \$($SBIND topology --topology '$D/broken.xml' --format ocs 2>/dev/null) \
\$($SBIND topology --topology '$D/broken.xml' --format numa 2>/dev/null) \
\$($SBIND topology --topology '$D/broken.xml' --format json 2>/dev/null)"
sleep 300 & owner=$!
$SBIND place --topology "$T" --binding linear:1 --state "$D/none" --commit --job 21 --step 0 --owner-pid $owner >/dev/null
expect_out "status without a readable topology still lists the records, topology NONE" \
"$HDR
21         0           0      -                    0-1              active            <age> -
topology: NONE" sh -c "$SBIND status --state '$D/none' --topology '$D/broken.xml' 2>/dev/null | sed -E 's/ [0-9]+[smhd]([0-9]+[smh])? +([^ ]+)\$/ <age> \\2/'"
