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
# OpenMP: the compiler's runtime natively. test-wasm has none: -fopenmp-simd parses the
# `#pragma omp` lines (their clauses still use what they name) and runs each region on
# the one thread there is; engine/no_openmp/omp.h answers the omp_* calls
OPENMP  ?= -fopenmp
# extra flags of the engine-tests link (test-wasm: Node's file system, memory growth)
LDFLAGS ?=

WARN     = -std=c17 -Wall -Wextra -Wpedantic -Werror
# src/ is in rooms (src/README.md): one -I per room, so an include names the header alone
SRC_ROOMS := $(patsubst %/,%,$(sort $(dir $(wildcard src/*/*.c src/*/*.h))))
CPPFLAGS = -D_DEFAULT_SOURCE -Iengine -Iviz -Isrc $(addprefix -I,$(SRC_ROOMS)) -MMD -MP
# third-party headers via -isystem so their warnings never break -Werror
isys     = $(patsubst -I%,-isystem %,$(1))
PKG_CONFIG ?= pkg-config
ENGINE_PKGS = libpcre2-8 libcjson openblas
APP_PKGS    = sdl2 SDL2_ttf libcrypto harfbuzz-subset cairo-pdf cairo-ft fontconfig libmicrohttpd libqrencode
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
               harfbuzz-subset:libharfbuzz-dev cairo-pdf:libcairo2-dev fontconfig:libfontconfig-dev \
               libmicrohttpd:libmicrohttpd-dev libqrencode:libqrencode-dev
STB_HEADER  ?= /usr/include/stb/stb_image_write.h
NO_CHECK_GOALS = run test asan bench fuzz fuzz-short deps deps-test clean gpt2 uninstall test-arm64 test-wasm engine-tests
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
CFLAGS_ALL = $(WARN) $(OPT) -g $(OPENMP) $(SANFL)

ENGINE_SRC := $(wildcard engine/*.c)
VIZ_SRC    := $(wildcard viz/*.c)
# src/platforms/: one file per platform behind platform.h; a build compiles only its own
# (PLATFORM=desktop_sdl natively, PLATFORM=web with emcc: platform_web.c includes emscripten.h)
PLATFORM   ?= desktop_sdl
OTHER_PLATFORMS := $(filter-out src/platforms/platform_$(PLATFORM).c,$(wildcard src/platforms/platform_*.c))
APP_SRC    := $(filter-out $(OTHER_PLATFORMS),$(wildcard src/*/*.c))
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

.PHONY: all run test asan tests bench class-load deps deps-test clean gpt2 fuzz soak fuzz-short fuzz-bins install uninstall test-arm64 test-wasm engine-tests
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

# class-load: the class room for CLASS_LOAD_SECONDS (30) under 300 students and 100
# malformed requests a second, loopback only, beside the window's frame loop: the totals
# (checked), frame times and memory (printed); a measurement, not a test
CLASS_LOAD_SECONDS ?= 30
class-load: all $(BUILD)/class-load
	SDL_VIDEODRIVER=dummy SDL_RENDER_DRIVER=software ./$(BUILD)/class-load $(CLASS_LOAD_SECONDS)
$(BUILD)/class-load: tools/class_load/class_load.c tests/class_client.h $(ALL_LIBS)
	$(CC) $(CPPFLAGS) -Itests $(CFLAGS_ALL) $(ENGINE_CFLAGS) $(APP_CFLAGS) -o $@ $< $(ALL_LIBS) $(LIBS)

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
# (class-load is built with the tests so it never rots; it runs only when asked)
tests: $(TEST_BIN) $(BUILD)/class-load

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

# test-wasm: the engine built with emcc for WebAssembly (SIMD128 kernels, one thread) and
# its tests run under Node.js, reading the repository's files directly (NODERAWFS).
# scripts/web-deps.sh installs emscripten and nodejs and builds PCRE2 and cJSON from
# Debian's sources (cached outside the tree). emcc has no OpenMP and the engine needs no
# OpenBLAS (kernels.c without cblas.h: the matvec per row).
# Not here: test_map_guard (fork and SIGBUS: Node has neither; mmap there is a copy) and
# test_big_model_mmap (a 6.4 GB file: 32-bit sizes, at most 4 GB of memory).
WASM_TESTS := $(filter-out test_map_guard,$(ARM64_TESTS)) test_attn_explain test_head_scores test_lens \
              test_ngram_index test_seq_metrics test_settings_spec test_token_stats test_trace_lean
