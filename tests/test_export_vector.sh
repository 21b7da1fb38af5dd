# test_export_vector.sh — `export --format svg|pdf` against `--format png` of the same
# state: every SVG parses (python3 xml.etree) and holds the panel's title and numbers as
# <text>, its <metadata> equals the PNG's provenance (the sidecar JSON) key for key; a
# caption holding < & ]]> and quotes comes back from the parser as the same text; the
# PDF's text is found by pdftotext, its fonts are embedded subsets (pdffonts), its info
# dictionary carries the provenance; a lesson is one PDF with a page per beat. Pixels:
# the SVG rendered by rsvg-convert and the PDF by pdftoppm at the PNG's size agree with
# the PNG on >= 97 % of pixels within 20 % per channel (text is anti-aliased by other
# rasterisers: FreeType hinted in SDL_ttf, unhinted in cairo) — light and dark,
# 1280x720 and 1920x1080, the frame, three panels, a contact sheet and a lesson slide.
. tests/check.sh
T=$(mktemp -d /tmp/inferscope-test-export-vector-XXXXXX)
trap 'rm -rf "$T"' EXIT
export INFERSCOPE_FALLBACK_FONTS="" # the fonts the backends embed: DejaVu alone
run() { env -u DISPLAY -u SDL_VIDEODRIVER "$BIN" export "$@"; }
for tool in rsvg-convert pdftoppm pdftotext pdffonts pdfinfo python3; do
  if ! command -v "$tool" >/dev/null; then
    skip test_export_vector "$tool missing (scripts/install-deps.sh --test)"
    summary test_export_vector
    exit 0
  fi
done
[ -x /usr/bin/compare ] || { skip test_export_vector "ImageMagick missing"; summary test_export_vector; exit 0; }

