# test_model_family.sh — GPT-2-family checkpoints that are not plain HF GPT-2 files open and
# compute the same numbers as the reference vectors (tests/reference, nanoGPT in PyTorch):
#  * a padded vocabulary (nanoGPT's 50,304 rows): the first 50,257 logits equal tiny_s30's,
#    the 47 padding rows (built to win every draw) are never sampled or shown, and `info`
#    says so;
#  * GPT2LMHeadModel's layout: "transformer."-prefixed names, an untied lm_head.weight, the
#    attention-mask buffers h.N.attn.bias / masked_bias;
#  * activation_function "gelu" (exact erf, what nanoGPT trains with): the last logits equal
#    the reference's alt.gelu_erf.logits_last (the unmodified nanoGPT forward).
# The variants are written by tests/fixtures/gpt2_family.py into a temporary folder.
. tests/check.sh
F=tests/fixtures/gpt2_family.py
TINY=$REF/models/tiny
S30=$(ref_file vectors/tiny_s30.safetensors)
S4=$(ref_file vectors/tiny_s4.safetensors)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_model_family.XXXXXX"); trap 'rm -rf "$tmp"' EXIT
IDS30=$(python3 -c 'import json,sys; print(",".join(map(str, json.load(open(sys.argv[1]))["sequences"]["s30"]["ids"])))' \
  "$(ref_file vectors/index.json)")
IDS4=7454,2402,257,640

# dumped logits (T, W) vs a reference tensor, first `cols` columns
cmp_logits() { # NPY REF_SAFETENSORS REF_TENSOR COLS [last-row-only]
  python3 - "$@" <<'EOF'
import json, subprocess, sys
npy, ref, name, cols = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
last = len(sys.argv) > 5
F = "tests/fixtures/gpt2_family.py"
got = json.loads(subprocess.check_output([sys.executable, F, "npy", npy]))
want = json.loads(subprocess.check_output([sys.executable, F, "tensor", ref, name]))
T, W = got["shape"]
g = got["data"][(T - 1) * W:] if last else got["data"]
rows = 1 if last else T
wd = want["data"]
Vw = len(wd) // rows
worst = 0.0
for t in range(rows):
    for v in range(cols):
        a, b = g[t * W + v], wd[t * Vw + v]
        d = abs(a - b) - 1e-4 * abs(b)
        worst = max(worst, d)
assert worst <= 1e-4, "max excess diff %g" % worst
EOF
}

# ---- padded vocabulary --------------------------------------------------------------------
python3 "$F" pad "$TINY" "$tmp/padded" 50304
"$BIN" info --json "$tmp/padded" >"$tmp/pinfo.json" 2>&1; rc=$?
check "padded: info exits 0 ($rc)" [ "$rc" -eq 0 ]
check "padded: info says 50,257 real tokens of 50,304 rows, 47 padding" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
v = d["vocab"]
assert d["vocab_size"] == 50304 and v == {"kind": "gpt2", "tokens": 50257, "padding_rows": 47,
    "desc": "GPT-2 tokenizer, 50,257 tokens of 50,304 rows (47 padding rows, never sampled or shown)"}, d' "$tmp/pinfo.json"
check "padded: the info table says it too" bash -c \
  '"$1" info "$2" | grep -q "^vocabulary   GPT-2 tokenizer, 50,257 tokens of 50,304 rows (47 padding rows"' _ "$BIN" "$tmp/padded"
"$BIN" dump --model "$tmp/padded" --ids "$IDS30" --tensor logits --out "$tmp/dpad" >/dev/null 2>"$tmp/dpad.err"; rc=$?
check "padded: dump exits 0 ($rc: $(head -c 200 "$tmp/dpad.err"))" [ "$rc" -eq 0 ]
check "padded: logits (30, 50304); the first 50,257 columns equal tiny_s30's (1e-4)" \
  cmp_logits "$tmp/dpad/logits.npy" "$S30" logits 50257
