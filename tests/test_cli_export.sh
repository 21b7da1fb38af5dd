# test_cli_export.sh — `inferscope export` headless on the reference tiny model: a
# flip-book with sidecars, file names and numbering, pixel sizes at --scale 2, every
# head of a layer, a contact sheet, provenance read by an INDEPENDENT reader (python3
# zlib+struct, CRCs checked) and compared with the sidecar JSON, and exit status 2 with
# one line for bad input. No display: DISPLAY and SDL_VIDEODRIVER are unset.
. tests/check.sh
TINY="$REF/models/tiny"
T=$(mktemp -d /tmp/inferscope-test-cli-export-XXXXXX)
trap 'rm -rf "$T"' EXIT
run() { env -u DISPLAY -u SDL_VIDEODRIVER "$BIN" export --model "$TINY" "$@"; }

out=$("$BIN" export --help); rc=$?
check "--help exits 0" [ "$rc" -eq 0 ]
check "--help shows usage" grep -q 'usage: inferscope export' <<<"$out"

# errors: exit 2 and exactly one line naming the problem
err_is() { # expected-regex, args...
  local want=$1; shift
  local e rc
  e=$(run "$@" 2>&1 >/dev/null); rc=$?
  [ "$rc" -eq 2 ] && [ "$(printf '%s\n' "$e" | wc -l)" -eq 1 ] && grep -Eq -- "$want" <<<"$e" ||
    { echo "got rc=$rc: $e" >&2; return 1; }
}
check "no --out"           err_is '^inferscope export: --out DIR is required' --prompt "Hi"
check "scale 3" err_is '--scale: 3 is not 1, 2 or 4' --prompt "Hi" --scale 3 --out "$T/x"
check "bad panel" err_is "--panel: 'side' is not" --prompt "Hi" --panel side --out "$T/x"
check "bad size" err_is "--size: '12' is not" --prompt "Hi" --size 12 --out "$T/x"
check "head without layer" err_is '--head needs --layer' --prompt "Hi" --head 1 --out "$T/x"
check "layer too big"      err_is 'layers 0\.\.1' --prompt "Hi" --layer 9 --out "$T/x"
check "sheet needs heads" err_is '--contact-sheet needs' --prompt "Hi" --contact-sheet --out "$T/x"
check "no prompt"          err_is 'prompt' --out "$T/x"
: >"$T/afile"
check "out is a file"      err_is "$T/afile.*is a file" --prompt "Hi" --size 320x200 --out "$T/afile"
check "nothing written on errors" [ ! -e "$T/x" ]

# a flip-book: the prompt state and each of 3 steps, with sidecars
out=$(run --prompt "Once upon a time" --steps 3 --seed 5 --size 640x400 --sidecar --out "$T/fb"); rc=$?
check "flip-book exits 0" [ "$rc" -eq 0 ]
check "flip-book summary" [ "$out" = "wrote 4 figures to $T/fb" ]
for i in 0 1 2 3; do
  check "figure $i"  [ -f "$T/fb/000$((i + 1))-step-0$i-frame.png" ]
  check "sidecar $i" [ -f "$T/fb/000$((i + 1))-step-0$i-frame.json" ]
done
check "no stray files" [ "$(ls -A "$T/fb" | wc -l)" -eq 8 ]

# numbering continues; --scale 2 re-renders at twice the pixels
out=$(run --prompt "Once upon a time" --panel attention --layer 1 --head 2 --scale 2 --size 640x400 \
      --out "$T/fb"); rc=$?
check "scale 2 exits 0" [ "$rc" -eq 0 ]
check "numbering continues" [ -f "$T/fb/0005-step-00-attention-L1H2.png" ]

