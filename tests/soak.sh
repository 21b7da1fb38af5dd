#!/usr/bin/env bash
# soak.sh — the window driven for minutes by scripted keys under Xvfb (`make soak`),
# watching its resident memory: does a long class session leak or fall over? It is
# NOT a test_*.sh (it takes minutes, so `make test` never runs it). The pass criteria
# are printed at the end; the exit status is non-zero when one is violated.
#
# Usage: tests/soak.sh [BUILD]      (BUILD folder, default $BUILD or build)
#   SOAK_MINUTES=5     how long to drive the window (decimals allowed: 0.5)
#   SOAK_MODEL=DIR     model folder (default: the reference tiny model, context 128)
#   SOAK_OUT=DIR       keep the CSV and logs there (default: a temp folder, removed)
#   SOAK_LESSON=FILE   the lesson paged through in the second run (default
#                      lessons/04-sampling.lesson; SOAK_LESSON= skips that run)
#   SOAK_SEED=N        seed of the random keys and clicks (default 1; printed)
#   SOAK_SIZE=WxH      the window's size (default 1280x720; 1920x1080 is a classroom
#                      projector's); the resize each round goes to 1024x640 and back
#
# Two runs, each its own process judged on its own: the free window (two thirds of the
# time) and presenter mode on a lesson (one third: PageDown through every beat, back,
# Home, and the same random keys, which page too).
#
# One round of keys (repeated until the time is up): Home, step to the end of the
# context (and past it: the "context full" messages), Left x10, force ranks 2 and 3
# (new branches) and click a probability bar, Tab through branches, T/K/P with Up/Down,
# G twice, R, L/H with Up/Down, S, ? twice, D, Ctrl+plus/minus, F, F11 twice, a resize to
# 1024x640 and back, E (export, waited
# for), every third round a new prompt typed into the editor (a fresh branch set), and
# in every round 60 random keys (any key of the table but quit, the editor and F11)
# and 3 clicks at random places: over 2,000 random keys in 10 minutes.
# RSS (VmRSS of /proc/PID/status) is sampled every 5 s into rss.csv (t_s,rss_kb).
set -u
cd "$(dirname "$0")/.."

SAMPLE_S=5 # seconds between RSS samples

