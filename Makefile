# inferscope — build, run, test.
# Layers: engine/ (no SDL) -> viz/ (SDL drawing) -> src/ (app, CLI). Each layer is a
# static library; engine/ is compiled WITHOUT the SDL flags so an SDL include there
# fails the build. Sources are found by wildcard: adding a file needs no Makefile edit.

CC      ?= cc
BUILD   ?= build
# No -march=native: the SIMD kernels are chosen at run time from the CPU's features
# (engine/kern_isa.h), so a binary built here runs at full speed on any machine of the
# same architecture. ARCH_FLAGS is for an explicit baseline (e.g. -march=x86-64-v2).
ARCH_FLAGS ?=
OPT     ?= -O2 $(ARCH_FLAGS)
SAN     ?=

WARN     = -std=c17 -Wall -Wextra -Wpedantic -Werror
# src/ is in rooms (src/README.md): one -I per room, so an include names the header alone
SRC_ROOMS := $(patsubst %/,%,$(sort $(dir $(wildcard src/*/*.c src/*/*.h))))
CPPFLAGS = -D_DEFAULT_SOURCE -Iengine -Iviz -Isrc $(addprefix -I,$(SRC_ROOMS)) -MMD -MP
# third-party headers via -isystem so their warnings never break -Werror
isys     = $(patsubst -I%,-isystem %,$(1))
PKG_CONFIG ?= pkg-config
ENGINE_PKGS = libpcre2-8 libcjson openblas
APP_PKGS    = sdl2 SDL2_ttf libcrypto libmicrohttpd
ENGINE_CFLAGS := $(call isys,$(shell $(PKG_CONFIG) --cflags $(ENGINE_PKGS) 2>/dev/null))
APP_CFLAGS    := $(call isys,$(shell $(PKG_CONFIG) --cflags $(APP_PKGS) 2>/dev/null)) -isystem /usr/include/stb
LIBS          := $(shell $(PKG_CONFIG) --libs $(APP_PKGS) $(ENGINE_PKGS) 2>/dev/null) -lm
ENGINE_LIBS   := $(shell $(PKG_CONFIG) --libs $(ENGINE_PKGS) 2>/dev/null) -lm

# Before anything is compiled, name the Debian packages that are missing (instead of
# "fatal error: SDL.h: No such file or directory"). Goals that install them first (run,
# test, ...) or need none (clean, deps, gpt2, uninstall) skip the check; their inner
# `make all` checks again. pkg-config module:Debian package, as in scripts/install-deps.sh.
DEP_MODULES  = sdl2:libsdl2-dev SDL2_ttf:libsdl2-ttf-dev libcrypto:libssl-dev \
               libpcre2-8:libpcre2-dev libcjson:libcjson-dev openblas:libopenblas-dev \
               libmicrohttpd:libmicrohttpd-dev
STB_HEADER  ?= /usr/include/stb/stb_image_write.h
NO_CHECK_GOALS = run test asan bench fuzz fuzz-short deps deps-test clean gpt2 uninstall test-arm64 engine-tests
ifneq ($(filter-out $(NO_CHECK_GOALS),$(or $(MAKECMDGOALS),all)),)
  dep_pc   = $(shell $(PKG_CONFIG) --exists $(1) >/dev/null 2>&1 && echo ok)
  MISSING := $(if $(shell command -v $(firstword $(CC)) 2>/dev/null),,build-essential) \
             $(if $(shell command -v $(PKG_CONFIG) 2>/dev/null),,pkg-config) \
             $(foreach d,$(DEP_MODULES),$(if $(call dep_pc,$(firstword $(subst :, ,$(d)))),,$(lastword $(subst :, ,$(d))))) \
             $(if $(wildcard $(STB_HEADER)),,libstb-dev)
  MISSING := $(sort $(strip $(MISSING)))
  ifneq ($(MISSING),)
    $(error missing Debian package(s): $(MISSING). `make deps` (or scripts/install-deps.sh) installs them; `make run` does it too)
  endif
endif

ifeq ($(SAN),1)
  OPT   = -O1 -g $(ARCH_FLAGS)
  SANFL = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
endif
# FUZZ=1 (set by `make fuzz`, with CC=clang): every object gets libFuzzer's coverage
# hooks plus ASan+UBSan; only the harness link adds libFuzzer's main.
FUZZ_SECONDS ?= 60
ifeq ($(FUZZ),1)
  OPT   = -O1 -g $(ARCH_FLAGS)
  SANFL = -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
endif
CFLAGS_ALL = $(WARN) $(OPT) -g -fopenmp $(SANFL)

