#!/usr/bin/env bash
# Runs every libFuzzer harness of a build folder for SECONDS each (make fuzz / fuzz-short).
# Seeds come from tests/fuzz/corpus/NAME (committed); what the fuzzer discovers goes to
# BUILD/corpus/NAME (never into the tree); crashes to BUILD/crashes/NAME-*. Prints one
# line per harness (executions, exec/s, corpus size) and exits 1 if any harness failed.
# A crash becomes a regression: copy it to tests/fuzz/regressions/NAME/ (see README).
# Usage: scripts/fuzz-run.sh BUILD_DIR [SECONDS]
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: scripts/fuzz-run.sh BUILD_DIR [SECONDS]}
secs=${2:-60}
failed=0
for bin in "$build"/fuzz/fuzz_*; do
  [ -x "$bin" ] || continue
  case "$bin" in *.d|*.o) continue;; esac
  name=$(basename "$bin")
  work="$build/corpus/$name"; crashes="$build/crashes"
  mkdir -p "$work" "$crashes"
  seeds="tests/fuzz/corpus/$name"; [ -d "$seeds" ] || seeds=""
  dict=(); [ -f "tests/fuzz/$name.dict" ] && dict=(-dict="tests/fuzz/$name.dict")
  log="$build/$name.log"
  # -timeout: one input taking 10 s is a hang (each normally takes microseconds);
  # -rss_limit_mb: a loader asking for gigabytes on a small input is a bug too.
  "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$crashes/$name-" "${dict[@]}" "$work" $seeds >"$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  files=$(find "$work" -type f | wc -l)
  if [ "$rc" -eq 0 ]; then
    echo "$name: ${execs:-?} executions in ${secs} s (${rate:-?}/s), corpus $files files: ok"
  else
    failed=1
    echo "$name: FAILED (exit $rc) after ${execs:-?} executions; last lines of $log:"
    grep -E 'ERROR|FUZZ_ASSERT|SUMMARY|Test unit written|runtime error' "$log" | head -n 12
  fi
done
exit "$failed"
