#!/bin/bash
# t01_demo.sh: `make demo`'s examples (tests/e2e/demo-examples.sh, run by
# tests/e2e/demo_run.sh as the demo runs them) on the e2e cluster with the
# plugin's `verbose`, and README's block of them held to what they print
# here (doc_block demo; skipped on a node of another shape than the one the
# block was made on). The bindings themselves are asserted by t10-t16.
# The demo's node has 2 fake GPUs (demo.sh's DEMO_GPUS): under run.sh this
# file starts a cluster of its own with them, as t25_gpu.sh does, so the
# counters and job ids it shows are the demo's too.
export E2E_GPUS=2
outer=${E2E_DIR:-}
. "$(dirname "$0")/lib.sh"
need_plugin
# shellcheck source=tests/e2e/demo_run.sh
. "$(dirname "$0")/demo_run.sh"
if [ -n "$outer" ]; then
	cluster_start verbose || { e2e_fail "the demo's cluster (2 GPUs) did not start"; exit 1; }
else
	cluster_plugstack verbose
fi
out=$(demo_examples "$(dirname "$0")/demo-examples.sh")
assert_contains "$out" "SLURM_BINDING_STATUS=" "the demo's examples ran"
assert_contains "$out" "CUDA_VISIBLE_DEVICES=" "the demo's GPU example ran"
printf '%s\n' "$out" | doc_block demo
e2e_done
