# lockbench - see README.md.  `make` builds ./lockbench; `make test` runs
# every test: unit (cmocka), golden, end-to-end, sanitizer builds.

VERSION    := 0.1.0
PREFIX     ?= /usr/local
DESTDIR    ?=
CC         ?= cc
PKGS       := hwloc jansson
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS))
PKG_LIBS   := $(shell pkg-config --libs $(PKGS))

CFLAGS     ?= -O2 -g
WARN       := -Wall -Wextra -Werror
CPPFLAGS   += -DLOCKBENCH_VERSION='"$(VERSION)"' -Ilocks -Ioutput
ALL_CFLAGS := -std=gnu11 $(WARN) $(CFLAGS) -pthread $(PKG_CFLAGS) $(CPPFLAGS)
LIBS       := $(PKG_LIBS) -lnuma -lm -pthread -ldl

SRCS    := $(wildcard locks/*.c workloads/*.c topology/*.c output/*.c)
TESTS   := $(patsubst tests/%.c,%,$(wildcard tests/test_*.c))
# Test helpers linked into every test binary (fake sysfs trees).
TEST_SUPPORT := tests/fakesys/fakesys.c

# Build flavours: objects and test binaries live in build/<flavour>/.
SAN_asan := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
SAN_tsan := -fsanitize=thread
SAN_release :=

objs = $(patsubst %.c,build/$(1)/%.o,$(SRCS))

.PHONY: all test unit e2e golden asan tsan arm64 install uninstall clean examples check-deps bench fuzz fuzz-ltlog

all: lockbench

lockbench: build/release/lockbench
	cp $< $@

define flavour
build/$(1)/%.o: %.c
	@mkdir -p $$(dir $$@)
	$$(CC) $$(ALL_CFLAGS) $$(SAN_$(1)) -MMD -MP -c $$< -o $$@

build/$(1)/lockbench: build/$(1)/main.o $(call objs,$(1))
	$$(CC) $$(SAN_$(1)) $$^ -o $$@ $$(LIBS)

build/$(1)/tests/%: tests/%.c $(TEST_SUPPORT) $(call objs,$(1))
	@mkdir -p $$(dir $$@)
	$$(CC) $$(ALL_CFLAGS) $$(SAN_$(1)) -Itests -Itests/fakesys -Itopology $$^ -o $$@ $$(LIBS) -lcmocka
endef
$(eval $(call flavour,release))
$(eval $(call flavour,asan))
$(eval $(call flavour,tsan))

.SECONDARY:

-include $(shell find build -name '*.d' 2>/dev/null)

# ---- tests ---------------------------------------------------------------

unit-%: $(foreach t,$(TESTS),build/%/tests/$(t))
	@set -e; for t in $^; do echo "== $$t"; $$t; done

unit: unit-release

e2e: lockbench
	tests/e2e.sh ./lockbench
	tests/e2e_machine.sh ./lockbench

asan: build/asan/lockbench $(foreach t,$(TESTS),build/asan/tests/$(t))
	@set -e; for t in $(TESTS); do echo "== asan $$t"; \
		ASAN_OPTIONS=detect_leaks=1 build/asan/tests/$$t; done
	ASAN_OPTIONS=detect_leaks=0 LB_E2E_QUICK=1 tests/e2e.sh build/asan/lockbench

# TSan on the lock validation: every lock's happens-before edges checked
# on the plain critical-section data.
tsan: build/tsan/tests/test_locks
	LB_VALIDATE_THREADS=2,8 LB_VALIDATE_SECONDS=0.1 LB_SKIP_BROKEN=1 \
		TSAN_OPTIONS=halt_on_error=1 build/tsan/tests/test_locks

# Cross-compile every source for arm64 (-Werror) when the toolchain is
# installed; .ci/run installs it.
ARM64_CC ?= aarch64-linux-gnu-gcc
arm64:
	@if command -v $(ARM64_CC) >/dev/null; then \
		set -e; for f in main.c $(SRCS); do \
			$(ARM64_CC) -std=gnu11 $(WARN) -O2 -pthread $(CPPFLAGS) \
				-I/usr/include -c $$f -o /dev/null || exit 1; done; \
		echo "arm64: all sources compile with -Werror"; \
	else echo "arm64: $(ARM64_CC) not installed, skipped"; fi

# libFuzzer on the input readers, FUZZ_SECONDS each (clang needed:
# apt-get install -y clang).  A crashing input is kept in
# tests/fuzz/crashes-<target>/ and make fails; test_json_read replays
# the JSON ones on every `make unit`.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_FLAGS   := -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=undefined $(PKG_CFLAGS) $(CPPFLAGS)
FUZZ_JSON_SRCS := output/json_read.c output/results.c output/stats.c \
		  output/render.c $(wildcard output/render_*.c)

build/fuzz/fuzz_json: tests/fuzz/fuzz_json.c $(FUZZ_JSON_SRCS) $(wildcard output/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) tests/fuzz/fuzz_json.c $(FUZZ_JSON_SRCS) -o $@ $(PKG_LIBS) -lm

build/fuzz/fuzz_ltlog: tests/fuzz/fuzz_ltlog.c output/ltlog.c output/ltlog.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) tests/fuzz/fuzz_ltlog.c output/ltlog.c -o $@ -lm

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

test: unit e2e asan tsan arm64
	@echo "make test: all passed"

bench: lockbench
	scripts/bench-overhead.sh ./lockbench

# ---- install -------------------------------------------------------------

install: lockbench
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 lockbench $(DESTDIR)$(PREFIX)/bin/lockbench
	install -m 644 lockbench.1 $(DESTDIR)$(PREFIX)/share/man/man1/lockbench.1

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/lockbench $(DESTDIR)$(PREFIX)/share/man/man1/lockbench.1

clean:
	rm -rf build lockbench tests/out
