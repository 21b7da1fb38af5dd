#!/usr/bin/env bash
# run-arm64.sh BUILD TEST... — runs cross-built aarch64 engine tests ($BUILD/etests/NAME)
# under qemu-user from the repository root (the tests read ../shared/reference and
# assets/), with the arm64 libraries of Debian's multiarch tree; one summary line at
# the end like tests/run.sh, plus the wall time (to judge whether it fits in CI).
set -u
cd "$(dirname "$0")/.."
build=$1; shift
qemu=$(command -v qemu-aarch64-static || command -v qemu-aarch64) || { echo "qemu-aarch64 not found"; exit 2; }
# The loader must come from the same glibc as the libc it loads: the -dev libraries
# pull in Debian's multiarch libc6:arm64 (/usr/lib/aarch64-linux-gnu), and the cross
# toolchain's older loader in /usr/aarch64-linux-gnu hangs in pthread_create when it
# runs that libc (OpenBLAS starts its threads from a constructor). Prefer the multiarch
# root when it is installed.
root=/usr/aarch64-linux-gnu
[ -e /lib/ld-linux-aarch64.so.1 ] && root=/
# spinning OpenMP/OpenBLAS waiters are slow to emulate: let waiting threads sleep
export OMP_WAIT_POLICY=passive
start=$(date +%s)
pass=0; fail=0
for t in "$@"; do
  out=$("$qemu" -L "$root" "$build/etests/$t" 2>&1); rc=$?
  line=$(printf '%s\n' "$out" | grep -E '^[A-Za-z0-9_]+: [0-9]+ passed, [0-9]+ failed$' | tail -n 1)
  if [ -z "$line" ]; then
    printf '%s\n' "$out" | tail -n 20; echo "[arm64 $t] no summary (exit $rc)"; fail=$((fail + 1)); continue
  fi
  p=$(sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed$/\1/' <<<"$line")
  f=$(sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed$/\2/' <<<"$line")
  [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
  [ "$f" -ne 0 ] && printf '%s\n' "$out" | grep -v ' passed, ' | tail -n 30
  echo "[arm64 $t] $p passed, $f failed"
  pass=$((pass + p)); fail=$((fail + f))
done
echo "arm64 (qemu, $(($(date +%s) - start)) s): $pass passed, $fail failed"
[ "$fail" -eq 0 ]
