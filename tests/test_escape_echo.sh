#!/usr/bin/env bash
# test_escape_echo.sh — issue 35: text from a file or an argument reaches the terminal inert.
# A model folder's name, an unknown option, a lesson's unknown directive and its panel /
# expect arguments, and the tokens of a vocab.json that `generate`, `compare` and `novelty`
# print may hold ESC, BEL or a C1 control (CSI, U+009B); each must come out as \xNN
# (engine/text_visible.h), never as the byte a terminal obeys. The generated text keeps its
# newlines and tabs and nothing else.
. tests/check.sh
F=tests/fixtures/gpt2_family.py
TINY=$REF/models/tiny
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_escape_echo.XXXXXX"); trap 'rm -rf "$tmp"' EXIT
ESC=$'\e' BEL=$'\a' CSI=$'\xc2\x9b'
# inert FILE: no ESC, BEL or C1 CSI byte in FILE, and "\x1B" written where the ESC was
inert() { ! grep -q "[$ESC$BEL]" "$1" && ! grep -q "$CSI" "$1" && grep -qF '\x1B' "$1"; }

# ---- a model folder whose name holds a terminal title sequence and a C1 CSI ----
M="$tmp/m${ESC}]0;pwned${BEL}x${CSI}2J"
mkdir -p "$M" && cp "$TINY/config.json" "$TINY/model.safetensors" "$M/"
"$BIN" next --model "$M" --ids 1,2 >"$tmp/next.out" 2>&1; rc=$?
check "next on the model: exits 0 ($rc)" [ "$rc" -eq 0 ]
check "next names the model inert (\\x1B, \\x07, \\xC2\\x9B): $(head -n 1 "$tmp/next.out" | cut -c1-100)" bash -c \
  'grep -qF "(model m\x1B]0;pwned\x07x\xC2\x9B2J," "$1"' _ "$tmp/next.out"
check "next: no raw ESC, BEL or CSI anywhere in its output" inert "$tmp/next.out"
"$BIN" info "$M" >"$tmp/info.out" 2>&1
check "info: the model's name and folder inert" inert "$tmp/info.out"
"$BIN" next --model "$M/missing" --ids 1 >"$tmp/miss.out" 2>&1; rc=$?
check "a missing model under that folder: exit 2 ($rc), one line, inert" bash -c \
  '[ "$1" -eq 2 ] && [ "$(wc -l <"$2")" -eq 1 ]' _ "$rc" "$tmp/miss.out"
check "the missing model's error: inert" inert "$tmp/miss.out"
"$BIN" next "--bogus${ESC}[2J" >"$tmp/opt.out" 2>&1; rc=$?
check "an unknown option with ESC: exit 2 ($rc), echoed inert" bash -c '[ "$1" -eq 2 ]' _ "$rc"
check "the unknown option's echo: inert" inert "$tmp/opt.out"
"$BIN" "bogus${ESC}[2J" >"$tmp/cmd.out" 2>&1
check "an unknown command with ESC: echoed inert" inert "$tmp/cmd.out"
"$BIN" dump --model "$TINY" --ids 1 --tensor logits --out "$tmp/d${ESC}[2J" >"$tmp/dump.out" 2>&1
check "dump's 'wrote PATH' line: inert" inert "$tmp/dump.out"

# ---- a lesson: an unknown directive, a panel and an expect argument with ESC ----
lesson_error() { # NAME LINE: a lesson of one bad line; export's error in $tmp/NAME.err
  printf 'title t\nprompt Once upon a time\n%s\n' "$2" >"$tmp/$1.lesson"
  "$BIN" export --lesson "$tmp/$1.lesson" --model "$TINY" --out "$tmp/$1.figs" >/dev/null 2>"$tmp/$1.err"
}
lesson_error directive "${ESC}]0;pwned${BEL} now"
check "lesson: an unknown directive with ESC/BEL is reported inert ($(head -c 120 "$tmp/directive.err"))" bash -c \
  'grep -q "unknown directive" "$1"' _ "$tmp/directive.err"
check "lesson: the unknown directive's echo: inert" inert "$tmp/directive.err"
lesson_error panel "panel ${ESC}[2Jtokens"
check "lesson: an unknown panel with ESC: reported, inert" bash -c 'grep -q "unknown panel" "$1"' _ "$tmp/panel.err"
check "lesson: the panel's echo: inert" inert "$tmp/panel.err"
lesson_error expect "expect head 0.0 best ${ESC}[2Jinduction"
check "lesson: an expect argument with ESC: reported, inert" bash -c 'grep -q "expect" "$1"' _ "$tmp/expect.err"
check "lesson: the expect argument's echo: inert" inert "$tmp/expect.err"

# ---- a vocab.json whose tokens are terminal sequences: what generate prints ----
python3 "$F" chars "$tmp/v" 5 >/dev/null
python3 - "$tmp/v/vocab.json" <<'EOF'
import json, sys
# 65 distinct tokens: SGR colour sequences, a BEL, a C1 CSI, and plain newline / tab / letters
v = ["\x1b[%dm" % i for i in range(60)] + ["\x07", "\u009b2J", "\n", "\t", "a"]
json.dump(v, open(sys.argv[1], "w"))
EOF
"$BIN" generate --model "$tmp/v" --ids 0,60,61,62,63,64 -n 12 --seed 3 >"$tmp/gen.out" 2>"$tmp/gen.err"; rc=$?
check "generate on the vocab.json model: exits 0 ($rc: $(head -c 160 "$tmp/gen.err"))" [ "$rc" -eq 0 ]
check "generate: tokens printed inert: \\x1B[0m, \\x07, \\xC2\\x9B2J; newline and tab kept" bash -c \
  'head -c 40 "$1" | grep -qF "\x1B[0m\x07\xC2\x9B2J" && grep -q "$(printf "\t")a" "$1" && [ "$(wc -l <"$1")" -ge 2 ]' \
  _ "$tmp/gen.out"
check "generate: no raw ESC, BEL or CSI in the generated text" inert "$tmp/gen.out"
"$BIN" compare --model "$tmp/v" --ids 0,60,61 -n 6 --seed 3 greedy T=1 >"$tmp/cmp.out" 2>&1
check "compare: the columns' text inert" inert "$tmp/cmp.out"

# ---- tokenize shows the prompt's bytes: a C1 CSI there too ----
"$BIN" tokenize --explain "a${CSI}2J${ESC}[0m${BEL}" >"$tmp/tok.out" 2>&1
check "tokenize --explain: no raw ESC, BEL or CSI; the word shown as \\xc2\\x9b" bash -c \
  '! grep -q "[$2$3]" "$1" && ! grep -q "$4" "$1" && grep -qF "word 1 \"\\xc2\\x9b\"" "$1"' _ "$tmp/tok.out" "$ESC" "$BEL" "$CSI"
summary test_escape_echo
