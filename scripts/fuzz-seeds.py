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
print("seeds written to", CORPUS)
