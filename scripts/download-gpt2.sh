#!/usr/bin/env bash
# download-gpt2.sh — `make gpt2 [SIZE=124M|355M|774M|1558M]`: the opt-in download of OpenAI's
# original 2019 GPT-2 weights (model.safetensors + config.json, F32) from Hugging Face into
# models/gpt2-<size>/. Resumable (curl -C - on a .part file), retried, and a file only gets
# its final name once it is complete AND `inferscope info` loads it. Needs bash + curl only;
# it is not a general model manager (no other repos, no dtype conversion, no mirrors list).
#
# Environment (mostly for the tests, which serve files from 127.0.0.1):
#   GPT2_BASE_URL       folder URL holding the two files
#                       (default https://huggingface.co/openai-community/<repo>/resolve/main)
#   GPT2_MODELS_DIR     where gpt2-<size>/ is created (default: <repo root>/models)
#   GPT2_ATTEMPTS       curl runs per file, each resuming where the last stopped (default 3)
#   INFERSCOPE_INFO_CMD the validator, called as `CMD MODEL_DIR` (default: $BUILD/inferscope info;
#                       the word "header" selects the built-in safetensors header check)
set -euo pipefail

prog=download-gpt2
say() { printf '%s: %s\n' "$prog" "$*"; }
die() { printf '%s: %s\n' "$prog" "$*" >&2; exit 1; }

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
sizes="124M 355M 774M 1558M"

if [ $# -gt 1 ] || [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  echo "usage: make gpt2 [SIZE=124M|355M|774M|1558M]   (or scripts/download-gpt2.sh [SIZE])"
  [ $# -gt 1 ] && exit 1 || exit 0
fi
size=${1:-124M}
# The Hugging Face repo of each size and the approximate size of its model.safetensors in
# MB (used for the disk-space check when the server does not tell us the exact length).
case $size in
  124M)  repo=gpt2;        approx_mb=548 ;;
  355M)  repo=gpt2-medium; approx_mb=1520 ;;
  774M)  repo=gpt2-large;  approx_mb=3250 ;;
  1558M) repo=gpt2-xl;     approx_mb=6430 ;;
  *) die "unknown SIZE '$size' (choose one of: $sizes)" ;;
esac

