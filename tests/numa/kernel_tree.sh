#!/bin/sh
# The Debian kernel the guests boot, unpacked once per machine:
#   sh tests/numa/kernel_tree.sh PKG     prints a directory holding PKG's
#                                        boot/vmlinuz-* and lib/modules/*/kernel
# (PKG e.g. linux-image-6.1.0-56-amd64). The first call fetches the package
# with `apt-get download` and unpacks those two parts into
# $BINDING_KERNEL_CACHE/PKG (default /var/cache/spank-binding/kernel, beside
# the releases' chroots); later calls, from any checkout, print it at once.
# Unpacking reads the whole package (xz), 10-30 s, and the numa and guest
# stages each did it, in every fresh clone. Without write access there (not
# root) it goes under $NUMA_CACHE/kernel. The tree is unpacked under a
# temporary name and renamed whole, so two checkouts at once never read
# half of one. Exit 1 with a message when the package cannot be had.
set -eu
pkg=${1:?usage: kernel_tree.sh PKG}
dir=${BINDING_KERNEL_CACHE:-/var/cache/spank-binding/kernel}
if ! mkdir -p "$dir" 2>/dev/null || [ ! -w "$dir" ]; then
	dir=${NUMA_CACHE:?}/kernel
	mkdir -p "$dir"
fi
tree=$dir/$pkg
whole() { ls "$1"/boot/vmlinuz-* >/dev/null 2>&1 && ls -d "$1"/lib/modules/*/kernel >/dev/null 2>&1; }
if whole "$tree"; then
	echo "$tree"
	exit 0
fi
tmp=$(mktemp -d "$dir/.unpack.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if ! (cd "$tmp" && apt-get download -qq "$pkg" >/dev/null 2>&1); then
	echo "kernel_tree: apt-get download $pkg failed" >&2
	exit 1
fi
deb=$(find "$tmp" -maxdepth 1 -name '*.deb' | head -n 1)
mkdir "$tmp/tree"
if [ -z "$deb" ] || ! dpkg-deb --fsys-tarfile "$deb" |
	tar -x -C "$tmp/tree" --wildcards './boot/vmlinuz-*' './lib/modules/*/kernel' || ! whole "$tmp/tree"; then
	echo "kernel_tree: $pkg's package holds no vmlinuz and modules" >&2
	exit 1
fi
rm -rf "$tree"
mv "$tmp/tree" "$tree"
echo "$tree"
