#!/bin/bash
# The examples of `make demo` (tests/e2e/demo-examples.sh), run on a
# cluster that is up (cluster.sh's variables set), printed as the demo
# shows them: sourced by demo.sh and by t01_demo.sh, which holds README's
# block of them to this output (doc_block demo).
#
# The examples file, one per line:
#   # text          a comment of the file, not shown
#   ## text         shown as an explanation
#   @plugstack ARGS rewrites plugstack.conf (state_dir= is added), shown
#   @cli_filter on|off  the package's cli_filter.lua in slurm.conf or not, shown
#   @root CMD       run as root, shown as "# CMD" and its output
#   CMD             run as the job user from its scratch dir, shown as "$ CMD"
#                   and its output (stdout and stderr); a hang guard of
#                   at least E2E_WAIT_MIN (120 s, cluster.sh)
# Commands see E2E_NODE, E2E_CPUS, E2E_NCPUS, E2E_STATE in their environment,
# root's also E2E_BUILD (sbind) and E2E_DIR.
# Every example waits for what it shows (a file a task writes, an empty
# queue), never for a time: the output is the same on a slow machine.

demo_show_user() {
	echo "\$ $1"
	run_as_user env E2E_NODE="$E2E_NODE" E2E_CPUS="$E2E_CPUS" E2E_NCPUS="$E2E_NCPUS" \
		E2E_STATE="$E2E_STATE" timeout "$(e2e_wait_secs 60)" bash -c "$1" </dev/null 2>&1
	local rc=$?
	[ $rc -eq 0 ] || echo "(exit $rc)"
	echo
}

# demo_examples FILE
demo_examples() {
	local line
	while IFS= read -r line || [ -n "$line" ]; do
		case "$line" in
		'') ;;
		'## '*) echo "${line#\#\# }" ;;
		'#'*) ;;
		'@plugstack'*)
			# shellcheck disable=SC2086
			cluster_plugstack ${line#@plugstack}
			echo "(plugstack.conf: $(cat "$E2E_DIR/plugstack.conf"))"
			echo
			;;
		'@cli_filter '*)
			cluster_cli_filter "${line#@cli_filter }" || echo "demo: the cli_filter is not built (make)"
			echo "(slurm.conf: CliFilterPlugins=$(sed -n 's/^CliFilterPlugins=//p' "$E2E_DIR/slurm.conf"))"
			echo
			;;
		'@root '*)
			echo "# ${line#@root }"
			timeout "$(e2e_wait_secs 60)" bash -c "${line#@root }" </dev/null 2>&1
			echo
			;;
		*) demo_show_user "$line" ;;
		esac
	done <"$1"
}
