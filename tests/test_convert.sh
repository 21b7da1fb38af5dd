# test_convert.sh — tools/convert/nanogpt_to_safetensors.py on nanoGPT checkpoints made here
# with PyTorch: a GPT whose module names and ckpt.pt layout are nanoGPT's (model_args,
# `_orig_mod.` from torch.compile, the torch<2 mask buffer, bias=False LayerNorms, tied
# wte/lm_head, a char meta.pkl), with random weights; its own torch forward (written here
# from the published GPT-2 math, nn.GELU exact) is the reference for the logits inferscope
# computes from the converted folder. Needs python3-torch; SKIPPED (named) without it.
. tests/check.sh
CONV=tools/convert/nanogpt_to_safetensors.py
PY=""
for p in /usr/bin/python3 python3; do
  if command -v "$p" >/dev/null && "$p" -c 'import torch' 2>/dev/null; then PY=$p; break; fi
done
if [ -z "$PY" ]; then
  skip test_convert/nanogpt "PyTorch not installed (apt-get install python3-torch)"
  check "the converter explains what it needs without PyTorch" bash -c \
    'python3 "$1" x.pt out 2>&1 | grep -q "python3-torch"' _ "$CONV"
  summary test_convert
  exit
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_convert.XXXXXX"); trap 'rm -rf "$tmp"' EXIT

# make CASE VOCAB L NH C T BIAS TIED GELU COMPILED META: writes $tmp/CASE/ckpt.pt (+ meta.pkl)
# and $tmp/CASE/ref.json = the torch logits (T, V) on $tmp/CASE/ids
cat >"$tmp/make.py" <<'EOF'
import json, math, os, pickle, sys
import torch, torch.nn as nn, torch.nn.functional as F
case, V, L, NH, C, T = sys.argv[1], *map(int, sys.argv[2:7])
bias, tied, gelu, compiled, meta = (sys.argv[i] == "1" for i in range(7, 12))
torch.manual_seed(7)

class LayerNorm(nn.Module):  # nanoGPT's: optional bias
    def __init__(self, n, bias):
        super().__init__()
        self.weight = nn.Parameter(1 + 0.3 * torch.randn(n))
        self.bias = nn.Parameter(0.2 * torch.randn(n)) if bias else None
    def forward(self, x):
        return F.layer_norm(x, self.weight.shape, self.weight, self.bias, 1e-5)

class Attn(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_attn = nn.Linear(C, 3 * C, bias=bias)
        self.c_proj = nn.Linear(C, C, bias=bias)
        self.register_buffer("bias", torch.tril(torch.ones(T, T)).view(1, 1, T, T))  # torch<2 mask buffer
    def forward(self, x):
        B, t, _ = x.shape
        q, k, v = self.c_attn(x).split(C, dim=2)
        q, k, v = (z.view(B, t, NH, C // NH).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) / math.sqrt(C // NH)
        att = att.masked_fill(self.bias[:, :, :t, :t] == 0, float("-inf")).softmax(-1)
        return self.c_proj((att @ v).transpose(1, 2).contiguous().view(B, t, C))

class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_fc = nn.Linear(C, 4 * C, bias=bias)
        self.c_proj = nn.Linear(4 * C, C, bias=bias)
    def forward(self, x):
        h = self.c_fc(x)
        h = F.gelu(h) if gelu else 0.5 * h * (1 + torch.tanh(math.sqrt(2 / math.pi) * (h + 0.044715 * h ** 3)))
        return self.c_proj(h)

class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1, self.attn, self.ln_2, self.mlp = LayerNorm(C, bias), Attn(), LayerNorm(C, bias), MLP()
    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))

class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.transformer = nn.ModuleDict(dict(wte=nn.Embedding(V, C), wpe=nn.Embedding(T, C), drop=nn.Dropout(0.0),
                                              h=nn.ModuleList([Block() for _ in range(L)]), ln_f=LayerNorm(C, bias)))
        self.lm_head = nn.Linear(C, V, bias=False)
        if tied:
            self.transformer.wte.weight = self.lm_head.weight  # nanoGPT's weight tying
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0.0, 0.3)
                if m.bias is not None:
                    nn.init.normal_(m.bias, 0.0, 0.1)
        nn.init.normal_(self.transformer.wpe.weight, 0.0, 0.5)
    def forward(self, idx):
        x = self.transformer.wte(idx) + self.transformer.wpe(torch.arange(idx.shape[1]))
        for b in self.transformer.h:
            x = b(x)
        return self.lm_head(self.transformer.ln_f(x))

