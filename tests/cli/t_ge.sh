# Grid Engine vectors through the sbind CLI (issue: placement engine).
T22="pack:2 core:2"
expect_out "topology pack:2 core:2 is SCCSCC" "SCCSCC" $SBIND topology --topology "$T22"
expect_out "topology with threads is SCTTCTT" "SCTTCTT" $SBIND topology --topology "pack:1 core:2 pu:2"
expect_out "linear:2 on SCCSCC -> sccSCC (GE example)" "sccSCC" $SBIND place --topology "$T22" --binding linear:2 --format sge
expect_out "linear:2 again with those masked -> SCCscc" "SCCscc" \
	$SBIND place --topology "$T22" --binding linear:2 --mask sccSCC --format sge
expect_out "GE example SCCSCcSCCscc: a fully used socket is lower case" "SCCSCcSCCscc" \
	$SBIND topology --topology "pack:4 core:2" --mask SCCSCcSCCscc
expect_out "the same occupancy in OCS form" "NSCCSCcSCCscc" \
	$SBIND topology --topology "pack:4 core:2" --mask SCCSCcSCCscc --format ocs
expect_out "none binds nothing" "task 0: not bound" $SBIND place --topology "$T22" --binding none
expect_out "striding:2:2 -> ScCScC" "ScCScC" $SBIND place --topology "$T22" --binding striding:2:2 --format sge
expect_out "striding:2:2:0,0 -> ScCScC" "ScCScC" $SBIND place --topology "$T22" --binding striding:2:2:0,0 --format sge
expect_out "linear:2:1,0 -> SCCscc" "SCCscc" $SBIND place --topology "$T22" --binding linear:2:1,0 --format sge
expect_out "SCCCCSCCCC masked ScCCCSCCCC: linear:2 -> socket 1" "task 0: 1,0 1,1 (cpus 4-5)" \
	$SBIND place --topology "pack:2 core:4" --mask ScCCCSCCCC --binding linear:2
expect_err "explicit on a taken core -> exit 3" 3 "explicit: core 0,0 is not free" \
	$SBIND place --topology "pack:2 core:4" --mask ScCCCSCCCC --binding explicit:0,0
expect_out "explicit pairs separated by ; (6.2u5 man page) -> SCcSCc" "SCcSCc" \
	$SBIND place --topology "$T22" --binding "explicit:0,1;1,1" --format sge
expect_out "explicit with ; and : mixed" "task 0: 0,1 1,0 1,1 (cpus 1-3)" \
	$SBIND place --topology "$T22" --binding "explicit:0,1;1,0:1,1"
expect_err "explicit: an empty pair between two ;" 2 'empty pair in "0,1;;1,1"' \
	$SBIND place --topology "$T22" --binding "explicit:0,1;;1,1"
expect_out "linear:1 with SMT takes both threads of core 0" "task 0: 0,0 (cpus 0-1)" \
	$SBIND place --topology "pack:1 core:2 pu:2" --binding linear:1
expect_out "--tasks 4 linear:2 on pack:2 core:4: four compact pairs" \
"task 0: 0,0 0,1 (cpus 0-1)
task 1: 0,2 0,3 (cpus 2-3)
task 2: 1,0 1,1 (cpus 4-5)
task 3: 1,2 1,3 (cpus 6-7)" $SBIND place --topology "pack:2 core:4" --binding linear:2 --tasks 4
expect_out "json output" '{"bound":true,"tasks":[{"task":0,"cores":[[0,0],[1,0]],"cpus":[0,2]}],"topology":"ScCScC","topology_ocs":"NScCScC","mbind":"cores","mem":[],"mbind_nodes":""}' \
	$SBIND place --topology "$T22" --binding striding:2:2 --mbind cores --format json
expect_err "no binding when too many cores asked" 3 "no binding" \
	$SBIND place --topology "$T22" --binding linear:5
expect_err "bad request is exit 2 and names the token" 2 '"linear:0"' \
	$SBIND place --topology "$T22" --binding linear:0
expect_err "bad mbind is exit 2" 2 'nowhere' $SBIND place --topology "$T22" --binding linear:1 --mbind nowhere
expect_err "bad mask is exit 2" 2 '--mask' $SBIND place --topology "$T22" --binding linear:1 --mask SCC
expect_err "unknown command is exit 2" 2 'unknown command' $SBIND frobnicate
expect_rc "binding help exits 0" 0 $SBIND place --binding help
expect_rc "sbind --help exits 0" 0 $SBIND --help
expect_err "bad topology is an error" 1 'topology' $SBIND topology --topology "pack:zz"
expect_out "env instance still places" "sccSCC" $SBIND place --topology "$T22" --binding env:linear:2 --format sge
