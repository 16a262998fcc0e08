#!/bin/sh
# `make pkg` (part of `make check`): builds the Debian package with
# dpkg-buildpackage in a temporary copy of the tree (its .deb, .changes and
# .buildinfo land next to that copy, never beside the checkout), runs
# lintian on it (no errors), unpacks it into a scratch root with dpkg-deb -x,
# checks what it installs, and runs the end-to-end smoke tests against the
# installed plugin and sbind (tests/e2e/run.sh with BINDING_BUILD pointing at
# them: cluster.sh lists $BINDING_BUILD/spank_binding.so in plugstack.conf):
# PKG_E2E's files (default t10 t24 t27 t50).
# Appends "pkg N M K" to $BINDING_BUILD/results.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
results=${BINDING_BUILD:+$BINDING_BUILD/results}
passed=0 failed=0 skipped=0
ok() { passed=$((passed + 1)); echo "  ok   $1"; }
fail() { failed=$((failed + 1)); echo "  FAIL $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | head -40 | sed 's/^/       /'; }
done_() {
	echo "pkg: $passed passed, $failed failed, $skipped skipped"
	[ -n "$results" ] && echo "pkg $passed $failed $skipped" >>"$results"
	[ -n "${tmp:-}" ] && [ -z "${KEEP_PKG:-}" ] && rm -rf "$tmp"
	[ "$failed" = 0 ]
	exit $?
}
skip_all() { echo "pkg: skipped ($1)"; skipped=1; done_; }

for b in dpkg-buildpackage dh dpkg-deb lintian; do
	command -v "$b" >/dev/null 2>&1 || skip_all "$b is missing (Debian packages dpkg-dev debhelper lintian)"
done

tmp=$(mktemp -d /tmp/spank-binding-pkg.XXXXXX)
chmod 755 "$tmp"
src=$tmp/spank-binding
mkdir "$src"
# The tree as committed plus uncommitted files git would track, without
# build products; a tarball of the checkout when git is not there.
if git -C "$top" rev-parse >/dev/null 2>&1; then
	(cd "$top" && git ls-files -co --exclude-standard -z | xargs -0 tar -cf - --no-recursion) | tar -xf - -C "$src"
else
	(cd "$top" && tar -cf - --exclude=./build --exclude=./.git .) | tar -xf - -C "$src"
fi

echo "== dpkg-buildpackage -us -uc -b (in $src)"
if (cd "$src" && dpkg-buildpackage -us -uc -b -j"$(nproc 2>/dev/null || echo 2)") >"$tmp/build.log" 2>&1; then
	ok "dpkg-buildpackage -us -uc -b builds the package"
else
	fail "dpkg-buildpackage -us -uc -b builds the package" "$(tail -30 "$tmp/build.log")"
	done_
fi
deb=$(ls "$tmp"/spank-binding_*.deb 2>/dev/null | head -n1)
[ -n "$deb" ] || { fail "a spank-binding .deb next to the copy" "$(ls "$tmp")"; done_; }
leftover=$(cd "$top/.." && ls -d spank-binding_* spank-binding-dbgsym_* 2>/dev/null)
[ -z "$leftover" ] && ok "nothing left beside the checkout" || fail "nothing left beside the checkout" "$leftover"

out=$(lintian --fail-on error "$tmp"/spank-binding_*.changes 2>&1)
rc=$?
out=$(printf '%s\n' "$out" | grep -v 'running with root privileges')
if [ "$rc" = 0 ]; then
	ok "lintian: no errors${out:+ (other tags: $(printf '%s\n' "$out" | wc -l))}"
else
	fail "lintian: no errors" "$out"
fi

root=$tmp/root
dpkg-deb -x "$deb" "$root" || { fail "dpkg-deb -x"; done_; }
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
# systemd's units: /lib/systemd/system on Debian 12, /usr/lib/... from 13 on
# (the Makefile's SYSTEMDUNITDIR); the package ships them in one of the two.
unitdir=/lib/systemd/system
[ -e "$root/usr/lib/systemd/system/spank-binding-metrics.timer" ] && unitdir=/usr/lib/systemd/system
so=$root/usr/lib/$multiarch/slurm-wlm/spank_binding.so
for f in "$so" "$root/usr/bin/sbind" "$root/usr/share/man/man1/sbind.1.gz" \
	"$root/usr/share/man/man8/spank-binding.8.gz" "$root/usr/share/bash-completion/completions/sbind" \
	"$root/usr/share/doc/spank-binding/plugstack.conf.example" "$root/usr/share/doc/spank-binding/README.md.gz" \
	"$root/usr/share/doc/spank-binding/copyright" "$root/usr/share/spank-binding/cli_filter.lua" \
	"$root/usr/share/doc/spank-binding/submit.md.gz" \
	"$root/usr/lib/$multiarch/spank-binding/spank_binding_submit.so" \
	"$root$unitdir/spank-binding-metrics.service" \
	"$root$unitdir/spank-binding-metrics.timer" "$root/etc/default/spank-binding"; do
	[ -e "$f" ] && ok "installs ${f#"$root"}" || fail "installs ${f#"$root"}"
done
# The installed cli_filter.lua is the template with the installed paths and
# the installed sbind's option names; the e2e smoke tests below run it (t27,
# through cluster_cli_filter, with a copy of the installed sbind).
lua=$root/usr/share/spank-binding/cli_filter.lua
want=$(sh "$top/cli_filter/gen.sh" "$root/usr/bin/sbind" /usr/bin/sbind /usr/share/spank-binding \
	"/usr/lib/$multiarch/spank-binding/spank_binding_submit.so" <"$top/cli_filter/cli_filter.lua.in")
if [ "$(cat "$lua" 2>/dev/null)" = "$want" ]; then
	ok "the installed cli_filter.lua calls the installed module (else /usr/bin/sbind) with sbind's option list"
else
	fail "the installed cli_filter.lua calls the installed module (else /usr/bin/sbind) with sbind's option list" \
		"$(printf '%s\n' "$want" | diff - "$lua" 2>&1 | head -10)"
fi
if command -v luac5.1 >/dev/null 2>&1; then
	out=$(luac5.1 -p "$lua" 2>&1) && ok "installed cli_filter.lua: luac5.1 -p" ||
		fail "installed cli_filter.lua: luac5.1 -p" "$out"
fi
ver=$(dpkg-deb -f "$deb" Version)
out=$("$root/usr/bin/sbind" --version 2>&1)
[ "$out" = "sbind (spank-binding) $ver" ] && ok "installed sbind --version: $ver" ||
	fail "installed sbind --version is the package's ($ver)" "$out"
dep=$(dpkg-deb -f "$deb" Depends)
slurm=$(dpkg-query -W -f '${Version}' slurm-wlm-basic-plugins 2>/dev/null)
case $dep in
*"slurm-wlm-basic-plugins (>= "*"), slurm-wlm-basic-plugins (<< "*) ok "Depends: a slurm-wlm range ($(printf '%s' "$dep" | grep -o 'slurm-wlm-basic-plugins[^,]*' | tr '\n' ' '))" ;;
*) fail "Depends: a slurm-wlm-basic-plugins version range" "$dep" ;;
esac
if [ -n "$slurm" ]; then
	lo=$(printf '%s' "$dep" | sed -n 's/.*slurm-wlm-basic-plugins (>= \([^)]*\)).*/\1/p')
	hi=$(printf '%s' "$dep" | sed -n 's/.*slurm-wlm-basic-plugins (<< \([^)]*\)).*/\1/p')
	if dpkg --compare-versions "$slurm" ge "$lo" && dpkg --compare-versions "$slurm" lt "$hi"; then
		ok "the installed Slurm $slurm (whose spank.h it was built with) is in the range"
	else
		fail "the installed Slurm $slurm is in [$lo, $hi)"
	fi
