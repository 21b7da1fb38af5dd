#!/usr/bin/env bash
# test_small_vocab.sh — models with their own small vocabulary, built here from random
# weights by tests/fixtures/gpt2_family.py and checked against its float64 forward pass
# (the published GPT-2 math, written independently of the C engine):
#  * 3 tokens and no vocabulary file (ids only): `dump --ids`, `next --ids`, `generate --ids`
#    with no tokenizer, the id-list text form, clear refusals; the window opens on it under
#    Xvfb (with --ids, and without: it starts from token 0 and says why);
#  * nanoGPT's 65 Shakespeare characters with a vocab.json (id -> text): text prompts are
#    encoded character by character, the CLI shows the characters, generate prints them.
set -u
cd "$(dirname "$0")/.."
. tests/check.sh
F=tests/fixtures/gpt2_family.py

# ---------------------------------------------------------------- inside Xvfb
if [ "${1:-}" = "--inner" ]; then
  out=$2 model=$3 SLOW=$4
  run_window() { # name, expected n_pos after 3 steps, args...: 3 steps (Space), then q
    local name=$1 want=$2; shift 2
    SDL_VIDEODRIVER=x11 SDL_RENDER_DRIVER=software SDL_FRAMEBUFFER_ACCELERATION=0 \
      INFERSCOPE_HITS_OUT="$out/$name.hits" "$BIN" --model "$model" --seed 3 --size 1280x720 \
      --state-out "$out/$name.json" "$@" >"$out/$name.log" 2>&1 &
    local pid=$! wid
    wid=$(timeout $((40 * SLOW)) xdotool search --sync --name '^inferscope' | head -n 1)
    if [ -n "$wid" ]; then
      for _ in $(seq 1 $((300 * SLOW))); do [ -s "$out/$name.hits" ] && break; sleep 0.1; done
      # the window drawing the first frame (a window found earlier may have been a
      # transient one SDL replaced: keys sent to it are lost, "BadWindow")
      wid=$(xdotool search --name '^inferscope' | tail -n 1)
      sleep 0.3
      # one Space per step, sent again when a step does not show within 5 s (a key
      # lost while the machine is overloaded), never more steps than asked
      local n=$((want - 3)) k i
      for ((k = n + 1; k <= want; k++)); do
        for i in $(seq 1 $((300 * SLOW))); do
          [ $(((i - 1) % (50 * SLOW))) -eq 0 ] && xdotool key --window "$wid" space
          head -n 1 "$out/$name.hits" | grep -q "n_pos=$k " && break
          sleep 0.1
        done
      done
      sleep 0.3
      /usr/bin/import -window root "$out/$name.png"
    fi
    # q, again every 5 s while the app is still there
    for i in $(seq 1 $((300 * SLOW))); do
      kill -0 "$pid" 2>/dev/null || break
      [ -n "$wid" ] && [ $(((i - 1) % (50 * SLOW))) -eq 0 ] && xdotool key --window "$wid" q 2>/dev/null
      sleep 0.1
    done
    kill "$pid" 2>/dev/null
    wait "$pid"; echo $? >"$out/$name.rc"
  }
  run_window ids 6 --ids 0,2,1
  run_window noprompt 4
  exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_small_vocab.XXXXXX"); trap 'rm -rf "$tmp"' EXIT
python3 "$F" random "$tmp/v3" 3 7
python3 "$F" chars "$tmp/c65" 3
M=$tmp/v3

# ---- ids only: 3 tokens, no vocabulary file -------------------------------------------------
"$BIN" info --json "$M" >"$tmp/info.json" 2>&1; rc=$?
check "v3: info exits 0 ($rc)" [ "$rc" -eq 0 ]
check "v3: info says ids only, 3 tokens" python3 -c '
import json, sys
v = json.load(open(sys.argv[1]))["vocab"]
assert v["kind"] == "ids" and v["tokens"] == 3 and v["padding_rows"] == 0, v' "$tmp/info.json"
IDS=0,2,1,1,0
python3 "$F" forward "$M" "$IDS" >"$tmp/ref.json"
"$BIN" dump --model "$M" --ids "$IDS" --tensor logits,blocks.1.attn.pattern --out "$tmp/d" >/dev/null 2>&1; rc=$?
check "v3: dump --ids exits 0 ($rc)" [ "$rc" -eq 0 ]
check "v3: dumped logits (5, 3) == the float64 reference (1e-5)" python3 - "$tmp/d/logits.npy" "$tmp/ref.json" <<'EOF'
import json, subprocess, sys
got = json.loads(subprocess.check_output([sys.executable, "tests/fixtures/gpt2_family.py", "npy", sys.argv[1]]))
ref = json.load(open(sys.argv[2]))
assert got["shape"] == [5, 3], got["shape"]
flat = [v for row in ref for v in row]
d = max(abs(a - b) for a, b in zip(got["data"], flat))
spread = max(flat) - min(flat)
assert d <= 1e-5 and spread > 0.5, (d, spread)  # and the logits really differ between tokens
EOF
check "v3: the pattern is causal and not uniform" python3 - "$tmp/d/blocks.1.attn.pattern.npy" <<'EOF'
import json, subprocess, sys
g = json.loads(subprocess.check_output([sys.executable, "tests/fixtures/gpt2_family.py", "npy", sys.argv[1]]))
NH, T, _ = g["shape"]
p = g["data"]
for h in range(NH):
    for t in range(T):
        row = p[(h * T + t) * T:(h * T + t + 1) * T]
        assert abs(sum(row) - 1) < 1e-5 and all(v == 0 for v in row[t + 1:]), row