WASM_LDFLAGS = -sNODERAWFS=1 -sALLOW_MEMORY_GROWTH=1 -sEXIT_RUNTIME=1
test-wasm:
	@scripts/web-deps.sh engine
	@PKG_CONFIG_LIBDIR=$$(scripts/web-deps.sh --pkg-config-libdir engine) NODE_PATH=/usr/share/nodejs \
	  $(MAKE) --no-print-directory BUILD=build-wasm CC=emcc AR=emar ARCH_FLAGS=-msimd128 \
	  OPENMP="-fopenmp-simd -isystem engine/no_openmp" ENGINE_PKGS="libpcre2-8 libcjson" LDFLAGS="$(WASM_LDFLAGS)" \
	  ENGINE_TESTS="$(WASM_TESTS)" engine-tests
	@tests/run-wasm.sh build-wasm $(WASM_TESTS)

# engine-tests: the tests named in ENGINE_TESTS linked against the engine alone (no SDL)
engine-tests: $(patsubst %,$(BUILD)/etests/%,$(ENGINE_TESTS))
$(BUILD)/etests/%: $(BUILD)/tests/%.o $(LIBENGINE)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $^ $(ENGINE_LIBS)

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
	rm -f $@ && $(AR) rcs $@ $^

$(LIBVIZ): $(VIZ_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

$(LIBAPP): $(APP_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

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
INSTALL_MANIFEST = $(SHAREDIR)/.install-manifest
install: all
	install -d $(BINDIR) $(SHAREDIR)/lessons $(APPSDIR) $(MAN1DIR)
	install -m 755 $(BIN) $(BINDIR)/inferscope
	for d in $(INSTALL_ASSETS); do install -d $(SHAREDIR)/$$d && install -m 644 assets/$$d/* $(SHAREDIR)/$$d/ || exit 1; done
	install -m 644 lessons/*.lesson lessons/README.md $(SHAREDIR)/lessons/
	sed 's|@BINDIR@|$(PREFIX)/bin|g' assets/desktop/inferscope.desktop.in > $(APPSDIR)/inferscope.desktop
	chmod 644 $(APPSDIR)/inferscope.desktop
	install -m 644 assets/man/inferscope.1 $(MAN1DIR)/inferscope.1
	@# the manifest: every file written above (relative to PREFIX), then the folders of our
	@# own (a trailing /), parents first; uninstall reads it back and removes only those
	{ echo bin/inferscope; echo share/applications/inferscope.desktop; echo share/man/man1/inferscope.1; \
	  for d in $(INSTALL_ASSETS); do for f in assets/$$d/*; do echo share/inferscope/$$d/$${f##*/}; done; done; \
	  for f in lessons/*.lesson lessons/README.md; do echo share/inferscope/lessons/$${f##*/}; done; \
	  echo share/inferscope/.install-manifest; echo share/inferscope/; echo share/inferscope/lessons/; \
	  for d in $(INSTALL_ASSETS); do p=share/inferscope; \
	    for part in $$(echo $$d | tr / ' '); do p=$$p/$$part; echo $$p/; done; done; \
	} | awk '!seen[$$0]++' > $(INSTALL_MANIFEST)
	chmod 644 $(INSTALL_MANIFEST)
	@echo "installed: $(PREFIX)/bin/inferscope (assets and lessons in $(PREFIX)/share/inferscope)"

# uninstall: remove exactly the files install listed in its manifest, then its folders, each
# only if empty: a model or a lesson of the user's own under share/inferscope stays. A line
# that is absolute or climbs out with .. is ignored (the manifest is a file anyone may edit).
uninstall:
	@m=$(INSTALL_MANIFEST); root=$(DESTDIR)$(PREFIX); \
	if [ ! -f "$$m" ]; then echo "uninstall: no $$m: nothing removed (not installed under PREFIX=$(PREFIX)?)"; exit 0; fi; \
	list=$$(grep -v -e '^/' -e '\(^\|/\)\.\.\(/\|$$\)' -e '^$$' "$$m"); \
	printf '%s\n' "$$list" | grep -v '/$$' | while IFS= read -r f; do rm -f "$$root/$$f"; done; \
	printf '%s\n' "$$list" | grep '/$$' | tac | while IFS= read -r d; do rmdir "$$root/$$d" 2>/dev/null || true; done; \
	if [ -d "$(SHAREDIR)" ]; then echo "uninstall: kept $(SHAREDIR): it holds files install did not write"; fi

# clean: remove every build output
clean:
	rm -rf build build-asan build-fuzz build-arm64 build-wasm

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
