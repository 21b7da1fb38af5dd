#!/usr/bin/env bash
# run-arm64.sh BUILD TEST... — runs cross-built aarch64 engine tests ($BUILD/etests/NAME)
# under qemu-user (tests/run-etests.sh: one summary line like tests/run.sh), with the
# arm64 libraries of Debian's multiarch tree.
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
exec tests/run-etests.sh arm64 qemu "$build" "$qemu" -L "$root" -- "$@"
