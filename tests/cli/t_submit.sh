# sbind submit: the Slurm options a request needs, given the user's
# (lib/submit), as text and JSON, with its exit codes; the site's switch
# read from a plugstack.conf; and the cli_filter.lua built from the same
# table (syntax, and its logic with a stand-in for Slurm's lua API:
# cli_filter_check.lua). Sourced by run.sh after lib.sh.

expect_out "linear:2 -n4: -c 2 and --threads-per-core=1" "request: --binding=linear:2: 2 whole cores per task
options: --cpus-per-task=2 --threads-per-core=1
set --cpus-per-task=2: 2 cores per task
set --threads-per-core=1: -c counts whole cores, not hardware threads, on nodes with and without SMT: every task gets 2 cores of its own" \
	$SBIND submit --mode translate --binding linear:2 -n 4
expect_out "linear:1 -n4, options only" "options: --threads-per-core=1" \
	sh -c "$SBIND submit --mode translate --binding=linear:1 --ntasks=4 | grep '^options:'"
expect_out "-c1 linear:2: refused, both numbers, on stdout" "request: --binding=linear:2: 2 whole cores per task
refused: --binding=linear:2 needs 2 cores per task; -c 1 gives 1" \
	sh -c "$SBIND submit --mode translate --binding linear:2 -n1 -c1; test \$? = 3"
expect_rc "refused: exit 3" 3 $SBIND submit --mode translate --binding linear:2 -c 1
expect_out "sbatch packed:1:unit=S: whole node, a socket's share" \
	"options: --exclusive --ntasks-per-socket=1" \
	sh -c "$SBIND submit --mode translate --command sbatch --binding packed:1:unit=S -n 2 | grep '^options:'"
expect_out "a flag prints bare" "set --exclusive: names physical cores: only a whole node is sure to hold them" \
	sh -c "$SBIND submit --mode translate --command salloc --binding explicit:0,0 | grep '^set --exclusive'"
expect_out "srun -n2 explicit: refused with the way to do it" "1" \
	sh -c "$SBIND submit --mode translate --binding explicit:0,0:0,1 -n2 | grep -c 'run the tasks inside salloc or sbatch'"
expect_out "a step (--jobid): nothing to add for whole sockets, a note" "options: none" \
	sh -c "$SBIND submit --mode translate --binding packed:1:unit=S --jobid=12 -n2 | grep '^options:'"
expect_out "flags take a value as a cli_filter shows them" "1" \
	sh -c "$SBIND submit --mode translate --binding linear:1 --overcommit=set | grep -c 'overcommit lets tasks share'"
expect_out "-B S:C:T as srun's -B" "options: --cpus-per-task=2" \
	sh -c "$SBIND submit --mode translate --binding linear:2 -B '*:*:1' | grep '^options:'"
expect_out "none: nothing" "request: --binding=none binds nothing
options: none" $SBIND submit --mode translate --binding none
expect_out "no --binding at all: nothing" "options: none" sh -c "$SBIND submit --mode translate | grep '^options:'"
expect_out "--mode off: nothing, and says so" "options: none (submit=off: --mode off)" \
	sh -c "$SBIND submit --mode off --binding linear:2 | grep '^options:'"
expect_out "--mode refuse: names the options to add" "1" \
	sh -c "$SBIND submit --mode refuse --binding linear:2 | grep -c '^refused: --binding=linear:2 needs --cpus-per-task=2 --threads-per-core=1'"
expect_err "bad request: exit 2, the parser's message" 2 'amount must be >= 1' $SBIND submit --binding linear:0
expect_err "bad option value: exit 2" 2 '--cpus-per-task=x: expected a whole number' $SBIND submit --binding linear:1 -c x
expect_err "bad command: exit 2" 2 'expected srun, sbatch or salloc' $SBIND submit --command qsub --binding linear:1
expect_err "bad mode: exit 2" 2 'expected submit=translate|refuse|off' $SBIND submit --mode maybe --binding linear:1
expect_rc "unknown option: exit 2" 2 $SBIND submit --binding linear:1 --gpus 1
expect_rc "stray argument: exit 2" 2 $SBIND submit --binding linear:1 extra
expect_rc "help: exit 0" 0 $SBIND submit --help

# JSON: the same answer, and a refusal with null options
if command -v python3 >/dev/null 2>&1; then
	expect_out "--format json" "--cpus-per-task=2 --threads-per-core=1|core|2|False|None|cpus-per-task" \
		sh -c "$SBIND submit --mode translate --binding linear:2 -n4 --format json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(\"%s|%s|%s|%s|%s|%s\" % (d[\"options\"], d[\"need\"][\"unit\"], d[\"need\"][\"amount\"], d[\"need\"][\"whole_node\"], d[\"refused\"], d[\"set\"][0][\"option\"]))'"
	expect_out "--format json, refused" "--binding=linear:2 needs 2 cores per task; -c 1 gives 1|0" \
		sh -c "$SBIND submit --mode translate --binding linear:2 -c1 --format json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(\"%s|%d\" % (d[\"refused\"], len(d[\"set\"])))'"
