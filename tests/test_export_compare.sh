# test_export_compare.sh — `export --compare` on the bundled model: the figure's columns
# (inferscope:compare_ids in the provenance, the ids the panel drew) equal the columns of
# `inferscope compare --json` for the same prompt and seed, token for token; the specs are
# recorded (inferscope:compare) and --open-figure's reader takes them back; a figure with
# a bad spec is refused by the reader naming the key; bad --compare input is one line,
# exit 2, and writes nothing.
. "$(dirname "$0")/check.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
P="Once upon a time"
"$BIN" export --seed 5 --prompt "$P" --compare greedy T=0.7 top-k=40 "top-p=0.9,T=1.5" --sidecar --out "$tmp/f" \
  >/dev/null 2>"$tmp/err"
check "export --compare exits 0" test $? -eq 0
"$BIN" compare --json --seed 5 --prompt "$P" greedy T=0.7 top-k=40 "top-p=0.9,T=1.5" >"$tmp/c.json" 2>/dev/null
check "the figure's columns = compare --json (token ids), specs recorded" python3 - "$tmp" <<'PY'
import glob, json, sys
t = sys.argv[1]
side = json.load(open(glob.glob(t + "/f/*-compare.json")[0])); c = json.load(open(t + "/c.json"))
want = [col["ids"] for col in c["columns"]]
ok = side["inferscope:compare_ids"] == want and side["inferscope:compare"] == ["greedy", "T=0.7", "top-k=40", "top-p=0.9,T=1.5"]
ok = ok and side["inferscope:compare_n"] == c["n"] == 40 and side["inferscope:panel"] == "compare" and side["inferscope:seed"] == 5
# the fixture must make the columns differ (else equal ids would prove little)
ok = ok and len({tuple(x) for x in want}) >= 3
sys.exit(0 if ok else 1)
PY
check "--panel compare alone draws the default set" sh -c \
  "'$BIN' export --prompt '$P' --panel compare --sidecar --out '$tmp/d' >/dev/null 2>&1 && grep -q '\"inferscope:compare\": \[\"greedy\",\"T=0.7\",\"top-k=40\",\"top-p=0.9,T=1.5\"\]' '$tmp'/d/*.json"

# ---- bad input: one line naming the problem, exit 2, nothing written ----
bad() { # label, args...
  label=$1; shift
  "$BIN" export --prompt "$P" --out "$tmp/bad" "$@" >/dev/null 2>"$tmp/e"
  rc=$?
  check "$label: exit 2, one line" sh -c "test $rc -eq 2 && test \$(wc -l <'$tmp/e') -eq 1 && grep -q -- '--compare' '$tmp/e'"
}
bad "one spec" --compare greedy
bad "five specs" --compare greedy T=1 T=2 T=3 T=4
bad "bad value" --compare greedy T=abc
bad "unknown key" --compare greedy bogus=1
bad "NaN" --compare greedy T=nan
bad "other panel" --panel probs --compare greedy T=0.7
check "nothing written for bad input" test ! -e "$tmp/bad"

summary test_export_compare
