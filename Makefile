# lockbench - see README.md.  `make` builds ./lockbench; `make test` runs
# every test: unit (cmocka), golden, end-to-end, sanitizer builds.

VERSION    := 0.1.0
PREFIX     ?= /usr/local
DESTDIR    ?=
CC         ?= cc
PKGS       := hwloc jansson
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

# A missing dependency is one line naming the Debian packages, not
# pages of pkg-config errors and undefined references.  Checked for
# every goal that compiles (cmocka only for the tests).
has_pkg    = $(shell pkg-config --exists $(1) 2>/dev/null && echo y)
has_header = $(shell echo '\#include <$(1)>' | $(CC) -E -x c - >/dev/null 2>&1 && echo y)
DEPS_MISSING = $(strip $(if $(shell command -v pkg-config),,pkg-config) \
	$(if $(call has_pkg,hwloc),,libhwloc-dev) \
	$(if $(call has_pkg,jansson),,libjansson-dev) \
	$(if $(call has_header,numa.h),,libnuma-dev) \
	$(if $(call has_header,perfmon/pfmlib_perf_event.h),,libpfm4-dev))
TEST_DEPS_MISSING = $(if $(call has_header,cmocka.h),,libcmocka-dev)
NO_DEPS_GOALS := clean uninstall check-deps arm64 fuzz fuzz-ltlog dist
TEST_GOALS    := test unit unit-release unit-asan unit-tsan asan tsan
ifneq ($(filter-out $(NO_DEPS_GOALS),$(or $(MAKECMDGOALS),all)),)
MISSING := $(strip $(DEPS_MISSING) $(if $(filter $(TEST_GOALS),$(MAKECMDGOALS)),$(TEST_DEPS_MISSING)))
ifneq ($(MISSING),)
$(error missing build dependencies; install them with: apt-get install -y $(MISSING))
endif
endif

CFLAGS     ?= -O2 -g
WARN       := -Wall -Wextra -Werror
CPPFLAGS   += -DLOCKBENCH_VERSION='"$(VERSION)"' -Ilocks -Ioutput/results -Ioutput/render
ALL_CFLAGS := -std=gnu11 -ffp-contract=off $(WARN) $(CFLAGS) -pthread $(PKG_CFLAGS) $(CPPFLAGS)
# libnuma and libpfm4 (perf event names) ship no pkg-config file.
SYS_LIBS   := -lnuma -lpfm -lm -pthread -ldl
LIBS       := $(PKG_LIBS) $(SYS_LIBS)

