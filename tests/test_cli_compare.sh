# test_cli_compare.sh — `inferscope compare` against independent computations on the
# bundled model: the greedy column = argmax taken step by step from `next --json` (a
# fresh prefill each step, not compare's decode loop); a sampled column = `generate` with
# the same flags and seed (the Session's path and dice); top-k=1 = greedy under the same
# dice; distinct-n, repeated n-grams and first divergence counted here in Python; the
# mean surprisal from an independent float64 softmax of the logits `dump` writes for the
# prompt + column; every bad SPEC refused with one line naming it (exit 2).
. "$(dirname "$0")/check.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
P="Once upon a time"
N=12
"$BIN" compare --json --seed 7 -n $N --prompt "$P" greedy T=0.7 "top-k=1" "top-p=0.9,T=1.5" >"$tmp/c.json"
check "compare --json exits 0" test $? -eq 0

# ---- greedy: argmax of next --json at every step ----
ids=$("$BIN" tokenize --json "$P" | python3 -c 'import json,sys; print(",".join(str(t["id"]) for t in json.load(sys.stdin)["tokens"]))')
greedy=""
cur="$ids"
for i in $(seq 1 $N); do
  t=$("$BIN" next --ids "$cur" --top 1 --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["rows"][0]["id"])')
  greedy="$greedy${greedy:+,}$t"
  cur="$cur,$t"
done
check "greedy column = next --json argmax step by step ($greedy)" python3 - "$tmp/c.json" "$greedy" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); g = [int(x) for x in sys.argv[2].split(",")]
sys.exit(0 if d["columns"][0]["ids"] == g and d["greedy_ids"] == g and d["columns"][0]["greedy"] else 1)
PY
check "top-k=1 under the same dice = greedy" python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["columns"][2]["ids"]==d["greedy_ids"] and d["columns"][2]["first_divergence"] is None else 1)' "$tmp/c.json"

# ---- sampled columns: generate with the same settings and seed ----
"$BIN" generate --json --seed 7 -n $N --prompt "$P" --temperature 0.7 >"$tmp/g1.json"
"$BIN" generate --json --seed 7 -n $N --prompt "$P" --top-p 0.9 --temperature 1.5 >"$tmp/g2.json"
check "T=0.7 and top-p=0.9,T=1.5 columns = generate with those flags and --seed 7" python3 - "$tmp" <<'PY'
import json, sys
t = sys.argv[1]; d = json.load(open(t + "/c.json"))
g1 = json.load(open(t + "/g1.json")); g2 = json.load(open(t + "/g2.json"))
ok = d["columns"][1]["ids"] == g1["ids"] and d["columns"][3]["ids"] == g2["ids"]
ok = ok and d["columns"][1]["text"] == g1["text"] and d["prompt_ids"] == g1["prompt_ids"]
ok = ok and d["columns"][3]["settings"]["top_p"] == 0.9 and d["columns"][3]["settings"]["temperature"] == 1.5
sys.exit(0 if ok and d["seed"] == 7 and d["n"] == 12 else 1)
PY

# ---- the metrics, counted directly ----
check "distinct-n, repeated n-grams, first divergence = a direct count" python3 - "$tmp/c.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); g = d["greedy_ids"]
def fail(m): print(m, file=sys.stderr); sys.exit(1)
for c in d["columns"]:
    ids = c["ids"]
    for n in (1, 2, 3):
        grams = [tuple(ids[i:i + n]) for i in range(len(ids) - n + 1)]
        want = len(set(grams)) / len(grams) if grams else 0.0
        if abs(c["distinct_%d" % n] - want) > 1e-9: fail("%s distinct-%d %r vs %r" % (c["spec"], n, c["distinct_%d" % n], want))
        if n > 1 and c["repeated_%d" % n] != len(grams) - len(set(grams)): fail("%s repeated-%d" % (c["spec"], n))
    div = next((i + 1 for i in range(len(ids)) if ids[i] != g[i]), None)
    if c["first_divergence"] != div: fail("%s divergence %r vs %r" % (c["spec"], c["first_divergence"], div))