# the independent reader: chunk walk with CRC checks, tEXt only (Latin-1 safe), values
# equal to the sidecar, IHDR size = size x scale
PYREAD='
import json, struct, sys, zlib
def chunks(path):
    b = open(path, "rb").read()
    assert b[:8] == b"\x89PNG\r\n\x1a\n", "signature"
    i, out, size, types = 8, {}, None, []
    while i < len(b):
        n, t = struct.unpack(">I4s", b[i:i + 8])
        d = b[i + 8:i + 8 + n]
        crc = struct.unpack(">I", b[i + 8 + n:i + 12 + n])[0]
        assert zlib.crc32(t + d) & 0xffffffff == crc, "CRC of " + t.decode()
        types.append(t)
        if t == b"IHDR": size = struct.unpack(">II", d[:8])
        if t == b"tEXt":
            k, v = d.split(b"\0", 1)
            out[k.decode("latin-1")] = v.decode("latin-1")
        assert t not in (b"iTXt", b"zTXt"), "only tEXt chunks"
        i += 12 + n
    assert types[0] == b"IHDR" and types[-1] == b"IEND"
    return out, size
'
check "sidecar equals tEXt chunks" python3 -c "$PYREAD"'
for png in sys.argv[1:]:
    t, size = chunks(png)
    side = json.load(open(png[:-4] + ".json"))
    assert list(side) == list(t), "same keys in the same order"
    for k, v in side.items():
        assert all(32 <= ord(c) < 127 for c in t[k]), k + " is printable ASCII"
        got = t[k] if isinstance(v, str) and not t[k].startswith("\"") else json.loads(t[k])
        assert got == v, (k, got, v)
    assert size == (640, 400), size
    assert t["Software"].startswith("inferscope ")
    assert t["inferscope:model"] == "tiny"
    assert json.loads(t["inferscope:prompt"]) == "Once upon a time"
    ids = json.loads(t["inferscope:ids"])
    assert ids[:4] == [7454, 2402, 257, 640] and len(ids) == 4 + int(t["inferscope:step"])
    assert t["inferscope:seed"] == "5" and t["inferscope:panel"] == "frame"
' "$T"/fb/000[1-4]-*.png

check "scale-2 figure: pixels and provenance" python3 -c "$PYREAD"'
t, size = chunks(sys.argv[1])
assert size == (1280, 800), size
assert t["inferscope:scale"] == "2" and t["inferscope:size"] == "640x400"
assert t["inferscope:layer"] == "1" and t["inferscope:head"] == "2"
assert t["inferscope:tensor"] == "blocks.1.attn.hook_pattern"
assert t["inferscope:colormap"] == "viridis" and t["inferscope:theme"] == "light"
' "$T/fb/0005-step-00-attention-L1H2.png"

sha=$(grep 'models/tiny/model.safetensors' "$REF/SHA256SUMS" | cut -d' ' -f1)
check "sha256 of the weights" python3 -c "$PYREAD"'
t, _ = chunks(sys.argv[1]); assert t["inferscope:model_sha256"] == sys.argv[2], t["inferscope:model_sha256"]
' "$T/fb/0001-step-00-frame.png" "$sha"

# non-ASCII prompt: JSON-escaped in the tEXt chunk, decoded back exactly
run --prompt "Café — naïve 😀" --panel tokens --size 480x300 --out "$T/u" >/dev/null
check "UTF-8 prompt round trip" python3 -c "$PYREAD"'
t, _ = chunks(sys.argv[1])
assert "\\u00e9" in t["inferscope:prompt"], t["inferscope:prompt"]
assert json.loads(t["inferscope:prompt"]) == "Caf\u00e9 \u2014 na\u00efve \U0001F600"
' "$T/u/0001-step-00-tokens.png"
if [ -x /usr/bin/identify ]; then
  check "identify -verbose sees the provenance" \
    bash -c "/usr/bin/identify -verbose '$T/u/0001-step-00-tokens.png' | grep -q 'inferscope:model: tiny'"
fi

