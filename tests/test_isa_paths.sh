#!/usr/bin/env bash
# test_isa_paths.sh — the forward-pass suite (test_forward: every reference tensor of
# ../shared/reference within its tolerance) again on every other kernel table this CPU
# can run, forced with INFERSCOPE_ISA: on an AVX-512 machine that is the AVX2 and the
# plain-C path too, so the paths of laptops and of old or unknown CPUs are tested here;
# test_token_stats likewise (the lens's float softmax sums).
# Also: a wrong INFERSCOPE_ISA is one clear error (exit 2), not a silent fallback.
. "$(dirname "$0")/check.sh"
prog="$BUILD/tests/test_forward"
isas=$(INFERSCOPE_ISA=none "$BIN" info 2>&1 | sed -n 's/.*offers: \(.*\), auto).*/\1/p' | tr -d ',')
check "the error for an unknown table lists what the CPU offers ('$isas')" test -n "$isas"
INFERSCOPE_ISA=none "$BIN" info >/dev/null 2>&1; rc=$?
check "INFERSCOPE_ISA=none exits 2 (got $rc)" test "$rc" -eq 2
for isa in $isas; do
  out=$(INFERSCOPE_ISA=$isa "$prog" 2>&1 | tail -n 1)
  check "test_forward on $isa: $out" grep -qE '^test_forward: [0-9]+ passed, 0 failed$' <<<"$out"
  # the softmax sums of the lens (kern_exp_sums) in each table's float lanes
  out=$(INFERSCOPE_ISA=$isa "$BUILD/tests/test_token_stats" 2>&1 | tail -n 1)
  check "test_token_stats on $isa: $out" grep -qE '^test_token_stats: [0-9]+ passed, 0 failed$' <<<"$out"
done
summary test_isa_paths
