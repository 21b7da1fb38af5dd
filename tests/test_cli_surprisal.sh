# test_cli_surprisal.sh — `eval --per-token/--json/--least` and `novelty` end to end:
# per-token values against an independent float64 softmax of the logits `dump` writes,
# their mean against eval's own loss and against the reference loss of tiny_s30; the
# memorisation meter on text the bundled model was trained on (>= 90 % seen) versus the
# held-out validation text and a word-shuffled copy (far lower); a model without an index
# says so; every bad input exits 2 with one line. The corpus parts are skipped (named)
# when ../shared/corpus is absent: the corpus never enters the repository.
. "$(dirname "$0")/check.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
M="$REF/models/tiny"
CORPUS=${INFERSCOPE_CORPUS:-../shared/corpus}

# ---- eval on the tiny reference model: the s30 sequence, loss = nanoGPT's own ----
S30=$(python3 -c 'import json,sys; print(",".join(map(str, json.load(open(sys.argv[1]))["vectors"]["tiny_s30"]["input_ids"])))' "$REF/vectors/index.json" 2>/dev/null)
"$BIN" tokenize --json "x" >/dev/null 2>&1
# the text whose tokens are exactly s30 (checked below: eval reports 30 file tokens)
python3 - "$S30" "$tmp/s30.txt" <<'EOF'
import json, sys
sys.path.insert(0, "tools/train")
from gpt2_bpe import Encoder
ids = [int(x) for x in sys.argv[1].split(",")]
open(sys.argv[2], "wb").write(Encoder("assets/tokenizer").decode_bytes(ids))
EOF
"$BIN" eval --model "$M" --per-token --least 5 --json "$tmp/s30.txt" >"$tmp/e.json"
check "eval --per-token --json exits 0" test $? -eq 0
"$BIN" dump --model "$M" --prompt-file "$tmp/s30.txt" --tensor logits --out "$tmp/dump" >/dev/null
check "per-token rows = an independent softmax of the logits; mean = loss = reference" python3 - "$tmp" "$REF/vectors/index.json" "$S30" <<'EOF'
import json, math, sys, glob
import struct
tmp, idx, s30 = sys.argv[1], sys.argv[2], [int(x) for x in sys.argv[3].split(",")]
d = json.load(open(tmp + "/e.json"))
ref = json.load(open(idx))["vectors"]["tiny_s30"]
def fail(m):
    print(m, file=sys.stderr); sys.exit(1)
if d["file_tokens"] != 30 or d["n_tokens"] != 29: fail("tokens %s %s" % (d["file_tokens"], d["n_tokens"]))
# the .npy of logits (T, V) float32: parse the header by hand (numpy may be absent)
f = glob.glob(tmp + "/dump/*logits*.npy")[0]
raw = open(f, "rb").read()
hl = struct.unpack("<H", raw[8:10])[0]
hdr = raw[10:10 + hl].decode()
T, V = [int(x) for x in hdr.split("(")[1].split(")")[0].split(",") if x.strip()]
data = struct.unpack("<%df" % (T * V), raw[10 + hl:10 + hl + 4 * T * V])
rows = d["tokens"]
if [r["pos"] for r in rows] != list(range(1, 30)): fail("positions")
for r in rows:
    l = data[(r["pos"] - 1) * V:r["pos"] * V]
    m = max(l); z = sum(math.exp(x - m) for x in l)
    p = math.exp(l[s30[r["pos"]]] - m) / z
    h = -sum((math.exp(x - m) / z) * math.log2(math.exp(x - m) / z) for x in l)
    rank = 1 + sum(1 for i, x in enumerate(l) if x > l[s30[r["pos"]]] or (x == l[s30[r["pos"]]] and i < s30[r["pos"]]))
    if r["id"] != s30[r["pos"]]: fail("id at %d" % r["pos"])
    if abs(r["p"] - p) > 1e-5 * p: fail("p %g vs %g" % (r["p"], p))
    if abs(r["surprisal_bits"] + math.log2(p)) > 1e-5: fail("surprisal")
    if abs(r["entropy_bits"] - h) > 1e-5: fail("entropy %g vs %g" % (r["entropy_bits"], h))
    if r["rank"] != rank: fail("rank %d vs %d" % (r["rank"], rank))
mean = sum(r["surprisal_bits"] for r in rows) * math.log(2) / len(rows)
if abs(mean - d["loss"]) > 1e-6: fail("mean %r vs loss %r" % (mean, d["loss"]))
if abs(d["loss"] - ref["loss"]) > 1e-5: fail("loss %r vs reference %r" % (d["loss"], ref["loss"]))
least = d["least"]
if len(least) != 5: fail("least")
s = sorted(rows, key=lambda r: (-r["surprisal_bits"], r["pos"]))[:5]
if [r["pos"] for r in least] != [r["pos"] for r in s]: fail("least order")
EOF
# text output keeps the last line the README promises; --json alone is accepted now
last=$("$BIN" eval --model "$M" --per-token "$tmp/s30.txt" | tail -n 1)
check "eval --per-token ends with loss=... ppl=... tokens=29 ($last)" bash -c '[[ "$1" =~ ^loss=[0-9.]+\ ppl=[0-9.]+\ tokens=29$ ]]' _ "$last"
check "eval --json alone is valid JSON with the loss" bash -c '"$1" eval --model "$2" --json "$3" | python3 -c "import json,sys; d=json.load(sys.stdin); assert \"tokens\" not in d and d[\"n_tokens\"] == 29"' _ "$BIN" "$M" "$tmp/s30.txt"
for bad in "--least 0" "--least x" "--least" "--least -3"; do
  out=$("$BIN" eval --model "$M" $bad "$tmp/s30.txt" 2>&1); rc=$?
  check "eval $bad: exit 2, one line naming --least" bash -c '[ "$1" -eq 2 ] && [ "$(printf "%s\n" "$2" | wc -l)" -eq 1 ] && [[ "$2" == *--least* ]]' _ "$rc" "$out"
