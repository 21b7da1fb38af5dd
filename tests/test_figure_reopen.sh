#!/usr/bin/env bash
# test_figure_reopen.sh — `--open-figure` checks the weights, not only the model's name
# (issue 22): a figure exported from one model folder, reopened after its weights were
# replaced by other ones under the same name, says so (SHA-256 of the figure against
# the weights the window loaded); reopened on the same weights it says "reopened".
. tests/check.sh
TINY=$REF/models/tiny
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_figure_reopen.XXXXXX"); trap 'kill $pid 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
export SDL_VIDEODRIVER=dummy SDL_RENDER_DRIVER=software
pid=
mkdir -p "$tmp/tiny" && cp "$TINY/config.json" "$TINY/model.safetensors" "$tmp/tiny/"
"$BIN" export --model "$tmp/tiny" --prompt "Once upon a time" --steps 2 --panel text --out "$tmp/figs" >/dev/null
fig=$(ls "$tmp"/figs/*.png | head -n 1)
check "a figure to reopen" [ -f "$fig" ]

# open_figure NAME: runs the window on the figure until its first status line is on
# stderr or in the state (bounded), then stops it; leaves stderr in $tmp/NAME.err
open_figure() {
  "$BIN" --model "$tmp/tiny" --open-figure "$fig" --state-out "$tmp/$1.json" 2>"$tmp/$1.err" >/dev/null &
  pid=$!
  for _ in $(seq 1 100); do grep -q "warning" "$tmp/$1.err" 2>/dev/null && break; sleep 0.1; done
  kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; pid=
}
open_figure same
check "same weights: no warning" bash -c '! grep -q warning "$1"' _ "$tmp/same.err"

# other weights under the same folder name: flip the low byte of the last float (a
# change of one ulp in one weight: the picture may look the same, the hash does not)
python3 - "$tmp/tiny/model.safetensors" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, 'rb').read())
b[-4] ^= 1
open(p, 'wb').write(bytes(b))
PY
open_figure other
check "other weights: one warning naming the figure and both hashes" \
  grep -Eq "warning: .*$(basename "$fig") was made with other weights named 'tiny' \(SHA-256 [0-9a-f]{12}…, these are [0-9a-f]{12}…\)" "$tmp/other.err"
summary test_figure_reopen