check "padded: the padding rows would win the last draw if they were let in" python3 - "$tmp/dpad/logits.npy" <<'EOF'
import json, subprocess, sys
d = json.loads(subprocess.check_output([sys.executable, "tests/fixtures/gpt2_family.py", "npy", sys.argv[1]]))
T, W = d["shape"]
row = d["data"][(T - 1) * W:]
assert max(row[50257:]) > max(row[:50257]) + 50, (max(row[50257:]), max(row[:50257]))
EOF
"$BIN" next --model "$tmp/padded" --ids "$IDS30" --top 64 --json >"$tmp/pnext.json" 2>"$tmp/pnext.err"
check "padded: next shows only real tokens, top-1 48186 with the reference probability" python3 - \
  "$tmp/pnext.json" "$(ref_file vectors/index.json)" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
ref = json.load(open(sys.argv[2]))["vectors"]["tiny_s30"]
assert r["vocab_size"] == 50257, r["vocab_size"]
ids = [row["id"] for row in r["rows"]]
assert len(ids) == 64 and max(ids) < 50257, ids
assert ids[:10] == ref["last_top10_ids"], (ids[:10], ref["last_top10_ids"])
for row, p in zip(r["rows"], ref["last_top10_probs"]):
    assert abs(row["p_raw"] - p) <= 1e-6 * p, (row, p)
EOF
"$BIN" generate --model "$tmp/padded" --ids "$IDS30" -n 40 --temperature 3 --seed 11 --json >"$tmp/pgen.json" 2>"$tmp/pgen.err"
check "padded: 40 hot draws (T=3) never pick a padding row" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["ids"]) == 40 and max(d["ids"]) < 50257, d["ids"]' "$tmp/pgen.json"
"$BIN" next --model "$tmp/padded" --ids 50300 >"$tmp/pbad.out" 2>&1; rc=$?
check "padded: a padding id is refused as input (exit 2, names the real vocabulary)" \
  bash -c '[ "$1" -eq 2 ] && grep -q "token id 50300 is outside the vocabulary \[0, 50257)" "$2"' _ "$rc" "$tmp/pbad.out"
printf 'Once upon a time, there was a little girl named Lily.' >"$tmp/text.txt"
l_tiny=$("$BIN" eval --model "$TINY" "$tmp/text.txt" 2>/dev/null | tail -n 1)
l_pad=$("$BIN" eval --model "$tmp/padded" "$tmp/text.txt" 2>/dev/null | tail -n 1)
check "padded: eval scores over the real vocabulary: same loss as tiny ($l_pad / $l_tiny)" \
  bash -c '[ -n "$1" ] && [ "$1" = "$2" ]' _ "$l_pad" "$l_tiny"

# the lens and attribution rank the tokens that exist: padded == tiny (the first 50,257 rows
# are the same), although the padding rows would top every layer if they were let in
"$BIN" lens --model "$tmp/padded" --ids "$IDS30" --top 32 --json >"$tmp/plens.json" 2>&1
"$BIN" lens --model "$TINY" --ids "$IDS30" --top 32 --json >"$tmp/tlens.json" 2>&1
check "padded: lens shows only real tokens, every layer as on tiny (ids, p within 1e-6)" python3 - \
  "$tmp/plens.json" "$tmp/tlens.json" <<'EOF2'
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert len(a["layers"]) == len(b["layers"]) == 3, (len(a["layers"]), len(b["layers"]))
for la, lb in zip(a["layers"], b["layers"]):
    ia, ib = [t["id"] for t in la["top"]], [t["id"] for t in lb["top"]]
    assert len(ia) == 32 and max(ia) < 50257 and ia == ib, (la["layer"], ia, ib)
    for ta, tb in zip(la["top"], lb["top"]):
        assert abs(ta["p"] - tb["p"]) <= 1e-6, (ta, tb)
    assert la["final_rank"] == lb["final_rank"] and abs(la["final_p"] - lb["final_p"]) <= 1e-6, (la, lb)
