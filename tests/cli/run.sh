#!/bin/sh
# Runs every tests/cli/t_*.sh against build/sbind; counts TAP lines.
set -u
here=$(cd "$(dirname "$0")" && pwd)
SBIND="${SBIND:-$here/../../build/sbind}"
# The tests run "$SBIND" as a command word, also inside sh -c strings: a
# checkout at a path with a space would split it. They get a link to it at
# a path of ours.
# SBIND_DIR is the real one's dir (its man pages), CLI_TOP the checkout.
export SBIND_DIR CLI_TOP
SBIND_DIR=$(cd "$(dirname "$SBIND")" && pwd) && CLI_TOP=$(cd "$here/../.." && pwd) || exit 1
bin=$(mktemp -d /tmp/sbind-cli.XXXXXX) || exit 1
trap 'rm -rf "$bin"' EXIT
ln -s "$SBIND_DIR/$(basename "$SBIND")" "$bin/sbind" || exit 1
export SBIND="$bin/sbind"
export TOPOS="${BINDING_TOPOLOGIES:-$(cd "$here/../topologies" && pwd)}"
# The tree's own test topologies (hwloc XMLs with what synthetic ones lack).
export TESTXML="$CLI_TOP/tests/unit/topology/xml"
export VALGRIND="${VALGRIND:-}"
passed=0 failed=0 skipped=0
# A file that stops early (a syntax error makes sh leave the sourced file
# with the checks after it unrun) is a failure, not fewer passes: each
# file must reach the line after it.
end='# cli: end of file'
for t in "$here"/t_*.sh; do
	out=$(sh -c ". '$here/lib.sh'; . '$t'; echo '$end'" 2>&1)
	printf '%s\n' "$out" | grep -v '^ok ' | grep -vxF "$end" | sed "s|^|[$(basename "$t")] |"
	p=$(printf '%s\n' "$out" | grep -c '^ok ' ); s=$(printf '%s\n' "$out" | grep -c '^ok .*# SKIP')
	f=$(printf '%s\n' "$out" | grep -c '^not ok ')
	if ! printf '%s\n' "$out" | grep -qxF "$end"; then
		echo "[$(basename "$t")] not ok - stopped before its end (the checks after that point did not run)"
		f=$((f + 1))
	fi
	echo "[cli] $(basename "$t"): $((p - s)) passed, $f failed, $s skipped"
	passed=$((passed + p - s)); failed=$((failed + f)); skipped=$((skipped + s))
done
echo "cli: $passed passed, $failed failed, $skipped skipped"
[ -n "${BINDING_BUILD:-}" ] && echo "cli $passed $failed $skipped" >> "$BINDING_BUILD/results"
[ "$failed" -eq 0 ]
