#!/usr/bin/env bash
# web-deps.sh — the WebAssembly toolchain and libraries for `make test-wasm` / `make web`.
# Installs Debian's emscripten and nodejs (and chromium for `all`) when missing, then
# builds with emcc, from Debian's SOURCE packages of the very versions the native build
# links, static libraries of PCRE2 and cJSON (`engine`: what the engine needs) and then
# FreeType, HarfBuzz, SDL2 and SDL2_ttf (`all`: the window). Emscripten's "ports" are
# never used (they download from the internet); nothing but Debian's archive is fetched.
#
# Usage: scripts/web-deps.sh [engine|all]          build what is missing (default: engine)
#        (WEB_DEPS_JOBS=2: parallel compiles; WEB_DEPS_KEEP_TREE=1 keeps the build trees;
#        WEB_DEPS_SDL2_PRESET=0 runs SDL2's configure checks instead of
#        scripts/web-sdl2-checks.cmake)
#        scripts/web-deps.sh --pkg-config-libdir [engine|all]
#                                                   print PKG_CONFIG_LIBDIR for emcc builds
#
# Where: ${INFERSCOPE_WEB_CACHE:-$HOME/.cache/inferscope-web}, outside the tree:
#   apt/            a private apt directory (deb-src lists, downloads): the system's apt
#                   configuration is never touched
#   <pkg>-<version>/  one install prefix per library (include/, lib/, lib/pkgconfig/), named
#                   by the source version the native build links, with a stamp file
#                   `.built`: its first line names what the build depends on (emcc, that
#                   version, the flags, the libraries built before it), its second the
#                   source version actually built (see pick_version); a library whose first
#                   line matches is not rebuilt, so a second run does nothing.
#
# Trust: apt-get checks the archive's signed InRelease with Debian's archive keyring and
# the SHA-256 of every downloaded file against the Sources index that InRelease signs
# (insecure repositories and unauthenticated downloads refused explicitly below); this
# script checks each file's SHA-256 against that index once more, and dpkg-source -x
# checks the tarballs against the .dsc's own checksums (--require-strong-checksums)
# before it unpacks them and applies Debian's patches. The .dsc's own OpenPGP signature
# (the uploader's key) is not checked: that needs debian-keyring (30 MB, and a 2022
# snapshot without later uploaders' keys); the archive's signature covers the .dsc's
# hash instead. Nothing unpacked runs except the libraries' own build systems.
set -euo pipefail

cache=${INFERSCOPE_WEB_CACHE:-$HOME/.cache/inferscope-web}
here=$(cd "$(dirname "$0")" && pwd)
jobs=${WEB_DEPS_JOBS:-2}

# The libraries, in build order (a library's dependencies come before it):
# pkg-config module : Debian -dev package (whose source version is built) : set
ENGINE_LIBS=(libpcre2-8:libpcre2-dev libcjson:libcjson-dev)
WINDOW_LIBS=(freetype2:libfreetype-dev harfbuzz:libharfbuzz-dev sdl2:libsdl2-dev SDL2_ttf:libsdl2-ttf-dev)

die() { echo "web-deps: $*" >&2; exit 2; }
say() { echo "web-deps: $*" >&2; }

mode=build
if [ "${1:-}" = "--pkg-config-libdir" ]; then mode=print; shift; fi
set_name=${1:-engine}
case "$set_name" in
  engine) libs=("${ENGINE_LIBS[@]}") ;;
  all) libs=("${ENGINE_LIBS[@]}" "${WINDOW_LIBS[@]}") ;;
  *) die "unknown set '$set_name' (engine or all)" ;;
esac