assert max(p) > 0.6, max(p)
EOF
"$BIN" next --model "$M" --ids "$IDS" --json >"$tmp/next.json" 2>"$tmp/next.err"; rc=$?
check "v3: next --ids exits 0 ($rc)" [ "$rc" -eq 0 ]
check "v3: next gives softmax of the reference's last logits, tokens shown as ⟨id⟩" python3 - "$tmp/next.json" "$tmp/ref.json" <<'EOF'
import json, math, sys
r = json.load(open(sys.argv[1]))
last = json.load(open(sys.argv[2]))[-1]
m = max(last); z = sum(math.exp(v - m) for v in last)
assert r["vocab_size"] == 3 and len(r["rows"]) == 3, r
for row in r["rows"]:
    want = math.exp(last[row["id"]] - m) / z
    assert abs(row["p_raw"] - want) < 1e-6, (row, want)
    assert row["text"] == "\u27e8%d\u27e9" % row["id"], row["text"]
EOF
"$BIN" generate --model "$M" --ids 0,2,1 --greedy -n 8 --json >"$tmp/gen.json" 2>"$tmp/gen.err"; rc=$?
want=$(python3 "$F" greedy "$M" 0,2,1 8)
check "v3: generate --ids --greedy == the float64 greedy decode $want" python3 -c '
import json, sys
assert json.load(open(sys.argv[1]))["ids"] == json.loads(sys.argv[2])' "$tmp/gen.json" "$want"
out=$("$BIN" generate --model "$M" --ids 0,2,1 --greedy -n 2 2>/dev/null)
check "v3: generate prints the tokens as ⟨id⟩ ($out)" python3 -c '
import json, sys
ids = [0, 2, 1] + json.loads(sys.argv[2])[:2]
assert sys.argv[1] == "".join("\u27e8%d\u27e9" % i for i in ids), sys.argv[1]' "$out" "$want"
a=$("$BIN" next --model "$M" --ids 0,2,1 --json --seed 1); b=$("$BIN" next --model "$M" "0 2 ⟨1⟩" --json --seed 1)
check "v3: the text '0 2 ⟨1⟩' is the same prompt as --ids 0,2,1" bash -c '[ -n "$1" ] && [ "$1" = "$2" ]' _ "$a" "$b"
fails_with() { # regex, args...: exit 2 and one line matching
  local want=$1; shift
  local e rc; e=$("$BIN" "$@" 2>&1 >/dev/null); rc=$?
  [ "$rc" -eq 2 ] && [ "$(printf '%s\n' "$e" | wc -l)" -eq 1 ] && grep -Eq -- "$want" <<<"$e" || { echo "rc=$rc: $e" >&2; return 1; }
}
check "v3: a text prompt is refused, pointing at ids" fails_with "'H' at byte 0 is not a token id.*e.g. 3 1 2" \
  next --model "$M" "Hello"
check "v3: id 3 is outside the vocabulary" fails_with 'token id 3 is outside the vocabulary \[0, 3\)' \
  next --model "$M" --ids 0,3
check "v3: --stop-at-eot has nothing to stop at" fails_with 'has no <\|endoftext\|> token' \
  generate --model "$M" --ids 0 --stop-at-eot
"$BIN" export --model "$M" --ids 0,2,1 --steps 2 --seed 2 --panel probs --size 800x500 --out "$tmp/fig" >/dev/null 2>&1; rc=$?
check "v3: headless export of the probability panel ($rc)" bash -c '[ "$1" -eq 0 ] && [ "$(ls "$2"/*.png | wc -l)" -eq 3 ]' \
  _ "$rc" "$tmp/fig"

