#!/usr/bin/env bash
# web-single.sh JS WEBSRC OUT — the single-file page (make web-single): web/index.html
# with page.js and the emcc output (wasm and assets inside, base64) inlined as scripts,
# so the one file opens from disk.
set -euo pipefail
js=$1 src=$2 out=$3
python3 - "$js" "$src" "$out" <<'PY'
import sys
js, src, out = sys.argv[1:4]
page = open(src + "/index.html").read()
def inline(path):
    # "</script" inside the code would end the element early: split it
    return "<script>" + open(path).read().replace("</script", "<\\/script") + "</script>"
page = page.replace('<script src="page.js"></script>', inline(src + "/page.js"))
page = page.replace('<script async src="inferscope.js"></script>', inline(js))
page = page.replace('<link rel="manifest" href="manifest.webmanifest">', "")
page = page.replace("<!-- @SCRIPTS@ -->", "").replace("<!-- @MODEL_BUTTON@ -->", "")
open(out + ".tmp", "w").write(page)
PY
mv "$out.tmp" "$out"