fi
# The metrics timer: enabled by the package's scripts (dh_installsystemd),
# its units valid for systemd, and its service's command, run as it is
# written (the installed sbind, a scratch state dir and textfile folder),
# writes the node's metrics.
unit=$root$unitdir/spank-binding-metrics.service
if dpkg-deb -I "$deb" postinst 2>/dev/null | grep -q "deb-systemd-helper.*enable.*spank-binding-metrics.timer"; then
	ok "postinst enables spank-binding-metrics.timer"
else
	fail "postinst enables spank-binding-metrics.timer" "$(dpkg-deb -I "$deb" postinst 2>&1 | head -20)"
fi
if command -v systemd-analyze >/dev/null 2>&1; then
	mkdir -p "$tmp/units"
	sed "s|/usr/bin/sbind|$root/usr/bin/sbind|" "$unit" >"$tmp/units/spank-binding-metrics.service"
	cp "$root$unitdir/spank-binding-metrics.timer" "$tmp/units/"
	out=$(systemd-analyze verify --man=no "$tmp/units/spank-binding-metrics.service" \
		"$tmp/units/spank-binding-metrics.timer" 2>&1)
	[ -z "$out" ] && ok "systemd-analyze verify: the metrics service and timer" ||
		fail "systemd-analyze verify: the metrics service and timer" "$out"
