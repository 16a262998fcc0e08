#!/bin/sh
# A Debian suite's chroot, for testing the plugin with that suite's Slurm
# (tests/releases/run.sh). Made once with mmdebstrap from Debian's own
# packages into $BINDING_CHROOTS/<suite> (default
# /var/cache/spank-binding/chroots, shared by every checkout on the
# machine), kept, and made again when it is missing or when what it must
# hold changed: its stamp is the suite's line in tests/releases/suites and
# the package sets of scripts/install-deps.sh.
#
#   sh tests/releases/chroot.sh ensure SUITE        make it unless current
#   sh tests/releases/chroot.sh copy SUITE          copy this checkout (git's
#                   files, with uncommitted changes) into a new directory
#                   under /build inside; prints that path (inside the chroot)
#   sh tests/releases/chroot.sh run SUITE CMD...    CMD as root inside, in a
#                   private mount namespace with /proc, /sys and /dev bound
#                   (nothing mounted outlives CMD, even when it is killed)
#   sh tests/releases/chroot.sh dir SUITE           its directory on the host
#   sh tests/releases/chroot.sh shell SUITE         an interactive shell inside
#
# A run holds a shared lock on the chroot while it uses it; remaking takes
# the exclusive one, so two make checks on one machine never remake a chroot
# under each other's feet. Sourced with CHROOT_LIB=1, it only defines the
# functions (tests/releases/run.sh).
# Sourced from elsewhere (bench/releases.sh), $0 is the caller: it sets
# CHROOT_HERE to this folder.
here=${CHROOT_HERE:-$(cd "$(dirname "$0")" && pwd)}
top=$(cd "$here/../.." && pwd)
CHROOTS=${BINDING_CHROOTS:-/var/cache/spank-binding/chroots}
# What a chroot holds: the build, a private cluster, mpirun, the package
# tools, and what the guest node runs from it as its root.
SETS="build slurm e2e pkg guestroot"

chroot_say() { echo "chroot: $*" >&2; }

suite_line() {	# SUITE: its line of the table, or nothing
	awk -v s="$1" '$1 == s' "$here/suites"
}

suite_opt() {	# SUITE: the mmdebstrap option (the rest of the line), or nothing
	suite_line "$1" | sed -E 's/^[^ ]+ +[^ ]+ +//; s/^-$//'
}

stamp() {	# SUITE: what the chroot must have been made from
	printf '%s\n%s\n' "$(suite_line "$1")" "$(sh "$top/scripts/install-deps.sh" --list $SETS)"
}

current() {	# SUITE
	[ -f "$CHROOTS/$1/.spank-binding-stamp" ] &&
		[ "$(cat "$CHROOTS/$1/.spank-binding-stamp")" = "$(stamp "$1")" ]
}

remove() {	# DIR: a chroot, never what may still be mounted inside it
	[ -d "$1" ] || return 0
	if findmnt -rn -o TARGET | grep -q "^$1/"; then
		chroot_say "$1 has file systems mounted inside; not removing it"
		return 1
	fi
	rm -rf --one-file-system "$1"
}

make_chroot() {	# SUITE: into SUITE.new, renamed when whole
	s=$1
	d=$CHROOTS/$1
	opt=$(suite_opt "$s")
	command -v mmdebstrap >/dev/null || { chroot_say "mmdebstrap is not installed (sh scripts/install-deps.sh)"; return 1; }
	remove "$d.new"
	remove "$d.old"
	t0=$(date +%s)
	chroot_say "making $s with mmdebstrap (Debian's packages; once, kept in $CHROOTS)"
	# In a mount namespace of its own: what mmdebstrap mounts inside (proc,
	# sys, dev) goes with it, even when it is killed.
	# shellcheck disable=SC2086 # one option or none
	if ! unshare --mount --propagation private -- mmdebstrap --variant=apt \
		--include="$(sh "$top/scripts/install-deps.sh" --list $SETS)" \
		${opt:+"$opt"} "$s" "$d.new" >"$CHROOTS/$s.log" 2>&1; then
		chroot_say "mmdebstrap $s failed; its log: $CHROOTS/$s.log"
		tail -n 20 "$CHROOTS/$s.log" >&2
		remove "$d.new"
		return 1
	fi
	stamp "$s" >"$d.new/.spank-binding-stamp"
	[ -d "$d" ] && mv "$d" "$d.old"
	mv "$d.new" "$d"
	remove "$d.old"
	chroot_say "$s made in $(($(date +%s) - t0)) s ($(du -sm "$d" | cut -f1) MB)"
}

lock() {	# SUITE MODE(-s|-x): fd 8 holds the suite's lock
	mkdir -p "$CHROOTS"
	exec 8>"$CHROOTS/.lock-$1"
	flock "$2" -w 3600 8 || { chroot_say "the $1 chroot stays locked"; return 1; }
}

ensure() {	# SUITE
	[ -n "$(suite_line "$1")" ] || { chroot_say "unknown suite $1 (tests/releases/suites)"; return 1; }
	lock "$1" -s
	current "$1" && return 0
	lock "$1" -x
	current "$1" || make_chroot "$1"
	lock "$1" -s
}

copy_tree() {	# SUITE: prints the copy's path inside the chroot
	d=$CHROOTS/$1
	mkdir -p "$d/build"
	dst=$(mktemp -d "$d/build/spank-binding.XXXXXX")
	chmod 755 "$dst"
	if git -C "$top" rev-parse >/dev/null 2>&1; then
		(cd "$top" && git ls-files -co --exclude-standard -z | xargs -0 tar -cf - --no-recursion) |
			tar -xf - -C "$dst"
	else
		(cd "$top" && tar -cf - --exclude=./build --exclude=./.git .) | tar -xf - -C "$dst"
	fi
	echo "${dst#"$d"}"
}

run() {	# SUITE CMD...: CMD inside, as root, with a clean environment
	d=$CHROOTS/$1
	shift
	# shellcheck disable=SC2016 # expanded by the inner shell
	# The chroot is bound onto itself: its / is then a mount point, whose
	# propagation the harness's `unshare --mount` (two nodes) can change.
	unshare --mount --propagation private -- sh -c '
		d=$1; shift
		mount --bind "$d" "$d" || exit 1
		for m in proc sys dev; do mount --rbind "/$m" "$d/$m" || exit 1; done
		exec chroot "$d" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" "$@"' sh "$d" "$@"
}

[ "${CHROOT_LIB:-0}" = 1 ] && return 0
set -eu
[ $# -ge 2 ] || { echo "usage: $0 ensure|copy|dir|shell SUITE | run SUITE CMD..." >&2; exit 2; }
cmd=$1 suite=$2
shift 2
case "$cmd" in
ensure) ensure "$suite" ;;
copy) copy_tree "$suite" ;;
dir) echo "$CHROOTS/$suite" ;;
run) run "$suite" "$@" ;;
shell) run "$suite" /bin/bash -l ;;
*) echo "usage: $0 ensure|copy|dir|shell SUITE | run SUITE CMD..." >&2; exit 2 ;;
esac
