#!/usr/bin/env python3
"""bad-checkpoints.py OUTDIR — writes one small model folder per way a GPT-2 checkpoint
can be broken (OUTDIR/CASE/config.json + model.safetensors), plus OUTDIR/good, a valid
1-layer model (L=1, NH=1, C=4, NP=8, V=16) the broken ones are derived from.
Used by tests/test_bad_input.sh, which expects one clear error line for each.
Not a model writer for real use: the weights are small made-up numbers."""
import json, os, struct, sys

out = sys.argv[1]
L, NH, C, NP, V = 1, 1, 4, 8, 16
CONFIG = {"n_layer": L, "n_head": NH, "n_embd": C, "n_positions": NP, "vocab_size": V,
          "layer_norm_epsilon": 1e-5}


def shapes(n_layer=L, vocab=V):
    s = [("wte.weight", [vocab, C]), ("wpe.weight", [NP, C])]
    for l in range(n_layer):
        p = "h.%d." % l
        s += [(p + "ln_1.weight", [C]), (p + "ln_1.bias", [C]),
              (p + "attn.c_attn.weight", [C, 3 * C]), (p + "attn.c_attn.bias", [3 * C]),
              (p + "attn.c_proj.weight", [C, C]), (p + "attn.c_proj.bias", [C]),
              (p + "ln_2.weight", [C]), (p + "ln_2.bias", [C]),
              (p + "mlp.c_fc.weight", [C, 4 * C]), (p + "mlp.c_fc.bias", [4 * C]),
              (p + "mlp.c_proj.weight", [4 * C, C]), (p + "mlp.c_proj.bias", [C])]
    return s + [("ln_f.weight", [C]), ("ln_f.bias", [C])]


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def tensors(dtype="F32", **kw):
    """[(name, dtype, shape, raw)] with small distinct values."""
    out = []
    for i, (name, shape) in enumerate(shapes(**kw)):
        k = numel(shape)
        size = {"F32": 4, "I32": 4, "F16": 2}[dtype]
        raw = struct.pack("<%df" % k, *[0.01 * ((i + j) % 7) for j in range(k)]) if size == 4 \
            else b"\0" * (2 * k)
        out.append((name, dtype, shape, raw))
    return out


def st_bytes(ts, header_override=None, extra=b""):
    header, data = {}, b""
    for name, dtype, shape, raw in ts:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    h = header_override if header_override is not None else json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    return struct.pack("<Q", len(h)) + h + data + extra


def case(name, model=None, config=CONFIG, model_is_dir=False):
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    if config is not None:
        with open(os.path.join(d, "config.json"), "wb") as f:
            f.write(config if isinstance(config, bytes) else json.dumps(config).encode())
    p = os.path.join(d, "model.safetensors")
    if model_is_dir:
        os.makedirs(p, exist_ok=True)
    elif model is not None:
        with open(p, "wb") as f:
            f.write(model)


good = st_bytes(tensors())
case("good", good)
case("empty_file", b"")
case("short_file", b"\x05\0\0")
case("header_len_zero", struct.pack("<Q", 0) + b"{}")
case("header_len_10gb", struct.pack("<Q", 10 * 1000 ** 3) + good[8:])
case("header_not_json", st_bytes([], header_override=b"{\"wte.weight\": [1, 2"))
case("header_not_object", st_bytes([], header_override=b"[1, 2, 3]"))
case("trailing_text", st_bytes([], header_override=b"{} garbage"))
ts = tensors()
ts[0] = (ts[0][0], "Q7", ts[0][2], ts[0][3])
case("unknown_dtype", st_bytes(ts))
case("truncated_data", good[: len(good) - 100])
# shape says 16x4 floats but the offsets span one float less
hdr = json.loads(good[8: 8 + struct.unpack("<Q", good[:8])[0]])
hdr["wte.weight"]["data_offsets"][1] -= 4
case("offsets_shape_mismatch", st_bytes([], header_override=json.dumps(hdr).encode(), extra=good[8 + struct.unpack("<Q", good[:8])[0]:]))
hdr = json.loads(good[8: 8 + struct.unpack("<Q", good[:8])[0]])
hdr["wpe.weight"]["data_offsets"] = [4, 4 + 4 * NP * C]  # overlaps wte
case("overlapping_tensors", st_bytes([], header_override=json.dumps(hdr).encode(), extra=good[8 + struct.unpack("<Q", good[:8])[0]:]))
body = json.dumps(hdr)
dup = b'{"ln_f.bias": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}, ' + \
      json.dumps(json.loads(good[8: 8 + struct.unpack("<Q", good[:8])[0]])).encode()[1:]
case("duplicate_name", st_bytes([], header_override=dup, extra=good[8 + struct.unpack("<Q", good[:8])[0]:]))
case("missing_tensor", st_bytes([t for t in tensors() if t[0] != "ln_f.bias"]))
ts = tensors()
ts = [(n, d, ([C, 2 * C] if n == "h.0.attn.c_attn.weight" else s),
       (r[: 4 * 2 * C * C] if n == "h.0.attn.c_attn.weight" else r)) for n, d, s, r in ts]
case("wrong_shape", st_bytes(ts))
case("vocab_mismatch", st_bytes(tensors(vocab=V + 1)))
case("extra_layer", st_bytes(tensors(n_layer=2)))
case("int_weights", st_bytes(tensors(dtype="I32")))
case("config_missing", good, config=None)
case("config_not_json", good, config=b"{\"n_layer\": 1,")
case("config_heads_do_not_divide", good, config=dict(CONFIG, n_head=3))
case("config_negative_layers", good, config=dict(CONFIG, n_layer=-1))
case("config_n_inner_overflow", good, config=dict(CONFIG, n_embd=1000000000, n_inner=5))
case("config_disagrees", good, config=dict(CONFIG, n_embd=8, n_head=2))
case("model_missing", None)
case("model_is_dir", None, model_is_dir=True)
case("unreadable", good)  # the test removes read permission
