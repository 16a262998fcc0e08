#!/bin/sh
# `make e2e-guest`: boots the Slurm guest node and reports its tests.
#
# QEMU (TCG) with 2 sockets x 2 NUMA nodes (one per die) x 2 cores x 2
# threads = 16 PUs, 512 MiB per node, a PCI display device on each node
# (behind a pxb expander bridge), no network device at all. The host's
# root is shared read-only over virtio-9p (the guest puts a tmpfs overlay on
# it), so the guest runs the host's own munged, slurmctld, slurmd,
# slurmstepd, clients and the plugin built in this tree; a second, writable
# 9p share is the harness's channel: the host writes `env` there (the
# tree's path, the test filter) and the guest writes `log` (every line of
# its test run). See build-guest.sh, init, stage2.sh, in-guest.sh.
#
# A boot that does not reach GUEST-READY within GUEST_BOOT_LIMIT seconds
# (default 240; a hung boot prints nothing) is killed and retried once; once
# the tests started they are never retried, and only a guest silent for
# GUEST_QUIET_LIMIT seconds (default 3000: its log has not grown; each test
# file inside prints as it goes and is itself bounded by E2E_TIMEOUT, 2400
# s) is taken for hung. No limit on the whole run: how long the files take
# together depends on the host's load (3718 s for the full stage beside
# two CPU hogs, the other lane and two engineers' builds, 2026-11-27). Prints the guest's test lines and
# "e2e-guest: N passed, M failed, K skipped"; appends "e2e-guest N M K" to
# $BINDING_BUILD/results.
# Environment: GUEST_FILTER (ERE on test file names, e.g. g30), GUEST_SHELL=1
# (no tests: a root shell on the serial console, see docs/testing.md),
# GUEST_KARGS (instead of "quiet loglevel=1", e.g. "loglevel=7" to see where
# a boot stops), GUEST_CACHE, NUMA_CACHE, CC.
# Another Slurm release (tests/releases/run.sh): GUEST_ROOT, a Debian
# suite's chroot shared as the guest's root instead of the host's (its
# Slurm, its libraries), with GUEST_TOP and GUEST_BUILD, the tree's copy
# and its build dir inside that root; GUEST_RUN, where this boot's channel,
# console and log go (default the cache).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${BINDING_BUILD:-$top/build}
export BINDING_BUILD="$build"
cache=${GUEST_CACHE:-$build/guest}
export GUEST_CACHE="$cache"
export NUMA_CACHE="${NUMA_CACHE:-$build/numa}"
root=${GUEST_ROOT:-/}
root=${root%/}
guest_top=${GUEST_TOP:-$top}
guest_build=${GUEST_BUILD:-$build}
rundir=${GUEST_RUN:-$cache}
BOOT_LIMIT=${GUEST_BOOT_LIMIT:-240}
QUIET_LIMIT=${GUEST_QUIET_LIMIT:-3000}

HARNESS_STAGE=e2e-guest
# shellcheck source=tests/numa/harness.sh
. "$top/tests/numa/harness.sh"

[ "$(id -u)" = 0 ] || skip "needs root (QEMU shares the host's root, Slurm runs as root in the guest)"
qemu=$(command -v qemu-system-x86_64 || true)
[ -n "$qemu" ] || skip "qemu-system-x86_64 not installed (package qemu-system-x86)"
for tool in cpio xz busybox; do
	command -v "$tool" >/dev/null || skip "$tool not installed"
done
for tool in usr/sbin/slurmd usr/sbin/slurmctld usr/sbin/munged usr/bin/srun; do
	[ -x "$root/$tool" ] || skip "${root:-/}: /$tool not installed"
done
for f in spank_binding.so guest/pagenode; do
	[ -f "$root$guest_build/$f" ] || { echo "not ok - $root$guest_build/$f not built (make)"; record 0 1 0; exit 1; }
done

