#!/usr/bin/env bash
# model_source.sh BUILD — web/model_source.js end to end in headless Chromium: a probe
# program (tests/web/model_probe.c, the engine built with emcc in BUILD, e.g. build-wasm
# by make test-wasm) on tests/web/model_page.html, served by python's http.server on
# 127.0.0.1 only; tests/web/model_source.py drives it over the DevTools pipe. The models:
# the reference tiny model (F32), an F16 copy of it, its files again under
# /org/tiny/resolve/main/ (the Hugging Face layout) and a header-only file claiming 804 M
# parameters (too large). One summary line like tests/run.sh.
set -u
cd "$(dirname "$0")/../.."
. tests/web/local_server.sh
build=${1:-build-wasm}
lib=$build/libengine.a
[ -f "$lib" ] || { echo "model_source: no $lib (make test-wasm builds it)"; exit 2; }
command -v chromium >/dev/null || { echo "model_source: no chromium (scripts/web-deps.sh all installs it)"; exit 2; }
work=$(mktemp -d /tmp/model_source.XXXXXX)
server=
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
site=$work/site
mkdir -p "$site/org/tiny/resolve/main" "$work/half" "$work/big" "$work/noweights"
tiny=tests/reference/models/tiny
cp web/model_source.js tests/web/model_page.html "$site/"
cp "$tiny/config.json" "$tiny/model.safetensors" "$site/org/tiny/resolve/main/"
cp "$tiny/config.json" "$work/noweights/"
start=$(date +%s)
# the probe: the engine alone, MEMFS (the browser's in-memory files), a growable heap
NODE_PATH=/usr/share/nodejs emcc -std=c17 -D_DEFAULT_SOURCE -O2 -msimd128 -Wall -Wextra -Werror -Iengine tests/web/model_probe.c "$lib" \
  $(PKG_CONFIG_LIBDIR=$(scripts/web-deps.sh --pkg-config-libdir engine) pkg-config --libs libpcre2-8 libcjson) -lm \
  -sALLOW_MEMORY_GROWTH=1 -sEXPORTED_RUNTIME_METHODS=FS_createPath,FS_createDataFile,addRunDependency,removeRunDependency \
  -o "$site/model_probe.js" || { echo "model_source: the probe did not build"; exit 1; }
python3 - "$tiny" "$work/half" "$work/big" <<'PY'
import json, struct, sys
src, half, big = sys.argv[1:4]
raw = open(src + "/model.safetensors", "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
head = json.loads(raw[8:8 + n]); data = raw[8 + n:]
out, blobs, pos = {}, [], 0
for k, t in head.items():
    if k == "__metadata__": out[k] = t; continue
    b, e = t["data_offsets"]; cnt = (e - b) // 4
    h = struct.pack("<%de" % cnt, *struct.unpack("<%df" % cnt, data[b:e]))  # round to nearest even
    out[k] = {"dtype": "F16", "shape": t["shape"], "data_offsets": [pos, pos + len(h)]}; blobs.append(h); pos += len(h)
hj = json.dumps(out).encode(); hj += b" " * (-len(hj) % 8)
open(half + "/model.safetensors", "wb").write(struct.pack("<Q", len(hj)) + hj + b"".join(blobs))
open(half + "/config.json", "w").write(open(src + "/config.json").read())
# 50257 x 16000 F32 claimed, 1.6 GB as F16: refused from the header alone (no data written)
bj = json.dumps({"wte.weight": {"dtype": "F32", "shape": [50257, 16000], "data_offsets": [0, 0]}}).encode()
open(big + "/model.safetensors", "wb").write(struct.pack("<Q", len(bj)) + bj)
open(big + "/config.json", "w").write('{"n_layer": 48, "n_head": 25, "n_embd": 1600, "vocab_size": 50257}')
PY
serve_dir "$site" || exit 1
out=$(timeout 300 python3 tests/web/model_source.py "http://127.0.0.1:$port/" "$(pwd)/$tiny" "$work/big" "$work/half" "$work/noweights" 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/[model_source] /'
steps=$(printf '%s\n' "$out" | grep -cE '^(plain page|refused|dialog|opened|stored in)')
if [ "$rc" -eq 0 ]; then echo "model_source ($(($(date +%s) - start)) s): $steps passed, 0 failed"; else echo "model_source ($(($(date +%s) - start)) s): $steps passed, 1 failed"; fi
exit "$rc"