P="The cat sat on the"
# one state in three formats: NAME ARGS... -> $T/NAME/{*.png,*.svg,*.pdf}
three() {
  local name=$1; shift
  local f
  for f in png svg pdf; do
    run "$@" --format "$f" --sidecar --out "$T/$name" >/dev/null 2>&1 || { echo "export $name $f failed" >&2; return 1; }
  done
}
only() { ls "$T/$1"/*."$2" 2>/dev/null | head -1; }

# share PNG RENDERED: the fraction of pixels within 20 % per channel, as "0.9876"
share() {
  local ae wh
  ae=$(/usr/bin/compare -metric AE -fuzz 20% "$1" "$2" null: 2>&1 >/dev/null)
  wh=$(/usr/bin/identify -format '%w %h' "$1")
  awk -v ae="$ae" -v wh="$wh" 'BEGIN { split(wh, a, " "); printf "%.4f\n", 1 - ae / (a[1] * a[2]) }'
}
# agree NAME BG: renders the SVG and the PDF of $T/NAME at the PNG's size and compares
agree() {
  local png svg pdf w h s1 s2
  png=$(only "$1" png) svg=$(only "$1" svg) pdf=$(only "$1" pdf)
  read -r w h < <(/usr/bin/identify -format '%w %h\n' "$png")
  rsvg-convert -b "$2" -w "$w" -h "$h" "$svg" -o "$T/$1-svg.png" || return 1
  pdftoppm -png -singlefile -scale-to-x "$w" -scale-to-y "$h" "$pdf" "$T/$1-pdf" || return 1
  [ "$(/usr/bin/identify -format '%wx%h' "$T/$1-svg.png")" = "${w}x$h" ] || return 1
  [ "$(/usr/bin/identify -format '%wx%h' "$T/$1-pdf.png")" = "${w}x$h" ] || return 1
  s1=$(share "$png" "$T/$1-svg.png") s2=$(share "$png" "$T/$1-pdf.png")
  echo "pixels agreeing with the PNG, $1 ($w x $h): svg $s1, pdf $s2"
  awk -v a="$s1" -v b="$s2" 'BEGIN { exit !(a >= 0.97 && b >= 0.97) }'
}

# svg_has FILE TEXT...: every TEXT is the whole content of some <text> (or, with a
# leading '~', part of one) after an XML parser read the file
svg_has() {
  python3 - "$@" <<'EOF'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
texts = [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text")]
missing = [w for w in sys.argv[2:] if not (w[1:] in " ".join(texts) if w.startswith("~") else w in texts)]
if missing:
    print("not in the SVG's text:", missing, "have:", texts[:30], file=sys.stderr)
sys.exit(1 if missing else 0)
EOF
}
# svg_meta_is_sidecar SVG JSON: <metadata> holds exactly the PNG's keys and values
svg_meta_is_sidecar() {
  python3 - "$1" "$2" <<'EOF'
import sys, json, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = "urn:inferscope:figure-meta"
got = {e.get("key"): e.text or "" for e in root.iter("{%s}entry" % ns)}
want = json.load(open(sys.argv[2]))
def as_text(v):  # the PNG chunk holds JSON literals for numbers/arrays, the text for strings
    return v if isinstance(v, str) else json.dumps(v, separators=(",", ":"))
bad = [k for k in want if k not in got]
if set(got) != set(want): bad.append(("keys differ", sorted(set(got) ^ set(want))))
title = root.find("{http://www.w3.org/2000/svg}title")
if title is None or title.text != want.get("Title"): bad.append("title")
if bad: print("metadata:", bad, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
}

# ---- the probability panel at 1280x720, light ---------------------------------------
check "probs: three formats" three probs --prompt "$P" --panel probs --size 1280x720
svg=$(only probs svg) pdf=$(only probs pdf)
check "probs: the SVG is XML with title and numbers as text" \
  svg_has "$svg" "Next token · T=1" "11.6%" "10.4%" "0%" "15%" "u = 0.9617"
check "probs: <metadata> = the PNG's provenance" svg_meta_is_sidecar "$svg" "$(only probs json)"
check "probs: SVG embeds its fonts as subsets" grep -q "@font-face{font-family:'DejaVu Sans Mono'" "$svg"
ptxt=$(pdftotext "$pdf" -)
check "probs: pdftotext finds the title" grep -qF "Next token · T=1" <<<"$ptxt"
check "probs: pdftotext finds the numbers" grep -qF "11.6%" <<<"$ptxt"
check "probs: pdftotext finds a token" grep -qF "␣ground" <<<"$ptxt"
fonts=$(pdffonts "$pdf" | tail -n +3)
check "probs: PDF fonts are DejaVu, embedded and subset" \
  awk '{ if ($(NF-4) != "yes" || $(NF-3) != "yes") bad = 1; if ($1 !~ /^[A-Z]+\+DejaVuSans/) bad = 1 } END { exit bad || NR == 0 }' <<<"$fonts"
info=$(pdfinfo "$pdf")
check "probs: PDF Title is the figure's" grep -q "^Title: *probs, step 0" <<<"$info"
check "probs: PDF Keywords hold the provenance" grep -q '"inferscope:ids": \[464,3797,3332,319,262\]' <<<"$info"
check "probs: PDF page is 1280x720 px at 96 dpi" grep -q "^Page size: *960 x 540 pts" <<<"$info"
check "probs: pixels agree" agree probs white

# ---- the frame, 1920x1080 dark; attention (rotated labels, heatmap numbers) light ---
check "frame dark: three formats" three frame --prompt "$P" --seed 3 --theme dark
check "frame dark: text" svg_has "$(only frame svg)" "Attention · layer 0 · head 0" "0.83" "Next token · T=1" "Text" "~step 0"
check "frame dark: pixels agree" agree frame black
check "attention: three formats" three attn --prompt "$P" --panel attention --layer 1 --head 2 --size 1280x720
check "attention: text" svg_has "$(only attn svg)" "Attention · layer 1 · head 2" "␣cat" "blocks.1.attn.hook_pattern"
check "attention: pdftotext" grep -qF "blocks.1.attn.hook_pattern" <(pdftotext "$(only attn pdf)" -)
check "attention: pixels agree" agree attn white
check "lens: three formats" three lens --prompt "$P" --panel lens --size 1920x1080 --theme dark
check "lens: pixels agree" agree lens black
check "sheet: three formats" three sheet --prompt "$P" --layer 1 --contact-sheet --size 1280x720
check "sheet: pixels agree" agree sheet white

# ---- a lesson: one PDF, one page per beat; SVG slides one file each ------------------
L="$T/esc.lesson"
# a caption and a question holding the characters XML reserves; the token '"<' too
cat >"$L" <<'EOF'
title Escapes: a < b && "c" ]]> 'd'
model bundled
prompt The cat sat on the
panel probs
caption if a < b && c > d then "quote" and 'apostrophe' ]]> end
pause
caption second beat: <tag attr="x">&amp;</tag>
ask Is ]]> safe & sound?
reveal
caption revealed
EOF
check "lesson: png slides" run --lesson "$L" --out "$T/lpng" >/dev/null 2>&1
check "lesson: svg slides" run --lesson "$L" --format svg --out "$T/lsvg" >/dev/null 2>&1
out=$(run --lesson "$L" --format pdf --out "$T/lpdf" 2>/dev/null)
check "lesson: pdf says one file" grep -q "lpdf/0001-esc.pdf: 3 slides" <<<"$out"
check "lesson: one PDF file" [ "$(ls "$T/lpdf" | wc -l)" -eq 1 ]
check "lesson: a page per beat" grep -q "^Pages: *3$" <(pdfinfo "$T/lpdf/0001-esc.pdf")
check "lesson: three SVG slides" [ "$(ls "$T"/lsvg/*.svg | wc -l)" -eq 3 ]
s1=$(ls "$T"/lsvg/*.svg | sed -n 1p) s2=$(ls "$T"/lsvg/*.svg | sed -n 2p)
check "escape: caption with < && > quotes ]]> round-trips" \
  svg_has "$s1" "if a < b && c > d then \"quote\" and 'apostrophe' ]]> end"
check "escape: markup in a caption stays text" svg_has "$s2" 'second beat: <tag attr="x">&amp;</tag>' "~Is ]]> safe & sound?"
check "escape: title round-trips" svg_has "$s1" "~Escapes: a < b && \"c\" ]]> 'd'"
check "escape: no raw markup from the caption" bash -c '! grep -q "<tag" "$1"' _ "$s2"
ltxt=$(pdftotext "$T/lpdf/0001-esc.pdf" -)
check "lesson pdf: captions are text" grep -qF "second beat: <tag" <<<"$ltxt"
# page 2 of the PDF against the PNG of beat 2 (captions, question card, counter)
w_png=$(ls "$T"/lpng/*.png | sed -n 2p)
pdftoppm -png -f 2 -l 2 -singlefile -scale-to-x 1920 -scale-to-y 1080 "$T/lpdf/0001-esc.pdf" "$T/lp2"
s=$(share "$w_png" "$T/lp2.png")
echo "pixels agreeing with the PNG, lesson slide 2 (pdf): $s"
check "lesson slide 2: pixels agree" awk -v a="$s" 'BEGIN { exit !(a >= 0.97) }'
check "--handout refuses pdf" bash -c '"$1" export --lesson "$2" --format pdf --handout --out "$3" 2>&1 >/dev/null | grep -q "handout needs png or svg"' _ "$BIN" "$L" "$T/h"

# ---- bad input ----------------------------------------------------------------------
e=$(run --prompt "$P" --format tiff --out "$T/x" 2>&1 >/dev/null); rc=$?
check "--format tiff: exit 2" [ "$rc" -eq 2 ]
check "--format tiff: one line naming the formats" grep -qx "inferscope export: --format: 'tiff' is not a format (png, svg, pdf)" <<<"$e"
summary test_export_vector
