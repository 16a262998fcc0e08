#!/bin/bash
# `make bench`: bench/launch.sh on every other Slurm release of
# tests/releases/suites, in its Debian suite's chroot (tests/releases/
# chroot.sh, made once and kept), with the plugin built there for that
# release. The host's release runs bench/launch.sh directly. Needs root;
# otherwise says why and exits 0.
# Environment: LAUNCH_ROUNDS, BINDING_CHROOTS; BENCH_RELEASES (suites,
# default every one but the host's).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
here=$(cd "$(dirname "$0")" && pwd)
rel=$here/../tests/releases
if [ "$(id -u)" != 0 ]; then
	echo "bench releases: skipped (needs root: chroots, private clusters)"
	exit 0
fi
CHROOT_LIB=1 CHROOT_HERE=$(cd "$rel" && pwd)
# shellcheck source=tests/releases/chroot.sh
. "$rel/chroot.sh"
for suite in ${BENCH_RELEASES:-$(bash "$rel/run.sh" --others)}; do
	( ensure "$suite" ) || { echo "bench releases: no $suite chroot"; continue; }
	lock "$suite" -s || continue
	copy=$(copy_tree "$suite")
	if run "$suite" /bin/sh -c 'cd "$1" && make -j"$(nproc)" all >/dev/null 2>&1' sh "$copy"; then
		run "$suite" /bin/sh -c 'cd "$1" && LAUNCH_ROUNDS="$2" bash bench/launch.sh' sh "$copy" "${LAUNCH_ROUNDS:-60}"
	else
		echo "bench releases: the tree does not build in the $suite chroot"
	fi
	rm -rf "${CHROOTS:?}/$suite$copy"
	exec 8>&-
done