# every head of layer 1 (separate files), then all heads as one contact sheet per state
out=$(run --prompt "Once upon a time" --layer 1 --size 480x360 --out "$T/h"); rc=$?
check "heads of a layer" [ "$rc" -eq 0 ] && [ "$out" = "wrote 4 figures to $T/h" ]
check "head files" [ -f "$T/h/0001-step-00-attention-L1H0.png" ] && [ -f "$T/h/0004-step-00-attention-L1H3.png" ]
out=$(run --prompt "Once upon a time" --all-heads --contact-sheet --steps 1 --size 960x540 --out "$T/s"); rc=$?
check "contact sheets" [ "$rc" -eq 0 ] && [ "$out" = "wrote 2 figures to $T/s" ]
check "sheet names" [ -f "$T/s/0001-step-00-attention-all-heads.png" ] && [ -f "$T/s/0002-step-01-attention-all-heads.png" ]
check "sheet provenance" python3 -c "$PYREAD"'
t, size = chunks(sys.argv[1])
assert t["inferscope:contact_sheet"] == "all layers" and t["inferscope:tensor"] == "blocks.*.attn.hook_pattern"
assert size == (160 + 4 * 240, 220 + 2 * 264), size  # cells at least 240x264, + labels and header
' "$T/s/0002-step-01-attention-all-heads.png"

# --ablate: the figures show the model with those parts off and their provenance says which
# (canonical order); a figure of the whole model has no inferscope:ablate at all
run --prompt "Once upon a time" --ablate 1.mlp,0.1 --panel probs --size 480x300 --out "$T/ab" >/dev/null
check "export --ablate: inferscope:ablate is the canonical SPEC" python3 -c "$PYREAD"'
t, _ = chunks(sys.argv[1]); assert t.get("inferscope:ablate") == "0.1,1.mlp", t.get("inferscope:ablate")
t, _ = chunks(sys.argv[2]); assert "inferscope:ablate" not in t, t["inferscope:ablate"]
' "$T/ab/0001-step-00-probs.png" "$T/u/0001-step-00-tokens.png"
check "export --ablate: a block the model lacks" err_is "--ablate: '9\.mlp': block 9 does not exist" \
  --prompt "Hi" --ablate 9.mlp --out "$T/x"
check "export --ablate with --lesson is refused, not ignored" err_is "--ablate does not apply to --lesson" \
  --lesson lessons/01-what-is-inference.lesson --ablate 0.1 --out "$T/x"

# issue 19: --draws N rolls the pending dice in every state and records it
run --prompt "Once upon a time" --panel probs --draws 500 --size 640x400 --out "$T/dr" >/dev/null 2>&1
check "--draws: a figure with inferscope:draws 500 (none without)" python3 -c "$PYREAD"'
t, _ = chunks(sys.argv[1])
assert t["inferscope:draws"] == "500", t.get("inferscope:draws")
t0, _ = chunks(sys.argv[2])
assert "inferscope:draws" not in t0
' "$T"/dr/0001-*.png "$T"/fb/0001-*.png
check "--draws 0 refused" err_is "--draws" --prompt "Hi" --draws 0 --out "$T/x"
check "--draws with --lesson refused" err_is "--draws does not apply to --lesson" --lesson lessons/11-sampling-lab.lesson --draws 5 --out "$T/x"
summary test_cli_export

# the Text panel's marks: the mode is in the provenance; bad values are refused
check "bad text mode" err_is "--text-mode: 'bold' is not plain, surprisal or seen" --prompt "Hi" --text-mode bold --out "$T/x"
out=$(run --prompt "Once upon a time" --panel text --text-mode surprisal --size 640x400 --sidecar --out "$T/tm"); rc=$?
check "text-mode export exits 0" [ "$rc" -eq 0 ]
check "text-mode in the sidecar" grep -q '"inferscope:text_mode": "surprisal"' "$T"/tm/0001-*.json
check "--lesson refuses --text-mode" err_is 'drop those options' --lesson lessons/01-what-is-inference.lesson --text-mode seen --out "$T/x"
