#!/usr/bin/env bash
# Installs the Debian packages inferscope needs to build, run and test.
# Idempotent: packages that pkg-config (or a file check) already finds are skipped,
# so a second run does nothing. apt-get runs as root, through sudo otherwise.
# Usage: scripts/install-deps.sh [--test|--arm64]   (--test adds what the test suite uses;
# --arm64 what `make test-arm64` needs: the aarch64 cross compiler, qemu-user and the
# engine's libraries for arm64 through Debian multiarch, which it enables if needed)
set -euo pipefail

want=()
need_pc() { pkg-config --exists "$1" 2>/dev/null || want+=("$2"); }
need_file() { [ -e "$1" ] || want+=("$2"); }
need_cmd() { command -v "$1" >/dev/null 2>&1 || want+=("$2"); }
need_pymod() { /usr/bin/python3 -c "import $1" >/dev/null 2>&1 || want+=("$2"); }

need_cmd cc build-essential
need_cmd make build-essential
need_cmd pkg-config pkg-config
need_pc sdl2 libsdl2-dev
need_pc SDL2_ttf libsdl2-ttf-dev
need_pc libcrypto libssl-dev
need_pc harfbuzz-subset libharfbuzz-dev # SVG export: the fonts embedded, cut to the glyphs used
need_pc cairo-pdf libcairo2-dev # PDF export (cairo-ft: the same DejaVu files, embedded as subsets)
need_pc fontconfig libfontconfig-dev
need_pc libpcre2-8 libpcre2-dev
need_pc libcjson libcjson-dev
need_pc openblas libopenblas-dev
# the class room's HTTP server (src/class/; off unless `inferscope class` is run)
need_pc libmicrohttpd libmicrohttpd-dev
# `export --video` and the window's recording (src/figure/video_encode.c only): MP4 (H.264
# through libx264), WebM (VP9 through libvpx), GIF (palettegen/paletteuse in libavfilter)
need_pc libavformat libavformat-dev
need_pc libavcodec libavcodec-dev
need_pc libavfilter libavfilter-dev
need_pc libswscale libswscale-dev
need_pc libavutil libavutil-dev
# the join address as a QR code on the teacher's screen (the window's class panel)
need_pc libqrencode libqrencode-dev
need_file /usr/include/stb/stb_image_write.h libstb-dev
# fallback fonts for characters DejaVu lacks (optional at run time: without them such
# characters are shown as their bytes): colour emoji, CJK
need_file /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf fonts-noto-color-emoji
need_file /usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf fonts-droid-fallback

if [ "${1:-}" = "--test" ]; then
  need_cmd xvfb-run xvfb
  need_cmd xauth xauth
  need_cmd xdotool xdotool
  need_file /usr/bin/compare imagemagick
  need_cmd curl curl
  need_cmd jq jq
  need_cmd python3 python3
  need_cmd rsvg-convert librsvg2-bin   # SVG export tests: render the SVG to compare with the PNG
  need_cmd ffprobe ffmpeg              # video export tests: decode every video back, frame by frame
  need_cmd pdftoppm poppler-utils      # PDF export tests: render pages, pdftotext, pdfinfo
  need_cmd desktop-file-validate desktop-file-utils
  need_pymod torch python3-torch # tests/test_convert.sh: real nanoGPT checkpoints (torch.save)
  need_file /usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a libclang-rt-14-dev
  need_cmd clang clang
  need_cmd chromium chromium # tests/test_class_browser.sh: the student page in a real browser
fi

multiarch=0
if [ "${1:-}" = "--arm64" ]; then
  need_cmd aarch64-linux-gnu-gcc gcc-aarch64-linux-gnu
  need_file /usr/aarch64-linux-gnu/include/stdio.h libc6-dev-arm64-cross
  need_cmd qemu-aarch64-static qemu-user-static
  for p in libpcre2-dev libcjson-dev libopenblas-dev libgomp1; do
    dpkg -s "$p:arm64" >/dev/null 2>&1 || { want+=("$p:arm64"); multiarch=1; }
  done
fi

if [ ${#want[@]} -eq 0 ]; then
  exit 0
fi
# de-duplicate
mapfile -t want < <(printf '%s\n' "${want[@]}" | sort -u)
echo "install-deps: installing ${want[*]}"
if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
if [ "$multiarch" -eq 1 ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
  $SUDO dpkg --add-architecture arm64
fi
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${want[@]}"
