# test_class_browser.sh — the student page in a real browser: headless Chromium (Debian's
# `chromium`) opens it from a running `inferscope class` on 127.0.0.1, two isolated clients
# join with the room code (each gets its own HttpOnly device token), guess, and see the
# reveal: "You guessed ' there' = token 612", "The next token was ','", right / not right.
# Chromium is driven over a pipe by tests/fixtures/class_browser.py, with every non-loopback
# request sent to a closed loopback port. The teacher's export then shows both votes (the
# class panel's SVG text, the rounds' CSV). CLASS_SHOTS=DIR keeps the screenshots (360x740
# and 1280x800) for looking at them. Every wait is bounded.
. tests/check.sh
if ! command -v chromium >/dev/null 2>&1; then
  skip test_class_browser "chromium is not installed (scripts/install-deps.sh --test installs it)"
  summary test_class_browser
  exit
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_class_browser.XXXXXX")
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; exec 3>&- 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
shots=${CLASS_SHOTS:-$tmp}
mkdir -p "$shots"

mkfifo "$tmp/in"
"$BIN" class --class-address 127.0.0.1:0 --export-dir "$tmp/figs" <"$tmp/in" >"$tmp/out" 2>"$tmp/err" &
pid=$!
exec 3>"$tmp/in"
wait_for "$tmp/err" '^class: http://127\.0\.0\.1:[0-9]+/ code [0-9]{4}$' || exit 1
url=$(sed -n 's/^class: \(http:[^ ]*\) code .*/\1/p' "$tmp/err")
code=$(sed -n 's/.* code \([0-9]*\)$/\1/p' "$tmp/err")
echo open >&3
wait_for "$tmp/out" '^round 1 open' || exit 1

timeout 120 python3 tests/fixtures/class_browser.py \
  client a size 360 740 open "$url" shot "$shots/phone-join.png" join "$code" Ada check-cookie \
  wait-text status "Round 1: guess the next word" wait-text text "Once upon a time" guess there \
  wait-text result "You guessed ' there' = token 612." shot "$shots/phone-guessed.png" \
  client b size 1280 800 open "$url" join "$code" check-cookie guess "," \
  wait-text result "You guessed ',' = token 11." wait-text count "2 of 2 answered" \
  pause "$tmp/revealed" \
  use a wait-text result "The next token was ',' (token 11). Not this time." \
  wait-text result "1 of 2 guesses were right." shot "$shots/phone-revealed.png" \
  use b wait-text result "You were right!" shot "$shots/laptop-revealed.png" dark shot "$shots/laptop-dark.png" \
  >"$tmp/driver" 2>&1 &
driver=$!
wait_for "$tmp/driver" "^#count: 2 of 2 answered" && echo reveal >&3
wait_for "$tmp/out" "^round 1: the truth was ','" && touch "$tmp/revealed"
wait "$driver"; rc=$?
check "Chromium: two clients join, guess and see the reveal ($rc; $(tail -n 1 "$tmp/driver"))" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || cat "$tmp/driver" >&2
check "the first client saw its guess as a token" grep -q "^#result: You guessed ' there' = token 612." "$tmp/driver"
check "the device cookie is HttpOnly in the browser" bash -c '[ "$(grep -c "^cookie HttpOnly" "$1")" -eq 2 ]' _ "$tmp/driver"
check "the teacher counted 2 guesses, 1 right" grep -q "^  class: 1 right" "$tmp/out"
check "two students joined" bash -c 'echo status >&3; for _ in $(seq 50); do grep -q "^2 students joined" "$1" && exit 0; sleep 0.1; done; exit 1' _ "$tmp/out"
for f in phone-join phone-guessed phone-revealed laptop-revealed; do
  check "screenshot $f.png is a PNG" bash -c 'head -c 8 "$1" | od -An -tx1 | grep -q "89 50 4e 47"' _ "$shots/$f.png"
done
# the teacher's exported figure shows both votes: the class panel as PNG (provenance) and
# SVG (its text is text): 2 of 2 answered, ',' and ' there' one vote each, 1 of 2 right
echo export >&3
wait_for "$tmp/out" '^exported .*class-rounds-0001\.csv and ' || true
svg=$(ls "$tmp"/figs/*-class.svg 2>/dev/null | head -n 1)
png=$(ls "$tmp"/figs/*-class.png 2>/dev/null | head -n 1)
check "export wrote the class panel as PNG and SVG" bash -c '[ -s "$1" ] && [ -s "$2" ]' _ "$png" "$svg"
check "the figure says 2 of 2 answered" grep -q '2 of 2 answered' "$svg"
check "the figure shows both votes, one each" bash -c '[ "$(grep -o "1 (50 %)" "$1" | wc -l)" -eq 2 ]' _ "$svg"
check "the figure shows the answer and who was right" grep -q '1 of 2 right' "$svg"
check "the PNG records its panel (provenance)" bash -c 'tr "\\0" " " <"$1" | grep -aq "inferscope:panel class"' _ "$png"
check "the rounds: CSV row 1 counts 2 guesses, 1 right" grep -q '^1,text,4,11,",",2,1,0.500000,' "$tmp"/figs/class-rounds-0001.csv
check "no nickname in the exported files" bash -c '! grep -q Ada "$1"/figs/*.csv "$1"/figs/*.json "$1"/figs/*.svg' _ "$tmp"
echo quit >&3
exec 3>&-
wait "$pid"; rc=$?; pid=
check "the room closes with status 0 ($rc)" [ "$rc" -eq 0 ]
summary test_class_browser
