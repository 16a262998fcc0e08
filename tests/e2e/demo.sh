#!/bin/bash
# `make demo`: a private one-node Slurm cluster with the freshly built plugin,
# a few real jobs whose bindings are printed, `sbind status`, then everything
# stopped again. The Makefile installs packages and builds first.
#
# The examples come from tests/e2e/demo-examples.sh (the forms of its
# lines: tests/e2e/demo_run.sh, which runs them; tests/e2e/t01_demo.sh
# runs the same on the e2e cluster and holds README's block to them).
# The node has DEMO_GPUS (default 2) fake GPUs as GRES (cluster.sh's
# E2E_GPUS: device files Slurm hands out, no driver behind them), as
# t01_demo.sh's.
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

# shellcheck source=tests/e2e/demo_run.sh
. "$here/demo_run.sh"
examples=${DEMO_EXAMPLES:-$here/demo-examples.sh}
if [ -f "$examples" ]; then
	demo_examples "$examples"
else
	echo "(no tests/e2e/demo-examples.sh: the cluster's own binding, task/affinity only)"
	demo_show_user 'srun -n2 -l grep Cpus_allowed_list /proc/self/status'
fi
cluster_stop
echo "demo: done (cluster stopped)"
