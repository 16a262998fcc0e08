#!/bin/bash
# t50_metrics.sh: the node's metrics reach Prometheus. The real
# node_exporter of Debian's prometheus-node-exporter, started here on a
# loopback port with its textfile collector on a scratch folder; the
# plugin writes the folder's file after every change of the state
# (metrics_file=); after known jobs its /metrics carries each series with
# the right value: placements by strategy, a rankfile, refusals with their
# reasons and fallbacks, cores held and free while a job runs, steps by
# status, the lock wait histogram. promtool check metrics on the scrape
# where Debian's prometheus package provides promtool.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/binding_helpers.sh"
need_plugin
[ "$E2E_NCPUS" -eq 2 ] || { e2e_skip "t50 is written for a 2-cpu node, this one has $E2E_NCPUS"; e2e_done; }
exporter=$(command -v prometheus-node-exporter || command -v node_exporter) ||
	{ e2e_skip "t50: no node_exporter (Debian package prometheus-node-exporter)"; e2e_done; }

# The textfile folder as node_exporter's package has it: root's, 0755.
tf=$E2E_DIR/textfile
mkdir -p "$tf" && chmod 0755 "$tf"
port=$(_e2e_free_port) || { e2e_fail "no free port for node_exporter"; e2e_done; }
"$exporter" --web.listen-address="127.0.0.1:$port" --collector.disable-defaults \
	--collector.textfile --collector.textfile.directory="$tf" >"$E2E_DIR/log/node_exporter.log" 2>&1 &
nx=$!
trap 'kill "$nx" 2>/dev/null' EXIT
scrape() { curl -fsS --max-time 10 "http://127.0.0.1:$port/metrics"; }
wait_until 60 scrape >/dev/null || { e2e_fail "node_exporter did not answer on port $port"; e2e_done; }
e2e_pass "node_exporter $("$exporter" --version 2>&1 | sed -n '1s/.*version \([^ ]*\).*/\1/p') answers on 127.0.0.1:$port"

# value SERIES: the value of one series (name and labels exactly) in the scrape
value() { scrape | awk -v s="$1" '$1 == s { print $2 }'; }
# expect_value SERIES WANT MSG: waits for it (the file is written by the
# step's slurmstepd after its transaction, maybe after srun returned)
is_value() { [ "$(value "$1")" = "$2" ]; }
expect_value() {
	wait_until 30 is_value "$1" "$2"
	assert_eq "$2" "$(value "$1")" "$3 ($1)"
}
# The counters are the node's since its state began: earlier files of the
# run counted too. A counter is checked as what it was here + what this
# file adds (from the state as the plugin's first write shows it).
declare -A base
counters='spank_binding_placements_total{strategy="linear"} spank_binding_placements_total{strategy="packed"}
spank_binding_rankfiles_written_total spank_binding_refusals_total{reason="held_by_other_jobs"}
spank_binding_refusals_total{reason="allocation_too_small"} spank_binding_fallbacks_total{fallback="deferred"}
spank_binding_fallbacks_total{fallback="unbound"} spank_binding_state_lock_wait_seconds_count'
expect_added() {	# SERIES N MSG
	expect_value "$1" $((${base[$1]} + $2)) "$3 (+$2)"
}

cluster_plugstack metrics_file="$tf/spank_binding.prom"
"$E2E_BUILD/sbind" metrics --state "$E2E_STATE" >"$E2E_DIR/metrics.before" 2>/dev/null
for c in $counters; do
	base[$c]=$(awk -v s="$c" '$1 == s { print $2 }' "$E2E_DIR/metrics.before")
	base[$c]=${base[$c]:-0}
done

# 1. two linear steps' worth of placements, a packed one with a rankfile
assert_ok "srun -n2 --binding=linear:1" run_as_user srun -n2 --binding=linear:1 true
assert_ok "srun --binding=pe:packed:1:unit=C (a pe step writes a rankfile)" \
	run_as_user srun -n1 --binding=pe:packed:1:unit=C true
expect_added 'spank_binding_placements_total{strategy="linear"}' 1 "one linear placement"
expect_added 'spank_binding_placements_total{strategy="packed"}' 1 "one packed placement"
expect_added spank_binding_rankfiles_written_total 1 "the pe step's rankfile counted"
expect_value 'spank_binding_steps{status="bound"}' 0 "both ended: no step bound"
expect_value spank_binding_state_ok 1 "the state was read whole"

