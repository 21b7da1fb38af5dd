#!/usr/bin/env python3
"""bench_web.py URL OUT -- opens URL (tests/web/bench_page.html on 127.0.0.1) in headless
Chromium (tests/fixtures/cdp.py), waits up to 15 minutes for the bench's last line and
writes the page's text to OUT. The bench runs on the page's main thread, so the wait is
one promise the page resolves, not polling."""
import os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures"))
from cdp import Chrome, js, new_page, until  # noqa: E402


def main(url, out):
    if not url.startswith("http://127.0.0.1:"):
        raise RuntimeError("loopback only, not " + url)
    c = Chrome()
    try:
        s = new_page(c)
        c.call("Page.navigate", {"url": url}, s)
        until(c, s, "location.href.indexOf('bench_page') >= 0 && !!document.getElementById('out')", "the page", 30)
        text = js(c, s, "new Promise(ok => { const f = () => { const e = document.getElementById('out');"
                        "if (e && e.textContent.indexOf('bench-web: done') >= 0) ok(e.textContent); else setTimeout(f, 500); };"
                        "f(); })", await_promise=True, timeout=900)
        if not text:
            raise RuntimeError("no output")
        with open(out, "w") as f:
            f.write(text)
        return 0
    finally:
        c.close()


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1], sys.argv[2]))
    except Exception as e:
        print("bench_web: %s" % e, file=sys.stderr)
        sys.exit(1)
