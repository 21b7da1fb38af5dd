# test_make_deps.sh — a plain `make` on a machine without the packages explains itself: it
# names the missing Debian package(s) and says `make deps` installs them, before anything
# is compiled. The machine here has every package, so pkg-config is replaced by a stand-in
# that reports chosen modules as absent (PKG_CONFIG=...), and the stb header by a missing
# path (STB_HEADER=...). Also: the Makefile and scripts/install-deps.sh name the same
# packages, so `make deps` installs exactly what `make` asks for.
. tests/check.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_make_deps.XXXXXX"); trap 'rm -rf "$tmp"' EXIT

# fake pkg-config: modules listed in $tmp/absent do not exist, the rest go to the real one
cat >"$tmp/pkg-config" <<EOF
#!/bin/sh
if [ "\$1" = --exists ] && grep -qxF -- "\$2" "$tmp/absent"; then exit 1; fi
exec pkg-config "\$@"
EOF
chmod +x "$tmp/pkg-config"

try_make() { # GOAL [VAR=VALUE...]: runs make in a scratch build folder, output in $tmp/out
  make --no-print-directory BUILD="$tmp/build" PKG_CONFIG="$tmp/pkg-config" "$@" >"$tmp/out" 2>&1
}

printf 'SDL2_ttf\n' >"$tmp/absent"
try_make all; rc=$?
check "make all without SDL2_ttf fails ($rc)" [ "$rc" -ne 0 ]
check "it names libsdl2-ttf-dev and only that" grep -q 'missing Debian package(s): libsdl2-ttf-dev\. ' "$tmp/out"
check "it says make deps installs it" grep -q '`make deps` (or scripts/install-deps.sh) installs them' "$tmp/out"
check "nothing was compiled (no build folder, no compiler line)" \
  bash -c '[ ! -e "$1/build" ] && ! grep -q -- "-c engine/" "$1/out" && ! grep -qi "fatal error" "$1/out"' _ "$tmp"

printf 'sdl2\nSDL2_ttf\nlibcrypto\nlibpcre2-8\nlibcjson\nopenblas\nlibmicrohttpd\nlibqrencode\n' >"$tmp/absent"
try_make STB_HEADER="$tmp/none/stb_image_write.h"; rc=$?
check "plain make with nothing installed fails ($rc)" [ "$rc" -ne 0 ]
check "it names all nine packages" grep -q \
  'missing Debian package(s): libcjson-dev libmicrohttpd-dev libopenblas-dev libpcre2-dev libqrencode-dev libsdl2-dev libsdl2-ttf-dev libssl-dev libstb-dev\.' "$tmp/out"
try_make tests; rc=$?
check "make tests checks too ($rc)" bash -c '[ "$1" -ne 0 ] && grep -q "make deps" "$2"' _ "$rc" "$tmp/out"

# goals that need no packages, or install them first, are not blocked by the check
try_make -n clean; rc=$?
check "make clean needs no packages ($rc)" [ "$rc" -eq 0 ]
try_make -n deps; rc=$?
check "make deps is not blocked by the check ($rc)" bash -c '[ "$1" -eq 0 ] && grep -q install-deps.sh "$2"' _ "$rc" "$tmp/out"
try_make -n run; rc=$?
check "make run installs first (deps), then builds ($rc)" grep -q 'install-deps.sh' "$tmp/out"

: >"$tmp/absent"
try_make -n all; rc=$?
check "with every package present, make all goes on to compile ($rc)" \
  bash -c '[ "$1" -eq 0 ] && grep -q -- "-c engine/" "$2"' _ "$rc" "$tmp/out"

# the same module -> package table in the Makefile and in the installer
mk=$(sed -n '/^DEP_MODULES/,/[^\\]$/p' Makefile | tr -s ' \\\n' '\n' | grep : | sort)
sh=$(grep -E '^need_pc ' scripts/install-deps.sh | awk '{print $2 ":" $3}' | sort)
check "Makefile DEP_MODULES == install-deps.sh need_pc lines ($(echo $mk))" \
  bash -c '[ -n "$1" ] && [ "$1" = "$2" ]' _ "$mk" "$sh"
check "install-deps.sh checks the stb header the Makefile checks" \
  grep -q "need_file $(sed -n 's/^STB_HEADER *?= *//p' Makefile) libstb-dev" scripts/install-deps.sh
# no absolute path of a build machine in code, tools or docs (the pattern is split so this
# file does not match itself)
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  hits=$(git grep -nE "/wor""k/|/hom""e/[a-z]|/roo""t/" -- . 2>/dev/null | head -n 5)
  check "no machine paths in the tree (${hits:-none})" [ -z "$hits" ]
else
  skip test_make_deps/machine-paths "not a git checkout"
fi
summary test_make_deps
