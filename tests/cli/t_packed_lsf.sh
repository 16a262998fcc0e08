# OCS/GCS packed binding and LSF policies through the sbind CLI (issue 5).
# Sourced by run.sh after lib.sh: expect_out, expect_rc, expect_err, skip.

# --- OCS packed -----------------------------------------------------------
T1="pack:2 l3:1 core:4 pu:1"
M1="NSXCCccSXCCCC"
expect_out "OCS string of $T1" "NSXCCCCSXCCCC" $SBIND topology --topology "$T1" --format ocs
expect_out "packed:6 with $M1 -> 0,0 0,1 then socket 1" "task 0: 0,0 0,1 1,0 1,1 1,2 1,3 (cpus 0-1,4-7)" \
	$SBIND place --topology "$T1" --mask "$M1" --binding packed:6
expect_out "packed:4:sort=S -> the four cores of socket 1" "task 0: 1,0 1,1 1,2 1,3 (cpus 4-7)" \
	$SBIND place --topology "$T1" --mask "$M1" --binding packed:4:sort=S
expect_out "packed:4:sort=S:start=S:stop=s -> socket 1" "task 0: 1,0 1,1 1,2 1,3 (cpus 4-7)" \
	$SBIND place --topology "$T1" --mask "$M1" --binding packed:4:sort=S:start=S:stop=s
expect_err "packed:6:sort=S:start=S:stop=s -> no binding" 3 "4 found between start and stop" \
	$SBIND place --topology "$T1" --mask "$M1" --binding packed:6:sort=S:start=S:stop=s
expect_out "packed:2:sort=S:start=s:stop=S -> 0,0 0,1" "task 0: 0,0 0,1 (cpus 0-1)" \
	$SBIND place --topology "$T1" --mask "$M1" --binding packed:2:sort=S:start=s:stop=S
expect_out "end= is another name for stop= (OCS documents)" "task 0: 1,0 1,1 1,2 1,3 (cpus 4-7)" \
	$SBIND place --topology "$T1" --mask "$M1" --binding packed:4:sort=S:start=S:end=s
expect_err "stop= and end= together is a duplicate" 2 'end= is another name for stop=' \
	$SBIND place --topology "$T1" --binding packed:4:stop=s:end=s
expect_out "packed:0 (OCS -bamount 0) binds nothing" "task 0: not bound
task 1: not bound" $SBIND place --topology "$T1" --binding packed:0 --tasks 2
expect_out "packed:0 leaves the topology unused" "NSXCCCCSXCCCC" \
	$SBIND place --topology "$T1" --binding packed:0:sort=S --format ocs
expect_err "packed:0 still checks its keys" 2 'unit "Q"' \
	$SBIND place --topology "$T1" --binding packed:0:unit=Q
expect_out "packed:6 --format ocs marks the chosen cores" "NSXccCCsxcccc" \
	$SBIND place --topology "$T1" --mask "$M1" --binding packed:6 --format ocs
expect_out "filter=ScCCCScCCC never gives 0,0 nor 1,0" "task 0: 0,1 0,2 0,3 (cpus 1-3)" \
	$SBIND place --topology "pack:2 core:4" --binding packed:3:filter=ScCCCScCCC
expect_out "filter: 6 cores skip 0,0 and 1,0" "SCcccSCccc" \
	$SBIND place --topology "pack:2 core:4" --binding packed:6:filter=ScCCCScCCC --format sge
expect_err "filter: 7 cores do not fit" 3 "no binding" \
	$SBIND place --topology "pack:2 core:4" --binding packed:7:filter=ScCCCScCCC
expect_out "unit=T -> the two threads of core 0" "task 0: 0,0 (cpus 0-1)" \
	$SBIND place --topology "pack:1 core:4 pu:2" --binding packed:2:unit=T
expect_out "type=node: shared by the tasks" "task 0: 0,0 0,1 0,2 (cpus 0-2)
task 1: 0,0 0,1 0,2 (cpus 0-2)" \
	$SBIND place --topology "pack:2 core:4" --binding packed:3:type=node --tasks 2
