# test_hardening_io.sh — issue 35's hangs, silent wrongs and unclear messages, each
# reproduced and answered (one line naming the input and the problem, exit 2) instead of a
# hang, a lost output or a misleading line:
#  * FIFOs in place of optional files (a model's ngram-index.bin, fallback fonts) never block;
#  * tokenize --explain on one 200,000-byte word answers in bounded output, saying what it
#    left out;
#  * every command whose standard output is full (/dev/full) exits 2 naming it;
#  * a lesson's seed keeps all 64 bits, like --seed, and is refused by the same words;
#  * a lesson directive's argument longer than it takes is refused (a long `heads` list
#    used to become `heads one`); a beat with more captions than a slide and the handout
#    hold (12) is refused (the 13th on were dropped in silence);
#  * --size has one reader for the window and export: no wrap-around, a figure at least
#    320x200; export --out '' and the window's --export-dir '' are refused;
#  * a figure whose provenance holds a key twice is refused when reopened;
#  * config.json with a raw NUL or control byte inside a string (invalid JSON) is refused;
#  * messages that named the wrong problem: an encoder.json without the byte token "!",
#    layer_norm_epsilon 1e-300 (was "= 0"), a lesson's `model ""`;
#  * the window with no display says so and exits 2 (it ran unseen on SDL's fallback),
#    unless a headless driver is asked for by name;
# Every run is under `timeout`: a hang fails its check instead of blocking the suite.
. tests/check.sh
TINY=$REF/models/tiny
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_hardening_io.XXXXXX"); trap 'rm -rf "$tmp"' EXIT
export SDL_VIDEODRIVER=dummy

# fails_with (tests/check.sh); model_copy DIR: the tiny model's two files in DIR
model_copy() { mkdir -p "$1" && cp "$TINY/config.json" "$TINY/model.safetensors" "$1/"; }

# ---- (a) FIFOs in place of optional files never block -------------------------------------
model_copy "$tmp/ix" && mkfifo "$tmp/ix/ngram-index.bin" "$tmp/font.ttf"
check "novelty: a FIFO as the model's default ngram-index.bin is refused at once" \
  fails_with "ix/ngram-index.bin: not a regular file \(a FIFO\)" "$BIN" novelty --model "$tmp/ix" --prompt "Hi there"