fi
cmd=$(sed -n 's/^ExecStart=//p' "$unit")
case $cmd in
/usr/bin/sbind\ metrics\ --output\ /var/lib/prometheus/node-exporter/spank_binding.prom*)
	mkdir -p "$tmp/textfile" && chmod 755 "$tmp/textfile"
	run=$(printf '%s' "$cmd" | sed -e "s|/usr/bin/sbind|$root/usr/bin/sbind|" \
		-e "s|/var/lib/prometheus/node-exporter|$tmp/textfile|" -e 's/\$SBIND_METRICS_ARGS//')
	if BINDING_STATE_DIR=$tmp/state sh -c "$run --topology 'pack:1 core:2'" 2>&1 &&
	   grep -q '^spank_binding_socket_cores{socket="0"} 2$' "$tmp/textfile/spank_binding.prom"; then
		ok "the service's command writes the metrics into the textfile folder"
	else
		fail "the service's command writes the metrics into the textfile folder" "$run"
	fi ;;
*) fail "the service runs /usr/bin/sbind metrics into node_exporter's folder" "$cmd" ;;
esac
if command -v mandoc >/dev/null 2>&1; then
	out=$(for p in man1/sbind.1 man8/spank-binding.8; do
		gzip -dc "$root/usr/share/man/$p.gz" | mandoc -T lint -W warning 2>&1; done)
	[ -z "$out" ] && ok "installed man pages: mandoc -T lint clean" || fail "installed man pages: mandoc -T lint clean" "$out"
fi

# The end-to-end smoke tests with the installed plugin and sbind.
if [ "$(id -u)" != 0 ]; then
	skipped=$((skipped + 1)); echo "  skip e2e smoke test with the installed plugin: needs root"
else
	inst=$tmp/installed
	mkdir -p "$inst"
	cp "$so" "$root/usr/bin/sbind" "$root/usr/share/spank-binding/cli_filter.lua" \
		"$root/usr/lib/$multiarch/spank-binding/spank_binding_submit.so" "$inst/"
	echo "== e2e smoke tests against $so"
	# shellcheck disable=SC2086 # a list of file-name prefixes
	out=$(BINDING_BUILD=$inst sh "$top/tests/e2e/run.sh" ${PKG_E2E:-t10 t24 t27 t50} 2>&1)
	rc=$?
	printf '%s\n' "$out" | grep -E '^(==|  ok|  FAIL|cluster: plugin)' | sed 's/^/  /'
	sum=$(printf '%s\n' "$out" | grep '^e2e: ')
	if [ "$rc" = 0 ] && printf '%s' "$sum" | grep -q '^e2e: [1-9][0-9]* passed, 0 failed' &&
	   printf '%s\n' "$out" | grep -q "plugin: .*spank_binding.so"; then
		ok "e2e smoke tests with the installed plugin: $sum"
	else
		fail "e2e smoke tests with the installed plugin" "$(printf '%s\n' "$out" | tail -40)"
	fi
fi
done_
