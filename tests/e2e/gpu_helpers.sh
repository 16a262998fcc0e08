#!/bin/bash
# Helpers of the GPU test files (tests/e2e/t25_gpu.sh on this host,
# tests/guest/g70_gpu.sh in the guest node): a cluster of their own with
# E2E_GPUS fake GPUs (cluster.sh: device files of major 195 with no driver,
# so an allowed open fails with ENXIO and a cgroup-denied one with EPERM),
# and what each task says about itself.
#
#   gpu_file_start N [PLUGSTACK ARGS]   own cluster (under run.sh) with N GPUs,
#                                       unless the running one has them
#   gpu_constrain yes|no                ConstrainDevices=, slurmd restarted
#   GPU_TASK                            the task script (user file): prints
#       rank|cpus|cgroup cpuset|SLURM_BINDING_GPUS|CUDA_VISIBLE_DEVICES|
#       SLURM_STEP_GPUS|ROCR_VISIBLE_DEVICES|opens|memory|status|locality
#     where opens is " 0:yes 1:no ..." (may it open fakegpuN) and memory is
#     pagenode's line for MIB when the task is given `MIB` as $1 (else -);
#     with a second argument it then sleeps that long.
#   gpu_field LINE N                    field N (1-based) of such a line
#   gpu_lines OUT                       the task lines of an srun's output, by rank

gpu_file_start() {
	local n=$1 outer=${E2E_DIR:-}
	shift
	export E2E_GPUS=$n
	# shellcheck source=tests/e2e/lib.sh
	. "$(dirname "$0")/../e2e/lib.sh"
	# shellcheck source=tests/e2e/binding_helpers.sh
	. "$(dirname "$0")/../e2e/binding_helpers.sh"
	need_plugin
	# Under run.sh: a cluster of our own, unless the running one already
	# offers the GPUs (the guest node's, tests/guest/in-guest.sh).
	if [ -n "$outer" ] && [ "$(sinfo -h -N -o %G | head -1)" != "gpu:$n" ]; then
		cluster_start "$@" || { e2e_fail "the GPU cluster did not start"; exit 1; }
	elif [ -n "$outer" ]; then
		cluster_plugstack "$@"
	fi
	[ "$(sinfo -h -N -o %G | head -1)" = "gpu:$n" ] ||
		{ e2e_fail "the node does not offer gpu:$n: $(sinfo -h -N -o %G)"; e2e_done; }
	GPU_TASK=$(user_file gpu_task.sh <<-'EOS'
		#!/bin/bash
		while read -r k v; do [ "$k" = Cpus_allowed_list: ] && c=$v; done </proc/self/status
		cg=
		if IFS=: read -r _ _ g </proc/self/cgroup && [ -r "/sys/fs/cgroup$g/cpuset.cpus.effective" ]; then
			read -r cg <"/sys/fs/cgroup$g/cpuset.cpus.effective"
		elif read -r p </proc/self/cpuset && [ -r "/sys/fs/cgroup/cpuset$p/cpuset.effective_cpus" ]; then
			read -r cg <"/sys/fs/cgroup/cpuset$p/cpuset.effective_cpus"
		fi
		o=
		for f in "$GPU_DEV"/fakegpu*; do
			m=$( { exec 3<>"$f"; } 2>&1 )
			case $m in *"not permitted"*) o="$o ${f##*fakegpu}:no" ;; *) o="$o ${f##*fakegpu}:yes" ;; esac
		done
		mem=-
		[ -n "${1:-}" ] && [ -x "${PAGENODE:-}" ] && mem=$("$PAGENODE" "$1")
		echo "$SLURM_PROCID|$c|$cg|$SLURM_BINDING_GPUS|$CUDA_VISIBLE_DEVICES|$SLURM_STEP_GPUS|$ROCR_VISIBLE_DEVICES|$o|$mem|$SLURM_BINDING_STATUS|$SLURM_BINDING_GPU_LOCALITY"
		[ -n "${2:-}" ] && exec sleep "$2"
		exit 0
	EOS
	)
	export GPU_TASK GPU_DEV=$E2E_DIR/dev
}

gpu_constrain() {
	sed -i "s/^ConstrainDevices=.*/ConstrainDevices=$1/" "$E2E_DIR/cgroup.conf"
	cluster_restart_slurmd || e2e_fail "slurmd did not come back with ConstrainDevices=$1"
}

gpu_field() { echo "$1" | cut -d'|' -f"$2"; }

gpu_lines() { echo "$1" | grep -E '^[0-9]+\|' | sort -t'|' -k1,1n; }

# gpu_srun ARGS...: a step of GPU_TASK (its arguments after --), as the user.
gpu_srun() {
	run_as_user env GPU_DEV="$GPU_DEV" PAGENODE="${PAGENODE:-}" \
		timeout "$(e2e_wait_secs 600)" srun "$@" 2>&1
}
