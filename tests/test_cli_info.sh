# test_cli_info.sh — `inferscope info` on the reference tiny model: the printed values
# (config, parameter count, dtype, file size, tied head) in table and JSON form, and
# exit status 2 with one error line for bad input.
. tests/check.sh
TINY="$REF/models/tiny"

out=$("$BIN" info "$TINY" 2>&1); rc=$?
check "info exits 0 ($rc)" [ "$rc" -eq 0 ]
has() { grep -Eq "$1" <<<"$out" || { echo "missing /$1/ in:" >&2; echo "$out" >&2; return 1; }; }
check "model name"        has '^model +tiny '
check "n_layer 2"         has '^n_layer +2$'
check "n_head 4, hs 16"   has '^n_head +4 +\(head size 16\)$'
check "n_embd 64"         has '^n_embd +64$'
check "n_positions 128"   has '^n_positions +128$'
check "vocab 50257"       has '^vocab_size +50257$'
check "ln_eps"            has '^ln_eps +1e-05$'
# 50257*64 + 128*64 + 2*(12*64^2 + 13*64) + 2*64 = 3324736
check "parameters"        has '^parameters +3\.32 M +\(3324736\)$'
check "dtype"             has '^dtype +F32$'
check "file size"         has '^file +12\.69 MiB +\(13301240 bytes\)$'
# idle OpenMP threads spin briefly, then sleep, unless the user asks otherwise
# (threads_wait.c): the program re-executes itself once with GOMP_SPINCOUNT=1000, and keeps
# a user's OMP_WAIT_POLICY or GOMP_SPINCOUNT
out=$(env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT OMP_NUM_THREADS=2 "$BIN" info "$TINY" 2>&1)
check "kernels line: up to 2 threads, short spin" \
  has '^kernels +[a-z0-9]+, up to 2 threads \(a decode step runs on 1 when that is faster\); OpenMP idle threads: spin 1000 times, then sleep$'
out=$(OMP_WAIT_POLICY=active OMP_NUM_THREADS=1 "$BIN" info "$TINY" 2>&1)
check "a user's OMP_WAIT_POLICY=active is kept" has '^kernels +[a-z0-9]+, 1 thread; OpenMP idle threads: active$'
out=$(env -u OMP_WAIT_POLICY GOMP_SPINCOUNT=0 OMP_NUM_THREADS=2 "$BIN" info "$TINY" 2>&1)
check "a user's GOMP_SPINCOUNT is kept" has 'OpenMP idle threads: spin 0 times, then sleep$'
out=$("$BIN" info "$TINY" 2>&1)
check "load time"         has '^load time +[0-9]+\.[0-9]{3} ms$'
check "tied"              has '^lm_head +tied to wte$'

json=$("$BIN" info --json "$TINY"); rc=$?
check "json exits 0" [ "$rc" -eq 0 ]
if command -v python3 >/dev/null; then
  check "json values" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
want = {"name": "tiny", "n_layer": 2, "n_head": 4, "n_embd": 64, "n_positions": 128,
        "vocab_size": 50257, "n_params": 3324736, "dtype": "F32", "file_bytes": 13301240, "tied": True}
bad = {k: (d.get(k), v) for k, v in want.items() if d.get(k) != v}
ok = not bad and abs(d["ln_eps"] - 1e-5) < 1e-12 and 0 < d["load_seconds"] < 5
print(bad, file=sys.stderr) if not ok else None
sys.exit(0 if ok else 1)' "$json"
else
  check "json tied" grep -q '"tied": true' <<<"$json"
fi

help=$("$BIN" info --help); rc=$?
check "--help exits 0" [ "$rc" -eq 0 ]
check "--help shows usage" grep -q 'usage: inferscope info' <<<"$help"

tmp=$(mktemp -d /tmp/test_cli_info.XXXXXX)
err=$("$BIN" info "$tmp/nope" 2>&1 >/dev/null); rc=$?
check "missing dir exits 2 ($rc)" [ "$rc" -eq 2 ]
check "missing dir: one line naming it" bash -c '[ "$(wc -l <<<"$1")" -eq 1 ] && grep -q "^inferscope info: .*/nope: model directory not found$" <<<"$1"' _ "$err"
: > "$tmp/config.json"
err=$("$BIN" info "$tmp" 2>&1 >/dev/null); rc=$?
check "empty config exits 2 ($rc)" [ "$rc" -eq 2 ]
check "empty config named" grep -q "config.json: not valid JSON" <<<"$err"
"$BIN" info --bogus "$TINY" >/dev/null 2>&1; rc=$?
check "unknown option exits 2 ($rc)" [ "$rc" -eq 2 ]
"$BIN" info "$TINY" "$TINY" >/dev/null 2>&1; rc=$?
check "two dirs exits 2 ($rc)" [ "$rc" -eq 2 ]
rm -rf "$tmp"
summary test_cli_info
