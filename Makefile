# spank-binding: Grid Engine / OCS / LSF style core and NUMA binding for Slurm.
#
#   make            library, sbind CLI, SPANK plugin
#   make check      installs missing Debian packages (as root), then every test
#   make demo       private one-node Slurm cluster with the plugin, real bindings
#   make bench      benchmarks (figures, never asserted)
#   make install PREFIX=/usr DESTDIR=...

# One version, from the Debian changelog's first entry (upstream part).
VERSION     := $(shell head -n1 debian/changelog 2>/dev/null | tr -d '()' | awk '{print $$2}' | cut -d- -f1)
PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
DOCDIR      ?= $(PREFIX)/share/doc/spank-binding
MANDIR      ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
DATADIR     ?= $(PREFIX)/share/spank-binding
# The metrics timer (tools/systemd): where systemd and Debian look for
# units a package ships (systemd.pc's answer; without it, /usr/lib on a
# merged-/usr system, as Debian 13's lintian wants: /lib there is an
# alias), and the settings file its service reads.
SYSTEMDUNITDIR ?= $(or $(shell pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null),$(if $(shell test -L /lib && echo y),/usr/lib/systemd/system,/lib/systemd/system))
SYSCONFDIR  ?= /etc
# The cli_filter's translation module (a Lua module, not a public library).
PKGLIBDIR   ?= $(PREFIX)/lib/$(shell $(CC) -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)/spank-binding
# Debian's Slurm looks for plugins in /usr/lib/<multiarch>/slurm-wlm.
SLURM_PLUGINDIR ?= /usr/lib/$(shell $(CC) -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)/slurm-wlm
DESTDIR     ?=

CC          ?= cc
PKGS        := hwloc numa jansson libacl
PKG_CFLAGS  := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS    := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lhwloc -lnuma -ljansson -lacl)
CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS  := $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lm -lrt -lpthread)

WARN        := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
BASE_CFLAGS := -std=c11 -D_GNU_SOURCE -O2 -g -fPIC $(WARN) -Iinclude $(PKG_CFLAGS)
CFLAGS      ?=
CPPFLAGS    ?=
LDFLAGS     ?=
ALL_CFLAGS  := $(BASE_CFLAGS) $(CPPFLAGS) $(CFLAGS)
SAN_FLAGS   := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -O1

B           := build
# Parallel builds in check and unit (the tests themselves run one at a time).
JOBS        ?= $(shell nproc 2>/dev/null || echo 2)
LIB_SRC     := $(sort $(wildcard lib/*/*.c))
LIB_HDR     := $(wildcard include/binding/*/*.h include/binding/*/*.def)
LIB_OBJ     := $(LIB_SRC:lib/%.c=$(B)/lib/%.o)
# Unit tests link a build of the library with fault points (util/fault.h);
# the plugin and sbind link the one without.
TEST_FLAGS  := -DBND_FAULT_POINTS
LIB_TEST_OBJ := $(LIB_SRC:lib/%.c=$(B)/tests/lib/%.o)
LIB_SAN_OBJ := $(LIB_SRC:lib/%.c=$(B)/san/lib/%.o)
UNIT_SRC    := $(sort $(wildcard tests/unit/*/test_*.c))
UNIT_BIN    := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
UNIT_SAN    := $(UNIT_SRC:tests/unit/%.c=$(B)/san/tests/%)
TESTUTIL    := $(wildcard tests/unit/testutil.c)
# tests/unit/util/test_cloexec.c sees every descriptor the library creates:
# these calls are linked to its wrappers (ld --wrap).
CLOEXEC_WRAP := $(foreach f,open __open_2 openat __openat_2 creat fopen opendir dup dup2 dup3 \
		pipe pipe2 socket eventfd inotify_init inotify_init1 mkstemp,-Wl,--wrap=$(f))
