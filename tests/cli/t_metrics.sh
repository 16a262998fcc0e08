# sbind metrics: the node's binding state in Prometheus' text format, from
# a state built with sbind place --commit (issue 30).
T="pack:2 numa:2(memory=1GiB) core:2 pu:2"
D=$(mktemp -d /tmp/sbind-metrics-XXXXXX); chmod 755 "$D"; SD="$D/st"
trap 'kill $owner 2>/dev/null; rm -rf "$D"' EXIT
sleep 300 & owner=$!
$SBIND place --topology "$T" --binding linear:2 --state "$SD" --commit --job 21 --step 0 --owner-pid $owner >/dev/null
$SBIND place --topology "$T" --binding packed:1:unit=T --mbind cores --mem 300M --state "$SD" --commit --job 22 --step 0 --owner-pid $owner >/dev/null

# the series of a name (with its labels) and their values, one a line
series() { $SBIND metrics --state "$SD" --topology "$T" | grep -E "^$1[{ ]"; }

expect_out "cores held and free per socket: job 21 two cores, job 22 one thread" \
'spank_binding_socket_cores_held{socket="0"} 3
spank_binding_socket_cores_held{socket="1"} 0' series spank_binding_socket_cores_held
expect_out "threads held per NUMA node" \
'spank_binding_numa_threads_held{numa="0"} 4
spank_binding_numa_threads_held{numa="1"} 1
spank_binding_numa_threads_held{numa="2"} 0
spank_binding_numa_threads_held{numa="3"} 0' series spank_binding_numa_threads_held
expect_out "memory reserved per NUMA node, in bytes" \
'spank_binding_numa_memory_reserved_bytes{numa="0"} 0
spank_binding_numa_memory_reserved_bytes{numa="1"} 314572800
spank_binding_numa_memory_reserved_bytes{numa="2"} 0
spank_binding_numa_memory_reserved_bytes{numa="3"} 0' series spank_binding_numa_memory_reserved_bytes
expect_out "steps by status" \
'spank_binding_steps{status="bound"} 2
spank_binding_steps{status="suspended"} 0
spank_binding_steps{status="deferred"} 0
spank_binding_steps{status="unbound"} 0' series spank_binding_steps
expect_out "placements counted by strategy, in the state" \
'spank_binding_placements_total{strategy="linear"} 1
spank_binding_placements_total{strategy="packed"} 1' sh -c "$SBIND metrics --state '$SD' --topology '$T' | grep -E '^spank_binding_placements_total.* [1-9]'"
expect_out "two committed transactions waited for the lock" "spank_binding_state_lock_wait_seconds_count 2" \
	series spank_binding_state_lock_wait_seconds_count

# --output: the textfile node_exporter reads, replaced whole, 0644
expect_rc "--output writes the file" 0 $SBIND metrics --state "$SD" --topology "$T" --output "$D/node.prom"
expect_out "--output: 0644, the same text as stdout" "644 same" \
	sh -c "stat -c %a '$D/node.prom' | tr '\n' ' '; $SBIND metrics --state '$SD' --topology '$T' | cmp -s - '$D/node.prom' && echo same"
expect_out "--output leaves no temporary file" "node.prom" sh -c "ls -A '$D' | grep -v '^st$'"
mkdir "$D/open"; chmod 0777 "$D/open"
expect_err "--output into a dir anyone may write: refused" 1 "writable by others than its owner" \
	$SBIND metrics --state "$SD" --topology "$T" --output "$D/open/x.prom"

if command -v promtool >/dev/null 2>&1; then
	expect_rc "promtool check metrics passes (names, units, _total, HELP/TYPE)" 0 \
		sh -c "$SBIND metrics --state '$SD' --topology '$T' | promtool check metrics"
else
	skip "promtool check metrics" "promtool not installed (Debian package prometheus)"
fi

# a state of a newer version cannot be read: only spank_binding_state_ok 0
mkdir "$D/new"; printf 'spank-binding-state 99\n' > "$D/new/state"
expect_out "an unreadable state: state_ok 0 and nothing else" "spank_binding_state_ok 0" \
	sh -c "$SBIND metrics --state '$D/new' --topology '$T' 2>/dev/null | grep -v '^#'"
expect_err "... and exit 1 with the reason" 1 "newer than this code's" \
	$SBIND metrics --state "$D/new" --topology "$T"
expect_err "a bad --mem-reserve is exit 2" 2 "--mem-reserve" $SBIND metrics --mem-reserve x
expect_err "an argument too many is exit 2" 2 "unexpected argument" $SBIND metrics extra
