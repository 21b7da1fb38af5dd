#!/usr/bin/env bash
# test_handout.sh — `export --lesson F --handout` on the tiny reference model: handout.md
# and handout.html beside the slides, with the title, one section per slide whose image
# is a relative path to a PNG that exists, the captions as drawn (live numbers filled
# in, Markdown characters escaped), the question open then answered, and the teacher's
# notes (# comments) marked as such next to their slide; the HTML parses with balanced
# tags (python3's html.parser) and the Markdown renders with cmark when it is installed.
set -u
cd "$(dirname "$0")/.."
source tests/check.sh
export SDL_VIDEODRIVER=dummy
T=$(mktemp -d /tmp/inferscope-test-handout-XXXXXX)
trap 'rm -rf "$T"' EXIT
L=tests/fixtures/lessons/handout.lesson
run() { "$BIN" export --lesson "$L" --model "$REF/models/tiny" --size 640x360 "$@"; }

run --handout --out "$T/a" >"$T/log" 2>&1; rc=$?
check "export --handout exits 0 ($(tail -n 1 "$T/log"))" [ "$rc" -eq 0 ]
check "says where the handout is" grep -q "wrote the handout: $T/a/handout.md and $T/a/handout.html" "$T/log"
md="$T/a/handout.md"; html="$T/a/handout.html"
check "handout.md and handout.html exist" [ -s "$md" ] && [ -s "$html" ]
check "title as the heading, escaped" grep -qx '# Handout \\\*test\\\* \\<lesson\\>' "$md"
check "one section per slide" [ "$(grep -c '^## Slide [0-9]* of 3$' "$md")" -eq 3 ]
# every image is a relative name of a PNG in the folder, in slide order
imgs=$(grep -o '!\[Slide [0-9]*\]([^)]*)' "$md" | sed 's/.*(\(.*\))/\1/')
check "three images" [ "$(printf '%s\n' "$imgs" | wc -l)" -eq 3 ]
ok=1; for i in $imgs; do case $i in */*) ok=0;; esac; [ -f "$T/a/$i" ] || ok=0; done
check "images are relative and exist" [ "$ok" -eq 1 ]
check "images in slide order" [ "$(printf '%s\n' $imgs | head -n 1)" = "0001-handout-beat-01.png" ]
check "caption escaped (list start, stars, brackets)" \
  grep -qF '1\. A caption that starts like a list, with \*stars\* and \<angle brackets\>.' "$md"
check "live number filled in (tiny: 2 layers)" grep -qF 'This model has 2 layers.' "$md"
check "no placeholder left" bash -c '! grep -qF "{layers}" "$1" "$2"' _ "$md" "$html"
check "open question" grep -qF '**Question** (think before you read on): Which token comes next?' "$md"
check "answered question" grep -qF '**The answer to:** Which token comes next?' "$md"
check "lesson notes marked" grep -qF "> **Teacher's notes: the whole lesson**" "$md"
check "bullet joined across lines" grep -qF '> - first point, which goes on onto a second line' "$md"
# the beat note sits in slide 2's section (between its heading and slide 3's)
sec2=$(awk '/^## Slide 2 of 3/{on=1} /^## Slide 3 of 3/{on=0} on' "$md")
check "beat note beside its slide" grep -qF "> **Teacher's notes**" <<<"$sec2"
check "beat note text" grep -qF 'A note for the second slide only.' <<<"$sec2"
check "html: title and images" bash -c 'grep -qF "<h1>Handout *test* &lt;lesson&gt;</h1>" "$1" &&
  [ "$(grep -c "<img src=\"000[1-3]-handout-beat-0[1-3].png\"" "$1")" -eq 3 ]' _ "$html"
check "html: notes marked" grep -qF "<aside class=\"notes\"><h3>Teacher's notes" "$html"
check "html parses, tags balanced" python3 - "$html" <<'PY'
import sys
from html.parser import HTMLParser
VOID = {"meta", "img", "br", "hr", "link", "input"}
class P(HTMLParser):
    def __init__(self):
        super().__init__(); self.stack = []; self.bad = 0
    def handle_starttag(self, tag, a):
        if tag not in VOID: self.stack.append(tag)
    def handle_endtag(self, tag):
        if not self.stack or self.stack.pop() != tag: self.bad += 1
p = P(); p.feed(open(sys.argv[1], encoding="utf-8").read())
sys.exit(1 if p.bad or p.stack else 0)
PY
if command -v cmark >/dev/null; then
  cmark "$md" >"$T/md.html"
  check "cmark: three images with relative src" [ "$(grep -c '<img src="000[1-3]-handout-beat-0[1-3].png"' "$T/md.html")" -eq 3 ]
  check "cmark: the caption is a paragraph, not a list" grep -qF '<p>1. A caption that starts like a list, with *stars* and &lt;angle brackets&gt;.' "$T/md.html"
  check "cmark: notes are a quote with a list" grep -q '<li>first point, which goes on onto a second line</li>' "$T/md.html"
fi

check "notes keep code spans (md)" grep -qF '> Before class: run `make gpt2` once.' "$md"
check "notes keep code spans (html)" grep -qF '<p>Before class: run <code>make gpt2</code> once.</p>' "$html"

# the model fallback note is on every slide, but once in the handout, under the title
printf 'title Fallback\nmodel /nonexistent/gpt2 or-bundled\nprompt Hi\ncaption one\npause\ncaption two\n' >"$T/fb.lesson"
"$BIN" export --lesson "$T/fb.lesson" --size 640x360 --handout --out "$T/fb" >"$T/fb.log" 2>&1; rc=$?
check "fallback lesson exports ($(tail -n 1 "$T/fb.log"))" [ "$rc" -eq 0 ]
check "fallback note once in the handout" [ "$(grep -c 'not downloaded' "$T/fb/handout.md")" -eq 1 ]
check "fallback note under the title" bash -c 'grep -A2 "^# Fallback" "$1" | grep -q "^\*On every slide:\* /nonexistent/gpt2 is not downloaded"' _ "$T/fb/handout.md"
check "fallback note once in the html" [ "$(grep -c 'not downloaded' "$T/fb/handout.html")" -eq 1 ]
# --model given on the command line: that model runs, so no fallback is reported
"$BIN" export --lesson "$T/fb.lesson" --model "$REF/models/tiny" --size 640x360 --handout --out "$T/fb2" >"$T/fb2.log" 2>&1
check "--model: no false 'not downloaded' note" bash -c '! grep -q "not downloaded" "$1" "$2/handout.md"' _ "$T/fb2.log" "$T/fb2"

# a second export into the same folder: the handout describes the new slides
run --handout --out "$T/a" >/dev/null 2>&1
check "second export: handout points at the new slides" grep -qF '](0004-handout-beat-01.png)' "$md"
check "no temporary files left" bash -c '! ls -A "$1" | grep -q tmp' _ "$T/a"
# without --lesson: one clear line, exit 2
e=$("$BIN" export --model "$REF/models/tiny" --prompt Hi --handout --out "$T/b" 2>&1); rc=$?
check "--handout without --lesson: exit 2, one line" \
  bash -c '[ "$1" -eq 2 ] && [ "$(printf "%s\n" "$2" | wc -l)" -eq 1 ] && grep -q -- "--handout goes with --lesson" <<<"$2"' _ "$rc" "$e"
# an unknown placeholder is reported with FILE:LINE before anything is written
printf 'prompt Hi\ncaption {stepms}\n' >"$T/bad.lesson"
e=$("$BIN" export --lesson "$T/bad.lesson" --model "$REF/models/tiny" --out "$T/c" 2>&1); rc=$?
check "unknown placeholder: exit 2 with file:line" \
  bash -c '[ "$1" -eq 2 ] && grep -q "bad.lesson:2: unknown placeholder .{stepms}" <<<"$2"' _ "$rc" "$e"
check "unknown placeholder: nothing written" [ ! -e "$T/c" ]
summary test_handout
