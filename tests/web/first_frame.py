#!/usr/bin/env python3
"""first_frame.py URL N -- the time to the first frame of the app (build/web served on
127.0.0.1), as the page measures it (performance.now() at the first drawn frame, from the
start of the navigation): N cold visits, each in a fresh Chromium profile (no HTTP cache,
no service worker), then one reload of the last visit (the service worker's offline copy).
Prints the medians with ranges against the issue's bound (3 s cold); fails only when the
page does not start. A URL with ?lesson=NAME also prints the time until the lesson is ready
(its every beat checked on the model and beat 1 shown: window.inferscopeLessonReadyMs)."""
import os, statistics, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures"))
from cdp import Chrome, js, new_page, until  # noqa: E402

READY = "window.inferscopeReady === true && typeof window.inferscopeFirstFrameMs === 'number'"


LESSON_READY = "typeof window.inferscopeLessonReadyMs === 'number'"


def visit(c, s, url, times):
    """Appends (first frame, lesson ready or None) in seconds to times."""
    c.call("Page.navigate", {"url": url}, s)
    until(c, s, READY, "the first frame of " + url, 180)
    if js(c, s, "window.inferscopeState() === null"):
        raise RuntimeError("the app did not start: %s" % js(c, s, "document.body.innerText.slice(0, 200)"))
    ready = None
    if "lesson=" in url:
        until(c, s, LESSON_READY, "the lesson of " + url, 240)
        ready = js(c, s, "window.inferscopeLessonReadyMs") / 1000.0
    times.append((js(c, s, "window.inferscopeFirstFrameMs") / 1000.0, ready))


def main(url, n):
    if not url.startswith("http://127.0.0.1:"):
        raise RuntimeError("loopback only, not " + url)
    cold, warm = [], []
    for _ in range(n):
        c = Chrome()
        try:
            s = new_page(c, 1280, 720)
            visit(c, s, url, cold)
            # the service worker installs after the first frame; give it the time it needs
            js(c, s, "navigator.serviceWorker.ready.then(() => caches.keys())", await_promise=True, timeout=120)
            visit(c, s, url + ("&" if "?" in url else "?") + "warm=1", warm)
        finally:
            c.close()
    fmt = lambda v: "%.2f s (%.2f-%.2f, %d visits)" % (statistics.median(v), min(v), max(v), len(v))
    first = lambda t: [f for f, _ in t]
    print("first frame from a local server, bundled model, 1280x720 (the page's own clock): %s" % url)
    print("  cold (fresh profile: download, compile, preload, start): %s %s" %
          (fmt(first(cold)), "PASS" if statistics.median(first(cold)) <= 3.0 else "FAIL"), "(bound: <= 3 s)")
    print("  reload (HTTP cache and the service worker's copy):       %s" % fmt(first(warm)))
    if cold[0][1] is not None:
        ready = lambda t: [r for _, r in t]
        print("  lesson ready (every beat checked, beat 1 shown), cold:  %s" % fmt(ready(cold)))
        print("  lesson ready, reload:                                    %s" % fmt(ready(warm)))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 3))
    except Exception as e:
        print("first_frame: %s" % e, file=sys.stderr)
        sys.exit(1)
