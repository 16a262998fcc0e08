#!/bin/sh
# Installs the Debian packages the build, the tests and the demo need, when
# they are missing and we are root. As a user it only reports what is missing.
# The same names on Debian 12 (bookworm), 13 (trixie) and unstable (sid):
# no package named after one suite's compiler or library version.
#
#   sh scripts/install-deps.sh               install what this machine lacks
#   sh scripts/install-deps.sh --list SET..  print the packages of SETs, one
#                                            line, comma-separated (the
#                                            release chroots are made with
#                                            them: tests/releases/chroot.sh)
set -eu

# The sets, by what needs them.
# build: the library, sbind, the plugin (spank.h), the unit tests, the
# cli_filter's Lua module (Lua 5.1: the one Slurm's cli_filter/lua links on
# every suite, `ldd .../slurm-wlm/cli_filter_lua.so`), libacl (a private
# rankfile's reader: a POSIX ACL, lib/util/safefile.c).
SET_build="build-essential pkg-config libhwloc-dev libnuma-dev check libsubunit-dev libjansson-dev
libslurm-dev liblua5.1-0-dev libacl1-dev"
# slurm: a private cluster (tests/e2e/cluster.sh): daemons, clients,
# cli_filter/lua and a Lua to check the script with, hwloc's and numactl's
# tools, and what the harness runs (ss, nsenter, unshare, setpriv, ps).
SET_slurm="slurmctld slurmd slurm-client munge slurm-wlm-basic-plugins lua5.1 hwloc numactl
iproute2 util-linux mount procps"
# e2e: a real mpirun --rankfile (tests/cli/t_rankfile.sh, tests/e2e/m11_mpirun.sh);
# getfacl (tests/e2e/t43_private.sh: a private rankfile's ACL); Prometheus'
# node_exporter and curl to scrape it (tests/e2e/t50_metrics.sh, run on
# every release: the release chroots are made with this set).
SET_e2e="openmpi-bin acl prometheus-node-exporter curl"
# pkg: dpkg-buildpackage and lintian (tests/pkg/run.sh), man page lint
# (tests/cli/t_ship.sh).
SET_pkg="debhelper lintian fakeroot dpkg-dev mandoc groff-base"
# guestroot: what the QEMU guest node's stage 2 runs from a chroot shared
# as its root (tests/guest/stage2.sh: busybox's poweroff, hostname).
SET_guestroot="busybox-static hostname"
# host: only the machine that runs `make check` needs these: cppcheck,
# valgrind, the QEMU guests, libFuzzer (clang with its runtime; the
# unversioned names follow each suite's default clang), the release
# chroots (mmdebstrap) and promtool (in prometheus: tests/cli/t_metrics.sh,
# t50 check the metrics' names; t50 skips that check where it is missing).
SET_host="cppcheck valgrind qemu-system-x86 busybox-static cpio xz-utils clang libclang-rt-dev
mmdebstrap prometheus"

list() {
	for s in "$@"; do
		eval "printf '%s\n' \"\$SET_$s\""
	done | tr ' ' '\n' | sed '/^$/d' | awk '!seen[$0]++' | paste -sd, -
}

if [ "${1:-}" = --list ]; then
	shift
	list "$@"
	exit 0
fi

PKGS=$(list build slurm e2e pkg host | tr , ' ')
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing Debian packages:$missing (run as root to install them)" >&2
	exit 0
fi
echo "install-deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
# An old or empty package list makes apt-get install fail; refresh once.
apt-get update -qq >/dev/null || true
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
# Debian's slurmd/slurmctld/munge packages try to start services; the tests
# run their own private daemons, so a packaged one that got started is harmless.
