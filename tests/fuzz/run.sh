#!/bin/sh
# Runs the libFuzzer targets for a bounded time each.
#
#   run.sh --toolchain     exit 0 when clang and its fuzzer runtime are
#                          here; else say so, record the stage as skipped
#                          and exit 1 (make fuzz then builds nothing)
#   run.sh BIN...          fuzz each target for $FUZZ_SECONDS (default 5)
#   FUZZ_RUNS=N run.sh BIN...
#                          instead: N executions per target (make fuzz-long),
#                          split over $FUZZ_JOBS processes (default 2) that
#                          share the target's corpus
#
# Each target's corpus lives in $BINDING_BUILD/fuzz/corpus/<target>: the
# committed seeds of tests/fuzz/seeds/<target>, the seeds the target writes
# itself (FUZZ_SEED_DIR), and whatever earlier runs found. A crash, leak,
# sanitizer report or failed property leaves its input in
# $BINDING_BUILD/fuzz/artifacts/. Prints "fuzz: N passed, M failed" and
# appends "fuzz N M K" to $BINDING_BUILD/results.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${BINDING_BUILD:-$here/../../build}
seconds=${FUZZ_SECONDS:-5}
cc=${FUZZ_CC:-clang}

record() {
	echo "fuzz: $1 passed, $2 failed${3:+, $3 skipped}"
	[ -n "${BINDING_BUILD:-}" ] && echo "fuzz $1 $2 ${3:-0}" >> "$BINDING_BUILD/results"
	return 0
}

if [ "${1:-}" = "--toolchain" ]; then
	set -- "$here"/fuzz_*.c
	n=$#
	why=""
	if ! command -v "$cc" >/dev/null 2>&1; then
		why="$cc not found (Debian: clang)"
	else
		rt=$("$cc" -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null)
		if [ ! -f "$rt" ]; then
			rt=$("$cc" -print-resource-dir 2>/dev/null)/lib/linux/libclang_rt.fuzzer-$(uname -m).a
			[ -f "$rt" ] || why="no libFuzzer runtime for $cc (Debian: libclang-rt-<version>-dev)"
		fi
	fi
	[ -z "$why" ] && exit 0
	echo "# SKIP fuzz: $why"
	record 0 0 "$n"
	exit 1
fi

# The largest input worth trying, per parser: room to pass each one's own
# limits (a request's 8192-letter filter, a state file's long task lists)
# without slowing the short parsers down with huge inputs.
max_len() {
	case $1 in
	fuzz_request) echo 12000 ;;
	fuzz_topostring) echo 512 ;;
	fuzz_statefile) echo 16384 ;;
	fuzz_topocache) echo 8192 ;;
	fuzz_cpuset) echo 4096 ;;
	fuzz_config) echo 4096 ;;
	fuzz_stepinfo) echo 1024 ;;
	fuzz_topology) echo 256 ;;
	*) echo 4096 ;;
	esac
}

# ASan keeps 256 MB of freed memory in quarantine by default, and LSan
# walks all of it at every leak check (libFuzzer runs one after each input
# that allocates more than it frees; hwloc's refusals do): 16 MB still holds
# what one input frees and nearly doubles fuzz_topology's rate.
ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=16}
export ASAN_OPTIONS

passed=0 failed=0
mkdir -p "$build/fuzz/artifacts" "$build/fuzz/logs"
for bin in "$@"; do
	name=$(basename "$bin")
	corpus=$build/fuzz/corpus/$name
	log=$build/fuzz/logs/$name.log
	mkdir -p "$corpus"
	if [ -d "$here/seeds/$name" ]; then
		cp "$here/seeds/$name"/* "$corpus"/ 2>/dev/null
	fi
	if ! FUZZ_SEED_DIR=$corpus "$bin" > "$log" 2>&1; then
		cat "$log"
		echo "[fuzz] $name: writing its seeds failed"
		failed=$((failed + 1))
		continue
	fi
	dict=""
	[ -f "$here/$name.dict" ] && dict="-dict=$here/$name.dict"
	if [ -n "${FUZZ_RUNS:-}" ]; then
		jobs=${FUZZ_JOBS:-2}
		rc=0 j=0 pids="" start=$(date +%s)
		while [ "$j" -lt "$jobs" ]; do
			# shellcheck disable=SC2086
			"$bin" -runs=$((FUZZ_RUNS / jobs)) -max_len="$(max_len "$name")" -timeout=10 \
				-rss_limit_mb=2048 -print_final_stats=1 \
				-artifact_prefix="$build/fuzz/artifacts/$name-" $dict "$corpus" \
				> "$log.$j" 2>&1 &
			pids="$pids $!"
			j=$((j + 1))
		done
		for p in $pids; do
			wait "$p" || rc=$?
		done
		cat "$log".* > "$log"
		seconds=$(($(date +%s) - start))
		# one DONE line per process: runs add up, coverage and corpus
		# are the largest seen (the processes share the corpus)
		done_line=$(grep -hE '^#[0-9]+[[:space:]]+DONE' "$log".* | awk '
			{ n += substr($1, 2); for (i = 1; i < NF; i++) {
			  if ($i == "cov:" && $(i + 1) > c) c = $(i + 1);
			  if ($i == "corp:") { split($(i + 1), a, "/"); if (a[1] > k) k = a[1] } } }
			END { if (NR == '"$jobs"') printf "#%d DONE cov: %d corp: %d\n", n, c, k }')
		rm -f "$log".*
	else
		# shellcheck disable=SC2086
		"$bin" -max_total_time="$seconds" -max_len="$(max_len "$name")" -timeout=10 \
			-rss_limit_mb=2048 -print_final_stats=1 \
			-artifact_prefix="$build/fuzz/artifacts/$name-" $dict "$corpus" > "$log" 2>&1
		rc=$?
		done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1)
	fi
	if [ "$rc" -eq 0 ] && [ -n "$done_line" ]; then
		runs=$(echo "$done_line" | sed -E 's/^#([0-9]+).*/\1/')
		cov=$(echo "$done_line" | sed -E 's/.*cov: ([0-9]+).*/\1/')
		corp=$(echo "$done_line" | sed -E 's/.*corp: ([0-9]+).*/\1/')
		echo "[fuzz] $name: ok, $runs inputs in ${seconds}s, coverage $cov, corpus $corp"
		passed=$((passed + 1))
	else
		grep -vE '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)|^"|^[[:space:]]+NEW_FUNC' "$log" | tail -60
		echo "[fuzz] $name: FAILED (rc=$rc); input saved as $build/fuzz/artifacts/$name-*;"
		echo "       reproduce with: $bin <that file>"
		failed=$((failed + 1))
	fi
done
record "$passed" "$failed"
[ "$failed" -eq 0 ]
