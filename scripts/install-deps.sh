#!/bin/sh
# Installs the Debian packages the build, the tests and the demo need, when
# they are missing and we are root. As a user it only reports what is missing.
set -eu
PKGS="build-essential pkg-config libhwloc-dev hwloc libnuma-dev numactl check libsubunit-dev
libjansson-dev libslurm-dev slurmctld slurmd slurm-client munge cppcheck valgrind
qemu-system-x86 busybox-static cpio xz-utils clang libclang-rt-14-dev"
PKGS="$PKGS openmpi-bin"  # tests/cli/t_rankfile.sh: a real mpirun --rankfile
PKGS="$PKGS mandoc groff-base"  # tests/cli/t_ship.sh: man page lint
PKGS="$PKGS debhelper lintian fakeroot"  # tests/pkg/run.sh: dpkg-buildpackage, lintian
# Slurm's cli_filter/lua (cli_filter_lua.so) for the project's cli_filter.lua,
# Lua 5.1's headers for its module, and a Lua 5.1 (the one Slurm links) to
# check the script (tests/cli/t_submit.sh)
PKGS="$PKGS slurm-wlm-basic-plugins liblua5.1-0-dev lua5.1"
# tests/e2e/t50_metrics.sh scrapes a real node_exporter; promtool (in
# prometheus) checks the metrics' names; file tells sbind draw's PNG
PKGS="$PKGS prometheus-node-exporter prometheus file"
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