m = GPT().eval()
sd = m.state_dict()
if compiled:
    sd = {"_orig_mod." + k: v for k, v in sd.items()}
args = dict(n_layer=L, n_head=NH, n_embd=C, block_size=T, bias=bias, vocab_size=V, dropout=0.0)
os.makedirs(case, exist_ok=True)
torch.save({"model": sd, "model_args": args, "iter_num": 0, "best_val_loss": 9.9, "config": {"dataset": "x"}},
           os.path.join(case, "ckpt.pt"))
if meta:
    chars = list("\n !$&',-.3:;?ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")[:V]
    pickle.dump({"vocab_size": V, "itos": dict(enumerate(chars)), "stoi": {c: i for i, c in enumerate(chars)}},
                open(os.path.join(case, "meta.pkl"), "wb"))
g = torch.Generator().manual_seed(3)
real = 50257 if V >= 50257 else V
ids = torch.randint(0, real, (min(T, 12),), generator=g)
with torch.no_grad():
    logits = m(ids.view(1, -1))[0]
open(os.path.join(case, "ids"), "w").write(",".join(map(str, ids.tolist())))
json.dump(logits.tolist(), open(os.path.join(case, "ref.json"), "w"))
EOF
cat >"$tmp/cmp.py" <<'EOF'
import json, struct, sys, array
raw = open(sys.argv[1], "rb").read()
hl = struct.unpack("<H", raw[8:10])[0]
hdr = eval(raw[10:10 + hl].decode("latin1"))
got = array.array("f"); got.frombytes(raw[10 + hl:])
ref = json.load(open(sys.argv[2])); cols = int(sys.argv[3])
T, W = hdr["shape"]
assert T == len(ref) and W == len(ref[0]), (hdr["shape"], len(ref), len(ref[0]))
d = max(abs(got[t * W + v] - ref[t][v]) - 1e-4 * abs(ref[t][v]) for t in range(T) for v in range(cols))
spread = max(max(r[:cols]) - min(r[:cols]) for r in ref)
assert d <= 1e-4 and spread > 0.5, (d, spread)
EOF

run_case() { # CASE VOCAB L NH C T BIAS TIED GELU COMPILED META -- converter flags...
  local case=$1; shift
  "$PY" "$tmp/make.py" "$tmp/$case" "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10}" || return 1
  shift 10
  "$PY" "$CONV" "$tmp/$case/ckpt.pt" "$tmp/$case/out" "$@" >"$tmp/$case/conv.out" 2>&1 || { cat "$tmp/$case/conv.out" >&2; return 1; }
  "$BIN" dump --model "$tmp/$case/out" --ids "$(cat "$tmp/$case/ids")" --tensor logits --out "$tmp/$case/d" \
    >/dev/null 2>"$tmp/$case/dump.err" || { cat "$tmp/$case/dump.err" >&2; return 1; }
}

# a char model as data/shakespeare_char trains it: 65 characters, meta.pkl, torch.compile'd
check "char model: ckpt.pt + meta.pkl convert and load" run_case char 65 2 2 16 32 1 1 1 1 1 --meta "$tmp/char/meta.pkl"
check "char model: logits == nanoGPT-layout torch forward (1e-4)" "$PY" "$tmp/cmp.py" "$tmp/char/d/logits.npy" "$tmp/char/ref.json" 65
check "char model: vocab.json has the 65 characters, config says exact gelu, tied" "$PY" -c '
import json, sys
d = sys.argv[1]
v = json.load(open(d + "/vocab.json")); c = json.load(open(d + "/config.json"))
assert len(v) == 65 and v[0] == "\n" and v[-1] == "z", v
assert c["activation_function"] == "gelu" and c["tie_word_embeddings"] is True and c["vocab_size"] == 65, c' "$tmp/char/out"
out=$("$BIN" generate --model "$tmp/char/out" --prompt "ROMEO:" -n 5 --seed 1 2>"$tmp/gen.err"); rc=$?
check "char model: generate from a text prompt prints characters ($out)" bash -c '[ "$1" -eq 0 ] && [[ "$2" == ROMEO:* ]] && [ "${#2}" -eq 11 ]' _ "$rc" "$out"

