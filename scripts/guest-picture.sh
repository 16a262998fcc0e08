#!/bin/sh
# The README's picture of the busy 4-NUMA guest node: runs the guest's
# n20_picture.sh (tests/guest/run.sh: QEMU, real Slurm, real jobs; sbind
# draw rendered by lstopo) and puts the PNG it made in docs/. As root;
# one guest at a time on a shared machine (flock a lock of the site's
# around it).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
rm -f "$top/build/guest/node.png"
GUEST_FILTER=n20 sh "$top/tests/guest/run.sh"
[ -s "$top/build/guest/node.png" ] || { echo "guest-picture: no build/guest/node.png" >&2; exit 1; }
cp "$top/build/guest/node.png" "$top/docs/guest-node.png"
echo "guest-picture: docs/guest-node.png ($(wc -c <"$top/docs/guest-node.png") bytes)"