base_url=${GPT2_BASE_URL:-https://huggingface.co/openai-community/$repo/resolve/main}
base_url=${base_url%/}
models=${GPT2_MODELS_DIR:-$root/models}
dir=$models/gpt2-$size
attempts=${GPT2_ATTEMPTS:-3}
if ! [[ $attempts =~ ^[0-9]+$ ]] || [ "$attempts" -lt 1 ] || [ "$attempts" -gt 100 ]; then
  die "GPT2_ATTEMPTS must be a number from 1 to 100 (got '$attempts')"
fi

# A directory only ever holds model.safetensors + config.json after a validated download
# (both are renamed into place last), so their presence means "done".
if [ -f "$dir/model.safetensors" ] && [ -f "$dir/config.json" ]; then
  say "$dir is already complete (model.safetensors + config.json); nothing to download."
  say "run it with: ./build/inferscope --model $dir"
  exit 0
fi

command -v curl >/dev/null 2>&1 || die "curl is needed for the download (Debian: apt-get install curl)"
mkdir -p "$dir" || die "$dir: cannot create the folder"

model_part=$dir/model.safetensors.part
config_part=$dir/config.json.part
verify_dir=""
cleanup() { if [ -n "$verify_dir" ]; then rm -rf "$verify_dir"; fi; }
trap cleanup EXIT

# ---- 1. Ask the server how big the file is and what its SHA-256 is (a HEAD request). ----
# Hugging Face answers the /resolve/ URL with a redirect to its CDN; its first response
# carries X-Linked-Size and X-Linked-Etag (the SHA-256 of LFS files). Without them we fall
# back to the Content-Length of a final 200 and skip the checksum. No --fail: a CDN may refuse
# a HEAD on its signed URL (403) after the first hop already told us what we need.
headers=$(curl -sSIL --connect-timeout 20 --max-time 60 "$base_url/model.safetensors" 2>/dev/null) || headers=""
headers=${headers//$'\r'/}
header_value() { # NAME -> last value of that header (case-insensitive), or nothing
  printf '%s\n' "$headers" | awk -v want="$1" '
    { i = index($0, ":"); if (i > 0 && tolower(substr($0, 1, i - 1)) == want) { v = substr($0, i + 1); sub(/^[ \t]+/, "", v) } }
    END { print v }'
}
final_length() { # Content-Length of the last response, only if that response is a 200
  printf '%s\n' "$headers" | awk '/^HTTP\// { status = $2; len = "" }
    tolower($0) ~ /^content-length:/ { len = $2 } END { if (status == "200") print len }'
}
remote_size=$(header_value x-linked-size)
[[ $remote_size =~ ^[0-9]+$ ]] || remote_size=$(final_length)
[[ $remote_size =~ ^[0-9]+$ ]] && [ "$remote_size" -gt 0 ] || remote_size=""
remote_sha=$(header_value x-linked-etag | tr -d '"' | tr 'A-F' 'a-f')
[[ $remote_sha =~ ^[0-9a-f]{64}$ ]] || remote_sha=""

human() { awk -v b="$1" 'BEGIN { if (b >= 1e9) printf "%.2f GB", b / 1e9; else printf "%.1f MB", b / 1e6 }'; }
if [ -n "$remote_size" ]; then total=$remote_size; else total=$((approx_mb * 1000000)); fi

say "GPT-2 $size (openai-community/$repo): OpenAI's original 2019 weights, F32 safetensors."
say "model.safetensors is $(human "$total")$([ -z "$remote_size" ] && echo " (approximate)"):" \
    "it needs that much disk and about as much RAM (the weights are memory-mapped)."
say "from $base_url"
say "into $dir"

# ---- 2. Free space: what is still missing (a .part may hold a resumed prefix) + 1 MB. ----
have=0
[ -f "$model_part" ] && have=$(stat -c %s "$model_part")
if [ -n "$remote_size" ] && [ "$have" -gt "$remote_size" ]; then
  say "$model_part is larger than the file on the server; starting over."
  rm -f "$model_part"; have=0
fi
need=$((total > have ? total - have + 1000000 : 1000000))
avail_kb=$(df -Pk "$dir" 2>/dev/null | awk 'NR == 2 { print $4 }')
if [[ $avail_kb =~ ^[0-9]+$ ]]; then
  if [ $((avail_kb * 1024)) -lt "$need" ]; then
    die "not enough free space on $dir: needs $(human "$need"), only $(human $((avail_kb * 1024))) free"
  fi
  say "disk: needs $(human "$need") more, $(human $((avail_kb * 1024))) free."
else
  say "warning: could not read the free space of $dir (df); continuing."
fi

# ---- 3. Download, resuming. ----
# fetch URL PART [curl options...]: up to $attempts curl runs; each `-C -` continues from the
# size of PART. curl's own --retry covers transient HTTP errors (429, 5xx, timeouts); the
# outer loop covers connections dropped mid-file (curl exit 18), which curl does not retry.
fetch() {
  local url=$1 part=$2; shift 2
  local attempt=1 rc
  while :; do
    rc=0
    curl --fail --location --retry 3 --retry-delay 2 --connect-timeout 20 -C - "$@" -o "$part" "$url" || rc=$?
    [ "$rc" -eq 0 ] && return 0
    # Ctrl-C (or any signal) means the user wants to stop, not to retry; the .part stays.
    [ "$rc" -ge 128 ] && { say "interrupted; $part is kept for the next run." >&2; return "$rc"; }
    if [ "$rc" -eq 33 ]; then
      say "the server cannot resume (no byte ranges); starting $part over."
      rm -f "$part"
    fi
    if [ "$attempt" -ge "$attempts" ]; then
      if [ -s "$part" ]; then
        say "download of $url stopped (curl exit $rc); $part is kept, run the same command again to resume." >&2
      else
        say "download of $url failed (curl exit $rc)." >&2
      fi
      return "$rc"
    fi
    attempt=$((attempt + 1))
    say "transfer failed (curl exit $rc); trying again, resuming, attempt $attempt of $attempts."
    sleep 1
  done
}

rm -f "$config_part"  # 1 KB: always fetched fresh, so it matches the weights being fetched
fetch "$base_url/config.json" "$config_part" -sS || exit 1
if [ -n "$remote_size" ] && [ "$have" -eq "$remote_size" ]; then
  say "$model_part is already fully downloaded; checking it."
else
  [ "$have" -gt 0 ] && say "resuming $model_part from $(human "$have")."
  fetch "$base_url/model.safetensors" "$model_part" --progress-bar || exit 1
fi

# ---- 4. Check it before it gets its final name. ----
reject() { # MESSAGE: the complete file is bad; remove it so the next run starts clean
  rm -f "$model_part" "$config_part"
  die "$1; removed the download, run 'make gpt2 SIZE=$size' again to start over."
}
got=$(stat -c %s "$model_part")
if [ -n "$remote_size" ] && [ "$got" -ne "$remote_size" ]; then
  reject "$model_part: $got bytes, the server announced $remote_size"
fi
sha_ok=0
if [ -n "$remote_sha" ] && command -v sha256sum >/dev/null 2>&1; then
  say "checking the SHA-256 of $(human "$got")..."
  got_sha=$(sha256sum "$model_part" | awk '{ print $1 }')
  [ "$got_sha" = "$remote_sha" ] ||
    reject "$model_part: SHA-256 $got_sha does not match the server's $remote_sha (corrupted in transit?)"
  sha_ok=1
fi

# header_check FILE: the fallback when the inferscope binary cannot be built. A safetensors
# file is: u64 little-endian header length N, N bytes of JSON starting with '{', then the
# tensor data; the largest data_offsets end must land exactly on the end of the file.
header_check() {
  local f=$1 fsize n first end
  fsize=$(stat -c %s "$f")
  [ "$fsize" -ge 10 ] || { echo "$f: $fsize bytes, too short for a safetensors file"; return 1; }
  n=$(od -An -tu8 -N8 "$f" | tr -d ' ')  # od reads host order: little-endian on x86/ARM
  if ! [[ $n =~ ^[0-9]+$ ]] || [ "$n" -lt 2 ] || [ "$n" -gt $((fsize - 8)) ] || [ "$n" -gt 100000000 ]; then
    echo "$f: header length $n does not fit a $fsize-byte file"; return 1
  fi
  first=$(od -An -c -j8 -N1 "$f" | tr -d ' ')
  [ "$first" = "{" ] || { echo "$f: the header does not start with '{' (not safetensors)"; return 1; }
  end=$(head -c $((8 + n)) "$f" | tail -c "$n" | tr -d ' \n' |
        grep -o '"data_offsets":\[[0-9]*,[0-9]*\]' | sed 's/.*,\([0-9]*\)\]/\1/' | sort -n | tail -n 1)
  if [ -z "$end" ] || [ $((8 + n + end)) -ne "$fsize" ]; then
    echo "$f: tensor data ends at $((8 + n + ${end:-0})), the file has $fsize bytes"; return 1
  fi
  grep -q '"n_layer"' "$config_part" || { echo "$config_part: no n_layer, not a GPT-2 config.json"; return 1; }
}

# The validator: `inferscope info DIR` exits 0 when the checkpoint loads, 2 with one line on
# stderr when it does not. It wants the final names, so it looks at a scratch folder of
# symlinks to the .part files (no copy of a 6 GB file).
if [ -n "${INFERSCOPE_INFO_CMD:-}" ]; then
  read -r -a info_cmd <<<"$INFERSCOPE_INFO_CMD"
else
  build=${BUILD:-build}
  case $build in /*) ;; *) build=$root/$build ;; esac
  if [ ! -x "$build/inferscope" ] && command -v make >/dev/null 2>&1; then
    say "building inferscope to check the download (make all)..."
    make -C "$root" --no-print-directory BUILD="$build" all >&2 || say "warning: the build failed."
  fi
  if [ -x "$build/inferscope" ]; then
    info_cmd=("$build/inferscope" info)
  else
    say "warning: no inferscope binary; falling back to a safetensors header check."
    info_cmd=(header)
  fi
fi

if [ "${info_cmd[0]}" = header ]; then
  why=$(header_check "$model_part") || reject "${why:-$model_part: not a valid safetensors file}"
else
  verify_dir=$(mktemp -d "$dir/.verify.XXXXXX")
  ln -s ../model.safetensors.part "$verify_dir/model.safetensors"
  ln -s ../config.json.part "$verify_dir/config.json"
  say "checking that it loads: ${info_cmd[*]} $verify_dir"
  rc=0
  why=$("${info_cmd[@]}" "$verify_dir" 2>&1 >/dev/null) || rc=$?
  if [ "$rc" -ne 0 ]; then
    why=$(printf '%s' "$why" | tail -n 1)
    why=${why//"$verify_dir/model.safetensors"/$model_part}  # name the real file, not the symlink
    why=${why//"$verify_dir/config.json"/$config_part}
    if [ "$sha_ok" -eq 1 ]; then
      # The bytes are exactly the server's: downloading again cannot help, and a validator
      # that is stale or broken must not cost the user a multi-GB re-download.
      die "$model_part matches the server's SHA-256 but does not load (${why:-exit $rc}); kept it."
    fi
    reject "$model_part is not a loadable GPT-2 checkpoint (${why:-exit $rc})"
  fi
fi

# ---- 5. Final names: config first, the weights last (both present = complete). ----
mv -f "$config_part" "$dir/config.json"
mv -f "$model_part" "$dir/model.safetensors"
say "done: $dir"
say "run it with: ./build/inferscope --model $dir"
