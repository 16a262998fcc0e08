# sbind draw: the node's topology annotated for lstopo, rendered by lstopo
# (native SVG: each object an element with an id), colours checked on
# known cores (issue 30).
T="pack:2 numa:2(memory=1GiB) core:2 pu:2"
D=$(mktemp -d /tmp/sbind-draw-XXXXXX); chmod 755 "$D"; SD="$D/st"
trap 'kill $owner 2>/dev/null; rm -rf "$D"' EXIT
sleep 300 & owner=$!
$SBIND place --topology "$T" --binding linear:2 --state "$SD" --commit --job 31 --step 0 --owner-pid $owner >/dev/null
$SBIND place --topology "$T" --binding striding:1:2 --tasks 2 --mbind cores --mem 200M --state "$SD" --commit --job 32 --step 0 --owner-pid $owner >/dev/null

expect_out "xml: the cores of job 31 (the first job: blue) and 32 (orange), a box each" \
'job 31:0x00000003
job 31:0x0000000c
job 32:0x00000030
job 32:0x00000300' sh -c "$SBIND draw --state '$SD' --topology '$T' | awk '/type=\"Core\"/ { match(\$0, /cpuset=\"[^\"]*\"/); c = substr(\$0, RSTART + 8, RLENGTH - 9) } /type=\"Misc\" .*name=\"job [0-9]+\"/ { match(\$0, /name=\"[^\"]*\"/); print substr(\$0, RSTART + 6, RLENGTH - 7) \":\" c }'"

if command -v lstopo >/dev/null 2>&1; then
	expect_rc "svg rendered by lstopo" 0 $SBIND draw --state "$SD" --topology "$T" --format svg --output "$D/node.svg"
	# a core's fill in lstopo's native SVG
	fill() { sed -n "s/.*id='Core_$1_rect'.*fill='\\([^']*\\)'.*/\\1/p" "$D/node.svg"; }
	expect_out "core L#0 and L#1: job 31's blue (#0072b2)" "rgb(0,114,178) rgb(0,114,178)" \
		sh -c "echo \$(sed -n \"s/.*id='Core_0_rect'.*fill='\\([^']*\\)'.*/\\1/p; s/.*id='Core_1_rect'.*fill='\\([^']*\\)'.*/\\1/p\" '$D/node.svg')"
	expect_out "core L#2 and L#4: job 32's orange (#e69f00)" "rgb(230,159,0) rgb(230,159,0)" \
		sh -c "echo \$(sed -n \"s/.*id='Core_2_rect'.*fill='\\([^']*\\)'.*/\\1/p; s/.*id='Core_4_rect'.*fill='\\([^']*\\)'.*/\\1/p\" '$D/node.svg')"
	expect_out "core L#3 is nobody's: lstopo's own grey" "rgb(190,190,190)" fill 3
	expect_out "NUMA nodes 1 and 2 show job 32's 100 MiB each (a task on each), the legend both jobs" "job 32: 100 MiB
job 32: 100 MiB
job 31 (blue, uid 0): step 0 active linear:2
job 32 (orange, uid 0): step 0 active striding:1:2" \
		sh -c "grep -o 'job 3[12][^<]*' '$D/node.svg' | grep -E 'MiB|uid'"
	expect_out "png rendered by lstopo (its signature)" "89504e470d0a1a0a" \
		sh -c "$SBIND draw --state '$SD' --topology '$T' --format png --output '$D/node.png' && od -An -tx1 -N8 '$D/node.png' | tr -d ' \n'"
	expect_err "a renderer that fails is named" 1 "could not render" \
		env SBIND_LSTOPO=false $SBIND draw --state "$SD" --topology "$T" --format svg --output "$D/x.svg"
else
	skip "svg and png rendered by lstopo" "lstopo not installed (Debian package hwloc)"
fi
expect_err "a bad --format is exit 2" 2 "expected xml, svg or png" $SBIND draw --format pdf
expect_err "a topology that does not exist is named" 2 "no such file" \
	$SBIND draw --state "$SD" --topology /nonexistent.xml
