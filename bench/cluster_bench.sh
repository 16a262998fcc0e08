# Sourced by the benches that need a private Slurm cluster (launch.sh,
# gang.sh, defer.sh, ...): bench_cluster NAME [cluster_start's args] checks
# root and Slurm's programs, starts tests/e2e/cluster.sh's cluster and the
# plugin, or says why it cannot and exits (0 for a skip, 1 for a failure).
# shellcheck shell=bash
bench_cluster() {
	local name=$1 b
	shift
	if [ "$(id -u)" != 0 ]; then
		echo "bench $name: skipped (needs root to run a private Slurm cluster)"
		exit 0
	fi
	for b in munged slurmctld slurmd srun scontrol; do
		command -v "$b" >/dev/null 2>&1 || { echo "bench $name: skipped (no $b)"; exit 0; }
	done
	# shellcheck source=tests/e2e/cluster.sh
	. "$(dirname "${BASH_SOURCE[0]}")/../tests/e2e/cluster.sh"
	cluster_start "$@" >/dev/null 2>&1 ||
		{ echo "bench $name: the private cluster did not start"; exit 1; }
	[ -n "$E2E_PLUGIN" ] ||
		{ echo "bench $name: skipped ($E2E_BUILD/spank_binding.so not built)"; exit 0; }
}
