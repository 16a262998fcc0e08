#!/bin/bash
# `make demo`: a private one-node Slurm cluster with the freshly built plugin,
# a few real jobs whose bindings are printed, `sbind status`, then everything
# stopped again. The Makefile installs packages and builds first.
#
# The examples come from tests/e2e/demo-examples.sh, one per line:
#   # text          a comment of the file, not shown
#   ## text         shown as an explanation
#   @plugstack ARGS rewrites plugstack.conf (state_dir= is added), shown
#   @cli_filter on|off  the package's cli_filter.lua in slurm.conf or not, shown
#   @root CMD       run as root, shown as "# CMD" and its output
#   CMD             run as the job user from a scratch dir, shown as "$ CMD"
#                   and its output (stdout and stderr), at most 60 s
# Commands see E2E_NODE, E2E_CPUS, E2E_NCPUS, E2E_STATE in their environment,
# root's also E2E_BUILD (sbind) and E2E_DIR.
# The node has DEMO_GPUS (default 2) fake GPUs as GRES (cluster.sh's
# E2E_GPUS: device files Slurm hands out, no driver behind them).
# Environment: DEMO_PLUGSTACK_ARGS (default "verbose"), DEMO_EXAMPLES (another
# examples file), KEEP_E2E=1, and
# cluster.sh's knobs.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
here=$(cd "$(dirname "$0")" && pwd)

if [ "$(id -u)" != 0 ]; then
	cat >&2 <<-EOF
		demo: needs root. It starts its own munged, slurmctld and slurmd (Debian
		packages munge, slurmctld, slurmd, slurm-client) under a temporary directory
		and runs jobs as an unprivileged test user; nothing system-wide is changed.
		Run it as root: sudo make demo
	EOF
	exit 1
fi

# shellcheck source=tests/e2e/cluster.sh
. "$here/cluster.sh"
export E2E_GPUS=${DEMO_GPUS:-2}
# shellcheck disable=SC2086 # several arguments
cluster_start ${DEMO_PLUGSTACK_ARGS:-verbose} || { echo "demo: the private cluster did not start" >&2; exit 1; }
echo
if [ -z "$E2E_PLUGIN" ]; then
	echo "demo: $E2E_BUILD/spank_binding.so is not built, so jobs below run without the plugin."
	echo
fi

show_user() {
	echo "\$ $1"
	run_as_user env E2E_NODE="$E2E_NODE" E2E_CPUS="$E2E_CPUS" E2E_NCPUS="$E2E_NCPUS" \
		E2E_STATE="$E2E_STATE" timeout 60 bash -c "$1" </dev/null 2>&1
	local rc=$?
	[ $rc -eq 0 ] || echo "(exit $rc)"
	echo
}

examples=${DEMO_EXAMPLES:-$here/demo-examples.sh}
if [ -f "$examples" ]; then
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
			timeout 60 bash -c "${line#@root }" </dev/null 2>&1
			echo
			;;
		*) show_user "$line" ;;
		esac
	done <"$examples"
else
	echo "(no tests/e2e/demo-examples.sh: the cluster's own binding, task/affinity only)"
	show_user 'srun -n2 -l grep Cpus_allowed_list /proc/self/status'
fi

if [ -x "$E2E_BUILD/sbind" ]; then
	echo "# sbind status --state $E2E_STATE"
	"$E2E_BUILD/sbind" status --state "$E2E_STATE" 2>&1
	echo
fi
cluster_stop
echo "demo: done (cluster stopped)"