# One job per folder (tests/folders.txt; docs/architecture.md draws
# which folder may include which): output/results/ is the results model
# (types, JSON, resume, the compare/merge model), output/stats/ the
# statistics and noise rules, output/render/ the formats that read the
# model; topology/host/ measures the host; kernel/locktorture/ drives
# the kernel's locktorture module and reads its logs, kernel/tree/ builds
# a kernel tree's locks into plugins (kernel/compat/ is compiled into
# those plugins, not into lockbench); workloads/loops/ holds the built-in
# locks' worker loops, lock and unlock inlined; lib/ the leaves every
# part may use.
SRCS    := $(wildcard lib/*.c locks/*.c workloads/*.c workloads/loops/*.c \
		      topology/*.c topology/host/*.c output/*.c output/stats/*.c \
		      output/results/*.c output/render/*.c cli/*.c \
		      kernel/locktorture/*.c kernel/tree/*.c)
TESTS   := $(patsubst tests/%.c,%,$(wildcard tests/test_*.c))
# Test helpers linked into every test binary (fake sysfs trees).
TEST_SUPPORT := tests/fakesys/fakesys.c
# The example plugin written as kernel code on <lockbench/kernel.h>.
KERNEL_EXAMPLE := examples/kernel_mcs

# Build flavours: objects and test binaries live in build/<flavour>/.
SAN_asan := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
SAN_tsan := -fsanitize=thread
SAN_release :=
SAN_arm64 :=
# arm64: Debian's cross compiler and the :arm64 multiarch -dev packages.
ARM64_CC   ?= aarch64-linux-gnu-gcc
ARM64_PKG  := PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig pkg-config
CC_arm64   := $(ARM64_CC)
XCFLAGS_arm64 = $(shell $(ARM64_PKG) --cflags $(PKGS) 2>/dev/null)
XLIBS_arm64 = $(shell $(ARM64_PKG) --libs $(PKGS) 2>/dev/null)
CC_release := $(CC)
CC_asan    := $(CC)
CC_tsan    := $(CC)

.DEFAULT_GOAL := all
objs = $(patsubst %.c,build/$(1)/%.o,$(SRCS))

# Provenance recorded in every JSON (cli/provenance.c): lockbench's own
# git revision and the compiler flags.  The revision is this source
# tree's, never that of a git tree around it (a tarball unpacked inside
# an lkp-tests or mmtests checkout): `git describe` only when the
# toplevel of the git tree is this directory, else the commit that
# `git archive` wrote into GIT-REVISION (export-subst in .gitattributes,
# so every archive of a commit carries it: `make dist`, the fleet
# installers, a forge's tarball), else "unknown" (docs/fleet.md).  The
# stamp changes only when they do, so only provenance.o recompiles.
SRCDIR    := $(patsubst %/,%,$(dir $(realpath $(firstword $(MAKEFILE_LIST)))))
GIT_TOP   := $(shell git -C '$(SRCDIR)' rev-parse --show-toplevel 2>/dev/null)
ifeq ($(if $(GIT_TOP),$(realpath $(GIT_TOP))),$(SRCDIR))
GIT_REV   := $(shell git -C '$(SRCDIR)' describe --always --dirty --abbrev=12 2>/dev/null)
else
GIT_REV   := $(shell sed -n 's/^\([0-9a-f]\{12\}\)[0-9a-f]\{28\}$$/\1/p' '$(SRCDIR)/GIT-REVISION' 2>/dev/null)
endif
GIT_REV   := $(or $(GIT_REV),unknown)
PROV_DEFS := -DLOCKBENCH_GIT='"$(GIT_REV)"' -DLOCKBENCH_CFLAGS='"$(subst ",,$(CFLAGS))"'
build/provenance.stamp: FORCE
	@mkdir -p build
	@echo '$(GIT_REV) $(CFLAGS)' | cmp -s - $@ 2>/dev/null || echo '$(GIT_REV) $(CFLAGS)' >$@
FORCE:

# The tests call python3 several hundred times.  Behind a version
# manager's shim (pyenv's costs ~0.4 s a call) that is minutes of a test
# run: the checks get the interpreter the shim resolves to, first on
# their PATH (build/pybin/python3, a link to it).
# (Resolved to the file itself: a make run from a check already has
# build/pybin first on PATH.)
PYTHON_REAL := $(shell python3 -c 'import os, sys; print(os.path.realpath(sys.executable))' 2>/dev/null)
ifneq ($(PYTHON_REAL),)
export PATH := $(CURDIR)/build/pybin:$(PATH)
build/pybin/python3: FORCE
	@mkdir -p $(@D) && ln -sfn $(PYTHON_REAL) $@
endif
PYBIN := $(if $(PYTHON_REAL),build/pybin/python3)

.PHONY: FORCE all test test-builds unit e2e vm-selftest vm-full insn golden asan tsan arm64 install uninstall clean examples check-deps check-includes check-funclen bench bench-locks report fuzz fuzz-ltlog dist

all: lockbench

lockbench: build/release/lockbench
	cp $< $@

# `make V=1` shows the full command lines.
Q := $(if $(V),,@)

define flavour
build/$(1)/%.o: %.c
	@mkdir -p $$(dir $$@)
	$$(if $$(Q),@echo "  CC [$(1)] $$<")
	$(Q)$$(CC_$(1)) $$(ALL_CFLAGS) $$(XCFLAGS_$(1)) $$(SAN_$(1)) $$(XDEFS) -MMD -MP -c $$< -o $$@

build/$(1)/cli/provenance.o: build/provenance.stamp
build/$(1)/cli/provenance.o: XDEFS = $(PROV_DEFS)
build/$(1)/workloads/loop_api.o: XDEFS = -DLOCKBENCH_LOOP_ABI=$$(LOOP_ABI)
build/$(1)/kernel/tree/ktree.o: XDEFS = -DLOCKBENCH_LOOP_ABI=$$(LOOP_ABI)

build/$(1)/lockbench: build/$(1)/main.o $(call objs,$(1))
	$$(if $$(Q),@echo "  LD [$(1)] $$@")
	$(Q)$$(CC_$(1)) $$(SAN_$(1)) $$^ -o $$@ $$(if $$(XLIBS_$(1)),$$(XLIBS_$(1)) $(SYS_LIBS),$$(LIBS))

build/$(1)/tests/%: tests/%.c $(TEST_SUPPORT) $(call objs,$(1))
	@mkdir -p $$(dir $$@)
	$$(if $$(Q),@echo "  CC+LD [$(1)] $$@")
	$(Q)$$(CC_$(1)) $$(ALL_CFLAGS) $$(XCFLAGS_$(1)) $$(SAN_$(1)) -Itests -Itests/fakesys -Itopology $$^ -o $$@ $$(if $$(XLIBS_$(1)),$$(XLIBS_$(1)) $(SYS_LIBS),$$(LIBS)) -lcmocka
endef
$(eval $(call flavour,release))
$(eval $(call flavour,asan))
$(eval $(call flavour,tsan))
$(eval $(call flavour,arm64))

# Keep test binaries built through the unit-% pattern rule.
.SECONDARY: $(foreach f,release asan tsan arm64,$(foreach t,$(TESTS),build/$(f)/tests/$(t)))

-include $(shell find build -name '*.d' 2>/dev/null)

# ---- tests ---------------------------------------------------------------

# test_locks validates the kernel-style example plugin like every
# built-in lock (LB_PLUGINS).
unit-%: $(foreach t,$(TESTS),build/%/tests/$(t)) | examples
	@set -e; for t in $^; do echo "== $$t"; \
		LB_PLUGINS=build/$(KERNEL_EXAMPLE).so:build/tests/plugins/kernel_ticket.so $$t; done

# The example's smp_cond_load_acquire() loop waits with pause (x86).
# The built-in qspinlock takes the kernel's x86 instructions (lock bts,
# byte and half-word stores: tests/disasm_qspin.sh); the ticket lock x86's
# pre-v4.2 ones (lock xadd, 16-bit wait and release: tests/disasm_ticket.sh).
# The CLH test plugin on its own inline loops, the context private
# (LOCKBENCH_PLUGIN_LOOPS_PRIVATE) and shared, validated at 1, 2, 8 threads.
unit: unit-release lockbench
	tests/disasm_wait.sh native build/$(KERNEL_EXAMPLE).so
	tests/disasm_qspin.sh native lockbench
	tests/disasm_ticket.sh native lockbench
	LB_PLUGINS=build/tests/plugins/clh_loops.so LB_ONLY=clh_inline,clh_plain \
		LB_INLINE=clh_inline,clh_plain LB_PRIVATE=clh_inline \
		LB_VALIDATE_THREADS=1,2,8 build/release/tests/test_locks

e2e: lockbench | $(PYBIN)
	tests/e2e.sh ./lockbench
	tests/e2e_machine.sh ./lockbench
	tests/e2e_syscheck.sh ./lockbench
	tests/e2e_results.sh ./lockbench
	tests/e2e_compare.sh ./lockbench
	tests/e2e_outputs.sh ./lockbench
	tests/e2e_outext.sh ./lockbench
	tests/e2e_notes.sh ./lockbench
	tests/e2e_readme.sh ./lockbench
	tests/e2e_docs.sh ./lockbench
	tests/e2e_topo.sh ./lockbench
	tests/e2e_scale.sh ./lockbench
	tests/e2e_plugin.sh ./lockbench
	tests/e2e_ktree.sh ./lockbench
	tests/e2e_ktree_real.sh ./lockbench
	tests/e2e_work.sh ./lockbench
	tests/e2e_handover.sh ./lockbench
	tests/e2e_noise.sh ./lockbench
	tests/e2e_delays_sim.sh ./lockbench
	tests/e2e_cli.sh ./lockbench
	tests/e2e_sweep.sh ./lockbench
	tests/e2e_counters.sh ./lockbench
	tests/e2e_faults.sh ./lockbench
	tests/e2e_faults_safety.sh ./lockbench
	tests/e2e_faults_io.sh ./lockbench
	tests/e2e_faults_trust.sh ./lockbench
	tests/e2e_faults_input.sh ./lockbench
	tests/e2e_faults_end.sh ./lockbench
	tests/e2e_faults_words.sh ./lockbench
	tests/e2e_faults_write.sh ./lockbench
	tests/e2e_faults_run.sh ./lockbench
	tests/e2e_locktorture.sh ./lockbench
	tests/e2e_fleet.sh ./lockbench
	tests/e2e_report.sh ./lockbench
	tests/e2e_vm.sh ./lockbench

asan: $(PYBIN) build/asan/lockbench $(foreach t,$(TESTS),build/asan/tests/$(t))
	@set -e; for t in $(TESTS); do echo "== asan $$t"; \
		ASAN_OPTIONS=detect_leaks=1 build/asan/tests/$$t; done
	LB_E2E_QUICK=1 tests/e2e.sh build/asan/lockbench
	tests/e2e_results.sh build/asan/lockbench
	tests/e2e_compare.sh build/asan/lockbench
	tests/e2e_sweep.sh build/asan/lockbench
	LB_E2E_QUICK=1 tests/e2e_plugin.sh build/asan/lockbench
	tests/e2e_locktorture.sh build/asan/lockbench

# TSan on the lock validation: every lock's happens-before edges checked
# on the plain critical-section data.
# The kernel-style plugin is built with -fsanitize=thread too (TSan sees
# only instrumented atomics) and validated at 2, 8 and 32 threads.
# The fixture kernel trees' locks (tests/fixtures/ktree-*) are built by
# the layer with -fsanitize=thread (tests/ktree_plugins.sh) and validated
# at 1, 2 and 8 threads.
tsan: build/tsan/tests/test_locks build/tsan/tests/test_kernel_h build/tsan/$(KERNEL_EXAMPLE).so \
		build/tsan/examples/ticket_backoff.so build/tsan/tests/plugins/clh_loops.so lockbench \
		build/tsan/tests/test_takes
	LB_VALIDATE_THREADS=2,8 LB_VALIDATE_SECONDS=0.1 LB_SKIP_BROKEN=1 \
		TSAN_OPTIONS=halt_on_error=1 build/tsan/tests/test_locks
	LB_PLUGINS=build/tsan/$(KERNEL_EXAMPLE).so LB_ONLY=kernel_mcs \
		LB_VALIDATE_THREADS=2,8,32 LB_VALIDATE_SECONDS=0.1 \
		TSAN_OPTIONS=halt_on_error=1 build/tsan/tests/test_locks
	@# a plugin on its own inline loops (LOCKBENCH_PLUGIN_LOOPS)
	LB_PLUGINS=build/tsan/examples/ticket_backoff.so LB_ONLY=ticket_backoff \
		LB_VALIDATE_THREADS=2,8 LB_VALIDATE_SECONDS=0.1 \
		TSAN_OPTIONS=halt_on_error=1 build/tsan/tests/test_locks
	@# ... and with a private context (LOCKBENCH_PLUGIN_LOOPS_PRIVATE)
	LB_PLUGINS=build/tsan/tests/plugins/clh_loops.so LB_ONLY=clh_inline,clh_plain \
		LB_INLINE=clh_inline,clh_plain LB_PRIVATE=clh_inline \
		LB_VALIDATE_THREADS=2,8 LB_VALIDATE_SECONDS=0.1 \
		TSAN_OPTIONS=halt_on_error=1 build/tsan/tests/test_locks
	tests/ktree_plugins.sh ./lockbench build/tsan/ktree cc -fsanitize=thread
	LB_PLUGINS=$$(cat build/tsan/ktree/plugins) \
		LB_ONLY=qspinlock_one,qrwlock_one,osq_one,qspinlock_split \
		LB_VALIDATE_THREADS=1,2,8 LB_VALIDATE_SECONDS=0.1 \
		TSAN_OPTIONS=halt_on_error=1 build/tsan/tests/test_locks
	TSAN_OPTIONS=halt_on_error=1 build/tsan/tests/test_kernel_h
	@# the host takes: a thread per CPU at once (system check)
	TSAN_OPTIONS=halt_on_error=1 build/tsan/tests/test_takes

# arm64: build the binary and every test with the cross compiler and the
# :arm64 libraries (-Werror), run unit tests under qemu-user, and the
# binary end to end (tests/e2e_arm64.sh: a sweep, the exclusion check
# catching busted).  Skipped, with a message, when the toolchain or
# libraries are missing; .ci/run installs them.  qemu's loader prefix is
# the root when the :arm64 C library is installed (multiarch): the
# loader and libc.so.6 must come from one glibc build, and the :arm64
# libraries (hwloc, jansson...) pull libc6:arm64 into
# /lib/aarch64-linux-gnu, beside which the cross sysroot's own loader
# (libc6-arm64-cross, another build) looped for ever in the first
# pthread_create.
QEMU_ARM64 := qemu-aarch64 -L $(if $(wildcard /lib/ld-linux-aarch64.so.1),/,/usr/aarch64-linux-gnu)
# Every unit test but test_plugin, which loads plugins built for the host.
ARM64_QEMU_TESTS := $(filter-out test_plugin,$(TESTS))
ARM64_READY := command -v $(ARM64_CC) >/dev/null && $(ARM64_PKG) --exists $(PKGS) 2>/dev/null \
	    && [ -e /usr/lib/aarch64-linux-gnu/libnuma.so ] \
	    && [ -e /usr/lib/aarch64-linux-gnu/libpfm.so ]
ARM64_BUILDS := build/arm64/lockbench $(foreach t,$(TESTS),build/arm64/tests/$(t)) \
	build/arm64/$(KERNEL_EXAMPLE).so
arm64: lockbench
	@if $(ARM64_READY); then \
		set -e; \
		$(MAKE) --no-print-directory $(ARM64_BUILDS); \
		echo "arm64: binary, tests and kernel-style plugin built"; \
		tests/disasm_wait.sh arm64 build/arm64/$(KERNEL_EXAMPLE).so; \
		tests/disasm_qspin.sh arm64 build/arm64/lockbench; \
		tests/disasm_ticket.sh arm64 build/arm64/lockbench; \
		tests/ktree_plugins.sh ./lockbench build/arm64/ktree $(ARM64_CC); \
		tests/disasm_wait.sh arm64 build/arm64/ktree/qspinlock-one.so \
			queued_spin_lock_slowpath; \
		if command -v qemu-aarch64 >/dev/null; then \
			for t in $(ARM64_QEMU_TESTS); do \
				echo "== arm64 (qemu) $$t"; \
				LB_VALIDATE_THREADS=2,8 LB_VALIDATE_SECONDS=0.1 \
				timeout 300 $(QEMU_ARM64) build/arm64/tests/$$t; done; \
			echo "== arm64 (qemu) kernel-tree fixture locks"; \
			LB_PLUGINS=$$(cat build/arm64/ktree/plugins) \
				LB_ONLY=qspinlock_one,qrwlock_one,osq_one,qspinlock_split \
				LB_VALIDATE_THREADS=1,2,8 LB_VALIDATE_SECONDS=0.1 \
				timeout 300 $(QEMU_ARM64) build/arm64/tests/test_locks; \
			tests/e2e_arm64.sh build/arm64/lockbench $(QEMU_ARM64); \
			tests/e2e_ktree_real.sh --arm64 build/arm64/lockbench $(QEMU_ARM64); \
		else echo "arm64: qemu-user not installed, tests not run"; fi; \
	else echo "arm64: cross toolchain or :arm64 libraries not installed, skipped"; fi

# libFuzzer on the input readers, FUZZ_SECONDS each (clang needed:
# apt-get install -y clang).  A crashing input is kept in
# tests/fuzz/crashes-<target>/ and make fails; test_json_read replays
# the JSON ones on every `make unit`.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_FLAGS   := -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=undefined $(PKG_CFLAGS) $(CPPFLAGS)
FUZZ_JSON_SRCS := $(wildcard output/stats/*.c output/results/*.c output/render/*.c)

build/fuzz/fuzz_json: tests/fuzz/fuzz_json.c $(FUZZ_JSON_SRCS) $(wildcard output/*/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) tests/fuzz/fuzz_json.c $(FUZZ_JSON_SRCS) -o $@ $(PKG_LIBS) -lm

