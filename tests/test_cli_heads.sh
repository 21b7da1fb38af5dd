# test_cli_heads.sh — `inferscope heads` end to end: on the tiny reference model every
# score of the JSON against an independent float64 recomputation from the patterns that
# `dump` writes for the probe's own ids; on the bundled model the JSON is identical run
# after run and names L2H2 the previous-token head on the built-in story, while lesson
# 6's own prompt gives the heads its captions name (L0H2, L1H3); a prompt replaces the
# story; the text table has a "look for" line per habit; bad input exits 2 with one line.
. "$(dirname "$0")/check.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
M="$REF/models/tiny"

"$BIN" heads --model "$M" --json >"$tmp/tiny.json"
check "heads --json on tiny exits 0" test $? -eq 0
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(",".join(map(str,d["probe"]["text_ids"]))); print(",".join(map(str,d["probe"]["repeat_ids"])))' \
  "$tmp/tiny.json" >"$tmp/ids" 2>/dev/null
pats=blocks.0.attn.pattern,blocks.1.attn.pattern
"$BIN" dump --model "$M" --ids "$(sed -n 1p "$tmp/ids")" --tensor "$pats" --out "$tmp/text" >/dev/null
"$BIN" dump --model "$M" --ids "$(sed -n 2p "$tmp/ids")" --tensor "$pats" --out "$tmp/rep" >/dev/null
check "tiny: every score = float64 from the dumped patterns (1e-6)" python3 - "$tmp" <<'PY'
import json, struct, sys
tmp = sys.argv[1]
d = json.load(open(tmp + "/tiny.json"))
def load(path):  # .npy float32 (H, T, T), header parsed by hand (numpy may be absent)
    raw = open(path, "rb").read()
    hl = struct.unpack("<H", raw[8:10])[0]
    shape = [int(x) for x in raw[10:10 + hl].decode().split("(")[1].split(")")[0].split(",") if x.strip()]
    n = shape[0] * shape[1] * shape[2]
    return shape, struct.unpack("<%df" % n, raw[10 + hl:10 + hl + 4 * n])
def fail(m):
    print(m, file=sys.stderr); sys.exit(1)
heads = {(h["layer"], h["head"]): h for h in d["heads"]}
if sorted(heads) != [(l, h) for l in range(2) for h in range(4)]: fail("heads %s" % sorted(heads))
for l in range(2):
    (H, N, _), t = load("%s/text/blocks.%d.attn.pattern.npy" % (tmp, l))
    (_, T2, _), r = load("%s/rep/blocks.%d.attn.pattern.npy" % (tmp, l))
    R = T2 // 2
    for h in range(H):
        P = lambda i, j: float(t[(h * N + i) * N + j])
        Q = lambda i, j: float(r[(h * T2 + i) * T2 + j])
        want = {
            "previous_token": sum(P(i, i - 1) for i in range(1, N)) / (N - 1),
            "first_token": sum(P(i, 0) for i in range(1, N)) / (N - 1),
            "local": sum(P(i, j) for i in range(4, N) for j in range(i - 3, i + 1)) / (N - 4),
            "induction": sum(Q(i, i - R + 1) for i in range(R, 2 * R)) / R,
            "duplicate_token": sum(Q(i, i - R) for i in range(R, 2 * R)) / R,
        }
        for k, w in want.items():
            if abs(heads[(l, h)][k] - w) > 1e-6: fail("L%dH%d %s: %r vs %r" % (l, h, k, heads[(l, h)][k], w))
if d["probe"]["text_tokens"] != 128 or d["probe"]["repeat_length"] != 50 or d["probe"]["repeat_seed"] != 18:
    fail("probe %r" % {k: v for k, v in d["probe"].items() if "ids" not in k})
PY

