#!/bin/sh
# Inside the guest node (stage2.sh): the guest test files on a private
# cluster started by tests/e2e/cluster.sh with cgroup v2 (cgroup/v2,
# proctrack/cgroup, task/cgroup with ConstrainCores, task/affinity): the
# g*.sh files with CR_Core, the c*.sh files with CR_CPU, then the n*.sh
# files with CR_Core_Memory (Slurm hands each job and step its memory).
# tests/e2e/run.sh prints its "e2e: N passed, M failed, K skipped" line;
# tests/guest/run.sh on the host adds such lines up.
#
# The host's tree is live under the 9p share: bash reads its scripts as it
# runs them, so an edit on the host during a run would change scripts
# mid-line. The tests therefore run from a copy in the guest's /tmp, and so
# do the programs the job user runs (the plugin, sbind, the cli_filter and
# its module, the e2e helpers, pagenode): the host's checkout may sit where
# the job user cannot reach (under /root) and stage2.sh shows it at
# /binding-tree, its build dir at /binding-build ($GUEST_BUILD).
src=$(cd "$(dirname "$0")/../.." && pwd)
from=${GUEST_BUILD:-$src/build}
tree=/tmp/guest-tree
build=/tmp/guest-build
rm -rf "$tree" "$build" && mkdir -p "$tree" "$build/guest" && cp -a "$src/tests" "$tree/" || exit 1
for f in spank_binding.so sbind cli_filter.lua spank_binding_submit.so e2e guest/pagenode; do
	[ -e "$from/$f" ] || continue
	cp -a "$from/$f" "$build/$f" || exit 1
done
chmod -R a+rX "$tree" "$build"
here=$tree/tests/guest
export BINDING_BUILD="$build"
export E2E_CGROUP=v2 E2E_TIMEOUT=${E2E_TIMEOUT:-2400} E2E_POLL=${E2E_POLL:-0.2} E2E_WAIT_MIN=${E2E_WAIT_MIN:-900}
# The node offers 4 fake GPUs (GRES; g70_gpu.sh maps them to the PCI
# device QEMU puts on each NUMA node): no second cluster to start for them.
export E2E_GPUS=4
# run.sh appends to $BINDING_BUILD/results, the guest's own copy; the host
# counts the summary lines in the channel's log.
g=$(ls "$here"/g[0-9][0-9]_*.sh 2>/dev/null | grep -E "/(${GUEST_FILTER:-g})[^/]*$")
c=$(ls "$here"/c[0-9][0-9]_*.sh 2>/dev/null | grep -E "/(${GUEST_FILTER:-c})[^/]*$")
n=$(ls "$here"/n[0-9][0-9]_*.sh 2>/dev/null | grep -E "/(${GUEST_FILTER:-n})[^/]*$")
# One cluster for all of them: a file whose letter needs other
# SelectTypeParameters restarts its daemons (run.sh, E2E_CR_OF), in 3-10 s
# here, where a new cluster took 10-37 s to start and about 4 s to stop.
echo "== CR_Core: $(echo $g); CR_CPU: $(echo $c); CR_Core_Memory: $(echo $n)"
[ -n "$g$c$n" ] || exit 0
# shellcheck disable=SC2086
E2E_CR_OF="g:CR_Core c:CR_CPU n:CR_Core_Memory" sh "$tree/tests/e2e/run.sh" $g $c $n
