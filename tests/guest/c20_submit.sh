#!/bin/bash
# c20_submit.sh (guest node, CR_CPU): with the cli_filter, requests
# without -c get whole cores when Slurm allocates threads too:
# --threads-per-core=1 makes -c count cores under CR_CPU as under CR_Core
# (not on 26.05, which refuses those steps under CR_CPU: see below).
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/guest_helpers.sh"
need_plugin
cluster_cli_filter on || { e2e_fail "cluster_cli_filter on"; e2e_done; }
if slurm_at_least 26.05; then
	# 26.05's step manager counts a step's usable CPUs as whole cores times
	# its --threads-per-core (Slurm's ticket 20799), but under CR_CPU a job
	# with --threads-per-core=1 holds one CPU per core: every such step is
	# refused, with or without the plugin (docs/slurm-releases.md).
	out=$(run_as_user timeout "$(e2e_wait_secs 600)" srun -n4 --threads-per-core=1 true 2>&1)
	assert_contains "$out" "More processors requested than permitted" \
		"Slurm $E2E_SLURM, CR_CPU: srun -n4 --threads-per-core=1 is refused by Slurm itself"
else
	expect_tasks "CR_CPU -n4 linear:1: four whole cores" "$(gsrun --cpu-bind=none -n4 --binding=linear:1)" \
		0-1 2-3 4-5 6-7
	expect_tasks "CR_CPU -n2 linear:2: two whole cores each" \
		"$(gsrun --cpu-bind=none -n2 --binding=linear:2)" 0-3 4-7
fi
# Whole cores counted as threads: --threads-per-core=2 with -c 2 per core
# (the filter keeps them) works on every release.
expect_tasks "CR_CPU -n4 -c2 --threads-per-core=2 linear:1: four whole cores" \
	"$(gsrun --cpu-bind=none -n4 -c2 --threads-per-core=2 --binding=linear:1)" 0-1 2-3 4-5 6-7
expect_tasks "CR_CPU -n2 packed:1:unit=T: a thread each" \
	"$(gsrun --cpu-bind=none -n2 --binding=packed:1:unit=T)" 0 1
e2e_done
