#!/usr/bin/env bash
# test_export_video.sh — `export --video FILE.{mp4,webm,gif}` decoded back with FFmpeg's
# own tools (ffprobe, ffmpeg): codec, profile, pixel format, size, frame count, duration;
# every held picture against the PNG export of the same state (the same raster path):
# PSNR >= 40 dB for MP4 and WebM in the video's YUV (psnr_yuv below), >= 30 dB for the GIF (256 colours for the whole animation,
# no dithering: anti-aliased text edges snap to the nearest palette entry, ~1/2 of a
# 256-level step on the few edge pixels; a wrong or shifted frame scores < 20 dB); the
# provenance read back from the container equals the PNG's text chunks key for key;
# a lesson's slides with captions; `--open-figure VIDEO` reopens the last state; bad
# options and an existing file are one line and exit 2, and leave no file behind.
. tests/check.sh
T=$(mktemp -d /tmp/inferscope-test-export-video-XXXXXX)
trap 'rm -rf "$T"' EXIT
export SDL_VIDEODRIVER=dummy SDL_RENDER_DRIVER=software
for tool in ffprobe ffmpeg python3; do
  if ! command -v "$tool" >/dev/null; then
    skip test_export_video "$tool missing (scripts/install-deps.sh --test)"
    summary test_export_video
    exit 0
  fi
done
[ -x /usr/bin/compare ] || { skip test_export_video "ImageMagick missing"; summary test_export_video; exit 0; }
TINY=$REF/models/tiny
P="Once upon a time"
SIZE=640x360
STEPS=3

probe() { ffprobe -v error -select_streams v:0 -count_frames -of default=nw=1 \
  -show_entries stream=codec_name,profile,pix_fmt,width,height,nb_read_frames:format=duration "$1"; }
field() { probe "$1" | sed -n "s/^$2=//p" | head -1; }
# psnr A B: ImageMagick's PSNR of two same-size images in dB ("inf" when identical -> 99)
psnr() {
  local v
  v=$(/usr/bin/compare -metric PSNR "$1" "$2" null: 2>&1 >/dev/null)
  case "$v" in inf*|1.#INF*) v=99 ;; esac
  printf '%s\n' "${v%% *}"
}
# psnr_yuv VIDEO N PNG: FFmpeg's psnr filter (average of Y, U, V) of frame N against the
# PNG converted as the encoder converts (BT.709, limited range, 4:2:0): the video's own
# colour space. In RGB after a player's chroma upsampling a yuv420p frame of a figure
# scores ~35-37 dB even when encoded losslessly (colour at half resolution around
# thin coloured text): the format's cost, which every MP4 for PowerPoint pays.
psnr_yuv() {
  ffmpeg -hide_banner -i "$1" -i "$3" -lavfi "[0:v]select=eq(n\,$2),setpts=PTS-STARTPTS[a];[1:v]scale=out_color_matrix=bt709:out_range=tv:flags=accurate_rnd,format=yuv420p[b];[a][b]psnr" \
    -f null - 2>&1 | sed -n 's/.*PSNR y:.* average:\([0-9.inf]*\).*/\1/p' | sed 's/^inf$/99/'
}
# frame VIDEO N OUT.png: the N-th decoded frame (0-based) as RGB
frame() { ffmpeg -v error -i "$1" -vf "select=eq(n\,$2)" -frames:v 1 -pix_fmt rgb24 -y "$3"; }
ge() { python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) >= float(sys.argv[2]) else 1)' "$1" "$2"; }