# ============================================================== inside Xvfb
# --inner OUT BIN MODEL SECONDS SLOW MODE LESSON SEED W H: starts the app at W x H,
# drives it, writes into OUT: rss.csv, app.out/app.err (its stdout/stderr), rounds.log
# (the state line after each round), rc (its exit status after q), alive (1 if alive at
# the end), rounds, e_presses, figs/ (the exports), wait.log (timeouts, failed keys),
# state.json.
if [ "${1:-}" = "--inner" ]; then
  out=$2 BIN=$3 MODEL=$4 SECS=$5 SLOW=$6 MODE=$7 LESSON=$8 SEED=$9 W=${10} H=${11}
  RANDOM=$SEED # bash's generator: the same keys for the same seed
  APP_PID= SAMPLER_PID=
  cleanup() {
    [ -n "$SAMPLER_PID" ] && kill "$SAMPLER_PID" 2>/dev/null
    [ -n "$APP_PID" ] && kill "$APP_PID" 2>/dev/null
  }
  trap cleanup EXIT
  trap 'exit 143' INT TERM # the EXIT trap then kills the app and the sampler
  hits="$out/app.hits"
  if [ "$MODE" = lesson ]; then source_args=(--lesson "$LESSON"); else source_args=(--model "$MODEL" --seed 7); fi
  # INFERSCOPE_HITS_OUT: the app writes its state line ("state n_pos=.. help=..") after
  # each frame, so the script waits for what it expects instead of sleeping blindly.
  # INFERSCOPE_TIMINGS: one line of frame/step timings on stderr at exit (expected).
  SDL_VIDEODRIVER=x11 SDL_RENDER_DRIVER=software SDL_FRAMEBUFFER_ACCELERATION=0 \
    INFERSCOPE_HITS_OUT="$hits" INFERSCOPE_TIMINGS=1 \
    "$BIN" "${source_args[@]}" --size "${W}x$H" --state-out "$out/state.json" \
    --export-dir "$out/figs" >"$out/app.out" 2>"$out/app.err" &
  APP_PID=$!
  t0=$(date +%s)

  # RSS sampler: one line "t_s,rss_kb" every SAMPLE_S seconds (on the 5 s grid, so a
  # slow read does not make the curve drift) until the app is gone
  echo "t_s,rss_kb" >"$out/rss.csv"
  (
    k=0
    while kill -0 "$APP_PID" 2>/dev/null; do
      rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$APP_PID/status" 2>/dev/null)
      [ -n "$rss" ] && echo "$(($(date +%s) - t0)),$rss" >>"$out/rss.csv"
      k=$((k + 1))
      wait_s=$((t0 + k * SAMPLE_S - $(date +%s)))
      [ "$wait_s" -gt 0 ] && sleep "$wait_s"
    done
  ) &
  SAMPLER_PID=$!

  WID=$(timeout $((20 * SLOW)) xdotool search --sync --name '^inferscope' | head -n 1)
  if [ -z "$WID" ]; then echo "no window within $((20 * SLOW)) s" >>"$out/wait.log"; exit 1; fi

  press() { # xdotool failures are logged with the keys (a lost key shows up here)
    xdotool key --window "$WID" --delay 20 "$@" 2>>"$out/xdotool.err" ||
      { echo "$(($(date +%s) - t0)) s: xdotool key $* failed" >>"$out/wait.log"; return 1; }
  }
  state() { head -n 1 "$hits" 2>/dev/null; }
  field() { state | sed -nE "s/.* $1=([0-9-]+).*/\1/p"; } # one number of the state line
  # waits (bounded, 60 s x SLOW) until the state line matches the regex $1
  wait_state() {
    local i
    for i in $(seq 1 $((600 * SLOW))); do
      state | grep -Eq "$1" && return 0
      kill -0 "$APP_PID" 2>/dev/null || break # the app is gone: no point waiting
      sleep 0.1
    done
    echo "$(($(date +%s) - t0)) s: timeout waiting for '$1' (last: $(state))" >>"$out/wait.log"
    return 1
  }
  # Barrier: B blanks the screen, B shows it again. Input is applied in order (queued
  # while a step runs), so once blank=1 then blank=0 are on screen every earlier key
  # has been applied and drawn.
  barrier() { press b && wait_state ' blank=1 ' && press b && wait_state ' blank=0 '; }
  # centre of the probability bar of 0-based rank $1 in the last frame: "x y"
  bar() { awk -v r="$1" 'NR > 1 && NF == 7 && $1 == 1 && $3 == r { print int($4 + $6 / 2), int($5 + $7 / 2); exit }' "$hits"; }
  n_png() { find "$out/figs" -name '*.png' 2>/dev/null | wc -l; }
  keys() { local i; for ((i = 0; i < $2; i++)); do printf '%s ' "$1"; done; } # "k k k" ($2 times)
  # random keys: any key of the table but q / Esc (quit), Enter (the editor) and F11
  # (its own check); then 3 clicks anywhere; then help and blank back off, so the
  # barrier works. Counts into random_keys.
  pool=(space Right Left Home Prior Next 1 2 3 4 5 6 7 8 9 Tab t k p l h Up Down s a g r d f b question
        ctrl+equal ctrl+minus shift+e e)
  random_keys=0
  random_burst() {
    local ks=() i
    for ((i = 0; i < 60; i++)); do ks+=("${pool[RANDOM % ${#pool[@]}]}"); done
    press "${ks[@]}"
    random_keys=$((random_keys + 60))
    for ((i = 0; i < 3; i++)); do
      xdotool mousemove --window "$WID" $((RANDOM % W)) $((RANDOM % H)) click 1 2>>"$out/xdotool.err"
    done
    sleep 0.5
    [ "$(field help)" = 1 ] && press question
    [ "$(field blank)" = 1 ] && press b
    barrier
  }
  # presenter mode: every beat forward (PageDown / space / Right in turn), two back, Home
  lesson_round() {
    local k=0 nextkeys=(Next space Right) i
    press Home && wait_state ' beat=0 ' || return 1
    while :; do
      press "${nextkeys[k % 3]}"
      for i in $(seq 1 $((100 * SLOW))); do [ "$(field beat)" = $((k + 1)) ] && break; sleep 0.1; done
      [ "$(field beat)" = $((k + 1)) ] || break # the last beat: "that was the last beat"
      k=$((k + 1))
    done
    echo "$k" >"$out/last_beat"
    press Prior Left && wait_state " beat=$((k > 1 ? k - 2 : 0)) "
  }

  wait_state '^state n_pos=[0-9]+ ' || exit 1 # the first frame
  # the context the session was sized for: min(n_positions, 1024) (session_open)
  ctx=$(jq -r '.n_positions // .n_ctx' "$MODEL/config.json" 2>/dev/null)
  [[ "$ctx" =~ ^[0-9]+$ ]] || ctx=1024
  [ "$ctx" -gt 1024 ] && ctx=1024

  prompts=("Once upon a time" "The little dog found a red ball" "Tom and Lily went to the park. They")
  rounds=0 e_presses=0
  while [ $(($(date +%s) - t0)) -lt "$SECS" ]; do
    kill -0 "$APP_PID" 2>/dev/null || break
    rounds=$((rounds + 1))
    if [ "$MODE" = lesson ]; then
      lesson_round || break
      random_burst
      press F11 && wait_state ' full=1 ' && press F11 && wait_state ' full=0 '
      xdotool windowsize "$WID" 1024 640 2>>"$out/xdotool.err" && wait_state ' size=1024x640'
      xdotool windowsize "$WID" "$W" "$H" 2>>"$out/xdotool.err" && wait_state " size=${W}x$H"
      barrier || break
      echo "$(($(date +%s) - t0)) s round $rounds: $(state)" >>"$out/rounds.log"
      continue
    fi
    # rewind to the prompt
    press Home && barrier || break
    # step to the end of the context, in batches the app's input queue (64) can hold
    while :; do
      cur=$(field n_pos)
      [ -n "$cur" ] && [ "$cur" -lt "$ctx" ] || break
      n=$((ctx - cur)); [ "$n" -gt 24 ] && n=24
      press $(keys Right $((n / 2))) $(keys space $((n - n / 2)))
      wait_state "^state n_pos=$((cur + n)) " || break
      [ $(($(date +%s) - t0)) -lt "$((SECS + 60))" ] || break
    done
    # past the end: "the context is full" / "nothing to re-roll" messages, no crash
    press space Right r 1
    # rewind 10, take other tokens (new branches), a click on the rank-2 bar
    press $(keys Left 10) 2 Left 3
    press Left
    barrier
    read -r bx by < <(bar 1)
    [ -n "${bx:-}" ] && xdotool mousemove --window "$WID" "$bx" "$by" click 1
    # switch branches
    press Tab Tab Tab
    # settings (balanced, so they do not drift from round to round) and the dice
    press t Up Up Down Down Down Up k Up Up Up Down Down Down p Down Down Up Up g g r
    # layer / head / sink
    press l Up Down Up h Up Up Down s s
    barrier
    # help overlay on and off
    press question && wait_state ' help=1 ' && press question && wait_state ' help=0 '
    # theme, UI scale up and down (the fonts are re-made at each scale), focus a panel
    press d ctrl+equal ctrl+equal ctrl+equal
    barrier
    press ctrl+minus ctrl+minus ctrl+minus d f
    barrier
    press f
    # full screen on and off (F11), then a resize to a smaller window and back: the
    # layout and the fonts follow the window size
    press F11 && wait_state ' full=1 ' && press F11 && wait_state ' full=0 '
    xdotool windowsize "$WID" 1024 640 2>>"$out/xdotool.err" && wait_state ' size=1024x640'
    xdotool windowsize "$WID" "$W" "$H" 2>>"$out/xdotool.err" && wait_state " size=${W}x$H"
    barrier
    # export the frame and wait until the PNG is there
    before=$(n_png)
    press e
    e_presses=$((e_presses + 1))
    for _ in $(seq 1 $((600 * SLOW))); do [ "$(n_png)" -gt "$before" ] && break; sleep 0.1; done
    [ "$(n_png)" -gt "$before" ] || echo "$(($(date +%s) - t0)) s: export $e_presses did not appear" >>"$out/wait.log"
    # every third round a new prompt (Enter opens the editor, Ctrl+U clears it)
    if [ $((rounds % 3)) -eq 0 ]; then
      p=${prompts[$(((rounds / 3) % ${#prompts[@]}))]}
      press Return ctrl+u
      xdotool type --window "$WID" --delay 20 "$p"
      press Return
      # Esc closes a still-open editor (a typing problem) rather than quitting
      if ! wait_state ' editing=0'; then
        echo "$(($(date +%s) - t0)) s: the prompt editor stayed open" >>"$out/wait.log"
        [ "$(field editing)" = 1 ] && press Escape
      fi
    fi
    random_burst
    barrier || break
    echo "$(($(date +%s) - t0)) s round $rounds: $(state)" >>"$out/rounds.log"
  done
  echo "$rounds" >"$out/rounds"
  echo "$random_keys" >"$out/random_keys"
  echo "$e_presses" >"$out/e_presses"

  # the end: alive? last RSS sample, then quit and a bounded wait for a clean exit
  if kill -0 "$APP_PID" 2>/dev/null; then
    echo 1 >"$out/alive"
    rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$APP_PID/status" 2>/dev/null)
    kill "$SAMPLER_PID" 2>/dev/null; wait "$SAMPLER_PID" 2>/dev/null; SAMPLER_PID=
    [ -n "$rss" ] && echo "$(($(date +%s) - t0)),$rss" >>"$out/rss.csv"
    # (the window may be gone before the key's release event: xdotool's BadWindow then)
    xdotool key --window "$WID" q 2>>"$out/xdotool.err"
    for _ in $(seq 1 $((300 * SLOW))); do kill -0 "$APP_PID" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$APP_PID" 2>/dev/null; then
      kill "$APP_PID"; echo 1 >"$out/killed"; echo "did not exit within $((30 * SLOW)) s of q: killed" >>"$out/wait.log"
    fi
  else
    echo 0 >"$out/alive"
  fi
  wait "$APP_PID"; echo $? >"$out/rc"; APP_PID=
  exit 0
fi

# ============================================================== outside
BUILD=${1:-${BUILD:-build}}
BIN="$BUILD/inferscope"
REF=${INFERSCOPE_REF:-tests/reference}
MODEL=${SOAK_MODEL:-$REF/models/tiny}
MINUTES=${SOAK_MINUTES:-5}

for c in xvfb-run xdotool jq; do
  command -v "$c" >/dev/null || { echo "soak: $c missing (scripts/install-deps.sh --test)" >&2; exit 2; }
done
[ -x "$BIN" ] || { echo "soak: $BIN not found (make BUILD=$BUILD all)" >&2; exit 2; }
[ -f "$MODEL/config.json" ] || { echo "soak: $MODEL: not a model folder (no config.json)" >&2; exit 2; }
SECS=$(awk -v m="$MINUTES" 'BEGIN { s = int(m * 60 + 0.5); if (m + 0 == m && s >= 10) print s }')
[ -n "$SECS" ] || { echo "soak: SOAK_MINUTES=$MINUTES: expected a number of minutes >= 0.2" >&2; exit 2; }
# the baseline: the samples of the 30 s after the first minute (half the run if shorter)

SLOW=1 JUDGE_RSS=1
case "$BUILD" in *asan*)
  # a sanitizer build: slower, and X11/GL libraries give false leak reports at exit
  # (SDL-HEADLESS.md). ASan's quarantine holds freed memory, so RSS grows by design
  # up to its cap: RSS is shown but judged only for a normal build. Under ASan the
  # sanitizer reports (which end the app: -fno-sanitize-recover) are what count.
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}; SLOW=6; JUDGE_RSS=0 ;;
esac


LESSON=${SOAK_LESSON-lessons/04-sampling.lesson}
SEED=${SOAK_SEED:-1}
[[ "$SEED" =~ ^[0-9]+$ ]] || { echo "soak: SOAK_SEED=$SEED: expected a whole number" >&2; exit 2; }
SIZE=${SOAK_SIZE:-1280x720}
# at least the resize target (1024x640), at most what the Xvfb screen below holds
[[ "$SIZE" =~ ^([0-9]{4})x([0-9]{3,4})$ ]] && W=$((10#${BASH_REMATCH[1]})) H=$((10#${BASH_REMATCH[2]})) &&
  [ "$W" -ge 1024 ] && [ "$H" -ge 640 ] && [ "$W" -le 3840 ] && [ "$H" -le 2160 ] ||
  { echo "soak: SOAK_SIZE=$SIZE: expected WIDTHxHEIGHT from 1024x640 to 3840x2160" >&2; exit 2; }
[ -z "$LESSON" ] || [ -f "$LESSON" ] || { echo "soak: SOAK_LESSON=$LESSON: no such lesson file" >&2; exit 2; }
if [ -n "${SOAK_OUT:-}" ]; then
  top=$SOAK_OUT; mkdir -p "$top" || exit 2
else
  top=$(mktemp -d); trap 'rm -rf "$top"' EXIT
fi

# run_soak MODE SECS: one app process driven for SECS seconds (MODE free or lesson),
# judged on its own; returns non-zero when a criterion fails
run_soak() {
local MODE=$1 SECS=$2 out="$top/$1"
rm -rf "$out"; mkdir -p "$out" || return 2
# the baseline: the samples of the 30 s after the first minute (half the run if shorter)
local BASE_T=60; [ "$BASE_T" -gt $((SECS / 2)) ] && BASE_T=$((SECS / 2))
pct= base= last=

echo "soak ($MODE): $BIN on $([ "$MODE" = lesson ] && echo "$LESSON" || echo "$MODEL") at ${W}x$H for $((SECS / 60)).$((SECS % 60 * 10 / 60)) min (RSS every ${SAMPLE_S} s, baseline at ${BASE_T} s)"
# the screen a little taller than the window (a title bar, as on a desktop)
timeout $((SECS + 300 * SLOW)) xvfb-run -a -s "-screen 0 ${W}x$((H + 80))x24" \
  bash "$0" --inner "$out" "$BIN" "$MODEL" "$SECS" "$SLOW" "$MODE" "$LESSON" "$SEED" "$W" "$H" >"$out/inner.out" 2>&1
inner_rc=$?
[ "$inner_rc" -eq 0 ] || echo "soak: the driver exited with status $inner_rc (124 = outer timeout)"

# ---- the memory curve: one line per 30 s, relative to the baseline
# An export or a font change allocates a few MB for a moment (a 1280x720 offscreen
# frame is 3.7 MB, 1920x1080 8.3 MB), so one sample can sit 10% above its neighbours: both ends are the
# MEDIAN of 30 s of samples (~6), "after the first minute" = [BASE_T, BASE_T + 30) s,
# "the end" = the last 30 s (its final sample is taken right before q).
median_rss() { # from to (seconds, to exclusive): the median RSS of those samples
  awk -F, -v a="$1" -v b="$2" 'NR > 1 && $1 >= a && $1 < b { v[n++] = $2 }
    END { if (!n) exit; for (i = 1; i < n; i++) for (j = i; j > 0 && v[j] < v[j-1]; j--) { x = v[j]; v[j] = v[j-1]; v[j-1] = x }
          print (n % 2) ? v[(n-1)/2] : int((v[n/2-1] + v[n/2]) / 2) }' "$out/rss.csv"
}
t_end=$(tail -n 1 "$out/rss.csv" | cut -d, -f1)
[[ "$t_end" =~ ^[0-9]+$ ]] || t_end=0
base=$(median_rss "$BASE_T" $((BASE_T + 30)))
last=$(median_rss $((t_end - 29)) $((t_end + 1)))
# the floor (the smallest sample of a 30 s window: RSS between exports) at both ends,
# as kB per minute: a slow leak lifts the floor long before the medians move 10%
min_rss() { awk -F, -v a="$1" -v b="$2" 'NR > 1 && $1 >= a && $1 < b && (m == "" || $2 < m) { m = $2 } END { print m }' "$out/rss.csv"; }
f0=$(min_rss "$BASE_T" $((BASE_T + 30))); f1=$(min_rss $((t_end - 29)) $((t_end + 1)))
trend=$(awk -v a="${f0:-0}" -v b="${f1:-0}" -v dt=$((t_end - 15 - BASE_T - 15)) \
  'BEGIN { if (a > 0 && b > 0 && dt > 0) printf "%d -> %d kB, %+.0f kB/min", a, b, 60 * (b - a) / dt }')
echo "memory curve (VmRSS, kB; full CSV: ${SOAK_OUT:-temp folder, set SOAK_OUT=DIR to keep it}):"
awk -F, -v b="${base:-0}" 'NR > 1 {
    if ($1 >= next_t || NR == n) {
      printf "  t=%4ds  rss=%7d kB%s\n", $1, $2, (b > 0 ? sprintf("  %+6.1f%% vs baseline", 100 * ($2 - b) / b) : "")
      next_t = $1 + 30
    }
  }' n="$(wc -l <"$out/rss.csv")" "$out/rss.csv"
n_samples=$(($(wc -l <"$out/rss.csv") - 1))
max_rss=$(awk -F, 'NR > 1 && $2 > m { m = $2 } END { print m + 0 }' "$out/rss.csv")

# ---- the criteria
fails=0
crit() { # description, then 0/1 (1 = met)
  if [ "$2" = 1 ]; then echo "  PASS  $1"; else echo "  FAIL  $1"; fails=$((fails + 1)); fi
}
echo "criteria:"
alive=$(cat "$out/alive" 2>/dev/null || echo 0)
rc=$(cat "$out/rc" 2>/dev/null || echo none)
rounds=$(cat "$out/rounds" 2>/dev/null || echo 0)
crit "the app is alive after $rounds rounds of keys" "$([ "$alive" = 1 ] && echo 1)"
# (SDL turns the SIGTERM of a kill into a quit, so a killed app exits 0 too: the driver
# records whether it had to kill)
killed=$([ -e "$out/killed" ] && echo ", killed after q went unanswered")
crit "it exits cleanly on q (status $rc$killed) and writes its state" \
  "$([ "$rc" = 0 ] && [ -z "$killed" ] && jq -e .n_pos "$out/state.json" >/dev/null 2>&1 && echo 1)"
if [ -n "$base" ] && [ -n "$last" ]; then
  pct=$(awk -v a="$last" -v b="$base" 'BEGIN { printf "%+.1f", 100 * (a - b) / b }')
fi
if [ "$JUDGE_RSS" = 0 ]; then
  echo "  ----  RSS not judged in a sanitizer build (ASan's quarantine grows it): ${base:-?} -> ${last:-?} kB"
elif [ -n "$base" ] && [ -n "$last" ]; then
  crit "RSS at the end ($last kB, median of the last 30 s) within 10% of RSS after ${BASE_T} s ($base kB, median of [${BASE_T}, $((BASE_T + 30))) s): $pct%" \
    "$(awk -v a="$last" -v b="$base" 'BEGIN { d = a - b; if (d < 0) d = -d; if (d <= 0.10 * b) print 1 }')"
else
  crit "RSS sampled after ${BASE_T} s and at the end (no samples)" 0
fi
# stderr: the timings line (INFERSCOPE_TIMINGS) is expected; sanitizer reports, crash
# messages and anything saying error/fail/cannot are errors. Other lines are shown.
errs=$(grep -Eai 'error|sanitizer|runtime error|segmentation|segfault|abort|assert|fatal|leak|cannot|fail|killed|core dumped' \
  "$out/app.err" 2>/dev/null | grep -v '^inferscope: [0-9]* frames, ' | head -n 5)
crit "no error lines on the app's stderr" "$([ -z "$errs" ] && echo 1)"
[ -n "$errs" ] && printf '        %s\n' "$errs"
others=$(grep -Eavi 'error|sanitizer|runtime error|segmentation|segfault|abort|assert|fatal|leak|cannot|fail|killed|core dumped' \
  "$out/app.err" 2>/dev/null | head -n 3)
[ -n "$others" ] && printf '        stderr: %s\n' "$others"
e_presses=$(cat "$out/e_presses" 2>/dev/null || echo 0)
n_png=$(find "$out/figs" -name '*.png' -size +1k 2>/dev/null | wc -l)
if [ "$MODE" = free ]; then
  crit "every E made a PNG ($n_png PNGs for $e_presses presses)" "$([ "$n_png" -ge 1 ] && [ "$n_png" -ge "$e_presses" ] && echo 1)"
else
  crit "paged through every beat (the last one reached: $(cat "$out/last_beat" 2>/dev/null || echo none)); $n_png slides exported by random E" \
    "$([ "$(cat "$out/last_beat" 2>/dev/null || echo 0)" -ge 1 ] && echo 1)"
fi
if [ -s "$out/wait.log" ]; then
  echo "  note: $(wc -l <"$out/wait.log") waits timed out (the app was slow or a key was lost):"
  head -n 3 "$out/wait.log" | sed 's/^/        /'
fi
if [ "$fails" -ne 0 ] || [ "$inner_rc" -ne 0 ]; then
  echo "driver output (last lines):"; tail -n 10 "$out/inner.out" | sed 's/^/        /'
  echo "app stderr (last lines):"; tail -n 10 "$out/app.err" | sed 's/^/        /'
fi
echo "soak ($MODE): $rounds rounds, $(cat "$out/random_keys" 2>/dev/null || echo 0) random keys (seed $SEED), $n_samples RSS samples, baseline ${base:-?} kB," \
  "end ${last:-?} kB (${pct:-?}%), floor ${trend:-?}, max $max_rss kB, $n_png exports, $fails criteria failed"
[ "$fails" -eq 0 ] && [ "$inner_rc" -eq 0 ]
}

# two thirds of the time the free window, one third presenter mode (if a lesson is given)
if [ -n "$LESSON" ]; then free_s=$((SECS * 2 / 3)); else free_s=$SECS; fi
status=0
run_soak free "$free_s" || status=1
if [ -n "$LESSON" ]; then run_soak lesson $((SECS - free_s)) || status=1; fi
keys_total=$(( $(cat "$top/free/random_keys" 2>/dev/null || echo 0) + $(cat "$top/lesson/random_keys" 2>/dev/null || echo 0) ))
# a full soak (10 minutes or more) must have pressed 2,000 random keys
if [ "$SECS" -ge 600 ] && [ "$keys_total" -lt 2000 ]; then
  echo "  FAIL  $keys_total random keys in $MINUTES min (want >= 2,000: the app was too slow to drive)"; status=1
fi
echo "soak: $MINUTES min in all, $keys_total random keys (seed $SEED): $([ "$status" = 0 ] && echo PASS || echo FAIL)"
exit "$status"
