#!/bin/bash
# `make releases` (part of `make check`): the plugin on every Slurm release
# of tests/releases/suites other than the host's, each in its Debian suite's
# chroot (tests/releases/chroot.sh: made once, kept, made again when
# missing or stale), with that suite's own compiler and Slurm:
#   1. a copy of the tree is built there (`make all`, -Werror, the suite's
#      gcc; RELEASE_PARTS=unit builds and runs the unit tests there too);
#   2. the end-to-end files of $RELEASE_E2E on private clusters of that
#      Slurm (tests/e2e/run.sh inside the chroot);
#   3. the Debian package, built, linted and smoke-tested there
#      (tests/pkg/run.sh);
#   4. the upgrade: a state written by the host's build (the oldest
#      release) is read, shown and released by this release's build
#      (tests/releases/upgrade.sh);
#   5. the guest node (2 sockets, 4 NUMA nodes, SMT, cgroup v2) booted with
#      the chroot as its root: the guest files of $RELEASE_GUEST
#      (tests/guest/run.sh with GUEST_ROOT).
# Each part appends "<part>@<release> N M K" to $BINDING_BUILD/results.
#   sh tests/releases/run.sh [SUITE...]     default: every suite but the host's
#   sh tests/releases/run.sh --others       prints those suites
#   sh tests/releases/run.sh --ensure       makes their chroots, if stale
# Environment: RELEASE_E2E, RELEASE_GUEST (which files; empty: none),
# E2E_SKIP (e2e files left out, tests/e2e/run.sh), RELEASE_E2E_NAME (the
# e2e part's name in the results, default e2e),
# RELEASE_SOAK_STEPS, RELEASE_GANG_STEPS, RELEASE_PKG_E2E (the package's smoke files),
# RELEASE_PARTS (default "build e2e pkg upgrade guest"), BINDING_CHROOTS,
# KEEP_RELEASE=1 (keep the tree's copy in the chroot).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${BINDING_BUILD:-$top/build}
results=$build/results
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
# Every feature, on every release (docs/testing.md, "Slurm releases"): the
# strategies (t10 linear, t20 packed and LSF, t15 instances, t26 explicit
# and the documents' rules), batch scripts and their steps (t11), concurrent
# jobs (t12), --mbind and memory accounting (t16, t17), GPUs as GRES (t25),
# the cli_filter (t27) and Slurm's --hint beside what it adds (t28), numamem
# (t29: GRES per NUMA node, the job's GRES detail read with slurm_load_job
# through slurm_compat), gang and scontrol suspend with cgroups and with
# linuxproc (t30, t31), the SIGKILL soak (t40), slurmd restart (t41), the
# hostile user and privacy (t42, t43), two nodes (m10), mpirun with a
# rankfile (m11), the cli_filter on two nodes (m12).
: "${RELEASE_E2E:=t00 t10 t11 t12 t15 t16 t17 t20 t25 t26 t27 t28 t29 t30 t31 t40 t41 t42 t43 t50 m10 m11 m12 m13}"
# The guest node: strategies, SMT, mbind, suspend, submit (CR_CPU).
: "${RELEASE_GUEST:=g10|g20|g30|g40|g60|c20}"
# The soak and the gang's step storm, shorter than the host's (200 and 50):
# every kind of kill and every suspend path still comes up on every release.
: "${RELEASE_SOAK_STEPS:=60}" "${RELEASE_GANG_STEPS:=15}"
: "${RELEASE_PARTS:=build e2e pkg upgrade guest}"
export RELEASE_E2E RELEASE_GUEST

say() { echo "releases: $*"; }
# Whether a part of this run failed: the results file is shared with make
# check's other lanes, whose records are not this run's verdict.
any_failed=0
record() {	# PART RELEASE PASSED FAILED SKIPPED
	echo "$1@$2: $3 passed, $4 failed, $5 skipped"
	[ "$4" -gt 0 ] 2>/dev/null && any_failed=1
	mkdir -p "$build" && echo "$1@$2 $3 $4 $5" >>"$results"
}

host_suite() {	# the suite of this machine, by its Slurm's spank.h
	local v
	v=$(sed -n 's/^#define SLURM_VERSION_NUMBER 0x\(..\)\(..\).*/\1 \2/p' /usr/include/slurm/slurm_version.h 2>/dev/null)
	[ -n "$v" ] || return 1
	v=$(printf '%d.%02d' "0x${v% *}" "0x${v#* }")
	awk -v r="$v" '$1 !~ /^#/ && $2 == r { print $1 }' "$here/suites"
}

release_of() { awk -v s="$1" '$1 == s { print $2 }' "$here/suites"; }
others() { awk -v h="$(host_suite)" '$1 !~ /^#/ && NF >= 2 && $1 != h { print $1 }' "$here/suites"; }
# --others: the suites this machine tests in chroots (bench/releases.sh).
[ "${1:-}" = --others ] && { others; exit 0; }

if [ "$(id -u)" != 0 ]; then
	say "skipped (needs root: chroots, private clusters)"
	record releases all 0 0 1
	exit 0
fi