# GPT-2's tokenizer with nanoGPT's padded 50,304 rows, bias=False, no meta.pkl
check "padded BPE model (bias=False): converts and loads" run_case bpe 50304 1 2 16 16 0 1 1 0 0
check "padded BPE model: the first 50,257 logits == torch (1e-4)" "$PY" "$tmp/cmp.py" "$tmp/bpe/d/logits.npy" "$tmp/bpe/ref.json" 50257
check "padded BPE model: info says GPT-2 tokenizer with 47 padding rows, no vocab.json" bash -c \
  '[ ! -e "$2/vocab.json" ] && "$1" info "$2" | grep -q "GPT-2 tokenizer, 50,257 tokens of 50,304 rows (47 padding"' _ "$BIN" "$tmp/bpe/out"

# an untied head and the pre-June-2023 tanh GELU, stored as F16
check "untied tanh model (--gelu tanh --dtype f16): converts and loads" run_case untied 65 1 2 16 16 1 0 0 0 0 --gelu tanh --dtype f16
check "untied tanh model: logits == torch (F16 weights: 2e-2)" "$PY" - "$tmp/untied/d/logits.npy" "$tmp/untied/ref.json" <<'EOF'
import json, struct, sys, array
raw = open(sys.argv[1], "rb").read(); hl = struct.unpack("<H", raw[8:10])[0]
got = array.array("f"); got.frombytes(raw[10 + hl:]); ref = json.load(open(sys.argv[2]))
W = len(ref[0])
assert max(abs(got[t * W + v] - ref[t][v]) for t in range(len(ref)) for v in range(W)) < 2e-2
EOF
check "untied tanh model: config untied, gelu_new; info agrees" bash -c '
grep -q "\"tie_word_embeddings\": false" "$2/config.json" && grep -q "\"activation_function\": \"gelu_new\"" "$2/config.json" &&
"$1" info "$2" | grep -q "^lm_head      separate (untied)"' _ "$BIN" "$tmp/untied/out"
"$PY" "$CONV" "$tmp/nope.pt" "$tmp/x" >"$tmp/nope.out" 2>&1; rc=$?
check "a missing checkpoint: one line naming it" bash -c '[ "$1" -ne 0 ] && grep -q "nope.pt: not found" "$2"' _ "$rc" "$tmp/nope.out"

# Nothing in a file runs. evil.py writes, beside the char model's real weights, a ckpt.pt and a
# meta.pkl whose objects __reduce__ to os.system("touch MARKER"); loaded with plain torch.load
# they run it (checked first on a copy, so the files are known to be armed).
cat >"$tmp/evil.py" <<'EOF'
import os, pickle, sys, torch
src, out, marker = sys.argv[1:4]
class Evil:
    def __reduce__(self):
        return (os.system, ("touch " + marker,))
ck = torch.load(src + "/ckpt.pt", map_location="cpu")
ck["config"] = {"dataset": Evil()}
os.makedirs(out, exist_ok=True)
torch.save(ck, out + "/ckpt.pt")
pickle.dump({"vocab_size": 65, "itos": {0: Evil()}, "stoi": {}}, open(out + "/meta.pkl", "wb"))
if sys.argv[4:] == ["arm-check"]:
    torch.load(out + "/ckpt.pt", map_location="cpu")
EOF
"$PY" "$tmp/evil.py" "$tmp/char" "$tmp/armed" "$tmp/marker-armed" arm-check
check "the malicious files are armed: plain torch.load runs their command" test -e "$tmp/marker-armed"
"$PY" "$tmp/evil.py" "$tmp/char" "$tmp/evil" "$tmp/marker"
"$PY" "$CONV" "$tmp/evil/ckpt.pt" "$tmp/evil/out" >"$tmp/evil.out" 2>&1; rc=$?
check "malicious ckpt.pt: refused with exit 2 ($rc), the command not run, nothing written" bash -c \
  '[ "$1" -eq 2 ] && [ ! -e "$2" ] && [ ! -e "$3/out/model.safetensors" ]' _ "$rc" "$tmp/marker" "$tmp/evil"
