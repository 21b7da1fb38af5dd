# test_handout_class.sh — `export --lesson L --handout --class-results FILE`: the handout of a
# lesson played with a class ends with how the class did (issue 34): one row a round and
# the score, in handout.md and handout.html, with token texts escaped for each format
# (a token holding markup, a pipe or a control byte comes out as text); a results file
# that is not the writer's format is refused in one line naming the file and the field,
# before any slide is drawn. The writer's own JSON is read back in test_app_class.
. tests/check.sh
T=$(mktemp -d /tmp/inferscope-test-handout-class-XXXXXX)
trap 'rm -rf "$T"' EXIT
L=lessons/12-guess-the-text.lesson
EXPORT=(env -u DISPLAY -u SDL_VIDEODRIVER "$BIN" export)
run() { "${EXPORT[@]}" --lesson "$L" "$@"; }

# two rounds as the window's U writes them; round 2's tokens are hostile on purpose
cat >"$T/rounds.json" <<'JSON'
{
  "smoothing": "q(t) = 0.9 c(t)/n + 0.1/V",
  "vocab": 50257,
  "rounds": [
    {"round": 1, "game": "text", "position": 4, "guesses": 3, "truth": {"id": 11, "text": ","},
     "tally": [{"votes": 2, "token": {"id": 11, "text": ","}}],
     "model": {"p": 0.786190, "top": {"id": 11, "text": ","}, "hit": 1},
     "class": {"right": 2, "top1": 0.666667, "bits": 0.736961, "plurality_hit": 1.000000}},
    {"round": 2, "game": "model", "position": 5, "guesses": 2, "truth": {"id": 1, "text": "<b>|x\u0007`"},
     "tally": [],
     "model": {"p": 0.25, "top": {"id": 2, "text": " there"}, "hit": 0},
     "class": {"right": 0, "top1": 0.0, "bits": 12.5, "plurality_hit": 0.0}},
    {"round": 3, "game": "text", "position": 6, "guesses": 0, "truth": null, "tally": []}
  ],
  "score": {"rounds": 2, "guesses": 5, "right": 2, "class_top1": 0.4, "class_bits": 5.44,
            "plurality": 0.5, "model_top1": 0.5, "model_bits": 1.35}
}
JSON
check "export --handout --class-results runs" run --out "$T/out" --handout --class-results "$T/rounds.json"
MD="$T/out/handout.md"
HTML="$T/out/handout.html"
check "the Markdown has the table's title" grep -q '^## How the class did$' "$MD"
check "round 1's row in Markdown" grep -qF "| 1 | guess the text | ',' | 3 | 2 (67 %) | 0.74 | 78.6 % | ',' (right) |" "$MD"
check "round 2's hostile token escaped in Markdown (<, |, backtick escaped; the bell as \\x07)" \
  grep -qF "| 2 | guess the model | '\\<b\\>\\|x\\\\x07\\\`' | 2 | 0 (0 %) | 12.50 | 25.0 % | ' there' |" "$MD"
check "an unrevealed round says so" grep -qF "| 3 | guess the text | (not revealed) | 0 |" "$MD"
check "the score under the table" grep -qF "Over 2 scored rounds (5 answers): the class guessed the next token 40.0 % of the time, 5.44 bits a token; the model 50.0 %, 1.35 bits." "$MD"
check "the table comes after the last slide, before the footer" \
  python3 -c "import sys; t=open(sys.argv[1]).read(); a=t.rfind('## Slide'); b=t.find('## How the class did'); c=t.find('---'); sys.exit(0 if 0<=a<b<c else 1)" "$MD"
check "the HTML table: a <th> header and round 2's token as text" \
  grep -qF "<td>'&lt;b&gt;|x\\x07\`'</td>" "$HTML"
check "the HTML has no raw <b> from a token" bash -c "! grep -qF \"'<b>\" '$HTML'"
check "the HTML parses (python's html.parser, no error) and has 4 rows" python3 - "$HTML" <<'PY'
import sys
from html.parser import HTMLParser
class P(HTMLParser):
    rows = 0
    def handle_starttag(self, tag, attrs):
        if tag == "tr": P.rows += 1
P().feed(open(sys.argv[1]).read())
sys.exit(0 if P.rows == 4 else 1)
PY

# refusals: one line, exit 2, naming the file and the field; nothing drawn first
check "refused: class-results goes with --handout" fails_with "class-results goes with --handout" "${EXPORT[@]}" --lesson "$L" --out "$T/r1" --class-results "$T/rounds.json"
check "refused: class-results goes with --lesson" fails_with "class-results goes with --lesson" "${EXPORT[@]}" --out "$T/r2" --class-results "$T/rounds.json" "Once upon a time"
check "(the first refusal drew no slide)" test ! -e "$T/r1/0001-12-guess-the-text-beat-01.png"
sed 's/"guesses": 3/"guesses": -3/' "$T/rounds.json" >"$T/neg.json"
check "refused: neg.json: rounds[0].guesses: not a whole number in [0, 1000000]" fails_with "neg.json: rounds\\[0\\]\\.guesses: not a whole number in \\[0, 1000000\\]" "${EXPORT[@]}" --lesson "$L" --out "$T/r3" --handout --class-results "$T/neg.json"
check "(nothing drawn for a refused results file)" test ! -e "$T/r3"
sed 's/"p": 0.25/"p": 1.5/' "$T/rounds.json" >"$T/p.json"
check "refused: p.json: rounds[1].model.p: outside [0, 1]" fails_with "p.json: rounds\\[1\\]\\.model\\.p: outside \\[0, 1\\]" "${EXPORT[@]}" --lesson "$L" --out "$T/r4" --handout --class-results "$T/p.json"
sed 's/"right": 2, "top1"/"right": 4, "top1"/' "$T/rounds.json" >"$T/right.json"
check "refused: right.json: rounds[0].class.right: not a whole number in [0, 3]" fails_with "right.json: rounds\\[0\\]\\.class\\.right: not a whole number in \\[0, 3\\]" "${EXPORT[@]}" --lesson "$L" --out "$T/r5" --handout --class-results "$T/right.json"
printf '{"smoothing": "x", "rounds": [], "score": {}} trailing' >"$T/trail.json"
check "refused: trail.json: trailing text" fails_with "trail.json: trailing text" "${EXPORT[@]}" --lesson "$L" --out "$T/r6" --handout --class-results "$T/trail.json"
check "refused: nope.json" fails_with "nope.json" "${EXPORT[@]}" --lesson "$L" --out "$T/r7" --handout --class-results "$T/nope.json"
mkfifo "$T/fifo.json"
check "refused: fifo.json" fails_with "fifo.json" "${EXPORT[@]}" --lesson "$L" --out "$T/r8" --handout --class-results "$T/fifo.json"
summary test_handout_class