ENGINE_SRC := $(wildcard engine/*.c)
VIZ_SRC    := $(wildcard viz/*.c)
APP_SRC    := $(wildcard src/*/*.c)
TEST_SRC   := $(wildcard tests/test_*.c)
ENGINE_OBJ := $(ENGINE_SRC:%.c=$(BUILD)/%.o)
VIZ_OBJ    := $(VIZ_SRC:%.c=$(BUILD)/%.o)
APP_OBJ    := $(APP_SRC:%.c=$(BUILD)/%.o)
TEST_BIN   := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
# the class room's student page (src/class/page.*: HTML, CSS, JS) is compiled in as bytes
CLASS_PAGE_FILES := src/class/page.html src/class/page.css src/class/page.js
APP_OBJ    += $(BUILD)/gen/class_page_files.o
LIBENGINE  := $(BUILD)/libengine.a
LIBVIZ     := $(BUILD)/libviz.a
LIBAPP     := $(BUILD)/libapp.a
ALL_LIBS    = $(LIBAPP) $(LIBVIZ) $(LIBENGINE)
BIN        := $(BUILD)/inferscope

.PHONY: all run test asan tests bench deps deps-test clean gpt2 fuzz soak fuzz-short fuzz-bins install uninstall test-arm64 engine-tests
.DEFAULT_GOAL := all
# keep object files of test programs (otherwise make deletes them as intermediates)
.SECONDARY:

# all: build the app (build/inferscope)
all: $(BIN)

# run: install missing packages, build, open the app on the bundled model
run: deps
	@$(MAKE) --no-print-directory all
	./$(BIN)

# test: the whole suite, normal build and again under ASan+UBSan; one summary line
test: deps-test
	@$(MAKE) --no-print-directory all tests
	@$(MAKE) --no-print-directory BUILD=build-asan SAN=1 all tests
	@tests/run.sh build build-asan

# asan: only the sanitizer run of the suite
asan: deps-test
	@$(MAKE) --no-print-directory BUILD=build-asan SAN=1 all tests
	@tests/run.sh build-asan

# bench: speed figures (medians) of the engine and tokenizer; not part of the tests
bench: deps
	@$(MAKE) --no-print-directory all $(BUILD)/bench
	./$(BUILD)/bench

# soak: the window driven by keys for SOAK_MINUTES (5) under Xvfb; memory must stay flat
soak: all
	@tests/soak.sh $(BUILD)

# deps: install the Debian packages needed to build and run (idempotent)
deps:
	@scripts/install-deps.sh

# deps-test: the same plus what the tests use (Xvfb, xdotool, ImageMagick, clang)
deps-test:
	@scripts/install-deps.sh --test

# tests: build every test binary (tests/test_*.c)
tests: $(TEST_BIN)

# test-arm64: cross-build the engine for 64-bit ARM (NEON kernels) and run its tests
# under qemu-user (Debian: gcc-aarch64-linux-gnu, qemu-user-static, arm64 -dev libs)
ARM64_TESTS := test_forward test_kernels_isa test_weights_half test_map_guard test_loader test_safetensors \
               test_tokenizer test_utf8 test_json_escape test_thread_governor
test-arm64:
	@scripts/install-deps.sh --arm64
	@PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig \
	  $(MAKE) --no-print-directory BUILD=build-arm64 CC=aarch64-linux-gnu-gcc \
	  ENGINE_TESTS="$(ARM64_TESTS)" engine-tests
	@tests/run-arm64.sh build-arm64 $(ARM64_TESTS)

# engine-tests: the tests named in ENGINE_TESTS linked against the engine alone (no SDL)
engine-tests: $(patsubst %,$(BUILD)/etests/%,$(ENGINE_TESTS))
$(BUILD)/etests/%: $(BUILD)/tests/%.o $(LIBENGINE)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(ENGINE_LIBS)

# gpt2: opt-in download of real GPT-2 weights (SIZE=124M|355M|774M|1558M)
gpt2:
	@scripts/download-gpt2.sh $(SIZE)

# fuzz: libFuzzer harnesses (tests/fuzz/fuzz_*.c) under ASan+UBSan, FUZZ_SECONDS each (60),
# or FUZZ_RUNS=N executions each instead; FUZZ_ONLY=fuzz_NAME runs one harness
fuzz: deps-test
	@$(MAKE) --no-print-directory BUILD=build-fuzz CC=clang FUZZ=1 fuzz-bins
	@FUZZ_RUNS=$(FUZZ_RUNS) FUZZ_ONLY=$(FUZZ_ONLY) scripts/fuzz-run.sh build-fuzz $(FUZZ_SECONDS)