expect_out "type=task: amount per task" "task 0: 0,0 0,1 (cpus 0-1)
task 1: 0,2 0,3 (cpus 2-3)" \
	$SBIND place --topology "pack:2 core:4" --binding packed:2 --tasks 2

# OCS's NUMA latency order (sge_binding(5) example 11): 4 nodes in a 2x2
# mesh, node 0 with 2 cores used and node 2 with one: idle node 1 first,
# then nodes 0 and 3 (both 20 from node 1) in document order, node 2 last
Q="$TESTXML/quadrant-4numa.xml" QM=NSxccXCCNSXCCXCCNSXcCXCCNSXCCXCC
expect_out "sort=N: after the first node, latency order (loaded node 0 before idle node 3)" \
	"task 0: 1,0 1,1 1,2 1,3 0,2 0,3 3,0 3,1 (cpus 2-7,12-13)" \
	$SBIND place --topology "$Q" --mask "$QM" --binding packed:8:sort=N
expect_out "sort=N without a distance matrix: load order (nodes 1 and 3)" \
	"task 0: 1,0 1,1 1,2 1,3 3,0 3,1 3,2 3,3 (cpus 4-7,12-15)" \
	$SBIND place --topology "pack:4 numa:1 l3:2 core:2 pu:1" --mask "$QM" --binding packed:8:sort=N
expect_out "sort=X on a node without L3 is ignored (OCS), not a socket sort" \
	"task 0: 0,1 (cpus 1)" $SBIND place --topology "pack:2 core:4" --mask ScCCCSCCCC --binding packed:1:sort=X

# grammar errors: exit 2 with a message naming the request
expect_err "unknown key" 2 'packed:2:colour=C' $SBIND place --topology "$T1" --binding packed:2:colour=C
expect_err "bad unit letter" 2 'unit "Q"' $SBIND place --topology "$T1" --binding packed:2:unit=Q
expect_err "start letter not a unit" 2 'start' $SBIND place --topology "$T1" --binding packed:2:start=Q
# OCS's string without memory units (what OCS prints for a host without
# NUMA or cache information) as filter= and --mask: a hybrid test host
H="$TESTXML/hybrid-4p4e.xml"
expect_out "OCS string of the hybrid test host" "NSXYCCYCCYEEYEE" $SBIND topology --topology "$H" --format ocs
expect_out "filter= in OCS form without memory units (SCCCCeEEE)" "task 0: 0,5 0,6 (cpus 5-6)" \
	$SBIND place --topology "$H" --binding packed:2:unit=E:filter=SCCCCeEEE
expect_out "--mask in OCS form without memory units" "NSXYcCYCCYEEYEe" \
	$SBIND topology --topology "$H" --mask ScCCCEEEe --format ocs
expect_err "that form checked against the layout too" 3 '"SCCCCEEEEC" (OCS form without memory units): position 10' \
	$SBIND place --topology "$H" --binding packed:2:unit=E:filter=SCCCCEEEEC

# what depends on the node: no binding there (exit 3), never a bad request
expect_err "a filter that does not fit the node's layout: no binding here" 3 \
	'no binding: packed: filter does not match this node'"'"'s topology' \
	$SBIND place --topology "pack:2 core:4" --binding packed:3:filter=ScCCC
expect_err "filter mismatch shows the node's string" 3 '(expected filter=NSCCCCSCCCC' \
	$SBIND place --topology "pack:2 core:4" --binding packed:3:filter=ScCCC
expect_err "start letter absent from this node (OCS: no start found, no binding)" 3 \
	'no binding: packed: start=E: this node has no such unit (its units: NSXC)' \
	$SBIND place --topology "$T1" --binding packed:2:start=E
expect_err "start=t on a node without SMT: no binding" 3 'start=t: this node has no such unit' \
	$SBIND place --topology "$T1" --binding packed:2:start=t
expect_out "stop letter absent from this node: the walk ends at the end of the string" \
	"task 0: 0,0 0,1 (cpus 0-1)" $SBIND place --topology "$T1" --binding packed:2:stop=E
