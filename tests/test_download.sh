#!/usr/bin/env bash
# test_download.sh — `make gpt2` (scripts/download-gpt2.sh) against a local HTTP server on
# 127.0.0.1 (tests/fixtures/range_server.py) serving the reference tiny model: a normal
# download, an interrupted one resumed with a Range request, corrupt files rejected, unknown
# SIZE, too little disk, the header-check fallback. No internet; the real GPT-2 is never fetched.
# Run from the repository root with BUILD set (tests/run.sh does); needs python3 for the server.
set -u
# shellcheck source=tests/check.sh
. tests/check.sh

DL=scripts/download-gpt2.sh
TINY=$REF/models/tiny
# The validator of the script under test is this build's `inferscope info`.
export INFERSCOPE_INFO_CMD="${INFERSCOPE_INFO_CMD:-$BIN info}"
unset GPT2_ATTEMPTS GPT2_BASE_URL GPT2_MODELS_DIR

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_download.XXXXXX")
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

if ! command -v python3 >/dev/null 2>&1 || ! command -v curl >/dev/null 2>&1 || [ ! -f "$TINY/model.safetensors" ]; then
  echo "test_download: needs python3, curl and $TINY" >&2
  check "python3, curl and the tiny reference model are available" false
  summary test_download; exit
fi

# ---- The served tree: one folder per scenario (the server keys behaviour on the path). ----
www=$tmp/www
size_full=$(stat -c %s "$TINY/model.safetensors")
for d in good drop drop2 badhdr trunc badhdr_sha flip huge; do
  mkdir -p "$www/$d"
  cp "$TINY/config.json" "$www/$d/config.json"
done
for d in good drop drop2 huge; do cp "$TINY/model.safetensors" "$www/$d/"; done
# badhdr: the 8-byte header length says 2^63 (garbage); no checksum announced, so only the
# loader can catch it.
{ printf '\xff\xff\xff\xff\xff\xff\xff\x7f'; tail -c +9 "$TINY/model.safetensors"; } >"$www/badhdr/model.safetensors"
echo - >"$www/badhdr/model.safetensors.sha256"
# trunc: a clean header but only the first half of the tensor data.
head -c $((size_full / 2)) "$TINY/model.safetensors" >"$www/trunc/model.safetensors"
echo - >"$www/trunc/model.safetensors.sha256"
# badhdr_sha: the same garbage, but the server's checksum matches it (a bad upload).
cp "$www/badhdr/model.safetensors" "$www/badhdr_sha/model.safetensors"
# flip: one byte of tensor data changed in transit; the server announces the good SHA-256.
cp "$TINY/model.safetensors" "$www/flip/model.safetensors"
printf '\x42' | dd of="$www/flip/model.safetensors" bs=1 seek=$((size_full - 100)) conv=notrunc status=none
sha256sum "$TINY/model.safetensors" | awk '{ print $1 }' >"$www/flip/model.safetensors.sha256"
# huge: announces a petabyte, more than any test machine's free disk.
echo 1000000000000000 >"$www/huge/model.safetensors.size"

drop_after=65536
log=$tmp/server.log
: >"$log"
python3 tests/fixtures/range_server.py --root "$www" --port-file "$tmp/port" --log "$log" \
  --drop-after "$drop_after" --timeout 120 &
server_pid=$!
for _ in $(seq 1 100); do [ -s "$tmp/port" ] && break; sleep 0.1; done
port=$(cat "$tmp/port" 2>/dev/null)
check "server started on 127.0.0.1 (port '$port')" test -n "$port"
url=http://127.0.0.1:$port

# run_dl NAME SCENARIO [SIZE]: the script with its own models dir; output in $tmp/NAME.out.
run_dl() {
  local name=$1 scen=$2; shift 2
  GPT2_BASE_URL=$url/$scen GPT2_MODELS_DIR=$tmp/$name "$DL" "$@" >"$tmp/$name.out" 2>&1
}
gets() { grep -c "^GET /$1/model.safetensors " "$log"; }
out_has() { grep -q -- "$2" "$tmp/$1.out" || { echo "--- $1 output lacks '$2':" >&2; cat "$tmp/$1.out" >&2; return 1; }; }
same() { cmp -s "$1" "$2"; }
fails() { ! "$@"; }
absent() { [ ! -e "$1" ]; }

# (1) A normal download: both files byte-identical, no leftovers, `inferscope info` loads it.
m=$tmp/normal/gpt2-124M
check "normal download exits 0" run_dl normal good 124M
check "model.safetensors byte-identical" same "$m/model.safetensors" "$TINY/model.safetensors"
check "config.json byte-identical" same "$m/config.json" "$TINY/config.json"
check "no .part files left" test -z "$(find "$m" -name '*.part')"
check "no scratch folders left" test -z "$(find "$m" -name '.verify*')"
check "the free disk space is reported" out_has normal "free"
check "the announced size is printed" out_has normal "$(awk -v b="$size_full" 'BEGIN { printf "%.1f MB", b / 1e6 }')"
read -r -a info_cmd <<<"$INFERSCOPE_INFO_CMD"
loads() { "${info_cmd[@]}" "$1" >/dev/null; }
check "inferscope info loads the result" loads "$m"
before=$(gets good)
check "second run exits 0" run_dl normal good 124M
check "second run says already complete" out_has normal "already complete"
check "second run downloads nothing" test "$(gets good)" -eq "$before"
check "default SIZE is 124M" run_dl normal good
check "  (already complete there too)" out_has normal "gpt2-124M is already complete"

