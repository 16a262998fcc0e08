#!/bin/sh
# Boots a 2-socket / 4-NUMA-node QEMU guest (software emulation) whose
# /init runs numa_guest_test, and reports its TAP-like lines. Prints
# "numa-guest: N passed, M failed" and appends "numa-guest N M K" to
# $BINDING_BUILD/results. Skips (K=1) when QEMU, busybox-static or a kernel
# cannot be had here.
#
# Guest layout: sockets 0-1, one die and one NUMA node per die, 2 cores per
# die, 1 thread per core: node n holds cpus 2n and 2n+1; distances 10 local,
# 12 same socket, 20 other socket.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${BINDING_BUILD:-$top/build}
export BINDING_BUILD="$build"
cache=${NUMA_CACHE:-$build/numa}
export NUMA_CACHE="$cache"
# A boot that has not reached the test by then is hung (seen about once in
# 75 boots) and is retried once; a test that started gets RUN_LIMIT more.
BOOT_LIMIT=${NUMA_BOOT_LIMIT:-300}
RUN_LIMIT=${NUMA_RUN_LIMIT:-600}

HARNESS_STAGE=numa-guest
# shellcheck source=tests/numa/harness.sh
. "$here/harness.sh"

qemu=$(command -v qemu-system-x86_64 || true)
if [ -z "$qemu" ]; then
	if [ "$(id -u)" != 0 ]; then
		skip "qemu-system-x86_64 not installed and not root to install it (run make check as root, or install qemu-system-x86 busybox-static cpio xz-utils)"
	fi
	skip "qemu-system-x86_64 not installed (install-deps could not install qemu-system-x86)"
fi
for tool in cpio xz busybox; do
	command -v "$tool" > /dev/null || skip "$tool not installed (packages: cpio xz-utils busybox-static)"
done

harness_lock "$cache" 300

t0=$(ms)
sh "$here/build-guest.sh"; rc=$?
if [ "$rc" -eq 77 ]; then skip "guest could not be prepared (see above)"; fi
if [ "$rc" -ne 0 ]; then
	echo "not ok - build the guest (build-guest.sh exit $rc)"
	record 0 1 0; exit 1
fi
t_prep=$(secs "$t0" "$(ms)")

numa_args=$(numa_qemu_args 2 256M)

console=$cache/console.log
# One boot: 0 the test ran to its end, 2 no sign of the test within
# BOOT_LIMIT (hung boot), 3 the test started but did not finish in time.
boot() {
	rm -f "$console"
	# shellcheck disable=SC2086
	"$qemu" -nodefaults -no-reboot -machine pc -accel "$NUMA_ACCEL" \
		-cpu max,vendor=GenuineIntel -smp 8,sockets=2,dies=2,cores=2,threads=1 \
		-m 1024M $numa_args -display none -vga none \
		-serial "file:$console" -kernel "$cache/vmlinux" -initrd "$cache/initramfs.cpio" \
		-append "console=ttyS0 quiet loglevel=1 $NUMA_GUEST_KARGS" \
		< /dev/null > "$cache/qemu.log" 2>&1 &
	qpid=$!
	b0=$(date +%s)
	b0ms=$(ms)
	started=""
	while kill -0 "$qpid" 2> /dev/null; do
		now=$(date +%s)
		if [ -z "$started" ] && grep -q 'NUMA-GUEST-START' "$console" 2> /dev/null; then
			started=$now
			t_boot=$(secs "$b0ms" "$(ms)")
		fi
		if grep -q 'NUMA-GUEST-EXIT' "$console" 2> /dev/null; then break; fi
		if [ -z "$started" ] && [ $((now - b0)) -ge "$BOOT_LIMIT" ]; then
			kill "$qpid" 2> /dev/null; wait "$qpid" 2> /dev/null
			return 2
		fi
		if [ -n "$started" ] && [ $((now - started)) -ge "$RUN_LIMIT" ]; then
			kill "$qpid" 2> /dev/null; wait "$qpid" 2> /dev/null
			return 3
		fi
		sleep 0.2
	done
	# The guest powers off right after the EXIT line; give it a moment.
	i=0
	while kill -0 "$qpid" 2> /dev/null && [ $i -lt 25 ]; do sleep 0.2; i=$((i + 1)); done
	kill "$qpid" 2> /dev/null
	wait "$qpid" 2> /dev/null
	grep -q 'NUMA-GUEST-EXIT' "$console" 2> /dev/null && return 0
	[ -n "$started" ] && return 3
	return 2
}

t_boot=""
t0=$(ms)
boot; brc=$?
if [ "$brc" -eq 2 ]; then
	echo "# numa-guest: the guest did not reach the test in ${BOOT_LIMIT} s; retrying once"
	sed -n '1,40p' "$cache/qemu.log" "$console" 2> /dev/null | sed 's/^/#   /'
	t0=$(ms)
	boot; brc=$?
fi
t_run=$(secs "$t0" "$(ms)")

out=$(tr -d '\r' < "$console" 2> /dev/null)
if [ "$brc" -ne 0 ]; then
	printf '%s\n' "$out" | sed 's/^/#   /' | tail -n 60
	sed 's/^/#   qemu: /' "$cache/qemu.log" 2> /dev/null | tail -n 20
	case $brc in
	2) echo "not ok - guest boot (no output from the test in two boots of ${BOOT_LIMIT} s)" ;;
	*) echo "not ok - guest test finished (started, no end within ${RUN_LIMIT} s)" ;;
	esac
fi

body=$(printf '%s\n' "$out" | sed -n '/^NUMA-GUEST-START$/,/^NUMA-GUEST-EXIT/p')
printf '%s\n' "$body" | grep -E '^(ok|not ok|#|1\.\.)' || true
passed=$(printf '%s\n' "$body" | grep -c '^ok ')
failed=$(printf '%s\n' "$body" | grep -c '^not ok ')
plan=$(printf '%s\n' "$body" | sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' | head -n 1)
exitc=$(printf '%s\n' "$body" | sed -n 's/^NUMA-GUEST-EXIT \([0-9][0-9]*\)$/\1/p' | head -n 1)

if [ "$brc" -ne 0 ]; then failed=$((failed + 1)); fi
if [ -n "$plan" ] && [ $((passed + failed)) -lt "$plan" ]; then
	echo "not ok - $((plan - passed - failed)) planned checks never reported (crash?)"
	failed=$((failed + plan - passed - failed))
elif [ -z "$plan" ] && [ "$brc" -eq 0 ]; then
	printf '%s\n' "$body" | sed 's/^/#   /' | tail -n 40
	echo "not ok - the guest test printed no plan"
	failed=$((failed + 1))
fi
if [ -n "$exitc" ] && [ "$exitc" -ne 0 ] && [ "$failed" -eq 0 ]; then
	echo "not ok - numa_guest_test exited $exitc with no failed check"
	failed=1
fi
echo "# numa-guest: prepare ${t_prep} s, boot to test ${t_boot:-?} s, guest run ${t_run} s ($(sed 's/^/kernel /' "$cache/vmlinux.source" 2> /dev/null))"
record "$passed" "$failed" 0