expect_err "start letter absent, JSON says why" 3 'start=E' \
	$SBIND place --topology "$T1" --binding packed:2:start=E --format json

# real machines
RL="$TOPOS/Intel-Core-RaptorLake-1pa6co2t+2ca4co1t-hybrid.xml"
EP="$TOPOS/AMD-Epyc-Zen2-2pa8ca4co+ib.xml"
count() { printf '%s' "$2" | tr -cd "$1" | wc -c | tr -d ' '; }
if [ -f "$RL" ]; then
	s=$($SBIND topology --topology "$RL" --format ocs)
	[ "$(count E "$s")" = 8 ] && [ "$(count C "$s")" = 6 ]
	_report $(( $? == 0 )) "RaptorLake OCS string shows 8 E and 6 C cores" "got $s"
	s=$($SBIND place --topology "$RL" --binding packed:8:unit=E --format ocs)
	[ "$(count e "$s")" = 8 ] && [ "$(count c "$s")" = 0 ]
	_report $(( $? == 0 )) "RaptorLake unit=E: all 8 efficiency cores, no power core" "got $s"
	expect_err "RaptorLake unit=E: a 9th efficiency core does not exist" 3 "9 free E units of efficiency cores needed, 8 found" \
		$SBIND place --topology "$RL" --binding packed:9:unit=E
	s=$($SBIND place --topology "$RL" --binding packed:6:unit=C --format ocs)
	[ "$(count c "$s")" = 6 ] && [ "$(count e "$s")" = 0 ]
	_report $(( $? == 0 )) "RaptorLake unit=C: the 6 power cores, no efficiency core" "got $s"
	expect_err "RaptorLake unit=C: no 7th power core" 3 "no binding" \
		$SBIND place --topology "$RL" --binding packed:7:unit=C
	s=$($SBIND place --topology "$RL" --binding packed:1:unit=ES --format ocs)
	[ "$(count e "$s")" = 8 ] && [ "$(count c "$s")" = 0 ]
	_report $(( $? == 0 )) "RaptorLake unit=ES: the socket's efficiency cores only" "got $s"
	expect_out "RaptorLake --mask in OCS form without memory units (the 6th P core, the 5th E core)" \
		"NSXYCTTYCTTYCTTYCTTYCTTycttYEEEEYeEEE" \
		$SBIND topology --topology "$RL" --mask SCTTCTTCTTCTTCTTcttEEEEeEEE --format ocs
else
	_report 0 "RaptorLake unit=E / unit=C checks" "no $RL (tests/topologies, BINDING_TOPOLOGIES)"
fi
if [ -f "$EP" ]; then
	s=$($SBIND topology --topology "$EP" --format ocs)
	want=$(printf '%s' "$s" | sed 's/XYCYCYCYC/xycycycyc/')
	[ "$want" != "$s" ]
	_report $(( $? == 0 )) "EPYC string has L3s of 4 cores" "got $s"
	expect_out "EPYC packed:1:unit=X -> exactly the cores of one L3" "$want" \
		$SBIND place --topology "$EP" --binding packed:1:unit=X --format ocs
	expect_out "EPYC packed:1:unit=X -> 4 cores, cpus 0-3" "task 0: 0,0 0,1 0,2 0,3 (cpus 0-3)" \
		$SBIND place --topology "$EP" --binding packed:1:unit=X
	expect_out "EPYC packed:1:unit=X with 0,0 held -> the next L3" "task 0: 0,4 0,5 0,6 0,7 (cpus 4-7)" \
		$SBIND place --topology "$EP" --binding packed:1:unit=X --mask "$(printf '%s' "$s" | sed 's/C/c/')"
else
	_report 0 "EPYC several L3s per socket: packed:1:unit=X" "no $EP (tests/topologies, BINDING_TOPOLOGIES)"
fi

