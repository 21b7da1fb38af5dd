# check.sh — shell twin of check.h for tests/test_*.sh (source it).
# check DESC CMD...   runs CMD, counts pass when it exits 0.
# summary NAME        prints "NAME: N passed, M failed" and exits non-zero on failure.
# fails_with RE CMD   CMD exits 2 within 20 s with one stderr line matching RE.
# skip NAME WHY       a part that cannot run here: "SKIPPED: NAME: WHY", counted and
#                     named by tests/run.sh (never a pass, never a failure).
# BIN is the CLI of the build under test ($BUILD/inferscope). REF is the reference data:
# $INFERSCOPE_REF, else the verbatim copy in tests/reference (README there); ref_file REL
# prints the path of REF/REL, falling back to ../shared/reference/REL (tiny_s128 lives
# only there), and fails when neither exists.
BUILD=${BUILD:-build}
BIN="$BUILD/inferscope"
REF=${INFERSCOPE_REF:-tests/reference}
ref_file() {
  local d
  for d in "$REF" ../shared/reference; do
    if [ -f "$d/$1" ]; then printf '%s\n' "$d/$1"; return 0; fi
  done
  printf '%s\n' "$REF/$1"; return 1
}
skip() {
  echo "SKIPPED: $1: $2"
}
_pass=0; _fail=0
check() {
  local desc=$1; shift
  if "$@"; then _pass=$((_pass + 1)); else _fail=$((_fail + 1)); echo "FAIL: $desc" >&2; fi
}
# fails_with REGEX CMD...: exit 2 within 20 s (a hang fails instead of blocking the suite),
# exactly one line on stderr, matching REGEX: the project's rule for bad input
fails_with() {
  local want=$1; shift
  local e rc
  e=$(timeout 20 "$@" 2>&1 >/dev/null); rc=$?
  [ "$rc" -eq 2 ] && [ "$(printf '%s\n' "$e" | wc -l)" -eq 1 ] && grep -Eq -- "$want" <<<"$e" && return 0
  echo "  got rc=$rc (124 = hung): $e" >&2
  return 1
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
# wait_for FILE PATTERN [SECONDS]   until a line of FILE matches the extended regex
#                          PATTERN (default: up to 30 s); on timeout prints FILE and fails.
#                          For a server's output while the test talks to it.
wait_for() {
  local tries=$(( ${3:-30} * 10 ))
  for _ in $(seq "$tries"); do grep -qE "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  echo "timed out waiting for '$2' in $1:" >&2; cat "$1" >&2; return 1
}