# fuzz-short: the same for 10 s per harness (what CI runs after make test)
fuzz-short:
	@$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=10 FUZZ_RUNS= FUZZ_ONLY=

$(BUILD)/engine/%.o: engine/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS_ALL) $(ENGINE_CFLAGS) -c $< -o $@

$(BUILD)/viz/%.o: viz/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS_ALL) $(ENGINE_CFLAGS) $(APP_CFLAGS) -c $< -o $@

$(BUILD)/src/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS_ALL) $(ENGINE_CFLAGS) $(APP_CFLAGS) -c $< -o $@

$(BUILD)/gen/class_page_files.c: $(CLASS_PAGE_FILES) scripts/embed-files.sh
	@mkdir -p $(dir $@)
	scripts/embed-files.sh CLASS_PAGE_HTML src/class/page.html CLASS_PAGE_CSS src/class/page.css \
	  CLASS_PAGE_JS src/class/page.js >$@.tmp && mv $@.tmp $@

$(BUILD)/gen/%.o: $(BUILD)/gen/%.c
	$(CC) $(CFLAGS_ALL) -c $< -o $@

$(BUILD)/tests/%.o: tests/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests $(CFLAGS_ALL) $(ENGINE_CFLAGS) $(APP_CFLAGS) -c $< -o $@

$(BUILD)/tools/%.o: tools/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itools/bench $(CFLAGS_ALL) $(ENGINE_CFLAGS) $(APP_CFLAGS) -c $< -o $@

$(LIBENGINE): $(ENGINE_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(LIBVIZ): $(VIZ_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(LIBAPP): $(APP_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BIN): $(BUILD)/src/main.o $(ALL_LIBS)
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(LIBS)

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(ALL_LIBS)
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(LIBS)

FUZZ_BIN := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))
fuzz-bins: $(FUZZ_BIN)
$(BUILD)/fuzz/%: tests/fuzz/%.c $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests/fuzz $(CFLAGS_ALL) $(ENGINE_CFLAGS) $(APP_CFLAGS) -fsanitize=fuzzer -o $@ $< $(ALL_LIBS) $(LIBS)

BENCH_OBJ  := $(patsubst %.c,$(BUILD)/%.o,$(wildcard tools/bench/*.c))
$(BUILD)/bench: $(BENCH_OBJ) $(ALL_LIBS)
	$(CC) $(CFLAGS_ALL) -o $@ $^ $(LIBS)

# install: the binary, its assets (fonts, tokenizer, bundled model), the lessons, a .desktop
# entry and the man page under PREFIX (default /usr/local; DESTDIR for packagers). The
# installed binary finds PREFIX/share/inferscope from its own location, no source tree needed.
PREFIX  ?= /usr/local
BINDIR   = $(DESTDIR)$(PREFIX)/bin
SHAREDIR = $(DESTDIR)$(PREFIX)/share/inferscope
APPSDIR  = $(DESTDIR)$(PREFIX)/share/applications
MAN1DIR  = $(DESTDIR)$(PREFIX)/share/man/man1
INSTALL_ASSETS = fonts tokenizer models/stories16m
install: all
	install -d $(BINDIR) $(SHAREDIR)/lessons $(APPSDIR) $(MAN1DIR)
	install -m 755 $(BIN) $(BINDIR)/inferscope
	for d in $(INSTALL_ASSETS); do install -d $(SHAREDIR)/$$d && install -m 644 assets/$$d/* $(SHAREDIR)/$$d/ || exit 1; done
	install -m 644 lessons/*.lesson lessons/README.md $(SHAREDIR)/lessons/
	sed 's|@BINDIR@|$(PREFIX)/bin|g' assets/desktop/inferscope.desktop.in > $(APPSDIR)/inferscope.desktop
	chmod 644 $(APPSDIR)/inferscope.desktop
	install -m 644 assets/man/inferscope.1 $(MAN1DIR)/inferscope.1
	@echo "installed: $(PREFIX)/bin/inferscope (assets and lessons in $(PREFIX)/share/inferscope)"

# uninstall: remove exactly what install put under PREFIX
uninstall:
	rm -f $(BINDIR)/inferscope $(APPSDIR)/inferscope.desktop $(MAN1DIR)/inferscope.1
	rm -rf $(SHAREDIR)

# clean: remove every build output
clean:
	rm -rf build build-asan build-fuzz build-arm64

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
