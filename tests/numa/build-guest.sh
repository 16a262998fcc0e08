#!/bin/sh
# Prepares what the multi-NUMA guest needs, in a cache dir (default
# $BINDING_BUILD/numa, i.e. build/numa):
#   vmlinux          uncompressed ELF of the Debian 6.1 kernel (QEMU boots it
#                    through its PVH entry, skipping the slow in-guest xz
#                    decompression of vmlinuz); its package fetched and
#                    unpacked once per machine (kernel_tree.sh), the ELF
#                    kept across runs
#   numa_guest_test  tests/numa/numa_guest_test.c linked against libbinding.a
#   initramfs.cpio   busybox-static + the test + the libraries ldd names
#
# Environment: CC, NUMA_CFLAGS, NUMA_LIBS (the Makefile passes its own),
# BINDING_BUILD, NUMA_CACHE (cache dir), NUMA_KERNEL (use this vmlinuz or
# vmlinux instead of downloading one).
# Exit 0 when ready; 77 with a message when something the guest needs cannot
# be had here (no busybox-static, no network for the kernel); 1 on a real
# error (the test does not compile).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${BINDING_BUILD:-$top/build}
cache=${NUMA_CACHE:-$build/numa}
CC=${CC:-cc}
# No path in it: it is split into words (the compile line adds the include
# dir, quoted, for a checkout at a path with a space).
NUMA_CFLAGS=${NUMA_CFLAGS:-"-std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes"}
NUMA_LIBS=${NUMA_LIBS:-"$(pkg-config --libs hwloc numa jansson libacl 2>/dev/null || echo -lhwloc -lnuma -ljansson -lacl)"}

mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
log() { echo "numa-guest: $*" >&2; }
skip() { log "SKIP: $*"; exit 77; }

# --- kernel -----------------------------------------------------------------

# Offset of the first xz stream (magic FD 37 7A 58 5A 00) in a bzImage; the
# kernel's own scripts/extract-vmlinux looks for the same signature.
xz_offset() {
	LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$1" 2>/dev/null | head -n 1 | cut -d: -f1
}

is_elf() {
	[ "$(head -c 4 "$1" 2>/dev/null | od -An -c | tr -d ' ')" = '177ELF' ]
}

# vmlinuz -> vmlinux; xz complains about the data after the stream (the rest
# of the bzImage), so its status is not trusted; the ELF magic is.
extract_vmlinux() {
	off=$(xz_offset "$1")
	[ -n "$off" ] || { log "no xz stream in $1"; return 1; }
	tail -c +"$((off + 1))" "$1" | xz -dc > "$2.tmp" 2>/dev/null || true
	is_elf "$2.tmp" || { log "extracting $1 gave no ELF"; rm -f "$2.tmp"; return 1; }
	mv "$2.tmp" "$2"
}

# The ABI package linux-image-amd64 points at; empty without package lists.
kernel_package() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-amd64\)$/\1/p' | head -n 1
}

fetch_kernel() {
	command -v apt-get > /dev/null || return 1
	pkg=$(kernel_package)
	if [ -z "$pkg" ]; then
		log "no kernel package known; apt-get update once"
		apt-get update -qq > /dev/null 2>&1 || true
		pkg=$(kernel_package)
	fi
	[ -n "$pkg" ] || return 1
	if ! tree=$(NUMA_CACHE="$cache" sh "$here/kernel_tree.sh" "$pkg"); then
		# Stale lists name an ABI the mirror no longer has; fresh ones may
		# name a newer one.
		log "apt-get update once and retry"
		apt-get update -qq > /dev/null 2>&1 || true
		pkg=$(kernel_package)
		[ -n "$pkg" ] || return 1
		tree=$(NUMA_CACHE="$cache" sh "$here/kernel_tree.sh" "$pkg") || return 1
	fi
	z=$(find "$tree/boot" -maxdepth 1 -name 'vmlinuz-*' 2> /dev/null | head -n 1)
	[ -n "$z" ] || return 1
	extract_vmlinux "$z" "$cache/vmlinux" || return 1
	echo "$pkg" > "$cache/vmlinux.source"
	log "kernel: $pkg ($(du -m "$cache/vmlinux" | cut -f1) MiB vmlinux, cached)"
}

if [ -n "${NUMA_KERNEL:-}" ]; then
	if is_elf "$NUMA_KERNEL"; then
		cp "$NUMA_KERNEL" "$cache/vmlinux"
	else
		extract_vmlinux "$NUMA_KERNEL" "$cache/vmlinux" || exit 1
	fi
	echo "$NUMA_KERNEL" > "$cache/vmlinux.source"
elif ! is_elf "$cache/vmlinux"; then
	t0=$(date +%s)
	fetch_kernel || skip "cannot fetch a Debian kernel package (no apt, no network?)"
	log "kernel fetched and extracted in $(($(date +%s) - t0)) s"
fi

# --- test program -----------------------------------------------------------

lib=$build/libbinding.a
[ -f "$lib" ] || { log "missing $lib (run make first)"; exit 1; }
bin=$cache/numa_guest_test
# shellcheck disable=SC2086
$CC $NUMA_CFLAGS -I"$top/include" "$here/numa_guest_test.c" -o "$bin.tmp" "$lib" $NUMA_LIBS ||
	{ log "numa_guest_test.c does not build"; exit 1; }
mv "$bin.tmp" "$bin"

# --- initramfs --------------------------------------------------------------

bb=$(command -v busybox || true)
[ -n "$bb" ] || skip "busybox (busybox-static) is not installed"
# A dynamic busybox would need its own libraries; only the static one is
# known to carry every applet we use.
if ldd "$bb" > /dev/null 2>&1; then
	skip "$bb is not static (install busybox-static)"
fi

root=$cache/rootfs
rm -rf "$root"
mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev" "$root/tmp"
cp "$bb" "$root/bin/busybox"
for a in sh mount poweroff cat; do ln -s busybox "$root/bin/$a"; done
cp "$bin" "$root/numa_guest_test"

# The dynamic loader and every library at the path ldd reports, so the
# guest's loader finds them exactly as the host's would.
ldd "$bin" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i }' | sort -u |
while read -r so; do
	mkdir -p "$root$(dirname "$so")"
	cp -L "$so" "$root$so"
done

# init: no /dev/console node in the archive (creating one needs root), so
# the shell starts without stdio and takes the console from devtmpfs.
cat > "$root/init" <<'EOF'
#!/bin/sh
mount -t devtmpfs dev /dev
exec < /dev/console > /dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sys /sys
echo "NUMA-GUEST-START"
/numa_guest_test
echo "NUMA-GUEST-EXIT $?"
poweroff -f
EOF
chmod 0755 "$root/init"

# Uncompressed: unpacking is faster than inflating under emulation.
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) > "$cache/initramfs.cpio.tmp"
mv "$cache/initramfs.cpio.tmp" "$cache/initramfs.cpio"
rm -rf "$root"
