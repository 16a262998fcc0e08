#!/bin/sh
# Prepares the Slurm guest node (tests/guest/run.sh boots it), in a cache
# dir (default $BINDING_BUILD/guest):
#   vmlinux, modules/  the Debian kernel tests/numa/build-guest.sh fetches
#                      (shared cache $NUMA_CACHE) and, from the same package,
#                      the modules the guest loads: virtio PCI, 9p, overlay,
#                      dummy; unpacked once per machine
#                      (tests/numa/kernel_tree.sh), kept across runs
#   initramfs.cpio     busybox-static, the modules and tests/guest/init
# Everything else the guest runs (munged, slurmctld, slurmd, slurmstepd,
# the clients, the plugin and tests/guest/pagenode.c built by make) is the
# host's own (or a release chroot's: GUEST_ROOT), reached through that root
# shared read-only over virtio-9p.
# Exit 0 when ready; 77 with a message when something cannot be had here;
# 1 on a real error.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${BINDING_BUILD:-$top/build}
cache=${GUEST_CACHE:-$build/guest}
export NUMA_CACHE=${NUMA_CACHE:-$build/numa}
CC=${CC:-cc}
log() { echo "guest-build: $*" >&2; }
skip() { log "SKIP: $*"; exit 77; }

mkdir -p "$cache"
cache=$(cd "$cache" && pwd)

# The kernel: the NUMA guest's builder fetches and caches it.
rc=0
sh "$top/tests/numa/build-guest.sh" >&2 || rc=$?
[ "$rc" -eq 0 ] || exit "$rc"
src=$(cat "$NUMA_CACHE/vmlinux.source")

# Modules in the order they depend on each other (no modprobe/depmod in
# the guest's busybox world, and no kmod needed on the host).
MODS="drivers/virtio/virtio_ring drivers/virtio/virtio drivers/virtio/virtio_pci_modern_dev
drivers/virtio/virtio_pci_legacy_dev drivers/virtio/virtio_pci fs/netfs/netfs
fs/fscache/fscache net/9p/9pnet net/9p/9pnet_virtio fs/9p/9p fs/overlayfs/overlay
drivers/net/dummy"

have_modules() {
	[ "$(cat "$cache/modules/source" 2>/dev/null)" = "$src" ] || return 1
	for m in $MODS; do [ -f "$cache/modules/$(basename "$m").ko" ] || return 1; done
}

if ! have_modules; then
	case "$src" in
	linux-image-*) ;;
	*) [ -n "${GUEST_MODULES:-}" ] ||
		skip "kernel $src is not a Debian package: set GUEST_MODULES to its lib/modules/<version> dir" ;;
	esac
	rm -rf "$cache/modules"
	mkdir -p "$cache/modules"
	if [ -n "${GUEST_MODULES:-}" ]; then
		kdir=$GUEST_MODULES
	else
		tree=$(NUMA_CACHE="$NUMA_CACHE" sh "$top/tests/numa/kernel_tree.sh" "$src") ||
			skip "the kernel package $src cannot be had (no package registry?)"
		kdir=$(find "$tree/lib/modules" -mindepth 1 -maxdepth 1 -type d | head -n 1)
	fi
	for m in $MODS; do
		f=$kdir/kernel/$m.ko
		[ -f "$f" ] || { log "no $f"; exit 1; }
		cp "$f" "$cache/modules/"
	done
	echo "$src" >"$cache/modules/source"
fi

chmod 755 "$cache"

bb=$(command -v busybox || true)
[ -n "$bb" ] || skip "busybox (busybox-static) is not installed"
if ldd "$bb" >/dev/null 2>&1; then skip "$bb is not static (install busybox-static)"; fi

root=$cache/rootfs
rm -rf "$root"
mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev" "$root/lower" "$root/upper" \
	"$root/newroot" "$root/chan" "$root/modules"
cp "$bb" "$root/bin/busybox"
for a in sh mount umount insmod mkdir switch_root poweroff cat echo sleep sed; do
	ln -s busybox "$root/bin/$a"
done
for m in $MODS; do cp "$cache/modules/$(basename "$m").ko" "$root/modules/"; done
printf '%s\n' $MODS | sed 's,.*/,,' >"$root/modules/order"
cp "$here/init" "$root/init"
chmod 0755 "$root/init"
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) >"$cache/initramfs.cpio.tmp"
mv "$cache/initramfs.cpio.tmp" "$cache/initramfs.cpio"
rm -rf "$root"