# the PNGs of the same states: step 0 (the prompt) .. step 3
"$BIN" export --model "$TINY" --prompt "$P" --steps $STEPS --size $SIZE --out "$T/png" >/dev/null 2>&1
mapfile -t PNGS < <(ls "$T"/png/*.png)
check "the PNGs of $((STEPS + 1)) states" [ "${#PNGS[@]}" -eq $((STEPS + 1)) ]

for kind in mp4 webm gif; do
  v="$T/steps.$kind"
  out=$("$BIN" export --model "$TINY" --prompt "$P" --steps $STEPS --size $SIZE --beat-seconds 1 --video "$v" 2>&1)
  check "$kind: written ($out)" grep -q "wrote $v: 4 pictures, 4.0 s" <<<"$out"
  case $kind in mp4) codec=h264; pix=yuv420p; fps=30 ;; webm) codec=vp9; pix=yuv420p; fps=30 ;; gif) codec=gif; pix=bgra; fps=10 ;; esac
  check "$kind: codec $codec" [ "$(field "$v" codec_name)" = $codec ]
  check "$kind: pixel format $pix" [ "$(field "$v" pix_fmt)" = $pix ]
  check "$kind: $SIZE" [ "$(field "$v" width)x$(field "$v" height)" = $SIZE ]
  d=$(field "$v" duration)
  check "$kind: 4 s long ($d)" python3 -c 'import sys; sys.exit(abs(float(sys.argv[1]) - 4.0) > 0.05)' "$d"
  # MP4/WebM: every frame stored (30 a second); GIF: one frame per picture, with its delay
  n=$(field "$v" nb_read_frames)
  if [ $kind = gif ]; then want=4; per=1; else want=$((4 * fps)); per=$fps; fi
  check "$kind: $want frames ($n)" [ "$n" = "$want" ]
  [ $kind = mp4 ] && check "mp4: High profile (PowerPoint, Keynote, browsers)" [ "$(field "$v" profile)" = High ]
  # every held picture: its first and last frame against the PNG of that state
  bound=40; [ $kind = gif ] && bound=30
  worst=99
  for k in 0 1 2 3; do
    for at in $((k * per)) $((k * per + per - 1)); do
      if [ $kind = gif ]; then frame "$v" $at "$T/f.png"; p=$(psnr "$T/f.png" "${PNGS[$k]}")
      else p=$(psnr_yuv "$v" $at "${PNGS[$k]}"); fi
      ge "$worst" "$p" && worst=$p
    done
  done
  check "$kind: every held frame equals its PNG, PSNR $worst >= $bound dB" ge "$worst" $bound
  echo "  $kind: $(stat -c %s "$v") bytes, worst PSNR $worst dB"
  # a frame of another state must not pass: the bound can fail
  if [ $kind = gif ]; then frame "$v" 0 "$T/f.png"; p=$(psnr "$T/f.png" "${PNGS[3]}")
  else p=$(psnr_yuv "$v" 0 "${PNGS[3]}"); fi
  check "$kind: the prompt's frame is not step 3's (PSNR $p < $bound)" bash -c '! python3 -c "import sys; sys.exit(float(sys.argv[1]) < float(sys.argv[2]))" "$0" "$1"' "$p" "$bound"
done

# the provenance: the container's metadata (through ffprobe, i.e. libavformat) equals the
# text chunks of the PNG of the last state, key for key
pngtext() { python3 - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read(); i = 8
while i < len(d):
    n, t = struct.unpack('>I4s', d[i:i + 8]); body = d[i + 8:i + 8 + n]; i += 12 + n
    if t == b'tEXt':
        k, v = body.split(b'\0', 1); print(k.decode() + '=' + v.decode('latin-1'))
PY
}
pngtext "${PNGS[3]}" | sort >"$T/png.meta"
check "the PNG has provenance" grep -q '^inferscope:ids=' "$T/png.meta"
for kind in mp4 webm gif; do
  ffprobe -v error -show_entries format_tags -of default=nw=1 "$T/steps.$kind" | sed 's/^TAG://' >"$T/raw.meta"
  if [ $kind = gif ]; then # one comment of key=value lines
    sed -n '/^comment=/,$p' "$T/raw.meta" | sed '1s/^comment=//' >"$T/c" && mv "$T/c" "$T/raw.meta"
  fi
  # Matroska spells tag names in capitals: fold back as the reader does
  python3 - "$T/raw.meta" <<'PY' | sort >"$T/$kind.meta"
import sys
for line in open(sys.argv[1]):
    k, _, v = line.rstrip('\n').partition('=')
    if k.lower().startswith('inferscope:'): k = k.lower()
    elif k.lower() in ('title', 'software', 'source'): k = k.capitalize()
    else: continue
    print(k + '=' + v)
PY
  check "$kind: metadata = the PNG's text chunks ($(wc -l <"$T/$kind.meta") keys)" diff -q "$T/png.meta" <(sort -u "$T/$kind.meta")
done

# a lesson: one picture per beat, captions included, = the PNG slides
L=lessons/04-sampling.lesson # its own (bundled) model: its expectations hold there
"$BIN" export --lesson "$L" --size $SIZE --out "$T/slides" >/dev/null 2>&1
mapfile -t SLIDES < <(ls "$T"/slides/*.png)
out=$("$BIN" export --lesson "$L" --size $SIZE --beat-seconds 0.5 --video "$T/lesson.mp4" 2>&1)
check "lesson: written ($out)" grep -q "wrote $T/lesson.mp4: ${#SLIDES[@]} pictures" <<<"$out"
check "lesson: ${#SLIDES[@]} beats x 15 frames" [ "$(field "$T/lesson.mp4" nb_read_frames)" = $(( ${#SLIDES[@]} * 15 )) ]
worst=99
for k in "${!SLIDES[@]}"; do
  p=$(psnr_yuv "$T/lesson.mp4" $((k * 15 + 14)) "${SLIDES[$k]}")
  ge "$worst" "$p" && worst=$p
done
check "lesson: every slide held = its PNG, PSNR $worst >= 40 dB" ge "$worst" 40

# --open-figure VIDEO: the window reopens the last state (its ids, from the metadata)
want=$(sed -n 's/^inferscope:ids=//p' "$T/png.meta" | tr -d ' ')
for kind in mp4 webm gif; do
  rm -f "$T/state.json"
  env -u DISPLAY "$BIN" --model "$TINY" --open-figure "$T/steps.$kind" --state-out "$T/state.json" >/dev/null 2>"$T/open.err" &
  pid=$!
  for _ in $(seq 1 150); do grep -q '"ids"' "$T/state.json" 2>/dev/null && break; sleep 0.1; done
  kill $pid 2>/dev/null; wait $pid 2>/dev/null
  got=$(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["ids"], separators=(",", ":")))' "$T/state.json" 2>/dev/null)
  check "--open-figure steps.$kind: ids $got = $want" [ "$got" = "$want" ]
done

# bad options: one line, exit 2, before the model loads; nothing written
EX=("$BIN" export --model "$TINY" --prompt "$P")
check "--fps 0" fails_with "fps" "${EX[@]}" --video "$T/b.mp4" --fps 0
check "--fps 61" fails_with "fps" "${EX[@]}" --video "$T/b.mp4" --fps 61
check "--fps 30 for a GIF" fails_with "hundredths of a second" "${EX[@]}" --video "$T/b.gif" --fps 30
check "unknown extension" fails_with "b.avi: not a video name" "${EX[@]}" --video "$T/b.avi"
check "no extension" fails_with "not a video name" "${EX[@]}" --video "$T/b"
check "--beat-seconds -1" fails_with "beat-seconds: '-1'" "${EX[@]}" --video "$T/b.mp4" --beat-seconds -1
check "--beat-seconds 0" fails_with "beat-seconds: '0'" "${EX[@]}" --video "$T/b.mp4" --beat-seconds 0
check "an odd size for MP4" fails_with "even sides" "${EX[@]}" --video "$T/b.mp4" --size 641x360
check "--fps without --video" fails_with "go with --video" "${EX[@]}" --out "$T/x" --fps 10
check "--video with --format" fails_with "drop --format" "${EX[@]}" --video "$T/b.mp4" --format svg
check "--video with --out" fails_with "drop --out" "${EX[@]}" --video "$T/b.mp4" --out "$T/x"
check "a folder that does not exist" fails_with "does not exist" "${EX[@]}" --video "$T/none/b.mp4"
check "an existing file is not overwritten" fails_with "already exists" "${EX[@]}" --video "$T/steps.mp4"
check "nothing written by the refusals" bash -c '! ls "$1"/b.* "$1"/.b* >/dev/null 2>&1' _ "$T"
check "steps.mp4 untouched" [ "$(field "$T/steps.mp4" nb_read_frames)" = 120 ]

summary test_export_video