$(B)/tests/util/test_cloexec $(B)/san/tests/util/test_cloexec: TEST_LDFLAGS := $(CLOEXEC_WRAP)
# Shared by the unit tests and the benches (no Check in it).
CGSCRATCH   := tests/unit/cgscratch.c
BENCH_SRC   := $(sort $(wildcard bench/*.c))
BENCH_BIN   := $(BENCH_SRC:bench/%.c=$(B)/bench/%)
TOOLS_SRC   := $(sort $(wildcard tools/*.c))
TOOLS_HDR   := $(wildcard tools/*.h)
TOOLS_BIN   := $(B)/sbind
# The cli_filter.lua (cli_filter/gen.sh), and the Lua module it calls the
# translation through (built when that Lua's headers are installed; without
# it the script runs sbind). The module runs inside Slurm's cli_filter/lua,
# so it is built for the Lua that plugin links: Debian 12's Slurm 22.05
# links liblua5.1.so.0 (`ldd .../slurm-wlm/cli_filter_lua.so`; t_submit.sh
# checks the two agree).
CLI_FILTER  := $(B)/cli_filter.lua
LUA_PKG     := lua5.1
LUA_CFLAGS  := $(shell pkg-config --cflags $(LUA_PKG) 2>/dev/null)
LUA_LIBS    := $(shell pkg-config --libs $(LUA_PKG) 2>/dev/null)
SUBMIT_MODULE := $(if $(LUA_LIBS),$(B)/spank_binding_submit.so)
PLUGIN      := $(B)/spank_binding.so
# Man pages: man/*.in with the texts sbind prints put in (man/build.sh);
# dated by the Debian changelog's first entry, so a rebuild is identical.
MAN_DATE    := $(shell date -u -d "$$(sed -n 's/^ -- .*>  //p' debian/changelog 2>/dev/null | head -n1)" +%Y-%m-%d 2>/dev/null)
MANPAGES    := $(B)/man/sbind.1 $(B)/man/spank-binding.8
METRICS_UNIT := $(B)/systemd/spank-binding-metrics.service
# Programs the end-to-end tests run next to the cluster (tests/e2e/*.c).
E2E_HELPERS := $(patsubst tests/e2e/%.c,$(B)/e2e/%,$(wildcard tests/e2e/*.c))

# libFuzzer targets (tests/fuzz): the library built again with clang's
# coverage instrumentation and sanitizers, into $(B)/fuzz.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 5
FUZZ_FLAGS   := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -O1
FUZZ_SRC     := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN     := $(FUZZ_SRC:tests/fuzz/%.c=$(B)/fuzz/%)
FUZZ_OBJ     := $(LIB_SRC:lib/%.c=$(B)/fuzz/lib/%.o)

# Real machines' hwloc XMLs (tests/topologies/README.md): the unit tests,
# CLI tests, fuzzers and benches use every one. No abspath: it would split
# a checkout path that holds a space.
export BINDING_TOPOLOGIES ?= $(CURDIR)/tests/topologies
export BINDING_BUILD := $(abspath $(B))

.PHONY: all deps check check-guests check-rest check-gang releases unit-programs e2e-helpers unit unit-plain unit-san cli e2e pkg numa fuzz fuzz-run fuzz-long lint demo bench install clean \
	doc-examples

all: $(B)/libbinding.a $(TOOLS_BIN) $(if $(wildcard spank_binding.c),$(PLUGIN)) $(MANPAGES) $(CLI_FILTER) \
	$(SUBMIT_MODULE) $(METRICS_UNIT)

deps:
	@sh scripts/install-deps.sh

$(B)/lib/%.o: lib/%.c $(LIB_HDR)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(B)/tests/lib/%.o: lib/%.c $(LIB_HDR)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(TEST_FLAGS) -c $< -o $@

$(B)/san/lib/%.o: lib/%.c $(LIB_HDR)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(TEST_FLAGS) $(SAN_FLAGS) -c $< -o $@

$(B)/libbinding.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(B)/tests/libbinding.a: $(LIB_TEST_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(B)/san/libbinding.a: $(LIB_SAN_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(B)/sbind: $(TOOLS_SRC) $(TOOLS_HDR) $(B)/libbinding.a $(LIB_HDR) $(wildcard debian/changelog)
	$(CC) $(ALL_CFLAGS) -DBND_VERSION='"$(or $(VERSION),unknown)"' -Itools $(TOOLS_SRC) -o $@ $(B)/libbinding.a $(PKG_LIBS) $(LDFLAGS)

$(CLI_FILTER): cli_filter/cli_filter.lua.in cli_filter/gen.sh $(TOOLS_BIN)
	sh cli_filter/gen.sh $(TOOLS_BIN) $(BINDIR)/sbind $(DATADIR) $(PKGLIBDIR)/spank_binding_submit.so \
		<cli_filter/cli_filter.lua.in >$@.new && mv -f $@.new $@

$(B)/spank_binding_submit.so: cli_filter/submit_module.c cli_filter/submit_module.map $(B)/libbinding.a $(LIB_HDR)
	$(CC) $(ALL_CFLAGS) $(LUA_CFLAGS) -shared $< -o $@ -Wl,--version-script=cli_filter/submit_module.map \
		-Wl,--as-needed $(B)/libbinding.a $(LUA_LIBS) $(PKG_LIBS) $(LDFLAGS)

$(B)/man/sbind.1: man/sbind.1.in man/spank-binding.8.in man/build.sh $(TOOLS_BIN)
	sh man/build.sh $(TOOLS_BIN) $(B)/man "$(VERSION)" "$(MAN_DATE)" "$(SLURM_PLUGINDIR)"
$(B)/man/spank-binding.8: $(B)/man/sbind.1

# BINDIR and the settings' dir put in (a build for /usr/local runs its sbind).
$(METRICS_UNIT): tools/systemd/spank-binding-metrics.service.in
	@mkdir -p $(@D)
	sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@DEFAULTDIR@|$(SYSCONFDIR)/default|g' $< >$@.new && mv -f $@.new $@

# The glue: the SPANK callbacks, and the one adapter to the Slurm API calls
# whose form differs between releases (slurm_compat.c, docs/slurm-releases.md).
# SLURM_API: the libslurm API (soname major) of the release whose headers
# the build uses; the plugin compares it with the Slurm that loads it.
GLUE_SRC    := spank_binding.c slurm_compat.c
SLURM_API   := $(shell readlink -f "$$($(CC) -print-file-name=libslurm.so)" 2>/dev/null | sed -n 's/.*libslurm\.so\.\([0-9]*\).*/\1/p')
$(PLUGIN): $(GLUE_SRC) slurm_compat.h spank_binding.map $(B)/libbinding.a $(LIB_HDR)
	$(CC) $(ALL_CFLAGS) -DBND_SLURM_API=$(or $(SLURM_API),0) -shared $(GLUE_SRC) -o $@ -Wl,--version-script=spank_binding.map -Wl,--whole-archive $(B)/libbinding.a -Wl,--no-whole-archive $(PKG_LIBS) $(LDFLAGS)

# The helpers every test program links, compiled once per build (each
# program compiled them again: 114 times each, most of a compile being the
# headers).
TEST_HELP_SRC := $(TESTUTIL) $(CGSCRATCH)
TEST_HELP_HDR := $(wildcard tests/unit/*.h)
TEST_HELPERS := $(TEST_HELP_SRC:tests/unit/%.c=$(B)/tests/helpers/%.o)
SAN_HELPERS := $(TEST_HELP_SRC:tests/unit/%.c=$(B)/san/tests/helpers/%.o)
.SECONDARY: $(TEST_HELPERS) $(SAN_HELPERS)
$(B)/tests/helpers/%.o: tests/unit/%.c $(TEST_HELP_HDR) $(LIB_HDR)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(TEST_FLAGS) $(CHECK_CFLAGS) -Itests/unit -c $< -o $@
$(B)/san/tests/helpers/%.o: tests/unit/%.c $(TEST_HELP_HDR) $(LIB_HDR)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(TEST_FLAGS) $(SAN_FLAGS) $(CHECK_CFLAGS) -Itests/unit -c $< -o $@

$(B)/tests/%: tests/unit/%.c $(TEST_HELPERS) $(B)/tests/libbinding.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(TEST_FLAGS) $(CHECK_CFLAGS) -Itests/unit $< $(TEST_HELPERS) -o $@ $(B)/tests/libbinding.a $(PKG_LIBS) $(CHECK_LIBS) $(TEST_LDFLAGS)

# A stand-in OpenCL vendor library that test_topology names to the ICD
# loader (tests/unit/topology/fakeicd.c); nodelete: its thread outlives a
# dlclose.
$(B)/tests/fakeicd.so: tests/unit/topology/fakeicd.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE -O1 -fPIC -shared -Wall -Wextra -Werror $< -o $@ -lpthread -Wl,-z,nodelete
$(B)/tests/topology/test_topology $(B)/san/tests/topology/test_topology: $(B)/tests/fakeicd.so

$(B)/san/tests/%: tests/unit/%.c $(SAN_HELPERS) $(B)/san/libbinding.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(TEST_FLAGS) $(SAN_FLAGS) $(CHECK_CFLAGS) -Itests/unit $< $(SAN_HELPERS) -o $@ $(B)/san/libbinding.a $(PKG_LIBS) $(CHECK_LIBS) $(TEST_LDFLAGS)

$(B)/fuzz/lib/%.o: lib/%.c $(LIB_HDR)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(ALL_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_BIN): $(B)/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz.h $(FUZZ_OBJ)
	$(FUZZ_CC) $(ALL_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer -Itests/fuzz $< $(FUZZ_OBJ) -o $@ $(PKG_LIBS)

$(B)/e2e/%: tests/e2e/%.c $(B)/libbinding.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $< -o $@ $(B)/libbinding.a $(PKG_LIBS)

$(B)/bench/%: bench/%.c $(CGSCRATCH) $(B)/libbinding.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Itests/unit $< $(CGSCRATCH) -o $@ $(B)/libbinding.a $(PKG_LIBS) -lm

# The README's test command. Each stage appends "name passed failed skipped"
# to $(B)/results; the last line is the total, and make check's verdict.
# Three lanes side by side (docs/testing.md, "Time"):
#   check-guests: every QEMU boot, one after the other (single-threaded TCG
#     keeps one CPU busy): the host's numa and guest stages, then each
#     other release's guest node. Nothing else goes into it;
#   check-rest: the host's e2e files but the gang ones, its package, each
#     other release's e2e files (the same), package and upgrade in its
#     chroot, one private Slurm cluster at a time;
#   check-gang: the gang and suspend files (t30, t31) on every release,
#     each on a private cluster of its own, which wait on Slurm's time
#     slices and on srun's 60 s retry of a step a suspended job refused
#     and so leave most of a CPU free; lint, unit, fuzz and cli fill it.
# All three run at one priority: beside two CPU hogs a niced lane starved.
# Every stage runs whatever an earlier one did; one that exits non-zero
# without counting a failure (a build error) counts one (tests/stage.sh).
# What the lanes use is built, and the chroots made when stale, before
# the lanes start. Each other release's tree is built once, by the first
# lane that needs it, and the others copy that build (RELEASE_SHARE,
# tests/releases/run.sh); the copies go when the lanes end.
GANG_FILES = t30 t31

RELEASE_SHARE = $(abspath $(B))/release-share

check: deps
	@rm -f $(B)/results $(B)/results.times
	$(MAKE) -j$(JOBS) all e2e-helpers $(B)/guest/pagenode
	@sh tests/releases/run.sh --ensure
	@RELEASE_SHARE="$(RELEASE_SHARE)" sh tests/releases/run.sh --drop-share
	RELEASE_SHARE="$(RELEASE_SHARE)" $(MAKE) -j3 check-guests check-rest check-gang; \
		rc=$$?; RELEASE_SHARE="$(RELEASE_SHARE)" sh tests/releases/run.sh --drop-share; exit $$rc
	@sh tests/summary.sh $(B)/results

STAGE = sh tests/stage.sh $(B)/results

check-guests: all
	@echo "guests: the QEMU lane runs beside the others; its log: $(B)/guests.log"
	@{ $(STAGE) numa $(MAKE) numa; \
	  $(STAGE) e2e-guest $(MAKE) e2e-guest; \
	  $(STAGE) releases-guest env RELEASE_PARTS="build guest" sh tests/releases/run.sh; } >$(B)/guests.log 2>&1; \
		echo "===== the QEMU lane (numa, e2e-guest, the releases' guests), its log:"; cat $(B)/guests.log

check-rest: all
	@$(STAGE) e2e env E2E_SKIP="$(GANG_FILES)" $(MAKE) e2e
	@$(STAGE) pkg $(MAKE) pkg
	@$(STAGE) releases env E2E_SKIP="$(GANG_FILES)" RELEASE_PARTS="build e2e pkg upgrade" sh tests/releases/run.sh >$(B)/releases.log 2>&1; \
		echo "===== make releases (tests/releases/run.sh: build e2e pkg upgrade, no gang files), its log:"; cat $(B)/releases.log

check-gang: all e2e-helpers $(TOOLS_BIN) $(MANPAGES) $(CLI_FILTER)
	@{ $(STAGE) lint $(MAKE) lint; \
	  $(STAGE) e2e-gang env E2E_STAGE=e2e-gang sh tests/e2e/run.sh $(GANG_FILES); \
	  $(STAGE) releases-gang env RELEASE_PARTS="build e2e" RELEASE_E2E="$(GANG_FILES)" RELEASE_E2E_NAME=e2e-gang \
		sh tests/releases/run.sh; \
	  $(STAGE) unit $(MAKE) unit; \
	  $(STAGE) fuzz $(MAKE) fuzz; \
	  $(STAGE) cli $(MAKE) cli; } >$(B)/gang.log 2>&1; \
		echo "===== the gang lane (lint, $(GANG_FILES) on every release, unit, fuzz, cli), its log:"; cat $(B)/gang.log

# Every test program built first, JOBS at a time (serially the two builds
# were most of the stage); then each runs in turn.
unit:
	$(MAKE) -j$(JOBS) $(UNIT_BIN) $(UNIT_SAN)
	$(MAKE) unit-plain unit-san

# The plain test programs alone (the release chroots build and run these).
unit-programs: $(UNIT_BIN)

unit-plain: $(UNIT_BIN)
	@sh tests/run-unit.sh plain $(UNIT_BIN)

unit-san: $(UNIT_SAN)
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		sh tests/run-unit.sh asan+ubsan $(UNIT_SAN)

cli: $(TOOLS_BIN) $(MANPAGES) $(CLI_FILTER)
	@sh tests/cli/run.sh

e2e: all e2e-helpers
	@sh tests/e2e/run.sh

e2e-helpers: $(E2E_HELPERS)

# The Debian package, built in a temporary copy, linted, unpacked and
# smoke-tested with its own plugin (tests/pkg/run.sh).
pkg: all
	@sh tests/pkg/run.sh

# CPU and memory placement inside a 2-socket, 4-NUMA-node QEMU guest.
numa: $(B)/libbinding.a
	@CC="$(CC)" NUMA_CFLAGS="$(ALL_CFLAGS)" NUMA_LIBS="$(PKG_LIBS)" sh tests/numa/run.sh

# Real Slurm (cgroup v2) in a 2-socket, 4-NUMA, SMT QEMU guest node.
# pagenode (which NUMA node each page of a buffer is on, through
# move_pages) runs there as the job user.
.PHONY: e2e-guest
e2e-guest: all $(B)/guest/pagenode
	@CC="$(CC)" sh tests/guest/run.sh

$(B)/guest/pagenode: tests/guest/pagenode.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE -O2 $(WARN) $< -o $@ -lnuma

# The other Slurm releases (tests/releases/suites), each in its Debian
# suite's chroot (made once, kept in /var/cache/spank-binding/chroots):
# built there with its compiler, its unit tests, e2e files, package, the
# upgrade from the host's release, and the guest node on that root.
releases: all
	@sh tests/releases/run.sh

# Each target for FUZZ_SECONDS; skipped with a message without clang.
fuzz:
	@if FUZZ_CC="$(FUZZ_CC)" sh tests/fuzz/run.sh --toolchain; then \
		$(MAKE) --no-print-directory -j2 fuzz-run; fi

# The long campaign (not in check): FUZZ_RUNS executions per target over
# FUZZ_JOBS processes.
FUZZ_RUNS ?= 10000000
FUZZ_JOBS ?= 2
fuzz-long:
	@if FUZZ_CC="$(FUZZ_CC)" sh tests/fuzz/run.sh --toolchain; then \
		$(MAKE) --no-print-directory -j2 $(FUZZ_BIN) && \
		FUZZ_CC="$(FUZZ_CC)" FUZZ_RUNS="$(FUZZ_RUNS)" FUZZ_JOBS="$(FUZZ_JOBS)" \
		sh tests/fuzz/run.sh $(FUZZ_BIN); fi

fuzz-run: $(FUZZ_BIN)
	@FUZZ_CC="$(FUZZ_CC)" FUZZ_SECONDS="$(FUZZ_SECONDS)" sh tests/fuzz/run.sh $(FUZZ_BIN)

# The shipped code, and the tests and benches that judge it; then no module
# cycle in the library (scripts/module-cycles, over the objects nm reads).
lint: $(LIB_OBJ)
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability,performance \
		--std=c11 --inline-suppr -Iinclude -Itests/unit lib tools cli_filter $(wildcard $(GLUE_SRC)) \
		bench tests
	sh scripts/module-cycles $(B)/lib

# Writes into README.md, docs/*.md and man/*.in what the built tree prints
# for each marked example (scripts/doc-examples; docs/testing.md, "Examples
# in the docs"): the sbind transcripts run here, the e2e blocks from the
# last e2e run's $(B)/doc-examples/. `make cli` compares them.
doc-examples: $(TOOLS_BIN)
	@SBIND=$(TOOLS_BIN) sh scripts/doc-examples update

demo: deps
	$(MAKE) all
	@sh tests/e2e/demo.sh

bench: $(BENCH_BIN) all
	@for b in $(BENCH_BIN); do $$b || exit 1; done
	@if [ -x bench/launch.sh ]; then sh bench/launch.sh; fi
	@if [ -x bench/releases.sh ]; then sh bench/releases.sh; fi
	@if [ -x bench/gang.sh ]; then sh bench/gang.sh; fi
	@if [ -x bench/defer.sh ]; then sh bench/defer.sh; fi
	@if [ -x bench/cli_filter.sh ]; then sh bench/cli_filter.sh; fi

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DOCDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(DATADIR)
	install -m 0755 $(B)/sbind $(DESTDIR)$(BINDIR)/sbind
	install -m 0644 README.md plugstack.conf.example docs/plugin.md docs/state.md docs/gpu.md docs/operations.md \
		docs/ocs-lsf.md docs/submit.md $(DESTDIR)$(DOCDIR)/
	sh cli_filter/gen.sh $(B)/sbind $(BINDIR)/sbind $(DATADIR) $(PKGLIBDIR)/spank_binding_submit.so \
		<cli_filter/cli_filter.lua.in >$(DESTDIR)$(DATADIR)/cli_filter.lua && \
		chmod 0644 $(DESTDIR)$(DATADIR)/cli_filter.lua
	if [ -f $(B)/spank_binding_submit.so ]; then install -d $(DESTDIR)$(PKGLIBDIR) && \
		install -m 0644 $(B)/spank_binding_submit.so $(DESTDIR)$(PKGLIBDIR)/; fi
	install -m 0644 $(B)/man/sbind.1 $(DESTDIR)$(MANDIR)/man1/sbind.1
	install -m 0644 $(B)/man/spank-binding.8 $(DESTDIR)$(MANDIR)/man8/spank-binding.8
	install -m 0644 tools/sbind.bash-completion $(DESTDIR)$(BASHCOMPDIR)/sbind
	install -d $(DESTDIR)$(SYSTEMDUNITDIR) $(DESTDIR)$(SYSCONFDIR)/default
	install -m 0644 $(METRICS_UNIT) tools/systemd/spank-binding-metrics.timer $(DESTDIR)$(SYSTEMDUNITDIR)/
	install -m 0644 tools/systemd/spank-binding.default $(DESTDIR)$(SYSCONFDIR)/default/spank-binding
	if [ -f $(PLUGIN) ]; then install -d $(DESTDIR)$(SLURM_PLUGINDIR) && \
		install -m 0755 $(PLUGIN) $(DESTDIR)$(SLURM_PLUGINDIR)/spank_binding.so; fi

clean:
	rm -rf $(B)
