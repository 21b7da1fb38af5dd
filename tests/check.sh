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
