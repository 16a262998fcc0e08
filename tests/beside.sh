#!/bin/sh
# beside.sh LOG CMD -- STAGE...: runs CMD in the background, its output to
# LOG, and the STAGEs one after another in the foreground (stopping at the
# first that fails, as make does); then waits for CMD, prints LOG, and fails
# when CMD or a STAGE did.
#
# make check runs the QEMU guest node's stage this way: it is half of the
# check's time and keeps about 1.25 of this machine's 2 CPUs busy, while
# the host's stages after it (unit, cli, e2e, pkg, fuzz) leave the CPUs
# idle much of the time (the cluster tests mostly wait on Slurm). Side by
# side they take about the longer one's time instead of the sum. Nothing
# is shared: the guest runs its own kernel and cluster on a copy of the
# build, and every stage appends its own line to build/results.
set -u
log=$1
cmd=$2
shift 2
[ "${1:-}" = -- ] && shift
sh -c "$cmd" >"$log" 2>&1 &
bg=$!
trap 'kill "$bg" 2>/dev/null; exit 130' INT TERM
echo "beside: '$cmd' runs beside the next stages; its output ($log) follows them"
rc=0
for stage in "$@"; do
	sh -c "$stage" || { rc=$?; echo "beside: '$stage' failed; waiting for '$cmd'"; break; }
done
wait "$bg"
bgrc=$?
echo "== '$cmd' (ran beside the stages above; exit $bgrc)"
cat "$log"
[ "$rc" -eq 0 ] && [ "$bgrc" -eq 0 ]