check "export: a FIFO among the fallback fonts is skipped, not waited for" \
  bash -c 'INFERSCOPE_FALLBACK_FONTS="$2/font.ttf" timeout 20 "$1" export --model "$3" --prompt Hi --out "$2/fo" 2>/dev/null &&
    [ -f "$2"/fo/*.png ]' _ "$BIN" "$tmp" "$TINY"

# ---- (b) tokenize --explain is bounded ----------------------------------------------------
python3 -c 'import sys; sys.stdout.write("a" * 200000)' >"$tmp/word.txt"
timeout 20 "$BIN" tokenize --explain --file "$tmp/word.txt" >"$tmp/explain.txt" 2>&1; rc=$?
size=$(wc -c <"$tmp/explain.txt")
check "tokenize --explain on one 200,000-byte word answers (rc $rc) in under 5 MB ($size bytes)" \
  bash -c '[ "$1" -eq 0 ] && [ "$2" -lt 5000000 ]' _ "$rc" "$size"
check "...says which merges it left out" \
  grep -q "merges of this 200000-byte word: first 200 of 150000 shown (--json lists them all)" "$tmp/explain.txt"
check "...and how many parts of each line" grep -q "^  rank  6996: a + a -> aa .* (199959 more parts)$" "$tmp/explain.txt"
check "a short word is still explained in full" bash -c '"$1" tokenize --explain " world" | grep -q "Ġwor + ld -> Ġworld      Ġworld$"' _ "$BIN"

# ---- (c) a full standard output is an error, named once ----------------------------------
full() { # CMD...: exit 2, one line on stderr naming the lost output
  fails_with "^inferscope( [a-z]+)?: cannot write the output \(standard output: " bash -c '"$@" >/dev/full' _ "$@"
}
check "generate > /dev/full" full "$BIN" generate --model "$TINY" --prompt Hi -n 3
check "generate --json > /dev/full" full "$BIN" generate --model "$TINY" --prompt Hi -n 3 --json
check "next --json > /dev/full" full "$BIN" next --model "$TINY" --json Hi
check "info > /dev/full" full "$BIN" info "$TINY"
printf 'Once upon a time there was a cat. The cat sat on the mat.\n' >"$tmp/eval.txt"
check "eval > /dev/full" full "$BIN" eval --model "$TINY" "$tmp/eval.txt"
check "lens > /dev/full" full "$BIN" lens --model "$TINY" --prompt "Once upon a"
check "heads > /dev/full" full "$BIN" heads --model "$TINY" "Once upon a time there was a cat"
check "compare > /dev/full" full "$BIN" compare --model "$TINY" --prompt Hi greedy T=1
check "novelty > /dev/full" full "$BIN" novelty --prompt "Once upon a time"
check "attribute > /dev/full" full "$BIN" attribute --model "$TINY" --prompt "Once upon a"
check "tokenize > /dev/full" full "$BIN" tokenize Hi
check "tokenize --help > /dev/full" full "$BIN" tokenize --help
check "--help > /dev/full" full "$BIN" --help
check "export --help > /dev/full" full "$BIN" export --help
check "a full output is not reported when the command failed anyway" \
  fails_with "no text" bash -c '"$1" tokenize >/dev/full' _ "$BIN"
# ---- (d) lesson values: one range with the flags --------------------------------------------
# png_key PNG KEY: the value of a figure's text chunk KEY
png_key() {
  python3 - "$1" "$2" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read(); p = 8; key = sys.argv[2].encode() + b"\0"
while p < len(d):
    n, = struct.unpack(">I", d[p:p + 4]); kind = d[p + 4:p + 8]; c = d[p + 8:p + 8 + n]; p += 12 + n
    if kind == b"tEXt" and c.startswith(key): print(c[len(key):].decode())
PY
}
export -f png_key
lesson() { # NAME BODY...: writes $tmp/NAME.lesson on the tiny model
  local name=$1; shift
  { printf 'title %s\nmodel %s\nprompt Once upon a time\n' "$name" "$(cd "$TINY" && pwd)"; printf '%s\n' "$@"; } >"$tmp/$name.lesson"
}
lesson seedmax "seed 18446744073709551615" "caption the largest seed" pause
timeout 60 "$BIN" export --lesson "$tmp/seedmax.lesson" --out "$tmp/seedmax" >/dev/null 2>&1
check "a lesson's seed 2^64-1 reaches the figure whole" \
  bash -c '[ "$(png_key "$1"/0001-seedmax-beat-01.png inferscope:seed)" = 18446744073709551615 ]' _ "$tmp/seedmax"
lesson seedneg "seed -1" pause
check "a lesson's seed -1 is refused with --seed's range" \
  fails_with "seedneg.lesson:4: seed: '-1' .*give a whole number in \[0, 2\^64 - 1\]" "$BIN" export --lesson "$tmp/seedneg.lesson" --out "$tmp/x"
check "--seed says the same" fails_with "^inferscope next: --seed: '-1' .*give a whole number in \[0, 2\^64 - 1\]" \
  "$BIN" next --model "$TINY" --seed -1 Hi
heads=$(python3 -c 'print(",".join(["0", "1"] * 75))') # 299 bytes
lesson longheads "layer 1" "head 0" "heads $heads" pause
check "a heads list of 299 bytes is refused, not read as 'heads one'" \
  fails_with "longheads.lesson:6: 'heads' takes at most 255 bytes, not 299" "$BIN" export --lesson "$tmp/longheads.lesson" --out "$tmp/x"
lesson longcap "caption $(python3 -c 'print("word " * 100)')" pause
check "a long caption is text: accepted" bash -c 'timeout 60 "$1" export --lesson "$2" --out "$3" >/dev/null 2>&1' \
  _ "$BIN" "$tmp/longcap.lesson" "$tmp/longcap"
caps=(); for i in $(seq 13); do caps+=("caption line $i"); done
lesson caps13 "${caps[@]}" pause
check "a beat with 13 captions is refused, naming the beat and the limit" \
  fails_with "caps13.lesson:16: beat 1 has more than 12 captions" "$BIN" export --lesson "$tmp/caps13.lesson" --out "$tmp/x"
lesson caps12 "${caps[@]:0:12}" pause
check "12 captions are accepted, and the handout has all of them" \
  bash -c 'timeout 60 "$1" export --lesson "$2" --out "$3" --handout >/dev/null 2>&1 && [ "$(grep -c "^line [0-9]" "$3/handout.md")" -eq 12 ]' \
  _ "$BIN" "$tmp/caps12.lesson" "$tmp/caps12"

# ---- (e) sizes and output folders ----------------------------------------------------------
check "the window's --size 4294968320x4294968376 is refused, not wrapped to 1024x1080" \
  fails_with "^inferscope window: --size: '4294968320x4294968376' is not WIDTHxHEIGHT from 1024x640 to 8192x8192" \
  "$BIN" --model "$TINY" --size 4294968320x4294968376
check "export says the same, with the figure's range" \
  fails_with "^inferscope export: --size: '4294968320x4294968376' is not WIDTHxHEIGHT from 320x200 to 8192x8192" \
  "$BIN" export --model "$TINY" --prompt Hi --size 4294968320x4294968376 --out "$tmp/sz"
check "export --size 1x1 is refused" fails_with "'1x1' is not WIDTHxHEIGHT from 320x200" \
  "$BIN" export --model "$TINY" --prompt Hi --size 1x1 --out "$tmp/sz"
check "export --size 320x200 (the smallest figure) is written" \
  bash -c 'timeout 60 "$1" export --model "$2" --prompt Hi --size 320x200 --out "$3/sz2" >/dev/null 2>&1 && [ -f "$3"/sz2/*.png ]' \
  _ "$BIN" "$TINY" "$tmp"
check "export --out '' is refused, not ./inferscope-figures" \
  fails_with "^inferscope export: --out: the folder name is empty" bash -c 'cd "$2" && "$1" export --model "$3" --prompt Hi --out ""' \
  _ "$(cd "$(dirname "$BIN")" && pwd)/inferscope" "$tmp" "$(cd "$TINY" && pwd)"
check "...and nothing was written there" [ ! -e "$tmp/inferscope-figures" ]
check "the window's --export-dir '' is refused" fails_with "^inferscope window: --export-dir: the folder name is empty" \
  "$BIN" --model "$TINY" --export-dir ""

# ---- (f) a figure's provenance with a key twice -----------------------------------------
# png_add_text IN OUT KEY VALUE: IN with one more tEXt chunk before IEND
png_add_text() {
  python3 - "$@" <<'PY'
import struct, sys, zlib
d = open(sys.argv[1], "rb").read()
body = sys.argv[3].encode() + b"\0" + sys.argv[4].encode()
chunk = struct.pack(">I", len(body)) + b"tEXt" + body + struct.pack(">I", zlib.crc32(b"tEXt" + body))
open(sys.argv[2], "wb").write(d[:-12] + chunk + d[-12:])
PY
}
fig=$tmp/seedmax/0001-seedmax-beat-01.png
png_add_text "$fig" "$tmp/dup.png" inferscope:seed 5
check "a figure with inferscope:seed twice is refused, naming the key" \
  fails_with 'dup.png: provenance key "inferscope:seed" appears twice' "$BIN" --model "$TINY" --open-figure "$tmp/dup.png"

# ---- (g) JSON that cJSON would let through ---------------------------------------------------
cfg_bytes() { # NAME PYTHON-EXPR-ON-BYTES: $tmp/NAME with config.json = f(original bytes)
  model_copy "$tmp/$1"
  python3 -c 'import sys; t = open(sys.argv[1], "rb").read(); open(sys.argv[2], "wb").write(eval(sys.argv[3]))' \
    "$TINY/config.json" "$tmp/$1/config.json" "$2"
}
cfg_bytes cnul 't.replace(b"\"gpt2\"", b"\"gpt2\x00junk\"", 1)'
cfg_bytes cctl 't.replace(b"{", b"{\"summary_type\": \"cls\x01index\", ", 1)'
check "config.json with a raw NUL inside a string is refused" \
  fails_with "cnul/config.json: raw NUL byte inside a string at byte [0-9]+ \(not valid JSON\)" "$BIN" info "$tmp/cnul"
check "config.json with a raw control byte inside a string is refused" \
  fails_with "cctl/config.json: raw control byte inside a string at byte 21 \(not valid JSON\)" "$BIN" info "$tmp/cctl"

# ---- (h) the message names the real problem ------------------------------------------------
mkdir -p "$tmp/nobang" && cp assets/tokenizer/vocab.bpe "$tmp/nobang/" &&
  python3 -c 'import json, sys; e = json.load(open(sys.argv[1])); del e["!"]; json.dump(e, open(sys.argv[2], "w"))' \
    assets/tokenizer/encoder.json "$tmp/nobang/encoder.json"
check "encoder.json without \"!\" names the missing byte token, not <|endoftext|>" \
  fails_with 'nobang/encoder.json: no token "!" for the single byte 0x21 \(byte-level BPE needs all 256\)' \
  "$BIN" tokenize --tokenizer "$tmp/nobang" Hi
cfg_bytes eps300 't.replace(b"\"layer_norm_epsilon\": 1e-05", b"\"layer_norm_epsilon\": 1e-300")'
check "layer_norm_epsilon 1e-300 is printed as written, not as 0" \
  fails_with "eps300/config.json: layer_norm_epsilon = 1e-300 is below 1.17549e-38, the smallest normal float32" \
  "$BIN" info "$tmp/eps300"
printf 'title Empty model\nmodel ""\nprompt Hi\n' >"$tmp/emptymodel.lesson"
check "a lesson's model \"\" says the path is empty" \
  fails_with "emptymodel.lesson:2: 'model' path is empty" "$BIN" export --lesson "$tmp/emptymodel.lesson" --out "$tmp/x"
check "the window with no display at all says so (exit 2), instead of running unseen" \
  fails_with "^inferscope window: no display to open the window on" \
  env -u DISPLAY -u WAYLAND_DISPLAY -u SDL_VIDEODRIVER "$BIN" --model "$TINY"
# (X11's failed connection leaves what LeakSanitizer calls leaks in libX11: SDL-HEADLESS.md)
e=$(env -u WAYLAND_DISPLAY -u SDL_VIDEODRIVER DISPLAY=:97 ASAN_OPTIONS=detect_leaks=0 timeout 20 "$BIN" --model "$TINY" 2>&1 >/dev/null); rc=$?
check "...and with a display that cannot be reached (rc $rc)" \
  bash -c '[ "$1" -eq 2 ] && grep -q "^inferscope window: no display to open the window on" <<<"$2"' _ "$rc" "$e"

summary test_hardening_io