# One guest boots at a time: make check runs the host's guest stage and the
# other releases' guests (tests/releases/run.sh) in two lanes; either may
# wait for the other's whole run.
harness_lock "$cache" "${GUEST_LOCK_WAIT:-3600}"
t0=$(ms)
sh "$here/build-guest.sh"; rc=$?
[ "$rc" -eq 77 ] && skip "the guest could not be prepared (see above)"
if [ "$rc" -ne 0 ]; then
	echo "not ok - build the guest (build-guest.sh exit $rc)"
	record 0 1 0; exit 1
fi
t_prep=$(secs "$t0" "$(ms)")

numa_args=$(numa_qemu_args 4 512M)
# A PCI display device behind an expander bridge on each NUMA node: the
# guest's firmware tables give each bridge its node, so hwloc sees a
# device local to each node (g70_gpu.sh maps fake GPUs to them). No
# driver binds them (none is loaded), no ROM is read. After every device
# without a bus= (QEMU would put those on the last bridge, which refuses
# anything but bridges).
gpu_args=
for n in 0 1 2 3; do
	gpu_args="$gpu_args -device pxb,id=pxb$n,bus_nr=$((32 * (n + 1))),numa_node=$n,bus=pci.0"
	gpu_args="$gpu_args -device bochs-display,bus=pxb$n,addr=0,vgamem=4M,romfile="
done

mkdir -p "$rundir"
chan=$rundir/chan
console=$rundir/console.log

# The checkout may be at any path: the env file quotes it for the guest's
# shell, QEMU's option lists take a comma doubled.
shq() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
qarg() { printf '%s' "$1" | sed 's/,/,,/g'; }
qpid=
cleanup() { [ -n "$qpid" ] && kill "$qpid" 2>/dev/null; }
trap cleanup EXIT
trap 'cleanup; exit 130' INT TERM

# One boot: 0 the tests ran to their end, 2 no GUEST-READY within
# BOOT_LIMIT (hung boot), 3 the tests started and then the guest fell
# silent for QUIET_LIMIT or died.
boot() {
	rm -rf "$chan" "$console"
	mkdir -p "$chan"
	{
		echo "GUEST_TOP=$(shq "$guest_top")"
		echo "GUEST_BUILD=$(shq "$guest_build")"
		echo "GUEST_FILTER=$(shq "${GUEST_FILTER:-}")"
		echo "GUEST_SHELL=$(shq "${GUEST_SHELL:-0}")"
	} >"$chan/env"
	: >"$chan/log"
	serial="file:$console"
	stdin=/dev/null
	if [ "${GUEST_SHELL:-0}" = 1 ]; then serial=stdio; stdin=/dev/tty; fi
	# shellcheck disable=SC2086
	"$qemu" -nodefaults -no-reboot -machine pc -accel "$NUMA_ACCEL" \
		-cpu max,vendor=GenuineIntel -smp 16,sockets=2,dies=2,cores=2,threads=2 \
		-m 2048M $numa_args -display none -vga none -serial "$serial" \
		-fsdev local,id=fsroot,path="$(qarg "${root:-/}")",security_model=none,readonly=on,multidevs=remap \
		-device virtio-9p-pci,fsdev=fsroot,mount_tag=hostroot \
		-fsdev local,id=fschan,path="$(qarg "$chan")",security_model=none,multidevs=remap \
		-device virtio-9p-pci,fsdev=fschan,mount_tag=chan $gpu_args \
		-kernel "$NUMA_CACHE/vmlinux" -initrd "$cache/initramfs.cpio" \
		-append "console=ttyS0 ${GUEST_KARGS:-quiet loglevel=1} $NUMA_GUEST_KARGS" \
		-pidfile "$rundir/qemu.pid" <"$stdin" >"$rundir/qemu.log" 2>&1 &
	qpid=$!
	[ "${GUEST_SHELL:-0}" = 1 ] && { wait "$qpid"; qpid=; return 0; }
	b0=$(date +%s)
	b0ms=$(ms)
	ready='' size=0 grew=$b0
	while kill -0 "$qpid" 2>/dev/null; do
		now=$(date +%s)
		if [ -z "$ready" ] && grep -q '^GUEST-READY' "$chan/log" 2>/dev/null; then
			ready=$now
			t_boot=$(secs "$b0ms" "$(ms)")
		fi
		n=$(stat -c %s "$chan/log" 2>/dev/null || echo 0)
		[ "$n" != "$size" ] && size=$n grew=$now
		grep -q '^GUEST-EXIT' "$chan/log" 2>/dev/null && break
		if [ -z "$ready" ] && [ $((now - b0)) -ge "$BOOT_LIMIT" ]; then
			kill "$qpid" 2>/dev/null; wait "$qpid" 2>/dev/null; qpid=
			return 2
		fi
		if [ -n "$ready" ] && [ $((now - grew)) -ge "$QUIET_LIMIT" ]; then
			kill "$qpid" 2>/dev/null; wait "$qpid" 2>/dev/null; qpid=
			return 3
		fi
		sleep 0.5
	done
	i=0
	while kill -0 "$qpid" 2>/dev/null && [ $i -lt 40 ]; do sleep 0.25; i=$((i + 1)); done
	kill "$qpid" 2>/dev/null
	wait "$qpid" 2>/dev/null
	qpid=
	grep -q '^GUEST-EXIT' "$chan/log" && return 0
	[ -n "$ready" ] && return 3
	return 2
}

