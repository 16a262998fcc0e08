# Helpers for the CLI tests (sourced by tests/cli/run.sh before each t_*.sh).
# Each test prints TAP-like lines "ok N - desc" / "not ok N - desc".
#
#   expect_out DESC EXPECTED_STDOUT CMD...   stdout must equal, exit 0
#   expect_rc DESC RC CMD...                 exit code must equal
#   expect_err DESC RC SUBSTRING CMD...      exit code and a stderr substring
#   skip DESC REASON
# $SBIND is the built tool (a link to it, at a path without spaces:
# $SBIND_DIR is its real dir), $CLI_TOP the checkout, $TOPOS the real
# machines' XMLs (tests/topologies).
# $TESTXML the tree's own XMLs (tests/unit/topology/xml).

: "${SBIND:?}"
_n=0

_report() { # ok? desc detail
	_n=$((_n + 1))
	if [ "$1" = 1 ]; then echo "ok $_n - $2"; else echo "not ok $_n - $2"; [ -n "$3" ] && printf '%s\n' "$3" | sed 's/^/#   /'; fi
}

expect_out() {
	_d=$1 _e=$2; shift 2
	_o=$("$@" 2>/tmp/cli-err.$$); _rc=$?
	if [ "$_rc" = 0 ] && [ "$_o" = "$_e" ]; then _report 1 "$_d"
	else _report 0 "$_d" "cmd: $* | rc=$_rc | got: $_o | expected: $_e | stderr: $(cat /tmp/cli-err.$$)"; fi
	rm -f /tmp/cli-err.$$
}

expect_rc() {
	_d=$1 _e=$2; shift 2
	"$@" >/dev/null 2>/tmp/cli-err.$$; _rc=$?
	if [ "$_rc" = "$_e" ]; then _report 1 "$_d"
	else _report 0 "$_d" "cmd: $* | rc=$_rc expected $_e | stderr: $(cat /tmp/cli-err.$$)"; fi
	rm -f /tmp/cli-err.$$
}

expect_err() {
	_d=$1 _e=$2 _s=$3; shift 3
	"$@" >/dev/null 2>/tmp/cli-err.$$; _rc=$?
	if [ "$_rc" = "$_e" ] && grep -qF -- "$_s" /tmp/cli-err.$$; then _report 1 "$_d"
	else _report 0 "$_d" "cmd: $* | rc=$_rc expected $_e | stderr: $(cat /tmp/cli-err.$$) | wanted: $_s"; fi
	rm -f /tmp/cli-err.$$
}

skip() { _n=$((_n + 1)); echo "ok $_n - $1 # SKIP $2"; }