done

# ---- novelty: a model without an index says so ----
out=$("$BIN" novelty --model "$M" "Once upon a time" 2>&1); rc=$?
check "novelty without an index: exit 2, says it has none ($out)" bash -c '[ "$1" -eq 2 ] && [[ "$2" == *"no n-gram index"* ]] && [ "$(printf "%s\n" "$2" | wc -l)" -eq 1 ]' _ "$rc" "$out"
printf 'not an index' >"$tmp/bad.bin"
out=$("$BIN" novelty --index "$tmp/bad.bin" "Once upon a time" 2>&1); rc=$?
check "novelty --index of a bad file: exit 2 naming it" bash -c '[ "$1" -eq 2 ] && [[ "$2" == *bad.bin*magic* ]]' _ "$rc" "$out"
for bad in "--generate 0" "--generate x" "--generate"; do
  out=$("$BIN" novelty $bad "Once upon a time" 2>&1); rc=$?
  check "novelty $bad: exit 2 naming --generate" bash -c '[ "$1" -eq 2 ] && [[ "$2" == *--generate* ]]' _ "$rc" "$out"
done
# JSON shape, and the same seed gives the same marks
"$BIN" novelty --json --generate 40 --seed 5 "Once upon a time" >"$tmp/n1.json"
"$BIN" novelty --json --generate 40 --seed 5 "Once upon a time" >"$tmp/n2.json"
check "novelty --generate is reproducible with a seed" cmp -s "$tmp/n1.json" "$tmp/n2.json"
check "novelty --json: n 8, 44 tokens, 40 generated, share over the generated ones" python3 - "$tmp/n1.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
t = d["tokens"]
assert d["n"] == 8 and len(t) == 44 and d["scope"] == "generated", (d["n"], len(t), d["scope"])
assert sum(x["generated"] for x in t) == 40 and d["n_tokens"] == 40
assert d["n_seen"] == sum(x["seen"] for x in t if x["generated"])
assert abs(d["seen_share"] - d["n_seen"] / 40) < 1e-9
assert not any(x["seen"] for x in t[:7])  # no 8-window ends in the first 7 tokens
EOF

# ---- the meter on the bundled model's own training text vs text it never saw ----
if [ -f "$CORPUS/tinystories-train-head.txt" ] && [ -f "$CORPUS/tinystories-valid-head.txt" ]; then
  # passages copied from the training text: the five longest of its first 300 stories (plain
  # ASCII ones: training normalised curly quotes and mojibake). One story per passage, as
  # a reader would copy one; between stories training saw <|endoftext|>, not a newline.
  python3 - "$CORPUS" "$tmp" <<'EOF'
import random, sys
corpus, tmp = sys.argv[1], sys.argv[2]
head = open(corpus + "/tinystories-train-head.txt", encoding="utf-8").read()
import re
stories = [t for t in re.split(r"(?<!\n)\n(?!\n)", head)[:300] if t and all(ord(c) < 128 for c in t)]
for k, t in enumerate(sorted(stories, key=len, reverse=True)[:5]):
    open(tmp + "/train%d.txt" % k, "w").write(t.strip())
lines = stories[:60]
words = " ".join(lines).split(" ")
random.Random(7).shuffle(words)
open(tmp + "/shuffled.txt", "w").write(" ".join(words))
valid = open(corpus + "/tinystories-valid-head.txt", encoding="utf-8").read()
vl = [l for l in valid.split("\n") if l and all(ord(c) < 128 for c in l)][:60]
open(tmp + "/valid.txt", "w").write("\n".join(vl))
EOF
  for f in train0 train1 train2 train3 train4 shuffled valid; do
    "$BIN" novelty --json --prompt-file "$tmp/$f.txt" >"$tmp/$f.json"
  done
  check "each training passage >= 90 % seen; validation < 30 %; shuffled < 5 %" python3 - "$tmp" <<'EOF'
import json, sys
s = {f: json.load(open("%s/%s.json" % (sys.argv[1], f)))["seen_share"]
     for f in ("train0", "train1", "train2", "train3", "train4", "shuffled", "valid")}
print("seen shares:", s, file=sys.stderr)
assert min(s["train%d" % k] for k in range(5)) >= 0.90 and s["valid"] < 0.30 and s["shuffled"] < 0.05, s
EOF
  # greedy copies more than hot sampling (the lesson's claim), on the same prompt
  g=$("$BIN" novelty --json --generate 80 --greedy "Once upon a time" | python3 -c 'import json,sys; print(json.load(sys.stdin)["seen_share"])')
  h=$("$BIN" novelty --json --generate 80 --temperature 1.5 --seed 3 "Once upon a time" | python3 -c 'import json,sys; print(json.load(sys.stdin)["seen_share"])')
  check "greedy copies more than T=1.5 ($g vs $h)" python3 -c "import sys; assert $g > $h + 0.2"
else
  skip test_cli_surprisal/corpus "$CORPUS/tinystories-train-head.txt not found (set INFERSCOPE_CORPUS)"
fi

summary test_cli_surprisal