# (2) Interrupted: the server drops the first GET after $drop_after bytes. With one attempt
# the run fails and keeps the .part; the next run resumes with `Range: bytes=N-`, N > 0.
m=$tmp/resume/gpt2-355M
once() { GPT2_ATTEMPTS=1 run_dl "$@"; }
check "interrupted run fails" fails once resume drop 355M
part_size=$(stat -c %s "$m/model.safetensors.part" 2>/dev/null || echo 0)
check "a .part is left (size $part_size)" test "$part_size" -gt 0 -a "$part_size" -lt "$size_full"
check "no final model.safetensors after the failure" absent "$m/model.safetensors"
check "the failure says how to resume" out_has resume "run the same command again"
check "re-run completes" run_dl resume drop 355M
range_n=$(sed -n 's|^GET /drop/model.safetensors range=bytes=\([0-9]*\)-$|\1|p' "$log" | tail -n 1)
check "server saw Range: bytes=N- with N=$range_n > 0" test "${range_n:-0}" -gt 0
check "resumed from exactly the .part size" test "${range_n:-0}" -eq "$part_size"
check "resumed file byte-identical" same "$m/model.safetensors" "$TINY/model.safetensors"
check "no .part after the resume" absent "$m/model.safetensors.part"
# Same drop with the default 3 attempts: one run resumes by itself.
check "retrying run completes" run_dl retry drop2 774M
check "  it resumed in the same run" out_has retry "resuming"
check "  with a Range request" grep -q "^GET /drop2/model.safetensors range=bytes=[1-9][0-9]*-$" "$log"
check "  byte-identical" same "$tmp/retry/gpt2-774M/model.safetensors" "$TINY/model.safetensors"
# A .part that is already whole (stopped between download and check): checked, not fetched.
mkdir -p "$tmp/whole/gpt2-124M"
cp "$TINY/model.safetensors" "$tmp/whole/gpt2-124M/model.safetensors.part"
before=$(gets good)
check "a whole .part is only checked" run_dl whole good
check "  says so" out_has whole "already fully downloaded"
check "  no GET of the weights" test "$(gets good)" -eq "$before"
check "  and is renamed" same "$tmp/whole/gpt2-124M/model.safetensors" "$TINY/model.safetensors"

# (3) Corrupt downloads never get the final name.
m=$tmp/badhdr/gpt2-124M
check "garbage header rejected" fails run_dl badhdr badhdr
check "  with a clear message" out_has badhdr "not a loadable GPT-2 checkpoint"
check "  naming the file" out_has badhdr "$m/model.safetensors.part"
check "  no final model.safetensors" absent "$m/model.safetensors"
check "  the bad complete file is removed" absent "$m/model.safetensors.part"
check "  and no config.json either" absent "$m/config.json"
m=$tmp/trunc/gpt2-124M
check "truncated file rejected" fails run_dl trunc trunc
check "  no final model.safetensors" absent "$m/model.safetensors"
check "  removed" absent "$m/model.safetensors.part"
m=$tmp/flip/gpt2-124M
check "flipped byte rejected by SHA-256" fails run_dl flip flip
check "  message names the checksum" out_has flip "SHA-256"
check "  no final model.safetensors" absent "$m/model.safetensors"
check "  removed" absent "$m/model.safetensors.part"
m=$tmp/badsha/gpt2-124M
check "bad file matching the server's SHA-256 rejected" fails run_dl badsha badhdr_sha
check "  no final model.safetensors" absent "$m/model.safetensors"
check "  kept (re-downloading cannot help)" test -s "$m/model.safetensors.part"
check "  and says so" out_has badsha "kept it"

# (4) Unknown SIZE: an error listing the sizes, nothing created, nothing fetched.
n_log=$(wc -l <"$log")
check "unknown SIZE fails" fails run_dl unknown good 125M
check "  listing the sizes" out_has unknown "124M 355M 774M 1558M"
check "  creates nothing" absent "$tmp/unknown"
check "  contacts nobody" test "$(wc -l <"$log")" -eq "$n_log"
mkbad() { make --no-print-directory -s gpt2 SIZE=125M >"$tmp/mkbad.out" 2>&1; }
check "make gpt2 SIZE=125M fails the same way" fails mkbad
check "  listing the sizes" out_has mkbad "124M 355M 774M 1558M"
# ... and `make gpt2 SIZE=...` reaches the script with its SIZE (still only 127.0.0.1).
mk() { GPT2_BASE_URL=$url/good GPT2_MODELS_DIR=$tmp/make make --no-print-directory -s gpt2 SIZE=1558M >"$tmp/make.out" 2>&1; }
check "make gpt2 SIZE=1558M downloads into gpt2-1558M" mk
check "  byte-identical" same "$tmp/make/gpt2-1558M/model.safetensors" "$TINY/model.safetensors"

# (5) Not enough disk: refused before the download starts.
check "too little disk refused" fails run_dl huge huge
check "  with the free space message" out_has huge "not enough free space"
check "  before any GET of the weights" test "$(gets huge)" -eq 0

# (6) The fallback when no inferscope binary exists: the built-in header check.
hdr() { INFERSCOPE_INFO_CMD=header run_dl "$@"; }
check "header check accepts the good file" hdr hdr_ok good
check "  byte-identical" same "$tmp/hdr_ok/gpt2-124M/model.safetensors" "$TINY/model.safetensors"
check "header check rejects the garbage header" fails hdr hdr_bad badhdr
check "  with the reason" out_has hdr_bad "does not fit"
check "  no final model.safetensors" absent "$tmp/hdr_bad/gpt2-124M/model.safetensors"
check "header check rejects the truncated file" fails hdr hdr_trunc trunc
check "  with the reason" out_has hdr_trunc "tensor data ends at"

summary test_download
