#!/usr/bin/env python3
"""fuzz-seeds.py — (re)builds the seed corpora of tests/fuzz/corpus/ from real files:
the reference tiny model's safetensors header (plus a little data, not 13 MB), its
config.json, the reference tokenizer strings, lessons/*.lesson and tests/golden/*.png,
plus a few small VALID files (a 1-layer model in F32/F16/BF16, PNGs with text chunks)
so the fuzzer starts past the first checks. Run from anywhere; idempotent.
Not a fuzzer: scripts/fuzz-run.sh runs the harnesses."""
import glob, json, os, struct, sys, zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REF = os.environ.get("INFERSCOPE_REF") or os.path.join(ROOT, "tests", "reference")
CORPUS = os.path.join(ROOT, "tests", "fuzz", "corpus")


def put(harness, name, data):
    d = os.path.join(CORPUS, harness)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def safetensors(tensors, metadata=None, pad_to=8):
    """tensors: list of (name, dtype, shape, raw bytes) -> file bytes (HF layout)."""
    header, data = {}, b""
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % pad_to)
    return struct.pack("<Q", len(h)) + h + data


# --- safetensors / model: the tiny reference header, then small valid models ---------
tiny = open(os.path.join(REF, "models", "tiny", "model.safetensors"), "rb").read(1 << 16)
n = struct.unpack("<Q", tiny[:8])[0]
put("fuzz_safetensors", "tiny-header-plus-256", tiny[: 8 + n + 256])

# The fuzz_model config: L=1, NH=1, C=2, NP=2, V=3 (see tests/fuzz/fuzz_model.c).
C, V, NP = 2, 3, 2
SHAPES = [("wte.weight", [V, C]), ("wpe.weight", [NP, C]),
          ("h.0.ln_1.weight", [C]), ("h.0.ln_1.bias", [C]),
          ("h.0.attn.c_attn.weight", [C, 3 * C]), ("h.0.attn.c_attn.bias", [3 * C]),
          ("h.0.attn.c_proj.weight", [C, C]), ("h.0.attn.c_proj.bias", [C]),
          ("h.0.ln_2.weight", [C]), ("h.0.ln_2.bias", [C]),
          ("h.0.mlp.c_fc.weight", [C, 4 * C]), ("h.0.mlp.c_fc.bias", [4 * C]),
          ("h.0.mlp.c_proj.weight", [4 * C, C]), ("h.0.mlp.c_proj.bias", [C]),
          ("ln_f.weight", [C]), ("ln_f.bias", [C])]


def numel(shape):
    p = 1
    for s in shape:
        p *= s
    return p


def model(dtype, prefix="", head=False, metadata=None):
    size = {"F32": 4, "F16": 2, "BF16": 2}[dtype]
    shapes = SHAPES + ([("lm_head.weight", [V, C])] if head else [])
    ts = []
    for i, (name, shape) in enumerate(shapes):
        k = numel(shape)
        if dtype == "F32":
            raw = struct.pack("<%df" % k, *[0.01 * (i + j) for j in range(k)])
        elif dtype == "F16":
            raw = struct.pack("<%de" % k, *[0.01 * (i + j) for j in range(k)])
        else:  # BF16: the top half of the float32
            raw = b"".join(struct.pack("<f", 0.01 * (i + j))[2:] for j in range(k))
        assert len(raw) == k * size
        pre = "" if name == "lm_head.weight" else prefix
        ts.append((pre + name, dtype, shape, raw))
    return safetensors(ts, metadata)


for harness in ("fuzz_safetensors", "fuzz_model"):
    put(harness, "model-f32", model("F32"))
    put(harness, "model-f16-untied", model("F16", head=True))
    put(harness, "model-bf16-transformer-prefix", model("BF16", prefix="transformer."))
    put(harness, "model-f32-metadata", model("F32", metadata={"format": "pt"}))
    put(harness, "one-scalar-unpadded", safetensors([("x", "F32", [], b"\0\0\x80?")], pad_to=1))

# --- config.json -----------------------------------------------------------------------
put("fuzz_config", "tiny-config.json", open(os.path.join(REF, "models", "tiny", "config.json"), "rb").read())
put("fuzz_config", "fuzz-model-config.json",
    b'{"n_layer": 1, "n_head": 1, "n_embd": 2, "n_positions": 2, "vocab_size": 3, "layer_norm_epsilon": 1e-5}\n')
put("fuzz_config", "gpt2-xl-config.json",
    b'{"n_layer": 48, "n_head": 25, "n_embd": 1600, "n_ctx": 1024, "n_inner": null, "vocab_size": 50257}\n')

# --- tokenizer: first byte = options (see fuzz_tokenizer.c), then text -----------------
tok = os.path.join(REF, "tokenizer")
for line in open(os.path.join(tok, "tok_public.jsonl"), encoding="utf-8"):
    c = json.loads(line)
    flags = c["index"] % 16  # spread the option combinations over the cases
    put("fuzz_tokenizer", "public-%02d" % c["index"], bytes([flags]) + bytes.fromhex(c["utf8_hex"]))
