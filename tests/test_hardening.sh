# test_hardening.sh — inputs that once hung, were silently accepted or confused the user,
# each reproduced here and answered with ONE line naming the input and the problem (exit 2):
#  * a FIFO in place of model.safetensors, config.json, encoder.json, vocab.bpe, vocab.json,
#    an --open-figure PNG or a lesson's model folder (every run is under `timeout`: a hang
#    fails the check instead of blocking the suite);
#  * config.json with trailing text, a key twice, another activation, another model_type,
#    attention-scaling switches; encoder.json / vocab.json with trailing text;
#  * dump --tensor names that are not canonical (blocks.00, blocks.+1, blocks. 1); dump --out
#    creates missing parents;
#  * a folder named with invalid UTF-8: info --json gives a path that round-trips; names
#    from files with control characters or bad bytes are escaped in error lines;
#  * NaN / Inf weights: the tensor and the element are named (info, next, generate, window);
#    finite weights whose activations overflow are told apart.
. tests/check.sh
F=tests/fixtures/gpt2_family.py
TINY=$REF/models/tiny
TOK=assets/tokenizer
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_hardening.XXXXXX"); trap 'rm -rf "$tmp"' EXIT
export SDL_VIDEODRIVER=dummy

# fails_with (tests/check.sh); model_copy DIR: the tiny model's two files in DIR
model_copy() { mkdir -p "$1" && cp "$TINY/config.json" "$TINY/model.safetensors" "$1/"; }

# ---- (a) FIFOs never block -------------------------------------------------------------------
mkdir -p "$tmp/f1" "$tmp/f2" "$tmp/tok1" "$tmp/tok2" "$tmp/f3"
cp "$TINY/config.json" "$tmp/f1/" && mkfifo "$tmp/f1/model.safetensors"
cp "$TINY/model.safetensors" "$tmp/f2/" && mkfifo "$tmp/f2/config.json"
mkfifo "$tmp/tok1/encoder.json" && cp "$TOK/vocab.bpe" "$tmp/tok1/"
cp "$TOK/encoder.json" "$tmp/tok2/" && mkfifo "$tmp/tok2/vocab.bpe"
python3 "$F" random "$tmp/f3" 3 1 && mkfifo "$tmp/f3/vocab.json"
mkfifo "$tmp/fig.png" "$tmp/modelfifo"
printf 'title FIFO\nmodel %s\nprompt Hi\n' "$tmp/modelfifo" >"$tmp/fifo.lesson"
check "FIFO model.safetensors" fails_with "f1/model.safetensors: not a regular file \(a FIFO\)" "$BIN" info "$tmp/f1"
check "FIFO config.json" fails_with "f2/config.json: not a regular file \(a FIFO\)" "$BIN" next --model "$tmp/f2" Hi
check "FIFO encoder.json" fails_with "tok1/encoder.json: not a regular file \(a FIFO\)" \
  "$BIN" next --model "$TINY" --tokenizer "$tmp/tok1" Hi
check "FIFO vocab.bpe" fails_with "tok2/vocab.bpe: not a regular file \(a FIFO\)" "$BIN" tokenize --tokenizer "$tmp/tok2" Hi
check "FIFO vocab.json" fails_with "f3/vocab.json: not a regular file \(a FIFO\)" "$BIN" next --model "$tmp/f3" --ids 0
check "FIFO --open-figure PNG" fails_with "fig.png: not a regular file \(a FIFO\)" "$BIN" --open-figure "$tmp/fig.png"
check "FIFO as a lesson's model folder (window)" fails_with "modelfifo: not a model folder \(a FIFO" \
  "$BIN" --lesson "$tmp/fifo.lesson"
check "FIFO as a lesson's model folder (export)" fails_with "modelfifo: not a directory" \
  "$BIN" export --lesson "$tmp/fifo.lesson" --out "$tmp/o"
check "FIFO prompt file" fails_with "pfifo: not a regular file \(a FIFO\)" \
  bash -c 'mkfifo "$2/pfifo" && "$1" next --model "$3" --prompt-file "$2/pfifo"' _ "$BIN" "$tmp" "$TINY"

# ---- (b) config.json / encoder.json / vocab.json that are not what they claim ---------------
cfg_case() { # NAME PYTHON-EXPR-ON-TEXT: writes $tmp/c_NAME with config.json = f(original text)
  model_copy "$tmp/c_$1"
  python3 -c 'import sys; t = open(sys.argv[1]).read(); open(sys.argv[2], "w").write(eval(sys.argv[3]))' \
    "$TINY/config.json" "$tmp/c_$1/config.json" "$2"
}
cfg_case trailing 't + "\n{\"n_layer\": 9}\n"'
cfg_case dup 't.replace("{", "{\"n_layer\": 1, ", 1)'
cfg_case relu 't.replace("gelu_new", "relu")'
cfg_case llama 't.replace("\"gpt2\"", "\"llama\"")'
cfg_case noscale 't.replace("\"scale_attn_weights\": true", "\"scale_attn_weights\": false")'
cfg_case ctrlkey 't.replace("{", "{\"a\\u001b[31m\": 1, \"a\\u001b[31m\": 2, ", 1)'
cfg_case harmless 't.replace("{", "{\"summary_type\": \"cls_index\", \"summary_use_proj\": true, \"reorder_and_upcast_attn\": false, ", 1)'
check "config.json with trailing text" fails_with "c_trailing/config.json: trailing text after the JSON value" \
  "$BIN" info "$tmp/c_trailing"
