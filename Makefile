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
APP_PKGS    = sdl2 SDL2_ttf libcrypto harfbuzz-subset cairo-pdf cairo-ft fontconfig libmicrohttpd \
              libavformat libavcodec libavfilter libswscale libavutil libqrencode
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
               libmicrohttpd:libmicrohttpd-dev libavformat:libavformat-dev libavcodec:libavcodec-dev \
               libavfilter:libavfilter-dev libswscale:libswscale-dev libavutil:libavutil-dev libqrencode:libqrencode-dev
STB_HEADER  ?= /usr/include/stb/stb_image_write.h
NO_CHECK_GOALS = run test asan bench fuzz fuzz-short deps deps-test clean gpt2 uninstall test-arm64 test-wasm engine-tests \
                 viz-tests bench-web bench-bin web web-files web-single test-web
# (not in the browser build: its libraries are scripts/web-deps.sh's, found by PKG_CONFIG_LIBDIR)
ifneq ($(filter-out $(NO_CHECK_GOALS),$(or $(MAKECMDGOALS),all)),)
ifneq ($(PLATFORM),web)
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

# LEAVE_OUT: sources a build for another platform does without (test-wasm: what needs cairo,
# HarfBuzz's subsetter, OpenSSL or libmicrohttpd, none of which is built with emcc)
LEAVE_OUT  ?=
ENGINE_SRC := $(wildcard engine/*.c)
VIZ_SRC    := $(filter-out $(LEAVE_OUT),$(wildcard viz/*.c))
# src/platforms/: one file per platform behind platform.h; a build compiles only its own
# (PLATFORM=desktop_sdl natively, PLATFORM=web with emcc: platform_web.c includes emscripten.h)
PLATFORM   ?= desktop_sdl
OTHER_PLATFORMS := $(filter-out src/platforms/platform_$(PLATFORM).c,$(wildcard src/platforms/platform_*.c))
APP_SRC    := $(filter-out $(OTHER_PLATFORMS) $(LEAVE_OUT),$(wildcard src/*/*.c))
# The browser build (PLATFORM=web, `make web`) leaves out what needs a library the
# browser lacks (cairo for PDF, HarfBuzz's subsetter for SVG, OpenSSL, the class room's
# libmicrohttpd, FFmpeg, the CLI's commands) and adds src/platforms/web/ in their place: the
# entry point (web_main.c, linked directly), plain-C SHA-256, SVG/PDF, video and the class
# room saying "native only"
WEB_LEFT_OUT := viz/backend_pdf.c viz/backend_svg.c viz/font_subset.c src/figure/sha256_openssl.c \
                $(filter-out src/class/class_address.c src/class/class_results_read.c,$(wildcard src/class/*.c)) \
                src/cli/cmd_class.c src/app/app_class.c \
                src/figure/video_encode.c src/figure/video_meta_read.c
WEB_MAIN_SRC := src/platforms/web/web_main.c
ifeq ($(PLATFORM),web)
  VIZ_SRC := $(filter-out $(WEB_LEFT_OUT),$(VIZ_SRC))
  APP_SRC := $(filter-out $(WEB_LEFT_OUT),$(APP_SRC)) $(filter-out $(WEB_MAIN_SRC),$(wildcard src/platforms/web/*.c))
endif
TEST_SRC   := $(wildcard tests/test_*.c)
ENGINE_OBJ := $(ENGINE_SRC:%.c=$(BUILD)/%.o)
VIZ_OBJ    := $(VIZ_SRC:%.c=$(BUILD)/%.o)
APP_OBJ    := $(APP_SRC:%.c=$(BUILD)/%.o)
TEST_BIN   := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
# the class room's student page (src/class/page.*: HTML, CSS, JS) is compiled in as bytes
CLASS_PAGE_FILES := src/class/page.html src/class/page.css src/class/page.js
ifneq ($(PLATFORM),web)
  APP_OBJ  += $(BUILD)/gen/class_page_files.o
endif
LIBENGINE  := $(BUILD)/libengine.a
LIBVIZ     := $(BUILD)/libviz.a
LIBAPP     := $(BUILD)/libapp.a
ALL_LIBS    = $(LIBAPP) $(LIBVIZ) $(LIBENGINE)
BIN        := $(BUILD)/inferscope

.PHONY: all run test asan tests bench class-load deps deps-test clean gpt2 fuzz soak fuzz-short fuzz-bins install uninstall test-arm64 test-wasm engine-tests \
        viz-tests bench-web bench-bin web web-files web-single test-web
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
# (make bench BENCH_ARGS=--big adds GPT-2 774M and 1558M to the real path)
bench: deps
	@$(MAKE) --no-print-directory all $(BUILD)/bench
	./$(BUILD)/bench $(BENCH_ARGS)

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

# test-wasm: the engine, viz/ and src/ built with emcc for WebAssembly (SIMD128 kernels, one
# thread) and their tests run under Node.js, reading the repository's files directly
# (NODERAWFS); then web/model_source.js (your own model) in headless Chromium. scripts/web-deps.sh installs emscripten and nodejs and builds PCRE2, cJSON,
# FreeType, HarfBuzz, SDL2 and SDL2_ttf from Debian's sources (cached outside the tree).
# emcc has no OpenMP and the engine needs no OpenBLAS (kernels.c without cblas.h: the
# matvec per row). Nothing there has cairo, HarfBuzz's subsetter, OpenSSL or
# libmicrohttpd: PLATFORM=web leaves out what needs them (WEB_LEFT_OUT).
# Engine tests not here: test_map_guard (fork and SIGBUS: Node has neither; mmap there is
# a copy) and test_big_model_mmap (a 6.4 GB file: 32-bit sizes, at most 4 GB of memory).
WASM_TESTS := $(filter-out test_map_guard,$(ARM64_TESTS)) test_attn_explain test_head_scores test_lens \
              test_ngram_index test_seq_metrics test_settings_spec test_token_stats test_trace_lean test_model_stream \
              test_sampler_rank
# Tests that link viz/ and src/ and need no window. Not here (each fails or cannot link
# under Node; the reason is theirs): export.o needs the PDF backend (cairo), so
# test_ablation, test_app_frame, test_app_keys, test_attn_lines, test_export,
# test_export_dir, test_fuzz_regressions, test_viz_backend and test_viz_room do not link;
# test_viz_draw (colour emoji: FreeType built without libpng draws no CBDT glyphs),
# test_cli_sampling and test_inside_panels (run the CLI binary; a worker thread),
# test_file_write, test_lesson and test_npy (mkfifo makes no FIFO, umask not applied),
# test_trace_budget (the RAM of a 64-bit machine), test_weights_changed (a rewrite in
# place is not noticed there: 3 checks), test_draws_action
# (includes <cjson/cJSON.h>; the emcc cJSON installs cJSON.h alone), test_heap_setup
# (glibc's allocator only).
WASM_VIZ_TESTS := test_action test_attn_panels test_cli_common test_cli_opts test_lesson_expect test_lesson_facts \
                  test_lesson_run test_panel_table test_penalty_marks test_prob_format test_probs_stages \
                  test_sampler test_sampler_chain test_sampler_draws test_session test_session_errors \
                  test_settings test_text_marks test_text_visible test_thumb_lean test_viz_layout \
                  test_viz_panels_a test_viz_panels_b test_viz_png
# (PLATFORM=web already leaves out WEB_LEFT_OUT, what needs cairo, the HarfBuzz subsetter,
# OpenSSL or libmicrohttpd, and adds src/platforms/web/ in its place; nothing more here)
WASM_LEAVE_OUT :=
WASM_LDFLAGS = -sNODERAWFS=1 -sALLOW_MEMORY_GROWTH=1 -sEXIT_RUNTIME=1
test-wasm:
	@scripts/web-deps.sh all
	@PKG_CONFIG_LIBDIR=$$(scripts/web-deps.sh --pkg-config-libdir all) NODE_PATH=/usr/share/nodejs \
	  $(MAKE) --no-print-directory BUILD=build-wasm CC=emcc AR=emar ARCH_FLAGS=-msimd128 PLATFORM=web \
	  OPENMP="-fopenmp-simd -isystem engine/no_openmp" ENGINE_PKGS="libpcre2-8 libcjson" \
	  APP_PKGS="sdl2 SDL2_ttf harfbuzz" LEAVE_OUT="$(WASM_LEAVE_OUT)" LDFLAGS="$(WASM_LDFLAGS)" \
	  ENGINE_TESTS="$(WASM_TESTS)" VIZ_TESTS="$(WASM_VIZ_TESTS)" engine-tests viz-tests
	@tests/run-wasm.sh build-wasm $(WASM_TESTS) $(WASM_VIZ_TESTS)
	@tests/web/model_source.sh build-wasm

# web: the whole app for the browser in build/web/ — a static folder (index.html, the
# .js/.wasm, the preloaded .data with fonts, tokenizer, bundled model and lessons, a
# service worker, a manifest) that any static host serves. Compiled like test-wasm
# (emcc, SIMD128, one thread) plus the window's libraries (SDL2, SDL2_ttf, FreeType,
# HarfBuzz from Debian's sources, scripts/web-deps.sh all); objects in build-web/.
WEB_DIR      := build/web
WEB_PKGS     := SDL2_ttf sdl2 harfbuzz freetype2
# the window's files under /assets and /lessons of MEMFS, where cli_assets_dir looks
WEB_PRELOAD  := --preload-file assets/fonts@/assets/fonts --preload-file assets/tokenizer@/assets/tokenizer \
                --preload-file assets/models/stories16m@/assets/models/stories16m --preload-file lessons@/lessons \
                --exclude-file '*.md' --exclude-file '*.txt'
WEB_LDFLAGS  := -sALLOW_MEMORY_GROWTH=1 -sINITIAL_MEMORY=134217728 -sTOTAL_STACK=8388608 \
                -sEXPORTED_FUNCTIONS=_main,_malloc,_free,_web_state_query,_web_open_state,_web_open_figure,_web_key,_web_set_prompt,_web_show_beat,_web_renderer_name \
                -sEXPORTED_RUNTIME_METHODS=callMain,FS,FS_createPath,FS_createDataFile,ENV,UTF8ToString,ccall,addRunDependency,removeRunDependency \
                -sINVOKE_RUN=0 -sENVIRONMENT=web $(WEB_PRELOAD)
web:
	@scripts/web-deps.sh all
	@PKG_CONFIG_LIBDIR=$$(scripts/web-deps.sh --pkg-config-libdir all) NODE_PATH=/usr/share/nodejs \
	  $(MAKE) --no-print-directory BUILD=build-web PLATFORM=web CC=emcc AR=emar ARCH_FLAGS=-msimd128 \
	  OPENMP="-fopenmp-simd -isystem engine/no_openmp" ENGINE_PKGS="libpcre2-8 libcjson" \
	  APP_PKGS="$(WEB_PKGS)" web-files
	@ls -l $(WEB_DIR)

# web-files (inside `make web`): link, then the page and its service worker, named by a
# hash of the build so a new build replaces every cached file at once
web-files: $(BUILD)/web/inferscope.js
	rm -rf $(WEB_DIR) && mkdir -p $(WEB_DIR)
	cp $(BUILD)/web/inferscope.js $(BUILD)/web/inferscope.wasm $(BUILD)/web/inferscope.data $(WEB_DIR)/
	cp web/index.html web/manifest.webmanifest web/icon.svg $(WEB_DIR)/
	for f in web/*.js; do case $$f in web/sw.js) ;; *) cp $$f $(WEB_DIR)/ ;; esac; done
	scripts/web-sw.sh $(WEB_DIR) web/sw.js

$(BUILD)/web/inferscope.js: $(BUILD)/src/platforms/web/web_main.o $(ALL_LIBS) $(wildcard assets/models/stories16m/* lessons/* assets/fonts/* assets/tokenizer/*)
	@mkdir -p $(dir $@)
	$(CC) $(OPT) $(WEB_LDFLAGS) -o $@ $< $(ALL_LIBS) $(LIBS)

# web-single: the same app as ONE file, build/web-single/inferscope.html, that opens from
# disk (file://, no server): the .wasm and every asset embedded as base64 in the page
# (-sSINGLE_FILE, --embed-file). No service worker and no link state over file://.
web-single:
	@scripts/web-deps.sh all
	@PKG_CONFIG_LIBDIR=$$(scripts/web-deps.sh --pkg-config-libdir all) NODE_PATH=/usr/share/nodejs \
	  $(MAKE) --no-print-directory BUILD=build-web PLATFORM=web CC=emcc AR=emar ARCH_FLAGS=-msimd128 \
	  OPENMP="-fopenmp-simd -isystem engine/no_openmp" ENGINE_PKGS="libpcre2-8 libcjson" \
	  APP_PKGS="$(WEB_PKGS)" build-web/web-single/inferscope.js
	@mkdir -p build/web-single
	scripts/web-single.sh build-web/web-single/inferscope.js web build/web-single/inferscope.html
	@ls -l build/web-single

$(BUILD)/web-single/inferscope.js: $(BUILD)/src/platforms/web/web_main.o $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(OPT) $(subst --preload-file,--embed-file,$(WEB_LDFLAGS)) -sSINGLE_FILE=1 -o $@ $< $(ALL_LIBS) $(LIBS)

# test-web: build/web in headless Chromium over the DevTools protocol, served from
# 127.0.0.1 (tests/fixtures/web_browser.py): first frame, steps, keys, a typed prompt,
# every lesson to its end, E's download and its provenance, a ?state link, a dropped
# figure, your own model chosen in the page's dialog (the reference tiny checkpoint: stored,
# reopened from IndexedDB, a greedy step = the native `next`'s top token; a too-large one
# refused); at device pixel ratio 2 the canvas's backing store 2x its CSS size and SDL's
# GLES2 renderer (WebGL: headless Chromium's SwiftShader, no flag needed beyond cdp.py's);
# eight screenshots against the native export of the same state (>= 99.5 % of the
# pixels the same within 1 %: SDL's blitters round text edges over colour 1-2 levels
# differently in WebAssembly, and through WebGL rotated text (axis titles, key labels) is
# filtered differently; the window's hints and its ms/step are not in an export).
# Screenshots and differences in build/web-test/.
test-web: deps-test web
	@$(MAKE) --no-print-directory all
	@tests/fixtures/web_browser.py $(BUILD) $(WEB_DIR) build/web-test

# engine-tests: the tests named in ENGINE_TESTS linked against the engine alone (no SDL)
engine-tests: $(patsubst %,$(BUILD)/etests/%,$(ENGINE_TESTS))
$(BUILD)/etests/%: $(BUILD)/tests/%.o $(LIBENGINE)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $^ $(ENGINE_LIBS)

# viz-tests: the tests named in VIZ_TESTS linked against app, viz and engine (test-wasm: the
# same libraries built with emcc, LIBS naming what that build has)
viz-tests: $(patsubst %,$(BUILD)/vtests/%,$(VIZ_TESTS))
$(BUILD)/vtests/%: $(BUILD)/tests/%.o $(ALL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $^ $(LIBS)

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
	$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $^ $(LIBS)
# bench-bin: the bench program alone (bench-web builds it with emcc as BUILD/bench.js)
BENCH_NAME ?= bench
bench-bin: $(BUILD)/$(BENCH_NAME)
$(BUILD)/bench.js: $(BENCH_OBJ) $(ALL_LIBS)
	$(CC) $(CFLAGS_ALL) $(LDFLAGS) -o $@ $^ $(LIBS)

# bench-web: `bench --web` (the bounds, the decode targets of a 124M-shaped model, the
# bundled model's window step) built with emcc, run in headless Chromium from a server on
# 127.0.0.1 and, interleaved, natively (tests/web/bench_web.sh: the two side by side, with
# the ratios), then `make web` and the app's first frame from 127.0.0.1, cold and reloaded
# (tests/web/first_frame.py). Prints figures, never fails; the machine may be loaded. BENCH_WEB_ROUNDS (2).
BENCH_WEB_LDFLAGS = -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=4GB \
                    --preload-file assets/models/stories16m@/assets/models/stories16m \
                    --preload-file assets/tokenizer@/assets/tokenizer
bench-web:
	@scripts/web-deps.sh all
	@$(MAKE) --no-print-directory all $(BUILD)/bench
	@PKG_CONFIG_LIBDIR=$$(scripts/web-deps.sh --pkg-config-libdir all) NODE_PATH=/usr/share/nodejs \
	  $(MAKE) --no-print-directory BUILD=build-wasm CC=emcc AR=emar ARCH_FLAGS=-msimd128 PLATFORM=web \
	  OPENMP="-fopenmp-simd -isystem engine/no_openmp" ENGINE_PKGS="libpcre2-8 libcjson" \
	  APP_PKGS="sdl2 SDL2_ttf harfbuzz" LEAVE_OUT="$(WASM_LEAVE_OUT)" LDFLAGS="$(BENCH_WEB_LDFLAGS)" \
	  BENCH_NAME=bench.js bench-bin
	@$(MAKE) --no-print-directory web
	@tests/web/bench_web.sh $(BUILD) build-wasm $(or $(BENCH_WEB_ROUNDS),2) build/web

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
	rm -rf build build-asan build-fuzz build-arm64 build-wasm build-web

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
