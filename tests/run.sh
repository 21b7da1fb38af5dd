#!/usr/bin/env bash
# Runs every test program of the given build folders (default: build) and every
# tests/test_*.sh script, from the repository root, and ends with ONE summary line
# "N passed, M failed". A program that crashes or prints no summary counts as a failure.
# Each test's "name: N passed, M failed" line is collected from its output. Parts a test
# could not run here (e.g. a reference file that is absent) print "SKIPPED: what: why";
# they are listed, counted and named in "skipped: K (names)" just before the summary
# (.ci/run greps the summary, so it stays the very last line).
set -u
cd "$(dirname "$0")/.."
[ $# -eq 0 ] && set -- build
pass=0; fail=0; skipped=()
run_one() { # label, command...
  local label=$1; shift
  local out rc line
  out=$("$@" 2>&1); rc=$?
  line=$(printf '%s\n' "$out" | grep -E '^[A-Za-z0-9_./-]+: [0-9]+ passed, [0-9]+ failed$' | tail -n 1)
  if [ -z "$line" ]; then
    printf '%s\n' "$out" | tail -n 20
    echo "$label: no summary (exit $rc) — counted as 1 failure"
    fail=$((fail + 1)); return
  fi
  local skip_line
  while IFS= read -r skip_line; do
    echo "[$label] $skip_line"
    skipped+=("${skip_line#SKIPPED: }")
  done < <(printf '%s\n' "$out" | grep -E '^SKIPPED: ')
  local p f
  p=$(sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed$/\1/' <<<"$line")
  f=$(sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed$/\2/' <<<"$line")
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  if [ "$f" -ne 0 ]; then printf '%s\n' "$out" | grep -v ' passed, ' | tail -n 40; fi
  echo "[$label] $p passed, $f failed"
  pass=$((pass + p)); fail=$((fail + f))
}
for b in "$@"; do
  for t in "$b"/tests/test_*; do
    [ -x "$t" ] || continue
    case "$t" in *.o|*.d) continue;; esac
    run_one "$b/$(basename "$t")" "$t"
  done
  # shell tests run once per build folder (they exercise the CLI binary of that build)
  for s in tests/test_*.sh; do
    [ -f "$s" ] || continue
    run_one "$b/$(basename "$s")" env BUILD="$b" bash "$s"
  done
done
if [ "${#skipped[@]}" -gt 0 ]; then
  names=$(printf '%s\n' "${skipped[@]}" | sed -E 's/: .*//' | sort -u | paste -sd, - | sed 's/,/, /g')
  echo "skipped: ${#skipped[@]} ($names)"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