suites=("$@")
[ ${#suites[@]} -gt 0 ] || mapfile -t suites < <(others)

CHROOT_LIB=1
# shellcheck source=tests/releases/chroot.sh
. "$here/chroot.sh"

# --ensure: every other suite's chroot made or found current, one after the
# other, before make check's lanes each run some parts: two runs that
# both found a chroot stale would each wait for the other's shared lock.
have_chroot() {	# SUITE: made or current, else a failed "chroot" part
	( ensure "$1" ) && return 0
	record chroot "$(release_of "$1")" 0 1 0
	return 1
}
# --drop-share: removes the built copies RELEASE_SHARE lists (make check,
# before and after its lanes).
if [ "${suites[0]:-}" = --drop-share ]; then
	for f in "${RELEASE_SHARE:?}"/*.built; do
		[ -s "$f" ] || continue
		s=$(basename "$f" .built) p=$(cat "$f")
		case "$p" in /build/spank-binding.*) rm -rf "${CHROOTS:?}/$s$p" ;; esac
		rm -f "$f"
	done
	exit 0
fi
if [ "${suites[0]:-}" = --ensure ]; then
	mapfile -t suites < <(others)
	rc=0
	for suite in "${suites[@]}"; do have_chroot "$suite" || rc=1; done
	exit "$rc"
fi

in_chroot() {	# SUITE CMD...: CMD in the tree's copy, inside
	local s=$1; shift
	run "$s" /bin/sh -c 'cd "$1" && shift && exec "$@"' sh "$copy" "$@"
}

# A summary line "<stage>: N passed, M failed, K skipped" of OUT, as "N M K".
counts() { sed -nE "s/^$1: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) (partly )?skipped.*/\\1 \\2 \\3/p" | tail -n 1; }
# record_counts PART RELEASE LABEL RC OUTPUT: the counts a part's output
# printed under LABEL; a part that exited non-zero failed, whatever it printed.
record_counts() {
	local p f s
	read -r p f s < <(printf '%s\n' "$5" | counts "$3")
	[ "$4" -ne 0 ] && [ "${f:-0}" = 0 ] && f=1
	record "$1" "$2" "${p:-0}" "${f:-1}" "${s:-0}"
}

# What a suite's build part makes, in the copy $copy names.
make_tree() { in_chroot "$1" make -j"$JOBS" all e2e-helpers build/guest/pagenode; }	# SUITE

# The tree's copy for this run's parts (its path inside the chroot). Under
# make check (RELEASE_SHARE, a directory of its build dir) its three lanes
# each run some parts of every suite: the first one to get here builds a
# copy once, under the suite's lock there, and every lane takes a copy of
# that with its timestamps (part_build's make then finds it current).
# Without a built copy (no RELEASE_SHARE, or its build failed) a bare copy
# of the tree, which part_build builds and judges.
tree_copy() {	# SUITE
	local s=$1 p dst lfd
	[ -n "${RELEASE_SHARE:-}" ] || { copy_tree "$s"; return; }
	mkdir -p "$RELEASE_SHARE" || return 1
	exec {lfd}>"$RELEASE_SHARE/$s.lock"
	flock -w 3600 "$lfd" || { copy_tree "$s"; return; }
	p=$(cat "$RELEASE_SHARE/$s.built" 2>/dev/null)
	if [ -z "$p" ] || [ ! -d "$CHROOTS/$s$p/build" ]; then
		p=$(copy_tree "$s")
		if copy=$p make_tree "$s" >"$RELEASE_SHARE/$s.log" 2>&1; then
			echo "$p" >"$RELEASE_SHARE/$s.built"
		else
			rm -rf "${CHROOTS:?}/$s$p"
			exec {lfd}>&-
			copy_tree "$s"
			return
		fi
	fi
	dst=$(mktemp -d "$CHROOTS/$s/build/spank-binding.XXXXXX") && chmod 755 "$dst" &&
		cp -a "$CHROOTS/$s$p/." "$dst/" || { exec {lfd}>&-; return 1; }
	exec {lfd}>&-
	echo "${dst#"$CHROOTS/$s"}"
}

part_build() {	# SUITE RELEASE
	local t0=$SECONDS out rc
	out=$(make_tree "$1" 2>&1); rc=$?
	if [ $rc -ne 0 ]; then
		printf '%s\n' "$out" | grep -E 'error|Error' | head -n 20
		record build "$2" 0 1 0
		return 1
	fi
	say "$2: built with $(in_chroot "$1" cc --version | head -n 1) in $((SECONDS - t0)) s${RELEASE_SHARE:+ (a copy of the build the lanes share, current)}"
	record build "$2" 1 0 0
}

# The unit test programs, built with the suite's compiler and libraries and
# run (plain build). Not in make check's parts: the library is the same C
# on every release, and the host runs it under ASan/UBSan.
part_unit() {	# SUITE RELEASE
	local out rc
	out=$(in_chroot "$1" sh -c "make -j$JOBS unit-programs && make unit-plain" 2>&1); rc=$?
	printf '%s\n' "$out" | grep -E '^unit|FAIL|crashed|error' | sed 's/^/  /'
	record_counts unit "$2" 'unit \(plain\)' $rc "$out"
}

part_e2e() {	# SUITE RELEASE
	local out rc
	# shellcheck disable=SC2086 # a list of file-name prefixes
	out=$(in_chroot "$1" env BINDING_BUILD="$copy/build" KEEP_E2E="${KEEP_E2E:-0}" \
		E2E_DEBUG="${E2E_DEBUG:-info}" SOAK_STEPS="$RELEASE_SOAK_STEPS" E2E_SKIP="${E2E_SKIP:-}" \
		GANG_STEPS="$RELEASE_GANG_STEPS" bash tests/e2e/run.sh $RELEASE_E2E 2>&1); rc=$?
	printf '%s\n' "$out" | grep -E '^(== |  FAIL|   \(|cluster: (mode|up)|e2e)' | sed 's/^/  /'
	[ $rc -ne 0 ] && printf '%s\n' "$out" | sed -n '/^e2e failures:/,$p' | tail -n 60 | sed 's/^/  /'
	record_counts "${RELEASE_E2E_NAME:-e2e}" "$2" e2e $rc "$out"
}

# The installed package's smoke files: its plugin binds (t10) and its
# cli_filter calls its module (t27), the two things a path compiled into
# the package could break. The part e2e ran the rest on this release.
part_pkg() {	# SUITE RELEASE
	local out rc
	out=$(in_chroot "$1" env BINDING_BUILD="$copy/build" PKG_E2E="${RELEASE_PKG_E2E:-t10 t27}" \
		sh tests/pkg/run.sh 2>&1); rc=$?
	printf '%s\n' "$out" | grep -E '^(  ok|  FAIL|pkg)' | sed 's/^/  /'
	record_counts pkg "$2" pkg $rc "$out"
}

part_upgrade() {	# SUITE RELEASE
	local out rc
	out=$(sh "$here/upgrade.sh" "$1" "$copy" 2>&1); rc=$?
	printf '%s\n' "$out" | sed 's/^/  /'
	record_counts upgrade "$2" upgrade $rc "$out"
}

part_guest() {	# SUITE RELEASE
	local out rc
	[ -n "$RELEASE_GUEST" ] || return 0
	# The host's kernel, modules and initramfs (their caches, and the lock
	# that keeps one guest booting at a time); this boot's channel, console
	# and results apart.
	out=$(GUEST_ROOT="$CHROOTS/$1" GUEST_TOP="$copy" GUEST_BUILD="$copy/build" \
		GUEST_RUN="$build/guest-$1" HARNESS_RESULTS=/dev/null \
		GUEST_FILTER="$RELEASE_GUEST" BINDING_BUILD="$build" sh "$top/tests/guest/run.sh" 2>&1); rc=$?
	printf '%s\n' "$out" | grep -E '^(  FAIL|== |   \(|e2e|# e2e-guest|not ok|cluster: mode)' | sed 's/^/  /'
	record_counts guest "$2" e2e-guest $rc "$out"
}

# The guest parts come last, after every suite's other parts: one guest
# boots at a time on this machine (the guest cache's lock), and the host's
# own guest stage may hold it meanwhile (make check runs this beside the
# host's stages).
rc=0
declare -A copies built
run_parts() {	# SUITE RELEASE PART...
	local suite=$1 rel=$2 part tp
	shift 2
	for part in "$@"; do
		tp=$SECONDS
		"part_$part" "$suite" "$rel" || { rc=1; [ "$part" = build ] && return 1; }
		say "$rel: $part took $((SECONDS - tp)) s"
	done
}
first=$(echo " $RELEASE_PARTS " | sed 's/ guest / /')
for suite in "${suites[@]}"; do
	rel=$(release_of "$suite")
	t0=$SECONDS
	say "== $suite (Slurm $rel)"
	if ! have_chroot "$suite"; then
		rc=1
		continue
	fi
	# A shared lock on the chroot until the end (remaking takes it whole).
	exec {lfd}>"$CHROOTS/.lock-$suite"
	flock -s -w 3600 "$lfd" || { record chroot "$rel" 0 1 0; rc=1; continue; }
	copy=$(tree_copy "$suite") || { record build "$rel" 0 1 0; rc=1; continue; }
	copies[$suite]=$copy
	# shellcheck disable=SC2086 # a list of parts
	run_parts "$suite" "$rel" $first && built[$suite]=1
	say "$suite (Slurm $rel): $((SECONDS - t0)) s"
done
case " $RELEASE_PARTS " in *" guest "*)
	for suite in "${suites[@]}"; do
		[ -n "${built[$suite]:-}" ] || continue
		copy=${copies[$suite]}
		run_parts "$suite" "$(release_of "$suite")" guest
	done ;;
esac
for suite in "${!copies[@]}"; do
	if [ "${KEEP_RELEASE:-0}" = 1 ]; then say "kept the tree's copy: $CHROOTS/$suite${copies[$suite]}"
	else rm -rf "${CHROOTS:?}/$suite${copies[$suite]}"; fi
done
[ "$any_failed" = 1 ] && rc=1
exit $rc
