# test_bundled_model.sh — the model that ships in assets/ and that `make run` opens by
# default: its shape and size, that the card describes this very file, its answer after
# "Once upon a" and its loss on held-out TinyStories text, both against an independent
# float64 numpy forward (tools/train/verify.py) of the same file, and `generate
# --stop-at-eot` on a story it finishes.
. tests/check.sh
MDIR=assets/models/stories16m
CORPUS=${INFERSCOPE_CORPUS:-../shared/corpus}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# ---- what ships: shape, size, dtype; `info` with no --model finds it ----
json=$("$BIN" info --json 2>&1); rc=$?
check "info (default model) exits 0 ($rc)" [ "$rc" -eq 0 ]
check "default model is the bundled one, 4x4x256, ctx 256, 16,090,880 params, F16, tied" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
want = {"name": "stories16m", "n_layer": 4, "n_head": 4, "n_embd": 256, "n_positions": 256,
        "vocab_size": 50257, "n_params": 16090880, "dtype": "F16", "tied": True}
bad = {k: (d.get(k), v) for k, v in want.items() if d.get(k) != v}
assert not bad, bad
assert d["file_bytes"] <= 40_000_000, d["file_bytes"]' "$json"
check "model file under 40 MB" [ "$(stat -c %s "$MDIR/model.safetensors")" -le 40000000 ]
# the card names the sha256 of the weights it describes: a retrained file needs a new card
sha=$(sha256sum "$MDIR/model.safetensors" | cut -d' ' -f1)
check "MODEL_CARD.md gives this file's sha256" grep -q "$sha" "$MDIR/MODEL_CARD.md"
check "MODEL_CARD.md credits TinyStories and its licence" \
  bash -c 'grep -q "Eldan" "$1" && grep -q "CDLA-Sharing-1.0" "$1"' _ "$MDIR/MODEL_CARD.md"

# ---- "Once upon a" -> " time", the probability as the numpy float64 forward computes it ----
# P_TIME: tools/train/verify.py assets/models/stories16m (float64 numpy, weights from the file)
P_TIME=0.9996008170066576
"$BIN" next "Once upon a" --json >"$tmp/next.json" 2>"$tmp/next.err"; rc=$?
check "next exits 0 ($rc)" [ "$rc" -eq 0 ]
check "top token after 'Once upon a' is ' time' (640), p >= 0.9 and = numpy's $P_TIME (1e-4)" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["rows"][0]
assert r["id"] == 640 and r["text"] == " time", r
assert r["p_raw"] >= 0.9 and abs(r["p_raw"] - float(sys.argv[2])) < 1e-4, (r["p_raw"], sys.argv[2])' "$tmp/next.json" "$P_TIME"

# ---- held-out loss: the first 16,000 characters of the normalised validation text ----
# numpy float64 (verify.py --eval-prefix 16000) with `eval`'s counting gives:
PREFIX_LOSS=2.377249
PREFIX_TOKENS=4031
if [ -f "$CORPUS/tinystories-valid-head.txt" ] && python3 tools/train/normalise.py \
     "$CORPUS/tinystories-valid-head.txt" "$tmp/valid.txt" >/dev/null; then
  python3 -c 'import sys; t = open(sys.argv[1], encoding="utf-8", newline="").read()[:16000]
open(sys.argv[2], "w", encoding="utf-8", newline="").write(t)' "$tmp/valid.txt" "$tmp/prefix.txt"
  out=$("$BIN" eval "$tmp/prefix.txt" 2>"$tmp/eval.err" | tail -n 1)
  check "eval on the valid prefix: $out vs numpy loss=$PREFIX_LOSS tokens=$PREFIX_TOKENS" python3 -c '
import sys
kv = dict(f.split("=") for f in sys.argv[1].split())
assert int(kv["tokens"]) == int(sys.argv[3]), kv
assert abs(float(kv["loss"]) - float(sys.argv[2])) < 2e-4, kv' "$out" "$PREFIX_LOSS" "$PREFIX_TOKENS"
elif [ ! -f "$CORPUS/tinystories-valid-head.txt" ]; then
  # the training text is never in the repository (it is not ours to ship)
  skip test_bundled_model/valid-loss "$CORPUS/tinystories-valid-head.txt not found (set INFERSCOPE_CORPUS)"
else
  check "validation text $CORPUS/tinystories-valid-head.txt normalised" false
fi

# ---- generate --stop-at-eot: with seed 1 (T 0.8) the story ends with <|endoftext|> ----
GEN=(generate --prompt "Once upon a time" -n 250 --temperature 0.8 --seed 1)
"$BIN" "${GEN[@]}" --stop-at-eot --json >"$tmp/gen.json" 2>"$tmp/gen.err"
check "seed-1 story stops at <|endoftext|> (134 tokens)" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["stopped_at_eot"] and not d["stopped_at_context_end"], d["stopped_at_eot"]
assert d["ids"][-1] == 50256 and 50256 not in d["ids"][:-1] and len(d["ids"]) == 134, len(d["ids"])' "$tmp/gen.json"
check "stderr says where it stopped" grep -q "stopped at <|endoftext|> after" "$tmp/gen.err"
"$BIN" "${GEN[@]}" --json >"$tmp/gen2.json" 2>/dev/null
check "without the flag the model writes on past <|endoftext|>" python3 -c '
import json, sys
a, b = (json.load(open(p))["ids"] for p in sys.argv[1:3])
assert len(b) == 250 and b[:len(a)] == a, (len(a), len(b))' "$tmp/gen.json" "$tmp/gen2.json"

summary test_bundled_model
