#!/usr/bin/env bash
# Runs every libFuzzer harness of a build folder for SECONDS each (make fuzz / fuzz-short),
# or, with FUZZ_RUNS=N in the environment, for exactly N executions each (libFuzzer -runs=N;
# no time limit: what issue notes quote, e.g. FUZZ_RUNS=2000000).
# Seeds come from tests/fuzz/corpus/NAME (committed); what the fuzzer discovers goes to
# BUILD/corpus/NAME (never into the tree); crashes to BUILD/crashes/NAME-*. Prints one
# line per harness (executions, exec/s, corpus size) and exits 1 if any harness failed.
# A crash becomes a regression: copy it to tests/fuzz/regressions/NAME/ (see README).
# Usage: [FUZZ_RUNS=N] [FUZZ_ONLY=NAME] scripts/fuzz-run.sh BUILD_DIR [SECONDS]
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: scripts/fuzz-run.sh BUILD_DIR [SECONDS]}
secs=${2:-60}
runs=${FUZZ_RUNS:-}
only=${FUZZ_ONLY:-}   # one harness (fuzz_figure) instead of all
if [ -n "$runs" ] && ! [[ "$runs" =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz-run.sh: FUZZ_RUNS must be a positive number of executions, not '$runs'" >&2
  exit 2
fi
if [ -n "$runs" ]; then limit=(-runs="$runs"); what="$runs runs"; else limit=(-max_total_time="$secs"); what="${secs} s"; fi
failed=0
ran=0
for bin in "$build"/fuzz/fuzz_*; do
  [ -x "$bin" ] || continue
  case "$bin" in *.d|*.o) continue;; esac
  name=$(basename "$bin")
  [ -z "$only" ] || [ "$name" = "$only" ] || continue
  ran=$((ran + 1))
  work="$build/corpus/$name"; crashes="$build/crashes"
  mkdir -p "$work" "$crashes"
  seeds="tests/fuzz/corpus/$name"; [ -d "$seeds" ] || seeds=""
  dict=(); [ -f "tests/fuzz/$name.dict" ] && dict=(-dict="tests/fuzz/$name.dict")
  log="$build/$name.log"
  # -timeout: one input taking 10 s is a hang (each normally takes microseconds);
  # -rss_limit_mb: a loader asking for gigabytes on a small input is a bug too.
  "$bin" "${limit[@]}" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$crashes/$name-" "${dict[@]}" "$work" $seeds >"$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  files=$(find "$work" -type f | wc -l)
  if [ "$rc" -eq 0 ]; then
    echo "$name: ${execs:-?} executions (${what}, ${rate:-?}/s), corpus $files files: ok"
  else
    failed=1
    echo "$name: FAILED (exit $rc) after ${execs:-?} executions; last lines of $log:"
    grep -E 'ERROR|FUZZ_ASSERT|SUMMARY|Test unit written|runtime error' "$log" | head -n 12
  fi
done
if [ "$ran" -eq 0 ]; then
  echo "fuzz-run.sh: no harness ${only:+named $only }in $build/fuzz (make fuzz-bins first)" >&2
  exit 2
fi
exit "$failed"