assert a["layers"][-1]["top"][0]["id"] == 48186, a["layers"][-1]["top"][0]
EOF2
"$BIN" attribute --model "$tmp/padded" --ids "$IDS30" --json >"$tmp/patt.json" 2>&1
"$BIN" attribute --model "$TINY" --ids "$IDS30" --json >"$tmp/tatt.json" 2>&1
check "padded: attribution of the model's own top token (a real one) as on tiny (1e-4)" python3 - \
  "$tmp/patt.json" "$tmp/tatt.json" <<'EOF2'
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert a["target"] == b["target"] == 48186, (a["target"], b["target"])
assert abs(a["total"] - b["total"]) <= 1e-4 * max(1.0, abs(b["total"])), (a["total"], b["total"])
EOF2
"$BIN" attribute --model "$tmp/padded" --ids "$IDS30" --target-id 50300 >"$tmp/pattbad.out" 2>&1; rc=$?
check "padded: attribute refuses a padding row as target (exit 2, names the real vocabulary)" \
  bash -c '[ "$1" -eq 2 ] && grep -q "target-id 50300 is outside the vocabulary 0..50256" "$2"' _ "$rc" "$tmp/pattbad.out"

# ---- transformer. prefix, untied lm_head, attention-mask buffers ---------------------------
python3 "$F" rename "$TINY" "$tmp/hf"
"$BIN" info --json "$tmp/hf" >"$tmp/hinfo.json" 2>&1; rc=$?
check "HF layout: info exits 0 ($rc: $(head -c 200 "$tmp/hinfo.json"))" [ "$rc" -eq 0 ]
check "HF layout: untied, lm_head counted (3,324,736 + 50257 x 64)" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["tied"] is False and d["n_params"] == 3324736 + 50257 * 64, d' "$tmp/hinfo.json"
"$BIN" dump --model "$tmp/hf" --ids "$IDS30" --tensor logits --out "$tmp/dhf" >/dev/null 2>&1; rc=$?
check "HF layout: dump exits 0 ($rc)" [ "$rc" -eq 0 ]
check "HF layout: logits equal tiny_s30's (1e-4)" cmp_logits "$tmp/dhf/logits.npy" "$S30" logits 50257
"$BIN" generate --model "$tmp/hf" --prompt "Once upon a time" --greedy -n 3 >/dev/null 2>&1; rc=$?
check "HF layout: generate runs ($rc)" [ "$rc" -eq 0 ]
python3 "$F" drop "$tmp/hf" lm_head.weight
"$BIN" info "$tmp/hf" >"$tmp/hf.err" 2>&1; rc=$?
check "tie_word_embeddings false without lm_head.weight: exit 2, says so" bash -c \
  '[ "$1" -eq 2 ] && grep -q "tie_word_embeddings = false, but there is no lm_head.weight" "$2"' _ "$rc" "$tmp/hf.err"

# ---- exact GELU (nanoGPT's nn.GELU) vs the reference's erf logits ----------------------------
python3 "$F" gelu "$TINY" "$tmp/erf"
check "gelu: info says exact erf" bash -c '"$1" info "$2" | grep -q "^gelu         exact (erf)"' _ "$BIN" "$tmp/erf"
for s in 4 30; do
  ids=$([ $s = 4 ] && echo "$IDS4" || echo "$IDS30"); ref=$([ $s = 4 ] && echo "$S4" || echo "$S30")
  "$BIN" dump --model "$tmp/erf" --ids "$ids" --tensor logits --out "$tmp/derf$s" >/dev/null 2>&1
  check "gelu: s$s last logits equal alt.gelu_erf.logits_last (1e-4)" \
    cmp_logits "$tmp/derf$s/logits.npy" "$ref" alt.gelu_erf.logits_last 50257 last
done
"$BIN" dump --model "$TINY" --ids "$IDS30" --tensor logits --out "$tmp/dtanh" >/dev/null 2>&1
differs() { ! cmp_logits "$@" >/dev/null 2>&1; }
check "gelu: tanh-GELU logits differ from the erf reference by more than the tolerance (the switch matters)" \
  differs "$tmp/dtanh/logits.npy" "$S30" alt.gelu_erf.logits_last 50257 last
summary test_model_family