# ---- the bundled model: reproducible, and the previous-token head ----
"$BIN" heads --json >"$tmp/b1.json" && "$BIN" heads --json >"$tmp/b2.json"
check "bundled: two runs give identical JSON" cmp -s "$tmp/b1.json" "$tmp/b2.json"
check "bundled: 16 heads, scores in [0, 1], best previous-token L2H2, no clear induction head" python3 - "$tmp/b1.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
keys = ["previous_token", "first_token", "induction", "duplicate_token", "local"]
assert len(d["heads"]) == 16 and all(0 <= h[k] <= 1 for h in d["heads"] for k in keys), "heads"
assert [p["key"] for p in d["patterns"]] == keys and all(p["look_for"] for p in d["patterns"]), "patterns"
b = d["best"]["previous_token"]
assert (b["layer"], b["head"], b["clear"]) == (2, 2, True), b
top = max(d["heads"], key=lambda h: h["previous_token"])
assert (top["layer"], top["head"]) == (2, 2), top
assert d["best"]["induction"]["clear"] is False, d["best"]["induction"]
assert d["probe"]["text_source"] == "builtin" and d["probe"]["text_tokens"] == 248, d["probe"]["text_tokens"]
PY
"$BIN" heads >"$tmp/b.txt"
check "text table: a 'look for' line and a chance level per habit, L0..L3 rows" \
  test "$(grep -c '^  look for: ' "$tmp/b.txt")" -eq 5 -a "$(grep -c 'chance level' "$tmp/b.txt")" -eq 5 -a \
       "$(grep -c '^  L3 ' "$tmp/b.txt")" -eq 5
check "text table names the best previous-token head" grep -q 'best: L2H2 0.212' "$tmp/b.txt"

# ---- a prompt replaces the story ----
"$BIN" heads --json --prompt "Once upon a time, there was a little girl named Lily. She" >"$tmp/p.json"
check "--prompt: the text probe is the prompt (14 tokens), the repeat probe stays" python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); e = json.load(open(sys.argv[2]))
assert d["probe"]["text_source"] == "prompt" and d["probe"]["text_tokens"] == 14, d["probe"]["text_tokens"]
assert d["probe"]["text"].startswith("Once upon a time, there was"), d["probe"]["text"]
assert d["probe"]["repeat_ids"] == e["probe"]["repeat_ids"]
assert [h["induction"] for h in d["heads"]] == [h["induction"] for h in e["heads"]]
' "$tmp/p.json" "$tmp/b1.json"

# ---- lesson 6 names its heads from this table: the prompt it uses gives them ----
L6=lessons/06-attention.lesson
"$BIN" heads --json --prompt "$(sed -n 's/^prompt //p' "$L6")" >"$tmp/l6.json"
check "lesson 6's prompt: best previous-token L0H2 0.352, best first-token L1H3 0.368 (its captions)" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["probe"]["text_tokens"] == 17, d["probe"]["text_tokens"]
prev = max(d["heads"], key=lambda h: h["previous_token"])
first = max(d["heads"], key=lambda h: h["first_token"])
assert (prev["layer"], prev["head"]) == (0, 2) and abs(prev["previous_token"] - 0.352) < 5e-4, prev
assert (first["layer"], first["head"]) == (1, 3) and abs(first["first_token"] - 0.368) < 5e-4, first
' "$tmp/l6.json"

# ---- bad input: exit 2, one line naming the problem ----
bad() { # description, expected text, args...
  local desc=$1 want=$2; shift 2
  "$BIN" heads "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  check "$desc: exit 2" test "$rc" -eq 2
  check "$desc: one line naming it" test "$(wc -l <"$tmp/err")" -eq 1 -a -s "$tmp/err"
  check "$desc: says '$want'" grep -q -- "$want" "$tmp/err"
}
bad "unknown option" "unknown option '--bogus'" --bogus
bad "missing model" "no-such-dir" --model "$tmp/no-such-dir"
bad "prompt too short" "too short" --prompt "Hi there"
bad "id out of range" "50257" --ids 1,2,3,4,50257
bad "prompt longer than the context" "exceeds the model's context" --model "$M" --ids "$(python3 -c 'print(",".join(["464"]*200))')"
"$BIN" heads --help >"$tmp/help"
check "--help exits 0 and documents the JSON" grep -q '"previous_token"' "$tmp/help"

summary test_cli_heads
