# test_cli_trace_budget.sh — `info --memory` (predicted weights and trace from config.json
# alone, values computed here from the published shapes), --trace-mb on next/generate (the
# note on stderr, the same greedy tokens as without a budget) and its refusals (exit 2,
# one line). The XL case uses a config.json only: no weights exist or are read.
. tests/check.sh
TINY="$REF/models/tiny"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT

out=$("$BIN" info --memory "$TINY" 2>&1); rc=$?
check "info --memory exits 0 ($rc)" [ "$rc" -eq 0 ]
has() { grep -Eq "$1" <<<"$out" || { echo "missing /$1/ in:" >&2; echo "$out" >&2; return 1; }; }
# tiny: 3,324,736 parameters, all float32 = 13.3 MB; f16: matrices (50257*64 + 2*12*64^2 =
# 3,314,752) in 2 bytes + vectors (128*64 + 2*13*64 + 128 = 9,984) in 4 = 6.67 MB
check "tiny weights f32/f16" has '^weights +13 MB as f32, 7 MB as f16/bf16$'
# trace at 128 positions: KV 2*2*128*64*4 = 0.13 MB; logits 128*50257*4 = 25.7 MB
check "tiny trace"  has '^trace +2[67] MB with the default views \(KV cache 0 MB\)$'

# GPT-2 XL shape, config only
mkdir -p "$T/xl"
sed -e 's/"n_embd": 64/"n_embd": 1600/' -e 's/"n_head": 4/"n_head": 25/' -e 's/"n_layer": 2/"n_layer": 48/' \
    -e 's/"n_positions": 128/"n_positions": 1024/' -e 's/"n_ctx": 128/"n_ctx": 1024/' "$TINY/config.json" >"$T/xl/config.json"
out=$("$BIN" info --memory --trace-mb 1200 "$T/xl" 2>&1); rc=$?
check "XL info --memory exits 0 without weights ($rc)" [ "$rc" -eq 0 ]
# 1,557,611,200 parameters: f16 = 3.11 GB; full default trace ~3.73 GB
check "XL weights"  has '^weights +62[0-9]{2} MB as f32, 31[0-9]{2} MB as f16/bf16$'
check "XL trace"    has '^trace +37[0-9]{2} MB with the default views \(KV cache 629 MB\)$'
check "XL budget says what it dropped" has '^budget +trace 1[01][0-9]{2} MB \(budget 1200 MB, all 37[0-9]{2} MB\); dropped: .*patterns recomputed per layer'
check "XL total with f16 under 4.5 GB" has 'total +.* (4[0-4][0-9]{2}) MB with f16'

# auto: the budget and its reason, from this machine's /proc/meminfo (computed here the
# same way: min(55 % of MemTotal - 200 MB, MemAvailable - 512 MiB) - the f16 weights)
out=$("$BIN" info --memory --trace-mb auto "$T/xl" 2>&1); rc=$?
check "XL info --memory --trace-mb auto exits 0 ($rc)" [ "$rc" -eq 0 ]
w16=$(sed -nE 's/^weights .* ([0-9]+) MB as f16.*/\1/p' <<<"$out")
want=$(awk -v w="$w16" '/^MemTotal:/ { t = int($2 * 1024 / 100) * 55 - 200e6 } /^MemAvailable:/ { a = $2 * 1024 - 512 * 2^20 }
  END { c = t < a ? t : a; printf "%.0f", (c - w * 1e6) / 1e6 }' /proc/meminfo)
got=$(sed -nE 's/^auto \(f16\) +([0-9]+) MB: .*/\1/p' <<<"$out")
check "auto line: ${got:-none} MB, computed $want MB (+-50: MemAvailable moves)" [ "${got:-0}" -ge $((want - 50)) -a "${got:-0}" -le $((want + 50)) ]
check "auto line says why" has '^auto \(f16\) +[0-9]+ MB: (55 % of [0-9]+ MB RAM less 200 MB program|[0-9]+ MB RAM free now less 512 MB), 31[0-9]{2} MB weights'

out=$("$BIN" info --memory --trace-mb 100 "$T/xl" 2>&1); rc=$?
check "budget below the KV cache: exit 2 ($rc)" [ "$rc" -eq 2 ]
check "one line naming the minimum" bash -c '[ "$(wc -l <<<"$1")" -eq 1 ] && grep -q "need at least" <<<"$1"' _ "$out"

# next/generate under a budget: same greedy tokens, a note on stderr
a=$("$BIN" generate --greedy -n 12 --prompt "Once upon a time" 2>/dev/null)
b=$("$BIN" generate --greedy -n 12 --trace-mb 12 --prompt "Once upon a time" 2>"$T/err")
check "same greedy text under --trace-mb 12" [ "$a" = "$b" -a -n "$a" ]
check "stderr says what was dropped" grep -q "dropped: .*patterns recomputed" "$T/err"
out=$("$BIN" next --trace-mb 0 "Once" 2>&1); rc=$?
check "--trace-mb 0 refused ($rc)" [ "$rc" -eq 2 ]
check "names the flag" grep -q -- "--trace-mb: '0'" <<<"$out"
summary test_cli_trace_budget