# ---- versions: the source package and version of each -dev package as installed (the
# native build links exactly that), else as apt would install it ----------------------
src_of() { # -dev package -> "source version"
  local s
  # the build machine's own architecture: with multiarch (make test-arm64 installs
  # libpcre2-dev:arm64) a bare name lists one line per architecture
  s=$(dpkg-query -W -f='${db:Status-Abbrev}|${source:Package} ${source:Version}\n' "$1:$(dpkg --print-architecture)" 2>/dev/null |
    sed -n 's/^ii *|//p' | head -n 1)
  if [ -z "$s" ]; then
    s=$(apt-cache show --no-all-versions "$1" 2>/dev/null |
      awk '/^Package:/{p=$2} /^Version:/{v=$2} /^Source:/{s=$2; if ($3 ~ /^\(/) sv=substr($3, 2, length($3) - 2)}
           END {if (s == "") s = p; if (sv == "") sv = v; print s, sv}')
  fi
  [ -n "$s" ] && [ "${s#* }" != "" ] || die "$1: not known to apt (is the Debian mirror in the sources?)"
  echo "$s"
}

prefix_of() { # "source version" -> install prefix
  local sv=$1
  echo "$cache/${sv%% *}-${sv#* }"
}

if [ "$mode" = print ]; then
  dirs=()
  for l in "${libs[@]}"; do dirs+=("$(prefix_of "$(src_of "${l#*:}")")/lib/pkgconfig"); done
  (IFS=:; echo "${dirs[*]}")
  exit 0
fi

# ---- toolchain ---------------------------------------------------------------------------
want=()
command -v emcc >/dev/null 2>&1 || want+=(emscripten)
command -v node >/dev/null 2>&1 || want+=(nodejs)
command -v cmake >/dev/null 2>&1 || want+=(cmake)
command -v dpkg-source >/dev/null 2>&1 || want+=(dpkg-dev)
[ -e /usr/share/keyrings/debian-archive-keyring.gpg ] || want+=(debian-archive-keyring)
if [ "$set_name" = all ]; then
  command -v chromium >/dev/null 2>&1 || want+=(chromium)
fi
if [ ${#want[@]} -gt 0 ]; then
  say "installing ${want[*]}"
  if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${want[@]}"
fi
# emcc runs its JS optimiser with node and needs Debian's acorn modules when the node on
# PATH is not Debian's (../shared/WEB-BUILD.md); harmless otherwise.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
# sed reads to the end: with `head -n 1` emcc could still be writing when head exits, and
# under load it died of the broken pipe (BrokenPipeError, make web stopped; set -o pipefail)
emcc_version=$(emcc --version | sed -n 1p)

# ---- sources, through a private apt directory ----------------------------------------------
aptdir=$cache/apt
apt_opts=(-o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$aptdir/sources"
  -o "Dir::State::Lists=$aptdir/lists" -o "Dir::Cache=$aptdir/cache"
  -o "Acquire::AllowInsecureRepositories=false" -o "Acquire::AllowDowngradeToInsecureRepositories=false"
  -o "APT::Get::AllowUnauthenticated=false" -o "Debug::NoLocking=1" -o "APT::Sandbox::User=root")
apt_ready=0
apt_init() { # once per run, in the main shell (the helpers below run in subshells)
  if [ "$apt_ready" -eq 0 ]; then
    mkdir -p "$aptdir/sources" "$aptdir/lists/partial" "$aptdir/cache/archives/partial"
    # the suites the system installs binaries from: the -dev versions come from one of them
    cat >"$aptdir/sources/debian-src.sources" <<EOF
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    say "reading Debian's source index (private apt directory $aptdir)"
    apt-get "${apt_opts[@]}" -qq update || die "apt-get update of the deb-src lists failed"
    apt_ready=1
  fi
}
apt_private() { apt-get "${apt_opts[@]}" "$@"; }

apt_cache_private() { apt-cache "${apt_opts[@]}" "$@"; }

# The version of SOURCE to build: VERSION itself when the archive serves it, else the
# newest Debian revision of the same upstream release that it serves. (This mirror serves
# bookworm-security's binaries but not its sources: pcre2 10.42-1+deb12u2 links natively,
# 10.42-1 is what can be built; the difference is Debian's security patch, said aloud.)
pick_version() { # source version -> version
  local src=$1 ver=$2 v
  local avail
  avail=$(apt_cache_private showsrc --only-source "$src" 2>/dev/null | sed -n 's/^Version: //p' | sort -u)
  for v in $(printf '%s\n' "$avail" | sort -rV); do
    [ "$v" = "$ver" ] && fetchable "$src" "$v" && { echo "$v"; return; }
  done
  for v in $(printf '%s\n' "$avail" | sort -rV); do
    [ "${v%-*}" = "${ver%-*}" ] && [ "$v" != "$ver" ] && fetchable "$src" "$v" && {
      say "NOTE: $src $ver (what the native build links) is not served as source here; building $v, the same upstream release"
      echo "$v"; return; }
  done
  die "$src: neither $ver nor another revision of ${ver%-*} can be downloaded as source"
}

# 1 if the source package's files download (they are kept for fetch_source)
fetchable() { # source version
  local dl=$cache/downloads/$1-$2
  [ -e "$dl/.verified" ] && return 0
  mkdir -p "$dl"
  if (cd "$dl" && apt_private -qq source --download-only "$1=$2") >/dev/null 2>&1; then return 0; fi
  rm -rf "$dl"
  return 1
}

# unpack SOURCE VERSION (downloaded by fetchable) into a fresh folder; prints its path
fetch_source() {
  local src=$1 ver=$2 dl=$cache/downloads/$1-$2 tree=$cache/build/$1-$2
  local dsc_name="${src}_${ver#*:}.dsc"
  if [ ! -e "$dl/.verified" ]; then
    # the index's SHA-256 of every file of the source package, checked again here
    local sums
    sums=$(apt_cache_private showsrc --only-source "$src" 2>/dev/null |
      awk -v v="$ver" '/^Version:/{ok=($2 == v)} ok && /^Checksums-Sha256:/{f=1; next} ok && f && /^ /{print $1 "  " $3; next} {f=0}')
    [ -n "$sums" ] || die "$src $ver: no checksums in the source index"
    (cd "$dl" && printf '%s\n' "$sums" | sha256sum --quiet --strict -c -) >&2 || die "$src $ver: checksum mismatch"
    touch "$dl/.verified"
  fi
  rm -rf "$tree"
  mkdir -p "$(dirname "$tree")"
  dpkg-source --require-strong-checksums --no-copy -x "$dl/$dsc_name" "$tree" >/dev/null 2>"$dl/dpkg-source.log" ||
    { cat "$dl/dpkg-source.log" >&2; die "$src $ver: dpkg-source -x failed"; }
  echo "$tree"
}

# ---- builds: each writes static libraries into its own prefix ------------------------------
# One flag set for every library: what the engine and app are built with (no threads,
# no exceptions), optimised. -sUSE_PTHREADS is off by default; nothing links -pthread.
WASM_CFLAGS="-O2"
# Configure checks ("does the C library have strlcpy?") compile a test program; linking
# each one as well costs a wasm-ld plus a run of emscripten's JS back end (~1 s apiece
# here; SDL2 runs ~160 of them). Test programs are compiled into a static library
# instead. What a check then sees is what the headers declare, which for emscripten's
# musl is what it implements; the link of the program finds anything missing.
TRY_COMPILE=STATIC_LIBRARY
# emscripten's CMake toolchain searches only its own sysroot: the prefixes of the
# libraries built before this one are given as find roots (WEB-BUILD.md)
roots=()
emcmake_build() { # tree prefix cmake-options...
  local tree=$1 prefix=$2; shift 2
  local froot
  froot=$(IFS=';'; echo "${roots[*]:-}")
  emcmake cmake -S "$tree" -B "$tree/_wasm" -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_FLAGS="$WASM_CFLAGS" -DCMAKE_CXX_FLAGS="$WASM_CFLAGS" \
    -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_LIBDIR=lib -DBUILD_SHARED_LIBS=OFF \
    -DCMAKE_FIND_ROOT_PATH="$froot" -DCMAKE_PREFIX_PATH="$froot" -DCMAKE_TRY_COMPILE_TARGET_TYPE=$TRY_COMPILE "$@" >"$tree/_configure.log" 2>&1 ||
    { tail -n 30 "$tree/_configure.log" >&2; die "$(basename "$tree"): configure failed (log: $tree/_configure.log)"; }
  cmake --build "$tree/_wasm" -j "$jobs" >"$tree/_build.log" 2>&1 ||
    { tail -n 30 "$tree/_build.log" >&2; die "$(basename "$tree"): build failed (log: $tree/_build.log)"; }
  cmake --install "$tree/_wasm" >>"$tree/_build.log" 2>&1 || die "$(basename "$tree"): install failed"
}

build_pcre2() { # tree prefix
  # 8-bit only (GPT-2's pattern is UTF-8), Unicode properties on (\p{L}, \p{N}); JIT off:
  # it writes machine code at run time, which WebAssembly cannot run
  emcmake_build "$1" "$2" -DPCRE2_BUILD_PCRE2_8=ON -DPCRE2_BUILD_PCRE2_16=OFF -DPCRE2_BUILD_PCRE2_32=OFF \
    -DPCRE2_SUPPORT_JIT=OFF -DPCRE2_SUPPORT_UNICODE=ON -DPCRE2_BUILD_PCRE2GREP=OFF -DPCRE2_BUILD_TESTS=OFF \
    -DPCRE2_SUPPORT_LIBZ=OFF -DPCRE2_SUPPORT_LIBBZ2=OFF -DPCRE2_SUPPORT_LIBEDIT=OFF -DPCRE2_SUPPORT_LIBREADLINE=OFF
}

build_cjson() { # tree prefix: one C file, no build system needed
  local tree=$1 prefix=$2
  mkdir -p "$prefix/include/cjson" "$prefix/lib/pkgconfig"
  emcc $WASM_CFLAGS -std=c89 -c "$tree/cJSON.c" -o "$tree/cJSON.o"
  rm -f "$prefix/lib/libcjson.a"
  emar rcs "$prefix/lib/libcjson.a" "$tree/cJSON.o"
  cp "$tree/cJSON.h" "$prefix/include/cjson/"
  local ver
  ver=$(sed -n 's/^#define CJSON_VERSION_\(MAJOR\|MINOR\|PATCH\) *\([0-9]*\).*/\2/p' "$tree/cJSON.h" | paste -sd. -)
  # the layout of Debian's libcjson.pc: #include <cJSON.h> through include/cjson
  cat >"$prefix/lib/pkgconfig/libcjson.pc" <<EOF
prefix=$prefix
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: libcjson
Description: Ultralightweight JSON parser in ANSI C (built with emcc by scripts/web-deps.sh)
Version: $ver
Libs: -L\${libdir} -lcjson
Cflags: -I\${includedir}/cjson
EOF
}

build_freetype() { # tree prefix: TrueType/OpenType rasteriser for SDL2_ttf; the fonts are
  # plain TTF, so no compressed-font or PNG-glyph support (nothing else to build)
  emcmake_build "$1" "$2" -DFT_DISABLE_ZLIB=ON -DFT_DISABLE_BZIP2=ON -DFT_DISABLE_PNG=ON \
    -DFT_DISABLE_HARFBUZZ=ON -DFT_DISABLE_BROTLI=ON
}

build_harfbuzz() { # tree prefix: text shaping (right-to-left and joined scripts), over FreeType
  emcmake_build "$1" "$2" -DHB_HAVE_FREETYPE=ON -DHB_HAVE_GLIB=OFF -DHB_HAVE_ICU=OFF -DHB_HAVE_GOBJECT=OFF \
    -DHB_BUILD_SUBSET=OFF -DHB_BUILD_UTILS=OFF -DHB_HAVE_INTROSPECTION=OFF
}

build_sdl2() { # tree prefix source version: static, no test library, no threads
  # (WebAssembly without SharedArrayBuffer: SDL_CreateThread reports an error), SDL's own
  # iconv (emscripten's libc has none to link)
  local preset=$here/web-sdl2-checks.cmake answers=()
  # the configure checks answered in advance, for exactly this source and emcc (the file says why)
  if [ "${WEB_DEPS_SDL2_PRESET:-1}" = 1 ] && grep -qxF "# for: $3 $4 | $emcc_version" "$preset"; then
    answers=(-C "$preset")
  else
    say "$3 $4 with $emcc_version: no answers in $preset, every configure check runs (slow)"
  fi
  emcmake_build "$1" "$2" "${answers[@]}" -DSDL_SHARED=OFF -DSDL_STATIC=ON -DSDL_TEST=OFF -DSDL_TESTS=OFF \
    -DSDL_PTHREADS=OFF -DSDL_SYSTEM_ICONV=OFF
}

build_sdl2_ttf() { # tree prefix: not vendored (the FreeType and HarfBuzz above), HarfBuzz on
  local tree=$1 prefix=$2 ver
  emcmake_build "$tree" "$prefix" -DSDL2TTF_VENDORED=OFF -DSDL2TTF_SAMPLES=OFF -DSDL2TTF_HARFBUZZ=ON \
    -DSDL2TTF_INSTALL=ON
  # its CMake build installs no .pc file: one in the layout of Debian's (-I.../SDL2);
  # FreeType and HarfBuzz are required so a static link names them
  ver=$(sed -n 's/^#define SDL_TTF_\(MAJOR\|MINOR\|PATCH\)LEVEL *\([0-9]*\).*/\2/p' "$tree/SDL_ttf.h" | paste -sd. -)
  mkdir -p "$prefix/lib/pkgconfig"
  cat >"$prefix/lib/pkgconfig/SDL2_ttf.pc" <<EOF2
prefix=$prefix
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: SDL2_ttf
Description: TrueType font library for SDL2 (built with emcc by scripts/web-deps.sh)
Version: $ver
Requires: sdl2 freetype2 harfbuzz
Libs: -L\${libdir} -lSDL2_ttf
Cflags: -I\${includedir}/SDL2
EOF2
}

build_one() { # "module:devpkg"
  local module=${1%%:*} dev=${1#*:} sv src ver prefix stamp
  sv=$(src_of "$dev")
  src=${sv%% *} ver=${sv#* }
  prefix=$(prefix_of "$sv")
  # what the build depends on: the compiler and the libraries built before it
  stamp="$emcc_version | $src $ver | flags $WASM_CFLAGS, checks $TRY_COMPILE | against ${built[*]:-nothing}"
  built+=("$src-$ver")
  if [ -e "$prefix/.built" ] && [ "$(head -n 1 "$prefix/.built")" = "$stamp" ]; then
    roots+=("$prefix")
    return 0
  fi
  local t0=$SECONDS tree
  apt_init
  ver=$(pick_version "$src" "$ver")
  say "building $src $ver for WebAssembly into $prefix"
  tree=$(fetch_source "$src" "$ver")
  rm -rf "$prefix"
  case "$module" in
    libpcre2-8) build_pcre2 "$tree" "$prefix" ;;
    libcjson) build_cjson "$tree" "$prefix" ;;
    freetype2) build_freetype "$tree" "$prefix" ;;
    harfbuzz) build_harfbuzz "$tree" "$prefix" ;;
    sdl2) build_sdl2 "$tree" "$prefix" "$src" "$ver" ;;
    SDL2_ttf) build_sdl2_ttf "$tree" "$prefix" ;;
    *) die "no build recipe for $module" ;;
  esac
  [ -e "$prefix/lib/pkgconfig/$module.pc" ] || die "$src $ver: built, but $module.pc is missing"
  printf '%s\nbuilt from source %s %s\n' "$stamp" "$src" "$ver" >"$prefix/.built"
  [ "${WEB_DEPS_KEEP_TREE:-0}" = 1 ] || rm -rf "$tree"
  roots+=("$prefix")
  say "$src $ver: done in $((SECONDS - t0)) s"
}

built=()
for l in "${libs[@]}"; do build_one "$l"; done