if [ "${GUEST_SHELL:-0}" = 1 ]; then
	echo "e2e-guest: a root shell on the console after the cluster setup; 'busybox poweroff -f' ends it"
	boot
	exit 0
fi

t_boot=
t0=$(ms)
boot; brc=$?
if [ "$brc" -eq 2 ]; then
	echo "# e2e-guest: the guest did not reach GUEST-READY in ${BOOT_LIMIT} s; retrying once"
	tail -n 20 "$console" "$rundir/qemu.log" "$chan/log" 2>/dev/null | sed 's/^/#   /'
	t0=$(ms)
	boot; brc=$?
fi
t_run=$(secs "$t0" "$(ms)")

log=$(tr -d '\r' <"$chan/log" 2>/dev/null)
cp "$chan/log" "$rundir/last.log" 2>/dev/null
# Pictures a test left in the channel (n20_picture.sh: the busy node).
for f in "$chan"/*.png "$chan"/*.svg; do [ -f "$f" ] && cp "$f" "$rundir/"; done
# The guest's own lines: verdicts, notes, file names, summaries.
printf '%s\n' "$log" | grep -E '^(  ok|  FAIL|  skip|       |== |   \(|e2e|cluster:|GUEST)' || true
passed=0 failed=0 skipped=0 runs=0
for l in $(printf '%s\n' "$log" | sed -nE 's/^e2e: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped.*/\1:\2:\3/p'); do
	passed=$((passed + ${l%%:*})); l=${l#*:}
	failed=$((failed + ${l%%:*})); skipped=$((skipped + ${l#*:}))
	runs=$((runs + 1))
done
case $brc in
0) ;;
2) echo "not ok - guest boot: no GUEST-READY in two boots of ${BOOT_LIMIT} s"
   tail -n 40 "$console" "$rundir/qemu.log" 2>/dev/null | sed 's/^/#   /'
   failed=$((failed + 1)) ;;
*) echo "not ok - the guest's tests did not end (silent for ${QUIET_LIMIT} s, or the guest died)"
   tail -n 40 "$console" "$rundir/qemu.log" 2>/dev/null | sed 's/^/#   /'
   failed=$((failed + 1)) ;;
esac
ex=$(printf '%s\n' "$log" | sed -nE 's/^GUEST-EXIT ([0-9]+)$/\1/p' | head -n 1)
if [ "$brc" -eq 0 ] && [ "$runs" -lt 1 ]; then
	echo "not ok - the guest reported no test run"; failed=$((failed + 1))
fi
if [ "$brc" -eq 0 ] && [ "${ex:-1}" -ne 0 ] && [ "$failed" -eq 0 ]; then
	echo "not ok - in-guest.sh exited ${ex:-?} with no failed test"; failed=$((failed + 1))
fi
echo "# e2e-guest: prepare ${t_prep} s, boot to GUEST-READY ${t_boot:-?} s, guest run ${t_run} s (log: $rundir/last.log)"
record "$passed" "$failed" "$skipped"