for line in open(os.path.join(tok, "tok_invalid_utf8.jsonl"), encoding="utf-8"):
    c = json.loads(line)
    put("fuzz_tokenizer", "invalid-%d-replace" % c["index"], b"\x03" + bytes.fromhex(c["utf8_hex"]))
    put("fuzz_tokenizer", "invalid-%d-reject" % c["index"], b"\x00" + bytes.fromhex(c["utf8_hex"]))
for line in open(os.path.join(tok, "tok_decode_edge.jsonl"), encoding="utf-8"):
    c = json.loads(line)
    put("fuzz_tokenizer", "decode-edge-%d" % c["index"],
        b"\x10" + b"".join(struct.pack("<H", i) for i in c["ids"]))
put("fuzz_tokenizer", "special", b"\x06<|endoftext|>Once<|endoftext|>")

# --- lessons ---------------------------------------------------------------------------
for p in sorted(glob.glob(os.path.join(ROOT, "lessons", "*.lesson")) +
                glob.glob(os.path.join(ROOT, "tests", "fixtures", "lessons", "*.lesson"))):
    put("fuzz_lesson", os.path.basename(p), open(p, "rb").read())

# --- PNG provenance --------------------------------------------------------------------
# The smaller golden figures only: the reader never looks at pixel data, and a few
# 100-KB seeds would only slow every mutation down (libFuzzer's max_len follows them).
for p in sorted(glob.glob(os.path.join(ROOT, "tests", "golden", "*.png"))):
    if os.path.getsize(p) <= 64 * 1024:
        put("fuzz_png_text", os.path.basename(p), open(p, "rb").read())


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png(texts):
    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 6, 0, 0, 0)
    out = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
    for kind, data in texts:
        out += chunk(kind, data)
    out += chunk(b"IDAT", zlib.compress(b"\0\1\2\3\xff")) + chunk(b"IEND", b"")
    return out


put("fuzz_png_text", "small-text", png([(b"tEXt", b"Software\0inferscope 0.1"),
                                        (b"tEXt", b"inferscope:prompt\0Once upon a time"),
                                        (b"iTXt", b"inferscope:settings\0\0\0\0\0temperature 0.8 \xe2\x80\x94 top-k 40"),
                                        (b"zTXt", b"Comment\0\0" + zlib.compress(b"skipped"))]))
put("fuzz_png_text", "small-none", png([]))

