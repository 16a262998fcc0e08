#!/bin/sh
# Runs every tests/cli/t_*.sh against build/sbind; counts TAP lines.
set -u
here=$(cd "$(dirname "$0")" && pwd)
export SBIND="${SBIND:-$here/../../build/sbind}"
export TOPOS="${BINDING_TOPOLOGIES:-$(cd "$here/../topologies" && pwd)}"
export VALGRIND="${VALGRIND:-}"
passed=0 failed=0 skipped=0
for t in "$here"/t_*.sh; do
	out=$(sh -c ". '$here/lib.sh'; . '$t'" 2>&1)
	printf '%s\n' "$out" | grep -v '^ok ' | sed "s|^|[$(basename "$t")] |"
	p=$(printf '%s\n' "$out" | grep -c '^ok ' ); s=$(printf '%s\n' "$out" | grep -c '^ok .*# SKIP')
	f=$(printf '%s\n' "$out" | grep -c '^not ok ')
	echo "[cli] $(basename "$t"): $((p - s)) passed, $f failed, $s skipped"
	passed=$((passed + p - s)); failed=$((failed + f)); skipped=$((skipped + s))
done
echo "cli: $passed passed, $failed failed, $skipped skipped"
[ -n "${BINDING_BUILD:-}" ] && echo "cli $passed $failed $skipped" >> "$BINDING_BUILD/results"
[ "$failed" -eq 0 ]