check "malicious ckpt.pt: one line naming the class it asked for ($(head -c 150 "$tmp/evil.out"))" bash -c \
  '[ "$(wc -l <"$1")" -eq 1 ] && grep -q "ckpt.pt: refused: the file asks to import posix.system" "$1"' _ "$tmp/evil.out"
cp "$tmp/char/ckpt.pt" "$tmp/evil/ckpt.pt"
"$PY" "$CONV" "$tmp/evil/ckpt.pt" "$tmp/evil/out" --meta "$tmp/evil/meta.pkl" >"$tmp/evil.out" 2>&1; rc=$?
check "malicious meta.pkl named with --meta: refused, exit 2 ($rc), not run, one line naming posix.system" bash -c \
  '[ "$1" -eq 2 ] && [ ! -e "$2" ] && [ "$(wc -l <"$3")" -eq 1 ] &&
   grep -q "meta.pkl: refused: the file asks to import posix.system" "$3"' _ "$rc" "$tmp/marker" "$tmp/evil.out"
"$PY" "$CONV" "$tmp/evil/ckpt.pt" "$tmp/evil/out2" >"$tmp/evil.out" 2>&1; rc=$?
check "a meta.pkl beside ckpt.pt is not read unless named: converts, no vocab.json, not run" bash -c \
  '[ "$1" -eq 0 ] && [ ! -e "$2" ] && [ -e "$3/model.safetensors" ] && [ ! -e "$3/vocab.json" ]' _ "$rc" "$tmp/marker" "$tmp/evil/out2"

# what nanoGPT and our own training write besides tensors still loads: NumPy scalars and arrays,
# floats, tuples, None, an OrderedDict, a bfloat16 tensor
"$PY" - "$tmp/char/ckpt.pt" "$tmp/np/ckpt.pt" <<'EOF'
import os, sys, collections, numpy as np, torch
ck = torch.load(sys.argv[1], map_location="cpu")
ck.update(best_val_loss=np.float64(1.25), seen=np.arange(5, dtype=np.int32), betas=(0.9, 0.95), fused=None,
          extra=collections.OrderedDict(a=torch.ones(2, dtype=torch.bfloat16)))
os.makedirs(os.path.dirname(sys.argv[2]), exist_ok=True)
torch.save(ck, sys.argv[2])
EOF
check "a checkpoint with NumPy scalars/arrays, tuples, None, bf16: converts" \
  "$PY" "$CONV" "$tmp/np/ckpt.pt" "$tmp/np/out" --meta "$tmp/char/meta.pkl"

# outputs are created new: a link planted at a temporary or a final name is never written through
mkdir -p "$tmp/planted/out"; echo precious >"$tmp/precious"
for n in .config.json.tmp- .model.safetensors.tmp- .vocab.json.tmp- config.json.tmp model.safetensors.tmp; do
  for pid in $(seq $$ $(($$ + 50))); do ln -s "$tmp/precious" "$tmp/planted/out/$n$pid"; done
done
ln -s "$tmp/precious" "$tmp/planted/out/model.safetensors.tmp"
ln -s "$tmp/precious" "$tmp/planted/out/vocab.json"
"$PY" "$CONV" "$tmp/char/ckpt.pt" "$tmp/planted/out" --meta "$tmp/char/meta.pkl" >"$tmp/planted.out" 2>&1; rc=$?
check "a symlink at vocab.json: refused (exit 2, named), its target untouched" bash -c \
  '[ "$1" -eq 2 ] && grep -q "vocab.json: exists and is not a regular file" "$2" && [ "$(cat "$3")" = precious ]' \
  _ "$rc" "$tmp/planted.out" "$tmp/precious"
rm "$tmp/planted/out/vocab.json" "$tmp/planted/out/config.json" "$tmp/planted/out/model.safetensors"
"$PY" "$CONV" "$tmp/char/ckpt.pt" "$tmp/planted/out" --meta "$tmp/char/meta.pkl" >"$tmp/planted.out" 2>&1; rc=$?
check "symlinks at the old temporary names: not followed; the outputs are regular files" bash -c \
  '[ "$1" -eq 0 ] && [ "$(cat "$2")" = precious ] && [ -f "$3/config.json" ] && [ ! -L "$3/config.json" ] &&
   [ ! -L "$3/model.safetensors" ] && [ ! -L "$3/vocab.json" ]' _ "$rc" "$tmp/precious" "$tmp/planted/out"
summary test_convert
