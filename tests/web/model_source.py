#!/usr/bin/env python3
"""model_source.py BASE_URL FOLDER BIG_FOLDER HALF_FOLDER NO_WEIGHTS_FOLDER -- drives web/model_source.js in
headless Chromium (tests/fixtures/cdp.py, loopback only) on tests/web/model_page.html served
at BASE_URL: refusals first (a folder without weights; a model too large for the browser),
then a folder chosen with the folder picker (DOM.setFileInputFiles), stored in IndexedDB,
the page reloaded with ?model=NAME and the probe loading it from MEMFS as F16; then the
same model from a URL in the Hugging Face layout served by the same local server.
Prints one line per step; exits 1 on the first failure."""
import json, os, sys, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures"))
from cdp import Chrome, js, new_page, until  # noqa: E402


# the page's output so far ("" while another page is still loading)
OUT = "(document.getElementById('out') || {textContent: ''}).textContent"


def out(c, s):
    return js(c, s, OUT) or ""


def main(base, folder, big, half, noweights):
    if not base.startswith("http://127.0.0.1:"):
        raise RuntimeError("loopback only, not " + base)
    c = Chrome()
    try:
        s = new_page(c)
        c.call("DOM.enable", session=s)
        page = base + "model_page.html"
        c.call("Page.navigate", {"url": page}, s)
        until(c, s, OUT + ".indexOf('probe:') >= 0", "the probe without a model", 30)
        print("plain page: " + out(c, s).strip().replace("\n", " | "))

        def choose(name, folder):  # a folder input takes the folder's path (Chromium lists it)
            js(c, s, "InferscopeModels.openPicker(); document.getElementById('ism-name').value = %s; true" % json.dumps(name))
            doc = c.call("DOM.getDocument", {"depth": 0}, s)["root"]["nodeId"]
            node = c.call("DOM.querySelector", {"nodeId": doc, "selector": "#ism-folder"}, s)["nodeId"]
            c.call("DOM.setFileInputFiles", {"files": [folder], "nodeId": node}, s)

        def refused(name, folder, want):
            choose(name, folder)
            until(c, s, "document.querySelector('#ism-msg.bad') !== null", "a refusal of " + name, 20)
            msg = js(c, s, "document.getElementById('ism-msg').textContent")
            for w in want:
                if w not in msg:
                    raise RuntimeError("refusal of %s says %r, not %r" % (name, msg, w))
            if "\n" in msg:
                raise RuntimeError("refusal of %s is not one line: %r" % (name, msg))
            js(c, s, "document.getElementById('ism-close').click(); true")
            print("refused %s: %s" % (name, msg))

        refused("noweights", noweights, ["no model.safetensors"])
        refused("big", big,
                ["too large for the browser", "GB as F16", "native app"])
        shot = js(c, s, "InferscopeModels.openPicker(); var b = document.querySelector('.ism').getBoundingClientRect();"
                        "[b.width, b.height, getComputedStyle(document.querySelector('#ism-url-go')).minHeight]")
        print("dialog %dx%d px, buttons at least %s high" % (shot[0], shot[1], shot[2]))
        js(c, s, "document.getElementById('ism-close').click(); true")

        def opened(name, src_bytes):
            try:
                until(c, s, "location.search.indexOf('model=%s') >= 0 && %s.indexOf('probe:') >= 0" % (name, OUT),
                      "the page reopened with ?model=" + name, 60)
            except RuntimeError as e:
                raise RuntimeError("%s (the page at %s says %r, the dialog %r)" % (
                    e, js(c, s, "location.href"), out(c, s),
                    js(c, s, "(document.getElementById('ism-msg') || {textContent: ''}).textContent")))
            text = out(c, s)
            line = [l for l in text.splitlines() if l.startswith("probe:")][0]
            want = ["/models/%s:" % name, "config.json=", "model.safetensors=%d" % src_bytes, "kept F16"]
            for w in want:
                if w not in line:
                    raise RuntimeError("probe says %r, not %r (page: %r)" % (line, w, text))
            if "prepared true" not in text:
                raise RuntimeError("prepare did not say true: %r" % text)
            print("opened %s: %s" % (name, line))

        size = os.path.getsize(os.path.join(folder, "model.safetensors"))
        choose("tiny-folder", folder)
        opened("tiny-folder", size)
        hsize = os.path.getsize(os.path.join(half, "model.safetensors"))
        choose("tiny-half", half)
        opened("tiny-half", hsize)

        js(c, s, "InferscopeModels.openPicker(); document.getElementById('ism-name').value = 'from-url';"
                 "document.getElementById('ism-url').value = %s; document.getElementById('ism-url-go').click(); true"
           % json.dumps(base + "org/tiny"))  # a model page address: its main branch
        opened("from-url", size)
        stored = js(c, s, "new Promise(ok => { const r = indexedDB.open('inferscope-models'); r.onsuccess = () => {"
                          "const q = r.result.transaction('files').objectStore('files').getAllKeys();"
                          "q.onsuccess = () => ok(q.result.filter(k => k.endsWith('/')).sort().join(' ')); }; })", await_promise=True)
        print("stored in IndexedDB: %s" % stored)
        return 0
    finally:
        c.close()


if __name__ == "__main__":
    try:
        sys.exit(main(*sys.argv[1:6]))
    except Exception as e:
        print("model_source: %s" % e, file=sys.stderr)
        sys.exit(1)
