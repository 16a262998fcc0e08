#!/bin/sh
# Stage 2 of the Slurm guest node, PID 1 in the overlay of the host's root
# (tests/guest/init switched here): a minimal system without systemd, with
# cgroup v2 only and a dummy0 address (Slurm resolves its host names with
# AI_ADDRCONFIG: with only loopback up it resolves nothing), then
# tests/guest/in-guest.sh. Everything it prints goes to the harness's
# channel (/binding-chan/log); the guest powers off at the end.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export LANG=C.UTF-8
. /binding-chan/env
# The checkout and its build dir may be anywhere on the host, /tmp and /run
# included, which the fresh tmpfs mounts below hide: they are reached at
# fixed paths from here on, whatever the host's path (spaces included).
mkdir -p /binding-tree /binding-build
mount --bind "$GUEST_TOP" /binding-tree || echo "GUEST-FAIL bind $GUEST_TOP"
mount --bind "$GUEST_BUILD" /binding-build || echo "GUEST-FAIL bind $GUEST_BUILD"
GUEST_TOP=/binding-tree GUEST_BUILD=/binding-build
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t tmpfs -o mode=0755 run /run
mount -t tmpfs -o mode=1777 tmp /tmp
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs -o mode=1777 shm /dev/shm
# bash process substitution needs /dev/fd (devtmpfs has no such link)
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
export GUEST_TOP GUEST_BUILD GUEST_FILTER GUEST_SHELL
chan=/binding-chan
exec >>"$chan/log" 2>&1 </dev/null
echo "GUEST-STAGE2 $(cut -d' ' -f1 /proc/uptime) s after boot"

# cgroup v2 alone, prepared as systemd would for slurmd's IgnoreSystemd.
mount -t cgroup2 cgroup2 /sys/fs/cgroup
echo "+cpuset +cpu +memory +pids" >/sys/fs/cgroup/cgroup.subtree_control
mkdir -p /sys/fs/cgroup/system.slice
echo "+cpuset +cpu +memory +pids" >/sys/fs/cgroup/system.slice/cgroup.subtree_control

hostname guest
echo guest >/etc/hostname
ip link set lo up
ip link set dummy0 up
ip addr add 10.99.0.1/24 dev dummy0
printf '127.0.0.1 localhost\n10.99.0.1 guest\n' >/etc/hosts

echo "GUEST-READY"
if [ "${GUEST_SHELL:-0}" = 1 ]; then
	# make e2e-guest GUEST_SHELL=1: a root shell on the serial console
	# (cluster: sh tests/e2e/cluster.sh start, with E2E_CGROUP=v2).
	echo "GUEST-SHELL"
	cd "$GUEST_TOP" && E2E_CGROUP=v2 setsid -c sh </dev/console >/dev/console 2>&1
else
	cd "$GUEST_TOP" && sh tests/guest/in-guest.sh
fi
echo "GUEST-EXIT $?"
sync
# The host's poweroff is systemd's; busybox-static's is plain reboot(2).
busybox poweroff -f
