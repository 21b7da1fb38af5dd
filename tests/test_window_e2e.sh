#!/usr/bin/env bash
# test_window_e2e.sh — the real window under Xvfb, driven like a user: xdotool keys
# (20 steps, 5 back, take the rank-2 token, settings, layer/head, help overlay, export)
# and real mouse clicks on probability bars (their rects come from the app itself via
# INFERSCOPE_HITS_OUT, so the test does not hard-code the layout). The app writes a JSON
# snapshot at exit (--state-out) that the checks read; screenshots must not be blank.
# Skipped (with a note) only when xvfb-run / xdotool are missing (scripts/install-deps.sh --test).
set -u
cd "$(dirname "$0")/.."
source tests/check.sh

# ---------------------------------------------------------------- inside Xvfb
if [ "${1:-}" = "--inner" ]; then
  out=$2
  SLOW=${3:-1} # waits are multiplied by this (a sanitizer build is several times slower)
  APP_PID=
  trap '[ -n "$APP_PID" ] && kill "$APP_PID" 2>/dev/null' EXIT
  start_app() { # name, extra args...
    local name=$1; shift
    # SDL_FRAMEBUFFER_ACCELERATION=0: the window surface without OpenGL (Mesa under
    # ASan crashed once in libGLX_mesa while SDL probed GL for the framebuffer)
    SDL_VIDEODRIVER=x11 SDL_RENDER_DRIVER=software SDL_FRAMEBUFFER_ACCELERATION=0 \
      INFERSCOPE_HITS_OUT="$out/$name.hits" \
      "$BIN" --model "$REF/models/tiny" --seed 7 --size 1280x720 --state-out "$out/$name.json" \
      --export-dir "$out/figs" "$@" >"$out/$name.log" 2>&1 &
    APP_PID=$!
    WID=$(timeout $((40 * SLOW)) xdotool search --sync --name '^inferscope' | head -n 1)
    [ -n "$WID" ] || { echo "no window" >>"$out/$name.log"; return 1; }
    # the first frame is drawn when its hit list appears (bounded wait)
    wait_state "$out/$name.hits" '^state n_pos=4 '
    # the window that drew the first frame (not a transient one SDL replaced)
    WID=$(xdotool search --onlyvisible --name '^inferscope' | tail -n 1)
    sleep 0.3
  }
  stop_app() { # bounded wait for the app to exit after q, then its exit status
    local name=$1
    for _ in $(seq 1 $((600 * SLOW))); do kill -0 "$APP_PID" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$APP_PID" 2>/dev/null; then kill "$APP_PID"; echo "killed" >>"$out/$name.log"; fi
    wait "$APP_PID"; echo $? >"$out/$name.rc"; APP_PID=
  }
  # a window SDL replaced after the search (X's BadWindow, seen under load: every key of
  # the lesson run lost) is looked up again, the visible one
  own_window() {
    xdotool getwindowname "$WID" >/dev/null 2>&1 ||
      WID=$(xdotool search --onlyvisible --name '^inferscope' | tail -n 1)
  }
  press() { own_window; xdotool key --window "$WID" --delay 20 "$@"; }
  # waits (bounded) until the app's state line matches the regex $2 (hits file $1)
  wait_state() {
    for _ in $(seq 1 $((300 * SLOW))); do head -n 1 "$1" 2>/dev/null | grep -Eq "$2" && return 0; sleep 0.1; done
    echo "timeout waiting for '$2' (last: $(head -n 1 "$1"))" >>"$out/wait.log"; return 1
  }
  # centre of the probability bar of 0-based rank $2 in hits file $1: "x y token"
  bar() { awk -v r="$2" 'NF == 7 && $1 == 1 && $3 == r { print int($4 + $6 / 2), int($5 + $7 / 2), $2; exit }' "$1"; }

  # Run A: keys only
  if start_app keys; then
    press $(printf 'space %.0s' $(seq 10)) $(printf 'Right %.0s' $(seq 10))
    press $(printf 'Left %.0s' $(seq 5)) 2
    press t Up Up l Down h Up s
    press question
    wait_state "$out/keys.hits" 'n_pos=20 n_branches=2 branch=1 help=1'
    sleep 0.3 # the state line is written right after the frame is presented
    /usr/bin/import -window root "$out/help.png"
    press Escape e
    wait_state "$out/keys.hits" 'n_pos=20 .* help=0'
    for _ in $(seq 1 100); do ls "$out"/figs/*.png >/dev/null 2>&1 && break; sleep 0.1; done
    sleep 0.3
    /usr/bin/import -window root "$out/frame.png"
    press q
    stop_app keys
  fi

  # Run B: real mouse clicks on the bars of the first frame
  if start_app mouse; then
    # both bars from the first frame (the prompt's bars come back after Left)
    read -r x2 y2 tok2 < <(bar "$out/mouse.hits" 1)
    read -r x3 y3 tok3 < <(bar "$out/mouse.hits" 2)
    echo "${tok2:-none}" >"$out/mouse.rank2"
    echo "${tok3:-none}" >"$out/mouse.rank3"
    own_window
    [ -n "${x2:-}" ] && xdotool mousemove --window "$WID" "$x2" "$y2" click 1
    wait_state "$out/mouse.hits" 'n_pos=5 '
    press Left
    wait_state "$out/mouse.hits" 'n_pos=4 '
    [ -n "${x3:-}" ] && xdotool mousemove --window "$WID" "$x3" "$y3" click 1
    wait_state "$out/mouse.hits" 'n_pos=5 n_branches=2'
    # Shift+E over the attention panel (hit kind 5 = VIZ_HIT_PANEL, a = 2 = attention)
    read -r xa ya < <(awk 'NF == 7 && $1 == 5 && $2 == 2 { print int($4 + $6 / 2), int($5 + $7 / 2); exit }' "$out/mouse.hits")
    if [ -n "${xa:-}" ]; then
      xdotool mousemove --window "$WID" "$xa" "$ya"
      sleep 0.2
      press shift+e
      for _ in $(seq 1 $((100 * SLOW))); do ls "$out"/figs/*attention*.png >/dev/null 2>&1 && break; sleep 0.1; done
    fi
    press q
    stop_app mouse
  fi
  # Run C: presenter mode; PageDown twice, PageUp once -> beat 2 of 3, rebuilt exactly
  printf 'title E2E lesson\nprompt Once upon a time\nseed 3\ncaption one\npause\nstep 5\ncaption two\npause\nstep 2\ncaption three\n' >"$out/e2e.lesson"
  if start_app lesson --lesson "$out/e2e.lesson"; then
    # the window checks the lesson beat by beat first (keys wait until it is done): beat 1
    # shown (the state line says beat=-1 while checking) before any key
    wait_state "$out/lesson.hits" ' beat=0 '
    press Next
    wait_state "$out/lesson.hits" 'n_pos=9 '
    press Next
    wait_state "$out/lesson.hits" 'n_pos=11 '
    sleep 0.3
    /usr/bin/import -window root "$out/lesson.png"
    press Prior
    wait_state "$out/lesson.hits" 'n_pos=9 '
    press q
    stop_app lesson
  fi
  # Run D: reopen an exported figure (layer 1, head 3, seed 5, top-k 7) in the window
  SDL_VIDEODRIVER=dummy "$BIN" export --model "$REF/models/tiny" --prompt "Once upon a time" --seed 5 --top-k 7 \
    --panel attention --layer 1 --head 3 --size 1280x720 --out "$out/fig" >"$out/figexport.log" 2>&1
  if start_app figure --open-figure "$(ls "$out"/fig/*.png | head -n 1)"; then
    press q
    stop_app figure
  fi
  # Run E: W records the steps taken (two steps, W stops, E exports the same state),
  # then W again, one step, and quitting writes the second recording
  if start_app record --export-dir "$out/rec"; then
    press w
    sleep 0.5
    press Right
    wait_state "$out/record.hits" 'n_pos=5 '
    press Right
    wait_state "$out/record.hits" 'n_pos=6 '
    sleep 0.3
    press w
    for _ in $(seq 1 $((100 * SLOW))); do ls "$out"/rec/*.mp4 >/dev/null 2>&1 && break; sleep 0.1; done
    press e
    for _ in $(seq 1 $((100 * SLOW))); do ls "$out"/rec/*.png >/dev/null 2>&1 && break; sleep 0.1; done
    press w Right
    wait_state "$out/record.hits" 'n_pos=7 '
    sleep 0.3
    press q
    stop_app record
  fi
  exit 0
fi

# ---------------------------------------------------------------- outside
window_test_setup test_window_e2e

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# errors before any window: one line naming the problem, exit status 2
"$BIN" --model "$tmp/no-such-model" >"$tmp/err.out" 2>&1; rc=$?
check "missing model: exit 2" [ "$rc" -eq 2 ]
check "missing model: one line naming the folder" \
  bash -c '[ "$(wc -l <"$1")" -eq 1 ] && grep -q "no-such-model: model folder not found" "$1"' _ "$tmp/err.out"
"$BIN" --model "$REF/models/tiny" --scale 3 >"$tmp/err2.out" 2>&1; rc=$?
check "bad --scale: exit 2 with a message" bash -c '[ "$1" -eq 2 ] && grep -q -- "--scale 3" "$2"' _ "$rc" "$tmp/err2.out"
# (a leading --help is main.c's overview; after another option it is the window's)
"$BIN" --seed 0 --help >"$tmp/help.out" 2>&1
check "window --help lists the options" grep -q -- "--state-out FILE" "$tmp/help.out"

timeout $((300 * SLOW)) xvfb-run -a -s '-screen 0 1280x800x24' bash "$0" --inner "$tmp" "$SLOW" >"$tmp/inner.out" 2>&1
j() { jq -c "$1" "$tmp/$2.json" 2>/dev/null; }

# Run A: 4 prompt tokens + 20 steps - 5 back + 1 forced = 20 tokens on a second branch
check "keys: app exited cleanly" [ "$(cat "$tmp/keys.rc" 2>/dev/null)" = 0 ]
check "keys: prompt ids" [ "$(j .ids[0:4] keys)" = "[7454,2402,257,640]" ]
check "keys: 20 tokens (4 + 15 + 1)" [ "$(j .n_pos keys)" = 20 ]
check "keys: n_prompt 4" [ "$(j .n_prompt keys)" = 4 ]
check "keys: 2 branches, the new one shown" [ "$(j '[.n_branches,.branch]' keys)" = "[2,1]" ]
check "keys: branch lengths 24 and 20" [ "$(j .branch_len keys)" = "[24,20]" ]
check "keys: temperature 1.2" [ "$(j .settings.temperature keys)" = "1.2" ]
check "keys: layer 0 head 1, sink hidden" [ "$(j '[.layer,.head,.hide_sink]' keys)" = "[0,1,true]" ]
check "keys: seed 7" [ "$(j .seed keys)" = 7 ]
check "keys: E wrote a PNG" bash -c 'ls "$1"/figs/*.png >/dev/null 2>&1' _ "$tmp"

# Run B: the clicked bars' tokens were taken; the second click made a branch
r2=$(cat "$tmp/mouse.rank2" 2>/dev/null); r3=$(cat "$tmp/mouse.rank3" 2>/dev/null)
check "mouse: app exited cleanly" [ "$(cat "$tmp/mouse.rc" 2>/dev/null)" = 0 ]
check "mouse: bars found in the hit list" bash -c '[[ "$1" =~ ^[0-9]+$ && "$2" =~ ^[0-9]+$ ]]' _ "$r2" "$r3"
check "mouse: 2 branches, 5 tokens" [ "$(j '[.n_branches,.n_pos,.branch_len]' mouse)" = "[2,5,[5,5]]" ]
check "mouse: the rank-3 bar's token is shown" [ "$(j .ids[4] mouse)" = "$r3" ]
# Shift+E with the mouse over the attention panel: one PNG of that panel alone (E in
# run A wrote the whole frame; its provenance says panel "frame")
check "Shift+E: one attention-panel PNG" python3 -c '
import glob, struct, sys
fs = glob.glob(sys.argv[1] + "/figs/*attention*.png")
assert len(fs) == 1, fs
b = open(fs[0], "rb").read()
assert b[:8] == b"\x89PNG\r\n\x1a\n"
w, h = struct.unpack(">II", b[16:24])
text, i = {}, 8
while i < len(b):
    n, = struct.unpack(">I", b[i:i + 4]); t = b[i + 4:i + 8]
    if t == b"tEXt":
        k, v = b[i + 8:i + 8 + n].split(b"\0", 1); text[k.decode()] = v.decode("latin-1")
    i += 12 + n
assert text.get("inferscope:panel") == "attention", text.get("inferscope:panel")
assert (w, h) == (1280, 720), (w, h)  # the panel alone, at the window size' "$tmp"

# Run C: the lesson's beat 2 (0-based 1), 4 + 5 tokens, the same as going forward
check "lesson: app exited cleanly" [ "$(cat "$tmp/lesson.rc" 2>/dev/null)" = 0 ]
check "lesson: back on beat 2" [ "$(j .lesson_beat lesson)" = 1 ]
check "lesson: 9 tokens, one branch" [ "$(j '[.n_pos,.n_branches]' lesson)" = "[9,1]" ]
check "lesson: seed from the lesson" [ "$(j .seed lesson)" = 3 ]
check "lesson screenshot is not blank" [ "$(/usr/bin/convert "$tmp/lesson.png" -format %k info: 2>/dev/null || echo 0)" -gt 200 ]
printf 'prompt Hi\nlayer 9\n' >"$tmp/badlayer.lesson"
# the check runs in the window (a beat per job, the progress drawn): unseen here, the
# window closes with the lesson's one line
SDL_VIDEODRIVER=dummy "$BIN" --model "$REF/models/tiny" --lesson "$tmp/badlayer.lesson" >"$tmp/bl.out" 2>&1; rc=$?
check "lesson with a missing layer: exit 2, file:line" \
  bash -c '[ "$1" -eq 2 ] && [ "$(wc -l <"$2")" -eq 1 ] && grep -q "badlayer.lesson:2: layer 9 does not exist" "$2"' _ "$rc" "$tmp/bl.out"

# Run D: the figure's state came back
check "figure: app exited cleanly" [ "$(cat "$tmp/figure.rc" 2>/dev/null)" = 0 ]
check "figure: layer 1 head 3" [ "$(j '[.layer,.head]' figure)" = "[1,3]" ]
check "figure: seed and top-k restored" [ "$(j '[.seed,.settings.top_k]' figure)" = "[5,7]" ]

# Run E: two recordings beside E's PNG, numbered like figures; the first holds the three
# states (4, 5, 6 tokens) 2 s each at 30 fps, its last frame is E's PNG of that state,
# its metadata names that state; the second (written on quit) holds 6 and 7 tokens
rec1=$(ls "$tmp"/rec/*-recording.mp4 2>/dev/null | head -n 1); rec2=$(ls "$tmp"/rec/*-recording.mp4 2>/dev/null | sed -n 2p)
recpng=$(ls "$tmp"/rec/*.png 2>/dev/null | head -n 1)
check "record: app exited cleanly" [ "$(cat "$tmp/record.rc" 2>/dev/null)" = 0 ]
check "record: W wrote 0001-recording.mp4, quitting 0003-recording.mp4 (E's PNG is 0002)" \
  bash -c '[[ "$1" == */0001-recording.mp4 && "$2" == */0003-recording.mp4 && "$3" == */0002-* ]]' _ "$rec1" "$rec2" "$recpng"