# --- LSF --------------------------------------------------------------------
P="pack:2 core:4"
expect_out "balance:2 -> 0,0 and 1,0" "task 0: 0,0 1,0 (cpus 0,4)" $SBIND place --topology "$P" --binding balance:2
expect_out "cpus:1,2,9 -> cpus 1 and 2" "task 0: 0,1 0,2 (cpus 1-2)" $SBIND place --topology "$P" --binding cpus:1,2,9
expect_err "cpus:9,10 -> no binding" 3 "none of the listed cpus exists" $SBIND place --topology "$P" --binding cpus:9,10
expect_out "any:3 -> the first three" "task 0: 0,0 0,1 0,2 (cpus 0-2)" $SBIND place --topology "$P" --binding any:3
expect_out "balance:4:level=thread spreads over cores" "task 0: 0,0 1,0 0,1 1,1 (cpus 0,2,4,6)" \
	$SBIND place --topology "pack:2 core:2 pu:2" --binding balance:4:level=thread
expect_out "pack:1:level=processor is level=socket (LSF's name)" "task 0: 1,0 1,1 1,2 1,3 (cpus 4-7)" \
	$SBIND place --topology "$P" --binding pack:1:level=processor --mask ScCCCSCCCC
expect_out "pack:1:level=socket -> a whole free socket" "task 0: 1,0 1,1 1,2 1,3 (cpus 4-7)" \
	$SBIND place --topology "$P" --binding pack:1:level=socket --mask ScCCCSCCCC

# pack:2 as a sequence of jobs: first emulated with masks, then for real
# through the state file (one `sbind place --commit` per job).
expect_out "pack:2 on an empty node -> {0,0 0,1}" "task 0: 0,0 0,1 (cpus 0-1)" \
	$SBIND place --topology "$P" --binding pack:2
expect_out "pack:2 after {0,0 0,1} -> {0,2 0,3}" "task 0: 0,2 0,3 (cpus 2-3)" \
	$SBIND place --topology "$P" --binding pack:2 --mask SccCCSCCCC
expect_out "pack:2 after two jobs -> {1,0 1,1}" "task 0: 1,0 1,1 (cpus 4-5)" \
	$SBIND place --topology "$P" --binding pack:2 --mask SccccSCCCC
expect_out "pack:2 with only {1,0 1,1} held -> {1,2 1,3}" "task 0: 1,2 1,3 (cpus 6-7)" \
	$SBIND place --topology "$P" --binding pack:2 --mask SCCCCSccCC

st=$(mktemp -d /tmp/sbind-lsf.XXXXXX)
if $SBIND place --help 2>/dev/null | grep -q -- --commit && $SBIND status --help >/dev/null 2>&1; then
	# the owner must outlive each command: this script's shell, not the
	# subshell that captures the output (else the record is reclaimed)
	commit() { $SBIND place --topology "$P" --state "$st/state" --binding pack:2 --commit --job "$1" --step 0 --owner-pid $$; }
	expect_out "committed job 1: pack:2 -> {0,0 0,1}" "task 0: 0,0 0,1 (cpus 0-1)" commit 1
	expect_out "committed job 2: pack:2 -> {0,2 0,3}" "task 0: 0,2 0,3 (cpus 2-3)" commit 2
	expect_out "committed job 3: pack:2 -> {1,0 1,1}" "task 0: 1,0 1,1 (cpus 4-5)" commit 3
	expect_rc "release job 1" 0 $SBIND release --state "$st/state" --job 1
	expect_rc "release job 2" 0 $SBIND release --state "$st/state" --job 2
	expect_out "committed job 4 after 1 and 2 ended: pack:2 -> {1,2 1,3}" "task 0: 1,2 1,3 (cpus 6-7)" commit 4
	expect_err "a fifth pack:2 with 0,0-0,3 free still fits, a sixth not" 3 "no binding" \
		sh -c "$SBIND place --topology '$P' --state '$st/state' --binding pack:2 --commit --job 5 --step 0 --owner-pid $$ >/dev/null &&
		       $SBIND place --topology '$P' --state '$st/state' --binding pack:2 --commit --job 6 --step 0 --owner-pid $$ >/dev/null &&
		       $SBIND place --topology '$P' --state '$st/state' --binding pack:2 --commit --job 7 --step 0 --owner-pid $$"
else
	skip "LSF pack:2 job sequence through the state file" "sbind has no --commit/--state yet"
fi
rm -rf "$st"
