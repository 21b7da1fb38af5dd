#!/usr/bin/env bash
# test_output_files.sh — issue 35: every file inferscope writes is created new (O_CREAT|O_EXCL)
# in its folder and renamed into place (engine/file_write.h), so a symbolic link planted at
# the temporary names the writers used to take (dump's NAME.npy.tmp.PID, convert's
# .config.json.tmp-PID and .model.safetensors.tmp-PID, --state-out's FILE.tmp-PID, the
# INFERSCOPE_HITS_OUT hook's FILE.tmp) is never written through; and an output name a user
# gives that holds a link, a device or a FIFO is refused with one line naming it, never
# replaced (--state-out at start, before any window; dump, the handout). The PID-named
# links are planted by a subshell that then execs the command, which keeps its pid.
. tests/check.sh
TINY=$REF/models/tiny
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_output_files.XXXXXX")
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
export SDL_VIDEODRIVER=dummy SDL_RENDER_DRIVER=software
echo precious >"$tmp/precious"
# intact: the link's target still holds what it held
intact() { [ "$(wc -c <"$tmp/precious")" -eq 9 ] && grep -qx precious "$tmp/precious"; }
regular() { [ -f "$1" ] && [ ! -L "$1" ]; }

# ---- dump --out DIR ----
mkdir -p "$tmp/d"
(ln -s "$tmp/precious" "$tmp/d/logits.npy.tmp.$BASHPID"
 exec "$BIN" dump --model "$TINY" --ids 1,2,3 --tensor logits --out "$tmp/d") >/dev/null 2>"$tmp/d.err"; rc=$?
check "dump beside a link at logits.npy.tmp.PID: exits 0 ($rc: $(head -c 200 "$tmp/d.err"))" [ "$rc" -eq 0 ]
check "dump: the planted link's target untouched" intact
check "dump: logits.npy is a regular file" regular "$tmp/d/logits.npy"
mkdir -p "$tmp/d2"; ln -s "$tmp/precious" "$tmp/d2/logits.npy"
"$BIN" dump --model "$TINY" --ids 1,2,3 --tensor logits --out "$tmp/d2" >/dev/null 2>"$tmp/d2.err"; rc=$?
check "dump onto a link at logits.npy: refused, exit 2 ($rc), one line naming it" bash -c \
  '[ "$1" -eq 2 ] && [ "$(wc -l <"$2")" -eq 1 ] &&
   grep -q "d2/logits.npy: exists and is a symbolic link, not a regular file (not replaced)" "$2"' _ "$rc" "$tmp/d2.err"
check "dump: the link and its target untouched, no temporary left" bash -c \
  '[ -L "$1/logits.npy" ] && [ -z "$(ls -A "$1" | grep "^\.")" ]' _ "$tmp/d2"
check "dump: target untouched" intact

# ---- convert MODEL OUT ----
mkdir -p "$tmp/c"
(ln -s "$tmp/precious" "$tmp/c/.config.json.tmp-$BASHPID"; ln -s "$tmp/precious" "$tmp/c/.model.safetensors.tmp-$BASHPID"
 exec "$BIN" convert --to f16 "$TINY" "$tmp/c") >/dev/null 2>"$tmp/c.err"; rc=$?
check "convert beside links at .config.json.tmp-PID, .model.safetensors.tmp-PID: exits 0 ($rc: $(head -c 200 "$tmp/c.err"))" \
  [ "$rc" -eq 0 ]
check "convert: the planted links' target untouched" intact
check "convert: config.json and model.safetensors are regular files that load" bash -c \
  '[ -f "$2/config.json" ] && [ ! -L "$2/config.json" ] && [ ! -L "$2/model.safetensors" ] && "$1" info "$2" >/dev/null' \
  _ "$BIN" "$tmp/c"

# ---- the window's --state-out FILE and --export-dir DIR: refused at start (bounded: no window) ----
mkfifo "$tmp/fifo"; ln -s "$tmp/precious" "$tmp/link"; echo file >"$tmp/afile"
for target in fifo link; do
  timeout 20 "$BIN" --model "$TINY" --state-out "$tmp/$target" >/dev/null 2>"$tmp/so.err"; rc=$?
  check "--state-out onto a $target: exit 2 at once ($rc), one line naming it ($(head -c 160 "$tmp/so.err"))" bash -c \
    '[ "$1" -eq 2 ] && [ "$(wc -l <"$2")" -eq 1 ] && grep -q "^inferscope window: --state-out $3: exists and is a" "$2"' \
    _ "$rc" "$tmp/so.err" "$tmp/$target"
done
check "--state-out: the FIFO and the link still there, the target untouched" bash -c \
  '[ -p "$1/fifo" ] && [ -L "$1/link" ]' _ "$tmp"
check "--state-out: target untouched" intact
if mknod "$tmp/null" c 1 3 2>/dev/null; then # a device node, as /dev/full was (root only)
  timeout 20 "$BIN" --model "$TINY" --state-out "$tmp/null" >/dev/null 2>"$tmp/so.err"; rc=$?
  check "--state-out onto a character device: exit 2 ($rc), the node kept" bash -c \
    '[ "$1" -eq 2 ] && grep -q "exists and is a character device, not a regular file" "$2" && [ -c "$3" ]' \
    _ "$rc" "$tmp/so.err" "$tmp/null"
else
  skip test_output_files/device "mknod needs root"
fi
timeout 20 "$BIN" --model "$TINY" --export-dir "$tmp/afile" >/dev/null 2>"$tmp/ed.err"; rc=$?
check "--export-dir onto a file: exit 2 at once ($rc), naming it" bash -c \
  '[ "$1" -eq 2 ] && grep -q -- "--export-dir $3: exists and is not a folder" "$2"' _ "$rc" "$tmp/ed.err" "$tmp/afile"

# ---- the window: links at FILE.tmp-PID (--state-out) and FILE.tmp (INFERSCOPE_HITS_OUT) ----
mkdir -p "$tmp/w"; ln -s "$tmp/precious" "$tmp/w/hits.tmp"
(ln -s "$tmp/precious" "$tmp/w/state.json.tmp-$BASHPID"
 INFERSCOPE_HITS_OUT="$tmp/w/hits" exec "$BIN" --model "$TINY" --state-out "$tmp/w/state.json") \
  >/dev/null 2>"$tmp/w.err" &
pid=$!
for _ in $(seq 1 300); do [ -s "$tmp/w/hits" ] && break; sleep 0.1; done
kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; pid=
check "window: the hit list is a regular file ($(head -c 200 "$tmp/w.err"))" regular "$tmp/w/hits"
check "window: the state snapshot at exit is a regular file with the model" bash -c \
  '[ -f "$1" ] && [ ! -L "$1" ] && grep -q "\"model\": \"tiny\"" "$1"' _ "$tmp/w/state.json"
check "window: the links' target untouched" intact

# ---- export --handout: handout.md / handout.html ----
L=tests/fixtures/lessons/handout.lesson
mkdir -p "$tmp/h"; ln -s "$tmp/precious" "$tmp/h/handout.md"
"$BIN" export --lesson "$L" --model "$TINY" --size 640x360 --handout --out "$tmp/h" >/dev/null 2>"$tmp/h.err"; rc=$?
check "export --handout onto a link at handout.md: refused ($rc), naming it" bash -c \
  '[ "$1" -ne 0 ] && grep -q "h/handout.md: exists and is a symbolic link, not a regular file" "$2"' _ "$rc" "$tmp/h.err"
check "handout: the link's target untouched" intact
summary test_output_files
