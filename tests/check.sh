# check.sh — shell twin of check.h for tests/test_*.sh (source it).
# check DESC CMD...   runs CMD, counts pass when it exits 0.
# summary NAME        prints "NAME: N passed, M failed" and exits non-zero on failure.
# BIN is the CLI of the build under test ($BUILD/inferscope).
BUILD=${BUILD:-build}
BIN="$BUILD/inferscope"
REF=${INFERSCOPE_REF:-../shared/reference}
_pass=0; _fail=0
check() {
  local desc=$1; shift
  if "$@"; then _pass=$((_pass + 1)); else _fail=$((_fail + 1)); echo "FAIL: $desc" >&2; fi
}
summary() {
  echo "$1: $_pass passed, $_fail failed"
  [ "$_fail" -eq 0 ]
}
# window_test_setup NAME   for window tests under Xvfb: skips (a note, the summary,
#                          exit 0) when xvfb-run, xdotool or ImageMagick are missing; sets
#                          SLOW, the factor for waits (6 under ASan, whose X11/GL paths
#                          report false leaks: SDL-HEADLESS.md).
window_test_setup() {
  if ! command -v xvfb-run >/dev/null || ! command -v xdotool >/dev/null || [ ! -x /usr/bin/import ]; then
    echo "$1: skipped: xvfb-run, xdotool or ImageMagick missing (scripts/install-deps.sh --test)"
    summary "$1"
    exit 0
  fi
  SLOW=1
  case "$BUILD" in *asan*) export ASAN_OPTIONS=detect_leaks=0; SLOW=6 ;; esac
}