else
	skip "--format json" "python3 is not installed"
fi

# The site's switch, from the plugin's plugstack.conf line on this host
_sd=$(mktemp -d /tmp/sbind-submit.XXXXXX)
printf 'ClusterName=t\nPlugStackConfig=%s/plugstack.conf\n' "$_sd" >"$_sd/slurm.conf"
printf 'required /x/spank_binding.so submit=refuse\n' >"$_sd/plugstack.conf"
expect_out "submit=refuse from plugstack.conf" "1" \
	sh -c "$SBIND submit --slurm-conf $_sd/slurm.conf --binding linear:2 | grep -c 'submit=refuse'"
expect_out "the same through \$SLURM_CONF, json" "refuse" \
	sh -c "SLURM_CONF=$_sd/slurm.conf $SBIND submit --binding linear:2 --format json | sed 's/.*\"mode\":\"\([a-z]*\)\".*/\1/'"
printf 'required /x/spank_binding.so submit=refuse submit_error=refuse\n' >"$_sd/plugstack.conf"
expect_out "sbind submit --site: the site's submit= and submit_error=" \
	"site: submit=refuse submit_error=refuse ($_sd/plugstack.conf: submit=refuse)" \
	$SBIND submit --slurm-conf "$_sd/slurm.conf" --site
printf 'required /x/spank_binding.so enabled=no\n' >"$_sd/plugstack.conf"
expect_out "enabled=no: off" "options: none (submit=off: $_sd/plugstack.conf: submit=translate, enabled=no: off)" \
	sh -c "$SBIND submit --slurm-conf $_sd/slurm.conf --binding linear:2 | grep '^options:'"
rm -rf "$_sd"

# The cli_filter.lua: the options it passes on are sbind's own list; it
# parses; its logic against a stand-in for Slurm's lua API.
_lua=$SBIND_DIR/cli_filter.lua
if [ ! -f "$_lua" ]; then
	skip "cli_filter.lua" "$_lua not built (make)"
else
	expect_out "cli_filter.lua passes on exactly sbind's option names" \
		"$($SBIND submit --list-options | tr '\n' ' ')" \
		sh -c "sed -n 's/^M.options = { \(.*\) }$/\1/p' '$_lua' | tr -d '\",' | tr -s ' ' | sed 's/\$/ /'"
	if command -v luac5.1 >/dev/null 2>&1 && command -v lua5.1 >/dev/null 2>&1; then
		expect_rc "luac5.1 -p cli_filter.lua" 0 luac5.1 -p "$_lua"
		_mod=$SBIND_DIR/spank_binding_submit.so
		[ -f "$_mod" ] || { skip "the translation module" "not built (Debian package liblua5.1-0-dev)"; _mod=; }
		lua5.1 "$CLI_TOP/tests/cli/cli_filter_check.lua" "$_lua" "$SBIND" ${_mod:+"$_mod"} 2>&1
		# a site with submit_error=refuse (plugstack.conf read through SLURM_CONF)
		_sd=$(mktemp -d /tmp/sbind-submit.XXXXXX)
		printf 'ClusterName=t\nPlugStackConfig=%s/plugstack.conf\n' "$_sd" >"$_sd/slurm.conf"
		printf 'required /x/spank_binding.so submit_error=refuse\n' >"$_sd/plugstack.conf"
		SLURM_CONF=$_sd/slurm.conf lua5.1 "$CLI_TOP/tests/cli/cli_filter_check.lua" "$_lua" \
			"$SBIND" "${_mod:-}" refuse 2>&1
		rm -rf "$_sd"
	else
		skip "cli_filter.lua with Lua 5.1" "lua5.1 is not installed (Debian package lua5.1)"
	fi
fi

# The translation module exports only its Lua entry point, and links the
# Lua that Slurm's cli_filter/lua links (another Lua's ABI would crash srun).
_mod=$SBIND_DIR/spank_binding_submit.so
if [ -f "$_mod" ]; then
	expect_out "spank_binding_submit.so exports only luaopen_spank_binding_submit" \
		"luaopen_spank_binding_submit" sh -c "nm -D --defined-only '$_mod' | awk '{ print \$3 }'"
	_slurm_lua=$(ls /usr/lib/*/slurm-wlm/cli_filter_lua.so 2>/dev/null | head -n1)
	if [ -n "$_slurm_lua" ]; then
		_want=$(ldd "$_slurm_lua" | awk '/liblua/ { print $1 }')
		expect_out "spank_binding_submit.so links Slurm's Lua ($_want)" "$_want" \
			sh -c "ldd '$_mod' | awk '/liblua/ { print \$1 }'"
	else
		skip "the module's Lua is Slurm's" "no cli_filter_lua.so (Debian package slurm-wlm-basic-plugins)"
	fi
fi