# ---- the window (Xvfb): opens on the 3-token model, steps, exits cleanly --------------------
if command -v xvfb-run >/dev/null && command -v xdotool >/dev/null && [ -x /usr/bin/import ]; then
  SLOW=1
  case "$BUILD" in *asan*) export ASAN_OPTIONS=detect_leaks=0; SLOW=6 ;; esac
  mkdir -p "$tmp/w"
  timeout $((200 * SLOW)) xvfb-run -a -s '-screen 0 1280x800x24' bash "$0" --inner "$tmp/w" "$M" "$SLOW" \
    >"$tmp/w/inner.out" 2>&1
  j() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(json.dumps(eval(sys.argv[2], {}, {"d": d})))' \
    "$tmp/w/$1.json" "$2" 2>/dev/null; }
  check "window --ids 0,2,1: exited cleanly" [ "$(cat "$tmp/w/ids.rc" 2>/dev/null)" = 0 ]
  check "window --ids 0,2,1: 3 prompt tokens + 3 steps, all ids < 3" \
    [ "$(j ids 'd["n_pos"] == 6 and d["ids"][:3] == [0, 2, 1] and max(d["ids"]) < 3')" = true ]
  check "window without a prompt: exited cleanly" [ "$(cat "$tmp/w/noprompt.rc" 2>/dev/null)" = 0 ]
  check "window without a prompt: starts from token 0 (1 + 3 steps)" \
    [ "$(j noprompt 'd["n_pos"] == 4 and d["ids"][0] == 0')" = true ]
  check "window screenshot is not blank" [ "$(/usr/bin/convert "$tmp/w/ids.png" -format %k info: 2>/dev/null || echo 0)" -gt 100 ]
  if [ -n "${INFERSCOPE_KEEP_SHOTS:-}" ]; then cp "$tmp"/w/*.png "$INFERSCOPE_KEEP_SHOTS"/ 2>/dev/null; fi
else
  skip test_small_vocab/window "xvfb-run, xdotool or ImageMagick missing (scripts/install-deps.sh --test)"
fi

# ---- 65 characters with a vocab.json ---------------------------------------------------------
C=$tmp/c65
"$BIN" info "$C" >"$tmp/cinfo.txt" 2>&1
check "chars: info says the model's own vocabulary, 65 tokens" \
  grep -q "^vocabulary   the model's own vocabulary (vocab.json), 65 tokens$" "$tmp/cinfo.txt"
cids=$(python3 -c '
import json, sys
v = json.load(open(sys.argv[1] + "/vocab.json"))
print(",".join(str(v.index(c)) for c in "ROMEO:"))' "$C")
python3 "$F" forward "$C" "$cids" >"$tmp/cref.json"
"$BIN" next --model "$C" "ROMEO:" --top 64 --json >"$tmp/cnext.json" 2>"$tmp/cnext.err"; rc=$?
check "chars: next 'ROMEO:' exits 0 ($rc)" [ "$rc" -eq 0 ]
check "chars: prompt encoded character by character, p_raw = float64 softmax, texts are the characters" \
  python3 - "$tmp/cnext.json" "$tmp/cref.json" "$C/vocab.json" "$cids" <<'EOF'
import json, math, sys
r = json.load(open(sys.argv[1])); last = json.load(open(sys.argv[2]))[-1]
vocab = json.load(open(sys.argv[3])); ids = [int(i) for i in sys.argv[4].split(",")]
assert r["prompt_ids"] == ids, (r.get("prompt_ids"), ids)
m = max(last); z = sum(math.exp(v - m) for v in last)
assert len(r["rows"]) == 64
for row in r["rows"]:
    assert abs(row["p_raw"] - math.exp(last[row["id"]] - m) / z) < 1e-6, row
    assert row["text"] == vocab[row["id"]], (row["text"], vocab[row["id"]])
EOF
want=$(python3 "$F" greedy "$C" "$cids" 6)
got=$("$BIN" generate --model "$C" --prompt "ROMEO:" --greedy -n 6 2>/dev/null)
check "chars: generate prints 'ROMEO:' + the float64 greedy characters ($got)" python3 -c '
import json, sys
v = json.load(open(sys.argv[1])); ids = json.loads(sys.argv[2])
assert sys.argv[3] == "ROMEO:" + "".join(v[i] for i in ids), (sys.argv[3], ids)' "$C/vocab.json" "$want" "$got"
check "chars: a character outside the vocabulary is named" \
  fails_with "U\+00E9 'é' at byte 1 is not in this model's vocabulary \(vocab.json\); give --ids" next --model "$C" "héllo"
printf '["a", "b", "a"]' >"$tmp/dup.json"
mkdir -p "$tmp/c65dup" && cp "$C/config.json" "$C/model.safetensors" "$tmp/c65dup/" && cp "$tmp/dup.json" "$tmp/c65dup/vocab.json"
check "chars: a vocab.json with a token twice is refused" fails_with 'vocab.json: token 2 "a" has the same bytes as another token' \
  next --model "$tmp/c65dup" --ids 0
python3 -c 'import json,sys; json.dump([chr(65 + i) for i in range(70)], open(sys.argv[1], "w"))' "$tmp/c65dup/vocab.json"
check "chars: a vocab.json larger than the model is refused" \
  fails_with "has 70 tokens but the model has only 65 embedding rows" next --model "$tmp/c65dup" --ids 0
python3 -c 'import json,sys; json.dump([chr(65 + i) for i in range(60)], open(sys.argv[1], "w"))' "$tmp/c65dup/vocab.json"
"$BIN" info --json "$tmp/c65dup" >"$tmp/pad.json" 2>&1
check "chars: a vocab.json of 60 for 65 rows: 5 padding rows" python3 -c '
import json, sys
v = json.load(open(sys.argv[1]))["vocab"]
assert v["tokens"] == 60 and v["padding_rows"] == 5, v' "$tmp/pad.json"
summary test_small_vocab
