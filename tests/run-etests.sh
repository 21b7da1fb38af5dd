#!/usr/bin/env bash
# run-etests.sh TAG WHAT BUILD RUNNER... -- TEST... — runs tests built for another
# machine ($BUILD/etests/NAME, or $BUILD/vtests/NAME for those linked with viz/ and src/) through RUNNER (qemu-user, Node.js) from the repository
# root, so they read tests/reference, ../shared/reference and assets/ like the native
# ones. Prints each test's count as "[TAG NAME] N passed, M failed" (its SKIPPED lines
# too) and one summary line at the end like tests/run.sh, with the wall time (to judge
# whether it fits in CI): "TAG (WHAT, S s): N passed, M failed". Used by run-arm64.sh
# and run-wasm.sh.
set -u
cd "$(dirname "$0")/.."
tag=$1 what=$2 build=$3; shift 3
runner=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do runner+=("$1"); shift; done
[ $# -gt 0 ] && shift
start=$(date +%s)
pass=0; fail=0
for t in "$@"; do
  bin=$build/etests/$t
  [ -e "$bin" ] || bin=$build/vtests/$t # linked with viz/ and src/ too (make viz-tests)
  out=$("${runner[@]}" "$bin" 2>&1); rc=$?
  printf '%s\n' "$out" | grep -E '^SKIPPED: ' | sed "s/^/[$tag $t] /"
  line=$(printf '%s\n' "$out" | grep -E '^[A-Za-z0-9_]+: [0-9]+ passed, [0-9]+ failed$' | tail -n 1)
  if [ -z "$line" ]; then
    printf '%s\n' "$out" | tail -n 20; echo "[$tag $t] no summary (exit $rc)"; fail=$((fail + 1)); continue
  fi
  p=$(sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed$/\1/' <<<"$line")
  f=$(sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed$/\2/' <<<"$line")
  [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
  [ "$f" -ne 0 ] && printf '%s\n' "$out" | grep -v ' passed, ' | tail -n 30
  echo "[$tag $t] $p passed, $f failed"
  pass=$((pass + p)); fail=$((fail + f))
done
echo "$tag ($what, $(($(date +%s) - start)) s): $pass passed, $fail failed"
[ "$fail" -eq 0 ]
