# test_class_server.sh — `inferscope class` over loopback only (127.0.0.1, any free port):
# the one stderr line, the page and its headers, exactly four routes (paths that would
# reach the disk are 404 and nothing of the disk comes back), joining with the room code,
# a second client's own device token, one guess per device per round, the reveal, the
# body and header limits, and bad --class-address values refused in one line. Every wait
# is bounded; the server is stopped by `quit` (and killed by pid if it does not).
. tests/check.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_class_server.XXXXXX")
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; exec 3>&- 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT


mkfifo "$tmp/in"
"$BIN" class --class-address 127.0.0.1:0 <"$tmp/in" >"$tmp/out" 2>"$tmp/err" &
pid=$!
exec 3>"$tmp/in"
check "the server says where to join" wait_for "$tmp/err" '^class: '
line=$(head -n 1 "$tmp/err")
check "one line: class: http://127.0.0.1:PORT/ code NNNN ($line)" \
  bash -c '[[ "$1" =~ ^class:\ http://127\.0\.0\.1:[0-9]+/\ code\ [0-9]{4}$ ]] && [ "$(wc -l <"$2")" -eq 1 ]' _ "$line" "$tmp/err"
url=$(sed -n 's/^class: \(http:[^ ]*\) code .*/\1/p' "$tmp/err")
code=$(sed -n 's/.* code \([0-9]*\)$/\1/p' "$tmp/err")
case "$url" in http://127.0.0.1:*) ;; *) echo "not loopback: '$url'" >&2; exit 1;; esac
C="curl -s --max-time 5"
jqt() { jq -e "$1" "$2" >/dev/null; } # jqt FILTER FILE: the filter holds on the JSON in FILE

# ---- the page and its headers ----
$C -D "$tmp/h" -o "$tmp/page" "$url"
check "GET / is 200 text/html" grep -qi '^content-type: text/html' "$tmp/h"
check "the page is the student page" grep -q '<title>Guess the next word' "$tmp/page"
check "the page has a hash-only CSP" grep -qiE "^content-security-policy: default-src 'none'; script-src 'sha256-" "$tmp/h"
check "no-store, nosniff, no-referrer, DENY" bash -c 'grep -qi "^cache-control: no-store" "$1" && grep -qi "^x-content-type-options: nosniff" "$1" &&
  grep -qi "^referrer-policy: no-referrer" "$1" && grep -qi "^x-frame-options: DENY" "$1"' _ "$tmp/h"
check "the page loads nothing from elsewhere" bash -c '! grep -qE "(src|href)=\"(https?:)?//" "$1"' _ "$tmp/page"

# ---- nothing from the disk ----
for p in /../../etc/passwd /%2e%2e/%2e%2e/etc/passwd /model.safetensors /assets/models/stories16m/config.json \
         /assets/tokenizer/encoder.json /src/class/page.html /lessons/ /index.html /favicon.ico /state/../../etc/passwd; do
  st=$($C --path-as-is -o "$tmp/body" -w '%{http_code}' "$url${p#/}")
  check "GET $p is 404 ($st)" [ "$st" = 404 ]
  check "GET $p gives nothing of the disk" bash -c '! grep -qE "root:|vocab|n_embd|safetensors" "$1" && [ "$(cat "$1")" = "not found" ]' _ "$tmp/body"
done
st=$($C -o /dev/null -w '%{http_code}' -H 'Host: rebound.example:80' "$url"state)
check "a request naming another Host (DNS rebinding) is 400 ($st)" [ "$st" = 400 ]
st=$($C -o /dev/null -w '%{http_code}' -X DELETE "$url"state)
check "DELETE /state is 405 ($st)" [ "$st" = 405 ]

# ---- joining ----
st=$($C -o "$tmp/body" -w '%{http_code}' -c "$tmp/jar1" -d "code=0000" "$url"join)
[ "$code" = 0000 ] || check "a wrong code is 403 ($st)" [ "$st" = 403 ]
st=$($C -o "$tmp/body" -w '%{http_code}' -c "$tmp/jar1" -d "code=$code&name=Ada" "$url"join)
check "joining with the code is 200 ($st)" [ "$st" = 200 ]
$C -o /dev/null -c "$tmp/jar2" -d "code=$code" "$url"join
d1=$(awk '$6 == "inferscope_device" {print $7}' "$tmp/jar1")
d2=$(awk '$6 == "inferscope_device" {print $7}' "$tmp/jar2")
check "each client gets its own 128-bit device token ($d1 / $d2)" \
  bash -c '[[ "$1" =~ ^[0-9a-f]{32}$ ]] && [[ "$2" =~ ^[0-9a-f]{32}$ ]] && [ "$1" != "$2" ]' _ "$d1" "$d2"