# the fixture must exercise both cases: a column that leaves greedy, one with a repeat
if all(c["first_divergence"] is None for c in d["columns"]): fail("no column diverges")
PY

# ---- mean surprisal: float64 softmax of dumped logits (T=1, the untempered model) ----
col=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(",".join(map(str, d["prompt_ids"] + d["columns"][3]["ids"])))' "$tmp/c.json")
"$BIN" dump --ids "$col" --tensor logits --out "$tmp/dump" >/dev/null
check "mean surprisal of top-p=0.9,T=1.5 = -log2 softmax(logits) averaged, and p_raw per token" python3 - "$tmp" <<'PY'
import json, math, struct, glob, sys
t = sys.argv[1]; d = json.load(open(t + "/c.json")); c = d["columns"][3]
raw = open(glob.glob(t + "/dump/*logits*.npy")[0], "rb").read()
hl = struct.unpack("<H", raw[8:10])[0]
T, V = [int(x) for x in raw[10:10 + hl].decode().split("(")[1].split(")")[0].split(",") if x.strip()]
data = struct.unpack("<%df" % (T * V), raw[10 + hl:10 + hl + 4 * T * V])
n0 = len(d["prompt_ids"]); bits = []
for i, tok in enumerate(c["ids"]):
    l = data[(n0 - 1 + i) * V:(n0 + i) * V]; m = max(l); z = sum(math.exp(x - m) for x in l)
    p = math.exp(l[tok] - m) / z
    if abs(p - c["p_raw"][i]) > 1e-4 * p + 1e-7: print("p_raw", i, p, c["p_raw"][i], file=sys.stderr); sys.exit(1)
    bits.append(-math.log2(p))
mean = sum(bits) / len(bits)
if abs(mean - c["mean_surprisal_bits"]) > 1e-3: print("mean", mean, c["mean_surprisal_bits"], file=sys.stderr); sys.exit(1)
PY

# ---- bad specs: one line naming the spec, exit 2, nothing on stdout ----
bad() {
  "$BIN" compare --prompt "$P" greedy "$1" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qF "'$1'" "$tmp/err" &&
    grep -q "$2" "$tmp/err"
}
check "unknown key" bad "top-q=3" "unknown setting"
check "not a number" bad "top-k=abc" "not a number"
check "out of range" bad "top-p=1.5" "outside \[0, 1\]"
check "NaN" bad "T=nan" "T:"
check "negative temperature" bad "T=-1" "outside"
check "no value" bad "top-k" "needs a value"
check "a key twice" bad "T=0.7,temperature=1" "twice"
check "empty item" bad "T=0.7,,top-k=3" "empty item"
check "empty spec" bad "" "empty setting"
"$BIN" compare --prompt "$P" greedy >/dev/null 2>"$tmp/err"
check "one spec is too few" test $? -eq 2
"$BIN" compare --prompt "$P" greedy T=1 T=2 T=3 T=4 >/dev/null 2>"$tmp/err"
check "five specs are too many" test $? -eq 2
"$BIN" compare --prompt "$P" --top-k 3 greedy T=1 >/dev/null 2>"$tmp/err"
check "sampler flags refused (the specs set them)" grep -q "drop the sampler flags" "$tmp/err"
check "aliases: word, name, flag, short form and case" \
  sh -c "'$BIN' compare --json --seed 3 -n 4 --prompt '$P' 'temperature=0.5,top_k=5' 'Temp=0.5,top-k=5' >'$tmp/a.json' &&
         python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); a,b=d[\"columns\"]; sys.exit(0 if a[\"settings\"]==b[\"settings\"] and a[\"ids\"]==b[\"ids\"] and a[\"settings\"][\"top_k\"]==5 else 1)' '$tmp/a.json'"

summary test_cli_compare