if command -v ffprobe >/dev/null; then
  nf() { ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames,width,height -of csv=p=0 "$1"; }
  check "record: 3 states x 60 frames at 1280x720 ($(nf "$rec1"))" [ "$(nf "$rec1")" = "1280,720,180" ]
  check "record: the second, 2 states ($(nf "$rec2"))" [ "$(nf "$rec2")" = "1280,720,120" ]
  ids=$(ffprobe -v error -show_entries format_tags -of default=nw=1 "$rec1" | sed -n 's/^TAG:inferscope:ids=//p')
  check "record: metadata = the state it stopped in ($ids)" [ "$ids" = "$(j '.ids[0:6]' record)" ]
  p=$(ffmpeg -hide_banner -i "$rec1" -i "$recpng" -lavfi "[0:v]select=eq(n\,179),setpts=PTS-STARTPTS[a];[1:v]scale=out_color_matrix=bt709:out_range=tv:flags=accurate_rnd,format=yuv420p[b];[a][b]psnr" \
    -f null - 2>&1 | sed -n 's/.*PSNR y:.* average:\([0-9.inf]*\).*/\1/p')
  check "record: the last frame is E's PNG of that state (PSNR $p >= 40 dB)" python3 -c 'import sys; sys.exit(float(sys.argv[1]) < 40)' "${p:-0}"
fi

# Screenshots: not blank (many colours), and the help overlay changes the picture
ncol() { /usr/bin/convert "$1" -format %k info: 2>/dev/null || echo 0; }
check "screenshot of the frame is not blank" [ "$(ncol "$tmp/frame.png")" -gt 200 ]
check "screenshot with help is not blank" [ "$(ncol "$tmp/help.png")" -gt 200 ]
diff_px=$(/usr/bin/compare -metric AE "$tmp/frame.png" "$tmp/help.png" null: 2>&1 | cut -d' ' -f1)
check "the help overlay changes the picture ($diff_px px)" [ "${diff_px%.*}" -gt 10000 ]
if [ -n "${INFERSCOPE_KEEP_SHOTS:-}" ]; then cp "$tmp"/*.png "$INFERSCOPE_KEEP_SHOTS"/ 2>/dev/null; fi
if [ "$_fail" -ne 0 ]; then cat "$tmp/inner.out" "$tmp"/*.log 2>/dev/null | tail -n 20 >&2; fi
summary test_window_e2e