check "the cookie is HttpOnly" grep -q '^#HttpOnly_127.0.0.1' "$tmp/jar1"

# ---- a round ----
st=$($C -o /dev/null -w '%{http_code}' -b "$tmp/jar1" --data-urlencode "text=there" "$url"guess)
check "no round open yet: 409 ($st)" [ "$st" = 409 ]
echo open >&3
check "the teacher opens round 1" wait_for "$tmp/out" '^round 1 open'
$C -o "$tmp/g1" -b "$tmp/jar1" --data-urlencode "text=there" "$url"guess
check "you guessed ' there' = token 612" jqt '.ok and .state.guess.token == 612 and .state.guess.text == " there"' "$tmp/g1"
check "no truth before the reveal" jqt '.state.truth == null and .state.right == null' "$tmp/g1"
st=$($C -o /dev/null -w '%{http_code}' -b "$tmp/jar1" --data-urlencode "text=," "$url"guess)
check "a second guess from the same device: 409 ($st)" [ "$st" = 409 ]
$C -o "$tmp/g2" -b "$tmp/jar2" --data-urlencode "text=," "$url"guess
check "the second device's guess ',' = token 11" jqt '.state.guess.token == 11 and .state.answered == 2' "$tmp/g2"
echo reveal >&3
check "the teacher sees the reveal" wait_for "$tmp/out" "^round 1: the truth was ',' \(11\); 2 guesses"
$C -o "$tmp/s1" -b "$tmp/jar1" "$url"state
check "after the reveal: the truth ',' and 1 of 2 right" \
  jqt '.truth.token == 11 and .right == false and .right_count == 1 and .answered == 2' "$tmp/s1"
check "the teacher's score line: class 50% of 2 guesses" grep -q 'class top-1 50.0% (1 of 2 guesses)' "$tmp/out"
# the model's side is the model's own distribution at T = 1, as `eval --per-token` computes it
printf 'Once upon a time, there' >"$tmp/story"
p_eval=$("$BIN" eval --per-token --json "$tmp/story" | jq -r '.tokens[] | select(.pos == 4) | "\(.id) \(.p * 1000 | round)"')
p_class=$(sed -n "s/^round 1: the truth was ',' (\([0-9]*\)).* p = 0\.\([0-9]*\) .*/\1 \2/p" "$tmp/out" | sed 's/ 0*/ /')
check "the class's model p of ',' is eval's ($p_class vs $p_eval)" bash -c '[ -n "$1" ] && [ "$1" = "$2" ]' _ "$p_class" "$p_eval"

# ---- limits ----
head -c 2000 /dev/zero | tr '\0' 'a' | sed 's/^/text=/' >"$tmp/big"
st=$($C -o /dev/null -w '%{http_code}' -b "$tmp/jar2" --data-binary @"$tmp/big" \
  -H 'Content-Type: application/x-www-form-urlencoded' "$url"guess)
check "a 2 KB body is 413 ($st)" [ "$st" = 413 ]
st=$($C -o /dev/null -w '%{http_code}' -H "Cookie: x=$(head -c 20000 /dev/zero | tr '\0' 'b')" "$url"state)
check "a 20 KB header is 431 ($st)" [ "$st" = 431 ]
st=$($C -o /dev/null -w '%{http_code}' "$url$(head -c 20000 /dev/zero | tr '\0' 'c')")
check "a 20 KB path is 414 ($st)" [ "$st" = 414 ]
st=$($C -o /dev/null -w '%{http_code}' "$url"state)
check "the server still answers after them ($st)" [ "$st" = 200 ]

echo quit >&3
exec 3>&-
for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
wait "$pid"; rc=$?; pid=
check "quit ends the program with status 0 ($rc)" [ "$rc" -eq 0 ]

# ---- bad addresses: one line, status 2, nothing served ----
for a in nonsense 127.0.0.1 127.0.0.1:99999 127.0.0.1:x "[::1" localhost:8765; do
  "$BIN" class --class-address "$a" </dev/null >/dev/null 2>"$tmp/e"; rc=$?
  check "--class-address '$a' is refused with status 2 ($rc): $(cat "$tmp/e")" \
    bash -c '[ "$1" -eq 2 ] && [ "$(wc -l <"$2")" -eq 1 ] && grep -q -- "--class-address" "$2"' _ "$rc" "$tmp/e"
done
summary test_class_server
