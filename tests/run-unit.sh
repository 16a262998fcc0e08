#!/bin/sh
# Runs Check unit-test programs; prints each one's verdict and appends
# "<stage> passed failed skipped" to $BINDING_BUILD/results.
set -u
stage=$1; shift
# Check's timeouts are hang guards, never verdicts on speed: a test case
# without its own gets 4 s by default, too little for an ASan build on a
# loaded machine. Give every one a wide margin (caller may override).
export CK_DEFAULT_TIMEOUT="${CK_DEFAULT_TIMEOUT:-60}"
export CK_TIMEOUT_MULTIPLIER="${CK_TIMEOUT_MULTIPLIER:-3}"
passed=0 failed=0 bad=0 skipped=0
for t in "$@"; do
	out=$("$t" 2>&1); rc=$?
	line=$(printf '%s\n' "$out" | grep -E '^[0-9]+%: Checks: ' | tail -1)
	if [ -z "$line" ]; then
		printf '%s\n' "$out"
		echo "[$stage] $(basename "$t"): crashed or printed no Check summary (rc=$rc)"
		bad=$((bad + 1)); failed=$((failed + 1)); continue
	fi
	n=$(echo "$line" | sed -E 's/.*Checks: ([0-9]+).*/\1/')
	f=$(echo "$line" | sed -E 's/.*Failures: ([0-9]+).*/\1/')
	e=$(echo "$line" | sed -E 's/.*Errors: ([0-9]+).*/\1/')
	if [ "$rc" -ne 0 ] || [ "$f" -ne 0 ] || [ "$e" -ne 0 ]; then
		printf '%s\n' "$out" | grep -vE ':P:|^Running suite' || true
	fi
	# A check that skipped part of its work (not root, no cgroup v1 here)
	# still passes in Check; count its "# SKIP" lines so the summary says so.
	printf '%s\n' "$out" | grep -E '^# SKIP' || true
	skipped=$((skipped + $(printf '%s\n' "$out" | grep -cE '^# SKIP')))
	echo "[$stage] $(basename "$t"): $line"
	passed=$((passed + n - f - e)); failed=$((failed + f + e))
	[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && [ "$e" -eq 0 ] && failed=$((failed + 1))
done
echo "unit ($stage): $passed passed, $failed failed, $skipped partly skipped"
[ -n "${BINDING_BUILD:-}" ] && echo "unit-$stage $passed $failed $skipped" >> "$BINDING_BUILD/results"
[ "$failed" -eq 0 ]