check "config.json with a key twice" fails_with 'c_dup/config.json: key "n_layer" appears twice' "$BIN" info "$tmp/c_dup"
check "activation_function relu" fails_with 'activation_function "relu" is not supported' "$BIN" info "$tmp/c_relu"
check "model_type llama" fails_with 'model_type "llama" is not a GPT-2' "$BIN" info "$tmp/c_llama"
check "scale_attn_weights false" fails_with 'scale_attn_weights = false is not supported' "$BIN" info "$tmp/c_noscale"
check "a duplicated key with control characters is echoed escaped" \
  fails_with 'key "a\\x1B\[31m" appears twice' "$BIN" info "$tmp/c_ctrlkey"
check "keys that do not change inference are accepted (summary_*, reorder_and_upcast_attn)" \
  bash -c '"$1" info "$2" >/dev/null' _ "$BIN" "$tmp/c_harmless"
mkdir -p "$tmp/tok3" && cp "$TOK/vocab.bpe" "$tmp/tok3/" && { cat "$TOK/encoder.json"; echo ' {"x": 1}'; } >"$tmp/tok3/encoder.json"
check "encoder.json with trailing text" fails_with "tok3/encoder.json: trailing text after the JSON value" \
  "$BIN" tokenize --tokenizer "$tmp/tok3" Hi
python3 "$F" random "$tmp/v3t" 3 1 && printf '["a", "b", "c"] ["d"]' >"$tmp/v3t/vocab.json"
check "vocab.json with trailing text" fails_with "v3t/vocab.json: trailing text" "$BIN" next --model "$tmp/v3t" --ids 0

# ---- (c) strict tensor names; --out creates its parents ---------------------------------------
refused_no_files() { # NAME: one clear line, and no output folder made
  fails_with "unknown tensor .*plain digits" "$BIN" dump --model "$TINY" --ids 1,2 --tensor "$1" --out "$tmp/never" &&
    [ ! -e "$tmp/never" ]
}
for bad in blocks.00.attn.pattern blocks.+1.attn.pattern "blocks. 1.attn.pattern" blocks.01.resid_post blocks.1e0.mlp.post; do
  check "dump --tensor '$bad' is refused, nothing written" refused_no_files "$bad"
done
"$BIN" dump --model "$TINY" --ids 1,2 --tensor blocks.1.attn.pattern,blocks.0.resid_post --out "$tmp/a/b/c" >/dev/null 2>&1; rc=$?
check "dump --out a/b/c creates the missing parents ($rc)" \
  bash -c '[ "$1" -eq 0 ] && [ -f "$2/a/b/c/blocks.1.attn.pattern.npy" ] && [ -f "$2/a/b/c/blocks.0.resid_post.npy" ]' _ "$rc" "$tmp"

# ---- (d) names that are not plain text -----------------------------------------------------
bad=$(printf '%s/bad\377' "$tmp")
model_copy "$bad"
"$BIN" info --json "$bad" >"$tmp/bad.json" 2>&1; rc=$?
check "info --json on a folder named bad\\xff exits 0 ($rc)" [ "$rc" -eq 0 ]
check "its \"dir\" round-trips to the folder's bytes (PEP 383 escape)" python3 -c '
import json, os, sys
d = json.load(open(sys.argv[1]))
assert os.fsencode(d["dir"]) == os.fsencode(sys.argv[2]), (d["dir"], sys.argv[2])
assert os.fsencode(d["name"]) == b"bad\xff", d["name"]' "$tmp/bad.json" "$bad"
model_copy "$tmp/ctrl"
python3 "$F" add "$tmp/ctrl" $'h.7.evil\x1b[2J\xff'
e=$("$BIN" info "$tmp/ctrl" 2>&1 >/dev/null)
check "a tensor name with ESC and a bad byte is echoed escaped, on one line" bash -c '
[[ "$1" == *"tensor '"'"'h.7.evil\\x1B[2J\\xFF'"'"' belongs to layer 7"* ]] && ! grep -q $'"'"'\x1b'"'"' <<<"$1"' _ "$e"

# ---- (e) NaN / Inf weights -----------------------------------------------------------------
model_copy "$tmp/nan"
python3 "$F" poke "$tmp/nan" h.0.mlp.c_fc.weight $((3 * 256 + 17)) nan
msg="nan/model.safetensors: tensor 'h.0.mlp.c_fc.weight' holds NaN at \[3, 17\]"
check "NaN weight: info names tensor and element" fails_with "$msg" "$BIN" info "$tmp/nan"
check "NaN weight: next says the same" fails_with "$msg" "$BIN" next --model "$tmp/nan" "Once upon a"
check "NaN weight: generate says the same" fails_with "$msg" "$BIN" generate --model "$tmp/nan" --prompt Hi -n 3
check "NaN weight: the window says it before opening" fails_with "$msg" "$BIN" --model "$tmp/nan"
model_copy "$tmp/inf"
python3 "$F" poke "$tmp/inf" ln_f.bias 5 inf
check "+Inf weight: named with its index" fails_with "tensor 'ln_f.bias' holds \+Inf at \[5\]" \
  "$BIN" next --model "$tmp/inf" --ids 1,2
model_copy "$tmp/huge"
python3 "$F" poke "$tmp/huge" wte.weight $((7454 * 64)),$((7454 * 64 + 1)) 3e38
python3 "$F" poke "$tmp/huge" wpe.weight 0,1 3e38
check "finite weights that overflow: told apart from damaged weights" \
  fails_with "although every weight is finite \(an activation overflowed float32\)" "$BIN" next --model "$tmp/huge" --ids 7454
check "...and the overflow is not blamed on a tensor by info (all finite)" bash -c '"$1" info "$2" | grep -q "^weights      all finite$"' \
  _ "$BIN" "$tmp/huge"
summary test_hardening