# --- a model's own vocabulary (byte 0 < 128: vocab.json; >= 128: ids-only, byte 1 = size - 1)
chars = list("\n !$&',-.3:;?ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
put("fuzz_vocab", "shakespeare-chars", b"\0" + json.dumps(chars).encode())
put("fuzz_vocab", "object-ids", b"\0" + json.dumps({str(i): c for i, c in enumerate("abc ")}).encode())
put("fuzz_vocab", "multi-char-tokens",
    b"\0" + json.dumps(["a", "b", "ab", "abc", "<|endoftext|>", "\u00e9", ""], ensure_ascii=False).encode())
put("fuzz_vocab", "ids-only-text", b"\x80\x09" + "3 1,2 \u27e85\u27e9\u27e80\u27e9".encode())
put("fuzz_config", "gelu-exact-config.json",
    open(os.path.join(REF, "models", "tiny", "config.json"), "rb").read().replace(b"gelu_new", b"gelu"))
# --- GPT-2 tokenizer files (fuzz_encoder: encoder.json, a NUL byte, vocab.bpe) ----------
# The real files cut down: the 256 byte tokens, the first 40 merges of vocab.bpe with the
# tokens they make, <|endoftext|> last: 3 KB instead of 1.5 MB, every rule of the format.
TOKDIR = os.path.join(ROOT, "assets", "tokenizer")
enc_full = json.load(open(os.path.join(TOKDIR, "encoder.json"), encoding="utf-8"))
by_id = sorted(enc_full, key=enc_full.get)
merges = open(os.path.join(TOKDIR, "vocab.bpe"), encoding="utf-8").read().split("\n")[1:41]


def encoder(keys):
    return json.dumps({k: i for i, k in enumerate(keys)}, ensure_ascii=False).encode()


small = by_id[:256] + ["".join(m.split(" ")) for m in merges] + ["<|endoftext|>"]
bpe = ("#version: 0.2\n" + "\n".join(merges) + "\n").encode()
put("fuzz_encoder", "small-40-merges", encoder(small) + b"\0" + bpe)
put("fuzz_encoder", "bytes-only-crlf-no-eot",
    json.dumps({k: i for i, k in enumerate(by_id[:257])}, indent=1, ensure_ascii=False).encode() + b"\n\0" +
    (merges[0] + "\r\n").encode())
put("fuzz_encoder", "shuffled-ids-escaped",
    encoder(list(reversed(small))).replace("\u0120".encode(), b"\\u0120") + b"\0" + bpe.replace(b"\n", b"\n\n"))
# --- figure provenance (fuzz_figure: keyword NUL value NUL ..., as in tEXt chunks) -----
# The text chunks of real figures exported from the reference tiny model: every key the
# writer emits, JSON prompts with escapes, contact sheets, dark theme, linear/log axes.
# Needs a built inferscope (build/inferscope); without one the committed seeds stay.
import shutil, subprocess, tempfile


def png_text_pairs(path):
    data, out, at = open(path, "rb").read(), b"", 8
    while at + 8 <= len(data):
        n, kind = struct.unpack(">I", data[at:at + 4])[0], data[at + 4:at + 8]
        body = data[at + 8:at + 8 + n]
        if kind == b"tEXt":
            out += body + b"\0"
        elif kind == b"iTXt":  # keyword NUL flag method lang NUL tkey NUL text
            key, rest = body.split(b"\0", 1)
            text = rest[2:].split(b"\0", 2)[2]
            out += key + b"\0" + text + b"\0"
        at += 12 + n
    return out


# fuzz_figure replays accepted states on tests/fuzz/model-c65: nanoGPT's 65 characters,
# 2 layers of 2 heads, 16 positions, 12 KB (tests/fixtures/gpt2_family.py chars, seed 3). The
# sampler over 65 tokens instead of 50,257 keeps a replay well under a millisecond.
C65 = os.path.join(ROOT, "tests", "fuzz", "model-c65")
subprocess.run([sys.executable, os.path.join(ROOT, "tests", "fixtures", "gpt2_family.py"), "chars", C65, "3"],
               check=True)
exe = os.path.join(ROOT, "build", "inferscope")
if os.access(exe, os.X_OK):
    tmp = tempfile.mkdtemp()
    m = ["--model", os.path.join(REF, "models", "tiny")]
    runs = {
        "frame-dark-linear": ["--prompt", "Once upon a time", "--steps", "2", "--seed", "7", "--size", "160x90",
                              "--scale", "2", "--ui-scale", "1.5", "--theme", "dark", "--axis", "linear 50"],
        "attention-escapes": ["--prompt", "Caf\u00e9 \u2615 \U0001F600\n\"tab\"\tend", "--panel", "attention",
                              "--layer", "1", "--head", "3", "--steps", "1", "--top-k", "40", "--top-p", "0.9",
                              "--temperature", "0.8", "--size", "200x120", "--axis", "log"],
        "sheet-layer-ids": ["--ids", "464,3290,318", "--panel", "attention", "--layer", "1", "--contact-sheet",
                            "--size", "200x120"],
        "sheet-all-layers": ["--prompt", "The", "--all-heads", "--contact-sheet", "--steps", "1",
                             "--temperature", "0", "--size", "120x80"],
        "probs-greedy-seed-max": ["--prompt", "The", "--panel", "probs", "--steps", "1", "--greedy",
                                  "--seed", "18446744073709551615", "--size", "120x80"],
    }
    c65 = {
        "c65-romeo": ["--model", C65, "--prompt", "ROMEO:", "--steps", "3", "--seed", "11", "--top-k", "5",
                      "--panel", "probs", "--size", "120x80", "--axis", "linear 37.5"],
        "c65-attention": ["--model", C65, "--prompt", "O, be some\n", "--steps", "2",
                          "--panel", "attention", "--layer", "1", "--head", "1", "--theme", "dark",
                          "--size", "96x64", "--scale", "4", "--ui-scale", "2.5"],
        "c65-ids-sheet": ["--model", C65, "--ids", "0,1,2,64", "--steps", "1", "--greedy", "--all-heads",
                          "--contact-sheet", "--size", "100x100"],
    }
    for name, args in list(runs.items()) + list(c65.items()):
        out = os.path.join(tmp, name)
        args = args if args[0] == "--model" else m + args
        subprocess.run([exe, "export"] + args + ["--out", out], check=True, stdout=subprocess.DEVNULL)
        for i, png_path in enumerate(sorted(glob.glob(os.path.join(out, "*.png")))):
            put("fuzz_figure", "%s-%d" % (name, i), png_text_pairs(png_path))
    shutil.rmtree(tmp)
print("seeds written to", CORPUS)

# --- class room requests: flags, method, url, cookie, content type, address, body --------
FORM = b"application/x-www-form-urlencoded"
def request(flags, method, url, cookie=b"", ctype=b"", addr=b"10.0.0.1", body=b""):
    return bytes([flags]) + b"\0".join([method, url, cookie, ctype, addr, body])
put("fuzz_class_request", "get-page", request(0, b"GET", b"/"))
put("fuzz_class_request", "get-state-joined", request(1 | 8, b"GET", b"/state"))
put("fuzz_class_request", "state-revealed", request(1 | 2 | 8 | 16, b"GET", b"/state"))
put("fuzz_class_request", "join", request(0, b"POST", b"/join", ctype=FORM, body=b"code=1234&name=Ada+L."))
put("fuzz_class_request", "join-wrong-code-x4", request(96, b"POST", b"/join", ctype=FORM, body=b"code=9999"))
put("fuzz_class_request", "guess", request(1 | 8, b"POST", b"/guess", ctype=FORM, body=b"text=+there"))
put("fuzz_class_request", "guess-twice", request(1 | 8 | 32, b"POST", b"/guess", ctype=FORM, body=b"text=%F0%9F%90%89"))
put("fuzz_class_request", "path-escape", request(0, b"GET", b"/../../etc/passwd"))