# The parser and the one median it uses (output/stats/median.c).
FUZZ_LTLOG_SRCS := kernel/locktorture/ltlog.c output/stats/median.c
build/fuzz/fuzz_ltlog: tests/fuzz/fuzz_ltlog.c $(FUZZ_LTLOG_SRCS) kernel/locktorture/ltlog.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) tests/fuzz/fuzz_ltlog.c $(FUZZ_LTLOG_SRCS) -o $@ -lm

fuzz: build/fuzz/fuzz_json
	@mkdir -p build/fuzz/corpus-json tests/fuzz/crashes-json
	cp tests/golden/*/*.json build/fuzz/corpus-json/
	build/fuzz/fuzz_json -max_total_time=$(FUZZ_SECONDS) -max_len=65536 \
		-artifact_prefix=tests/fuzz/crashes-json/ build/fuzz/corpus-json

fuzz-ltlog: build/fuzz/fuzz_ltlog
	@mkdir -p build/fuzz/corpus-ltlog tests/fuzz/crashes-ltlog
	build/fuzz/fuzz_ltlog -max_total_time=$(FUZZ_SECONDS) \
		-artifact_prefix=tests/fuzz/crashes-ltlog/ build/fuzz/corpus-ltlog \
		tests/fixtures/locktorture

# tests/e2e_vm.sh's own check: guests whose lockbench breaks real-kernel
# facts (tests/vm/broken.sh) must fail its checks (docs/vm.md).
vm-selftest: lockbench | $(PYBIN)
	tests/e2e_vm.sh --self-test ./lockbench

# Every built-in lock at 64 threads in the 64-CPU, 8-node guest: too long
# for make test, which runs a few of them (docs/vm.md has the times).
vm-full: lockbench | $(PYBIN)
	tests/e2e_vm.sh --full ./lockbench

# The instruction-count guard: the cs loop of null and of the locks with a
# peer implementation (tas, ttas, ticket, anderson, mcs, clh, qspinlock) under
# valgrind against a per-operation budget (deterministic; no timing).
insn: lockbench
	tests/e2e_insn.sh ./lockbench

# The include arrows of docs/architecture.md (and a negative check that
# the checker catches planted bad includes).
check-includes: $(PYBIN)
	tests/check_includes.sh

# No function of the tree (tests apart) longer than 60 lines.
check-funclen:
	scripts/funclen

# make test compiles everything it runs first, on every CPU (TEST_JOBS),
# then runs the checks one after the other (several of them spin
# threads on every CPU: run side by side they would starve each other).
TEST_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
TEST_BUILDS := $(PYBIN) lockbench examples \
	$(foreach f,release asan,$(foreach t,$(TESTS),build/$(f)/tests/$(t))) \
	build/asan/lockbench build/tsan/tests/test_locks build/tsan/tests/test_kernel_h \
	build/tsan/$(KERNEL_EXAMPLE).so
test-builds:
	@$(MAKE) --no-print-directory -j$(TEST_JOBS) $(TEST_BUILDS) \
		$$(if $(ARM64_READY); then echo $(ARM64_BUILDS); fi)

test: test-builds
	@$(MAKE) --no-print-directory check-includes check-funclen unit e2e insn asan tsan arm64
	@echo "make test: all passed"

bench: lockbench
	scripts/bench-overhead.sh ./lockbench

bench-locks: lockbench
	scripts/bench-locks.sh ./lockbench

# docs/performance.md, generated on this machine with its host, date,
# version and command lines (a few minutes; scripts/report.sh).
report: lockbench
	scripts/report.sh ./lockbench docs/performance.md

# ---- plugins -------------------------------------------------------------

# The example plugins (examples/) and the test plugins (tests/plugins/),
# built against the in-tree public headers exactly as an out-of-tree
# plugin is built against the installed ones (<lockbench/lock.h>).
# <lockbench/loops.h> brings the worker loop template, generated
# (scripts/gen-loop-template.sh) into build/include/lockbench/ from the
# headers the loop is made of and stamped with their hash, the loop ABI
# that workloads/loop_api.c is built with too.  -Wl,--no-undefined: a
# plugin's loops must call lockbench only through the table it binds.
LOOP_TEMPLATE_SRC := topology/host/clock.h workloads/sample.h workloads/workload.h \
	workloads/loop.h workloads/loop_api.h
LOOP_TEMPLATE := build/include/lockbench/loop_template.h
LOOP_ABI = $(shell scripts/gen-loop-template.sh --abi)
LOCK_HEADERS := locks/lockbench/lock.h locks/lockbench/atomics.h locks/lockbench/kernel.h \
	locks/lockbench/loops.h
PLUGIN_FLAGS := -shared -fPIC -Ilocks -Ibuild/include -Wl,--no-undefined
PLUGINS := $(patsubst %.c,build/%.so,$(wildcard examples/*.c tests/plugins/*.c))

$(LOOP_TEMPLATE): $(LOOP_TEMPLATE_SRC) scripts/gen-loop-template.sh
	@mkdir -p $(dir $@)
	scripts/gen-loop-template.sh $@
$(foreach f,release asan tsan arm64,build/$(f)/workloads/loop_api.o \
	build/$(f)/kernel/tree/ktree.o): $(LOOP_TEMPLATE_SRC)
# A binary's kernel tree builder instantiates a tree lock's loops from
# the template beside it (kernel/tree/ktree.c): make it with every binary.
lockbench $(foreach f,release asan tsan arm64,build/$(f)/lockbench): | $(LOOP_TEMPLATE)

examples: $(PLUGINS)

build/%.so: %.c $(LOCK_HEADERS) $(LOOP_TEMPLATE)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(WARN) $(CFLAGS) $(PLUGIN_FLAGS) $< -o $@

# The same plugins for TSan (instrumented) and for arm64 (cross).
build/tsan/examples/%.so: examples/%.c $(LOCK_HEADERS) $(LOOP_TEMPLATE)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(WARN) $(CFLAGS) $(SAN_tsan) $(PLUGIN_FLAGS:-Wl,--no-undefined=) $< -o $@
build/tsan/tests/plugins/%.so: tests/plugins/%.c $(LOCK_HEADERS) $(LOOP_TEMPLATE)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(WARN) $(CFLAGS) $(SAN_tsan) $(PLUGIN_FLAGS:-Wl,--no-undefined=) $< -o $@

build/arm64/examples/%.so: examples/%.c $(LOCK_HEADERS) $(LOOP_TEMPLATE)
	@mkdir -p $(dir $@)
	$(ARM64_CC) -std=gnu11 $(WARN) $(CFLAGS) $(PLUGIN_FLAGS) $< -o $@

# The loader's unit test loads them.
build/release/tests/test_plugin build/asan/tests/test_plugin: | examples

# ---- install -------------------------------------------------------------

ABI_VERSION = $(shell sed -n 's/^\#define LOCKBENCH_ABI_VERSION //p' locks/lockbench/lock.h)

# bash completion, generated from the binary's option tables.
COMPLETION_DIR := $(PREFIX)/share/bash-completion/completions

build/lockbench.bash: build/release/lockbench
	$< help completion >$@.tmp && mv $@.tmp $@

install: lockbench build/lockbench.bash $(LOOP_TEMPLATE)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/include/lockbench $(DESTDIR)$(PREFIX)/share/pkgconfig \
		$(DESTDIR)$(COMPLETION_DIR)
	install -m 755 lockbench $(DESTDIR)$(PREFIX)/bin/lockbench
	install -m 644 build/lockbench.bash $(DESTDIR)$(COMPLETION_DIR)/lockbench
	install -m 644 lockbench.1 $(DESTDIR)$(PREFIX)/share/man/man1/lockbench.1
	install -m 644 $(LOCK_HEADERS) $(LOOP_TEMPLATE) $(DESTDIR)$(PREFIX)/include/lockbench/
	@# The kernel tree builder's layer (kernel/compat), with its own copy
	@# of the lock headers and of this binary's worker-loop template (a
	@# tree's locks carry their own loops), where build-kernel-lock looks
	@# beside bin/.
	cd kernel/compat && find include generic -type d -exec install -d \
		$(DESTDIR)$(PREFIX)/share/lockbench/compat/{} \;
	cd kernel/compat && find include generic glue.c -type f -exec install -m 644 {} \
		$(DESTDIR)$(PREFIX)/share/lockbench/compat/{} \;
	install -d $(DESTDIR)$(PREFIX)/share/lockbench/compat/include/lockbench
	install -m 644 $(LOCK_HEADERS) $(LOOP_TEMPLATE) \
		$(DESTDIR)$(PREFIX)/share/lockbench/compat/include/lockbench/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' \
		-e 's|@ABI@|$(ABI_VERSION)|' lockbench.pc.in \
		>$(DESTDIR)$(PREFIX)/share/pkgconfig/lockbench.pc

# The source of HEAD as lockbench-VERSION.tar.gz (uncommitted changes
# are not in it), GIT-REVISION holding the commit: built from it, even
# inside another git tree, the JSON names this commit.
dist:
	git -C '$(SRCDIR)' archive --format=tar.gz --prefix=lockbench-$(VERSION)/ \
		-o '$(CURDIR)/lockbench-$(VERSION).tar.gz' HEAD

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/lockbench $(DESTDIR)$(PREFIX)/share/man/man1/lockbench.1 \
		$(DESTDIR)$(PREFIX)/include/lockbench/lock.h \
		$(DESTDIR)$(PREFIX)/include/lockbench/atomics.h \
		$(DESTDIR)$(PREFIX)/include/lockbench/kernel.h \
		$(DESTDIR)$(PREFIX)/include/lockbench/loops.h \
		$(DESTDIR)$(PREFIX)/include/lockbench/loop_template.h \
		$(DESTDIR)$(PREFIX)/share/pkgconfig/lockbench.pc \
		$(DESTDIR)$(COMPLETION_DIR)/lockbench
	-rmdir $(DESTDIR)$(PREFIX)/include/lockbench
	rm -rf $(DESTDIR)$(PREFIX)/share/lockbench/compat
	-rmdir $(DESTDIR)$(PREFIX)/share/lockbench

# The same check as a goal of its own: exit 1 with the one line.
check-deps:
	@missing="$(strip $(DEPS_MISSING) $(TEST_DEPS_MISSING))"; \
	if [ -n "$$missing" ]; then \
		echo "lockbench: missing build dependencies; install them with: apt-get install -y $$missing" >&2; \
		exit 1; fi; echo "check-deps: all build and test dependencies found"

clean:
	rm -rf build lockbench tests/out
