#!/bin/bash
# c20_submit.sh (guest node, CR_CPU): with the cli_filter, requests
# without -c get whole cores when Slurm allocates threads too:
# --threads-per-core=1 makes -c count cores under CR_CPU as under CR_Core.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/guest_helpers.sh"
need_plugin
cluster_cli_filter on || { e2e_fail "cluster_cli_filter on"; e2e_done; }
expect_tasks "CR_CPU -n4 linear:1: four whole cores" "$(gsrun --cpu-bind=none -n4 --binding=linear:1)" \
	0-1 2-3 4-5 6-7
expect_tasks "CR_CPU -n2 linear:2: two whole cores each" "$(gsrun --cpu-bind=none -n2 --binding=linear:2)" \
	0-3 4-7
expect_tasks "CR_CPU -n2 packed:1:unit=T: a thread each" \
	"$(gsrun --cpu-bind=none -n2 --binding=packed:1:unit=T)" 0 1
e2e_done
