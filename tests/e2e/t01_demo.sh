#!/bin/bash
# t01_demo.sh: `make demo`'s examples (tests/e2e/demo-examples.sh, run by
# tests/e2e/demo_run.sh as the demo runs them) on the e2e cluster with the
# plugin's `verbose`, and README's block of them held to what they print
# here (doc_block demo; skipped on a node of another shape than the one the
# block was made on). The bindings themselves are asserted by t10-t16.
. "$(dirname "$0")/lib.sh"
need_plugin
# shellcheck source=tests/e2e/demo_run.sh
. "$(dirname "$0")/demo_run.sh"
cluster_plugstack verbose
out=$(demo_examples "$(dirname "$0")/demo-examples.sh")
assert_contains "$out" "SLURM_BINDING_STATUS=" "the demo's examples ran"
printf '%s\n' "$out" | doc_block demo
e2e_done