# 2. a job holds both cores: the gauges while it runs
job=$(sbatch_as_user -n2 --binding=linear:1 -o /dev/null --wrap 'srun sleep 600') ||
	{ e2e_fail "sbatch refused"; e2e_done; }
assert_eq RUNNING "$(wait_job_state "$job" RUNNING)" "job $job runs"
expect_value 'spank_binding_steps{status="bound"}' 2 "job $job's script and step bound"
expect_value 'spank_binding_socket_cores_held{socket="0"}' 2 "both cores held"
expect_value 'spank_binding_socket_cores_free{socket="0"}' 0 "no core free"
expect_value 'spank_binding_numa_threads_held{numa="0"}' 2 "both threads of NUMA node 0 held"
expect_added 'spank_binding_placements_total{strategy="linear"}' 3 "the script's and its step's placements"

# 3. refusals while it runs: deferred (the default on_failure), unbound,
# and an allocation too small for the request
assert_ok "srun --binding=linear:1 on held cores (deferred)" run_as_user srun -n1 --binding=linear:1 true
expect_added 'spank_binding_refusals_total{reason="held_by_other_jobs"}' 1 "refused: cores held by another job"
expect_added 'spank_binding_fallbacks_total{fallback="deferred"}' 1 "... it waited as deferred"
cluster_plugstack metrics_file="$tf/spank_binding.prom" on_failure=unbound
assert_ok "srun --binding=linear:1 on held cores, on_failure=unbound" run_as_user srun -n1 --binding=linear:1 true
expect_added 'spank_binding_refusals_total{reason="held_by_other_jobs"}' 2 "refused again for that reason"
expect_added 'spank_binding_fallbacks_total{fallback="unbound"}' 1 "... and ran unbound"
assert_ok "srun -n1 --binding=linear:2 (one cpu given)" run_as_user srun -n1 --binding=linear:2 true
expect_added 'spank_binding_refusals_total{reason="allocation_too_small"}' 1 "refused: the allocation is too small"
expect_added 'spank_binding_fallbacks_total{fallback="unbound"}' 2 "... and ran unbound"
expect_value 'spank_binding_steps{status="unbound"}' 0 "the refused steps ended: none left unbound"

# 4. the job ends: everything free again
scancel "$job"
wait_job_done "$job" 30 >/dev/null
expect_value 'spank_binding_steps{status="bound"}' 0 "no step bound after the job"
expect_value 'spank_binding_socket_cores_free{socket="0"}' 2 "both cores free"
out=$(scrape)
count=$(awk '$1 == "spank_binding_state_lock_wait_seconds_count" { print $2 }' <<<"$out")
inf=$(awk '$1 == "spank_binding_state_lock_wait_seconds_bucket{le=\"+Inf\"}" { print $2 }' <<<"$out")
assert_match "$count" "^[0-9]+$" "the lock wait histogram has a count ($count transactions)"
assert_eq "$count" "$inf" "its +Inf bucket holds every wait"
# 2 (step 1) + 2 (pe) + 2 + 2 (job) + 2 (deferred: record, release) + 2 + 2 (unbound)
added=$((${count:-0} - ${base[spank_binding_state_lock_wait_seconds_count]}))
[ "$added" -ge 14 ] && e2e_pass "every change of the state here counted its wait for the lock ($added >= 14)" ||
	e2e_fail "only $added lock waits counted here, 14 changes were made"
assert_eq 0 "$(awk '$1 == "node_textfile_scrape_error" { print $2 }' <<<"$out")" \
	"node_exporter read the file without error"
assert_eq 644 "$(stat -c %a "$tf/spank_binding.prom")" "the file is 0644"
assert_eq "" "$(ls -A "$tf" | grep -v '^spank_binding.prom$')" "no temporary file left in the folder"
if command -v promtool >/dev/null 2>&1; then
	assert_ok "promtool check metrics on the scrape" sh -c "grep '^[# ]*.*spank_binding_' | promtool check metrics" <<<"$out"
else
	e2e_skip "promtool check metrics: promtool not installed (Debian package prometheus)"
fi
kill "$nx" 2>/dev/null
wait "$nx" 2>/dev/null
e2e_done
