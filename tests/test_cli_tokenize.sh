# test_cli_tokenize.sh — `inferscope tokenize` end to end: the ids of "Once upon a time"
# (reference: tok_public.txt case 0), the three input routes (argument, stdin, --file
# with a NUL byte), the output modes, and that bad input exits 2 with one clear line.
# Not the tokenizer's correctness in depth (tests/test_tokenizer.c does that).
. "$(dirname "$0")/check.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the same four ids from the argument, from stdin and from a file
check "ids of 'Once upon a time'" test "$("$BIN" tokenize --ids "Once upon a time")" = "7454 2402 257 640"
check "stdin" test "$(printf 'Once upon a time' | "$BIN" tokenize --ids -)" = "7454 2402 257 640"
printf 'Once upon a time' >"$tmp/once.txt"
check "--file" test "$("$BIN" tokenize --ids --file "$tmp/once.txt")" = "7454 2402 257 640"

# a NUL byte is ordinary text: "a\0b" -> a, the NUL byte token (188), b
printf 'a\000b' >"$tmp/nul.txt"
check "--file with NUL" test "$("$BIN" tokenize --ids --file "$tmp/nul.txt")" = "64 188 65"
check "stdin with NUL" test "$(printf 'a\000b' | "$BIN" tokenize --ids -)" = "64 188 65"

# "<|endoftext|>" is plain text unless --special
check "eot plain" test "$("$BIN" tokenize --ids '<|endoftext|>')" = "27 91 437 1659 5239 91 29"
check "eot --special" test "$("$BIN" tokenize --ids --special '<|endoftext|>')" = "50256"

# the table shows the encoder.json piece (Ġupon) and the bytes; --explain the merges
table=$("$BIN" tokenize "Once upon a time")
check "table row" grep -q '^ *1 *2402  Ġupon *20 75 70 6f 6e *" upon"$' <<<"$table"
check "table count" grep -q '^4 tokens from 16 bytes' <<<"$table"
explain=$("$BIN" tokenize --explain " upon")
check "explain last merge" grep -q 'rank  2146: Ġup + on -> Ġupon' <<<"$explain"

# --json parses, and holds the ids
json=$("$BIN" tokenize --json --explain "Once upon a time, it's 42 €!")
check "json parses" python3 -c 'import json,sys; json.load(sys.stdin)' <<<"$json"
check "json ids" python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["ids"][:4]==[7454,2402,257,640], d["ids"]' <<<"$json"

# invalid UTF-8: exit 2, one line naming the offset; --replace-invalid encodes it
printf 'abc\377def' >"$tmp/bad.txt"
"$BIN" tokenize --ids --file "$tmp/bad.txt" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "invalid utf-8 exits 2" test "$rc" -eq 2
check "invalid utf-8 names the offset" grep -q "bad.txt: invalid UTF-8 at byte 3" "$tmp/err"
check "one error line" test "$(wc -l <"$tmp/err")" -eq 1
check "replace-invalid ids" test "$("$BIN" tokenize --ids --replace-invalid --file "$tmp/bad.txt")" = "39305 4210 4299"

# other errors: exit 2 with a line on stderr
"$BIN" tokenize --file "$tmp/missing.txt" >/dev/null 2>"$tmp/err"
rc=$?
check "missing file exits 2" test "$rc" -eq 2
check "missing file named" grep -q "missing.txt" "$tmp/err"
"$BIN" tokenize --tokenizer "$tmp" "x" >/dev/null 2>"$tmp/err"
rc=$?
check "bad tokenizer dir exits 2" test "$rc" -eq 2
check "bad tokenizer dir names encoder.json" grep -q "encoder.json" "$tmp/err"
"$BIN" tokenize --bogus >/dev/null 2>"$tmp/err"
check "unknown option exits 2" test $? -eq 2
"$BIN" tokenize >/dev/null 2>&1
check "no text exits 2" test $? -eq 2
check "--help" "$BIN" tokenize --help >/dev/null

summary test_cli_tokenize
