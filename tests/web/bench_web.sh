#!/usr/bin/env bash
# bench_web.sh NATIVE_BUILD WASM_BUILD ROUNDS — make bench-web: `bench --web` natively
# (NATIVE_BUILD/bench) and in headless Chromium (WASM_BUILD/bench.js on
# tests/web/bench_page.html, served from 127.0.0.1), interleaved ROUNDS times (native, web,
# native, web, ...: the machine may be shared, so a ratio is taken within a round), then
# the figures side by side: decode at context 16 of the 124M-shaped model per weight dtype
# at one thread (web SIMD128 against the native default table; the bound is 2x), and the
# bundled model's window step (the bound is 16 ms). Medians over the rounds, with ranges.
# Then, with WEB_DIR (build/web) given, the app's first frame from a local server, cold and
# reloaded (tests/web/first_frame.py; the bound is 3 s cold).
# Prints; fails only when something does not run.
set -u
cd "$(dirname "$0")/../.."
. tests/web/local_server.sh
native=$1 wasm=$2 rounds=${3:-2} web_dir=${4:-}
for f in "$native/bench" "$wasm/bench.js" "$wasm/bench.wasm" "$wasm/bench.data"; do
  [ -f "$f" ] || { echo "bench-web: no $f"; exit 2; }
done
work=$(mktemp -d /tmp/bench_web.XXXXXX)
server=
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
mkdir -p "$work/site"
cp tests/web/bench_page.html "$wasm/bench.js" "$wasm/bench.wasm" "$wasm/bench.data" "$work/site/"
serve_dir "$work/site" || exit 1
for r in $(seq "$rounds"); do
  echo "round $r: native"
  "$native/bench" --web >"$work/native-$r.txt" 2>&1 || { cat "$work/native-$r.txt"; exit 1; }
  echo "round $r: Chromium"
  python3 tests/web/bench_web.py "http://127.0.0.1:$port/bench_page.html" "$work/web-$r.txt" || exit 1
done
echo "--- the last round as printed (native, then Chromium) ---"
cat "$work/native-$rounds.txt"; echo; cat "$work/web-$rounds.txt"
python3 - "$work" "$rounds" <<'PY'
import re, statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])
row = re.compile(r"^\s+(\w+)\s+(F32|F16)\s+\d+\s+([\d.]+) \(")
step = re.compile(r"window step, ms \(1 thread\):((?:\s+ctx \d+: [\d.]+)+)")
def parse(path):
    dec, win = {}, {}
    for line in open(path):
        m = row.match(line)
        if m and (m.group(1), m.group(2)) not in dec: dec[(m.group(1), m.group(2))] = float(m.group(3))
        m = step.search(line)
        if m: win = {int(c): float(v) for c, v in re.findall(r"ctx (\d+): ([\d.]+)", m.group(1))}
    return dec, win
def med(v): return "%.2f (%.2f-%.2f)" % (statistics.median(v), min(v), max(v))
nat = [parse("%s/native-%d.txt" % (work, r)) for r in range(1, rounds + 1)]
web = [parse("%s/web-%d.txt" % (work, r)) for r in range(1, rounds + 1)]
best = next(iter(nat[0][0]))[0] if nat[0][0] else "?"
print("\n--- bench-web: medians over %d interleaved rounds (range); a loaded machine: compare the ratios ---" % rounds)
print("decode, context 16, 1 thread, ms/token: Chromium simd128 against native %s (bound: ratio <= 2)" % best)
for dt in ("F32", "F16"):
    w = [x[0].get(("simd128", dt)) for x in web]; n = [x[0].get((best, dt)) for x in nat]
    if None in w or None in n: print("  %s: missing figures" % dt); continue
    print("  %s: Chromium %s, native %s, ratio %s" % (dt, med(w), med(n), med([a / b for a, b in zip(w, n)])))
print("bundled model, one window step (session_step), 1 thread, ms (bound: <= 16 ms in Chromium)")
for ctx in sorted(web[0][1]):
    w = [x[1].get(ctx) for x in web]; n = [x[1].get(ctx) for x in nat]
    if None in w or None in n: continue
    print("  ctx %4d: Chromium %s, native %s, ratio %s" % (ctx, med(w), med(n), med([a / b for a, b in zip(w, n)])))
PY
if [ -n "$web_dir" ]; then
  kill "$server" 2>/dev/null
  serve_dir "$web_dir" || exit 1
  echo
  python3 tests/web/first_frame.py "http://127.0.0.1:$port/index.html" 3 || exit 1
fi
