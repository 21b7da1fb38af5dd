#!/usr/bin/python3
"""Convert a nanoGPT checkpoint (karpathy/nanoGPT's ckpt.pt) into a folder inferscope opens:
config.json + model.safetensors in HuggingFace GPT-2 layout, plus vocab.json for a
character-level model (from nanoGPT's meta.pkl). Watch the model you trained yourself:

    python3 tools/convert/nanogpt_to_safetensors.py out-shakespeare-char/ckpt.pt models/shakespeare-char \\
        --meta data/shakespeare_char/meta.pkl
    build/inferscope --model models/shakespeare-char --prompt "ROMEO:"

Needs PyTorch (Debian: python3-torch) to read the pickle; nothing else, and no network.

What it does (and why):
  * names: nanoGPT's `transformer.h.N.attn.c_attn.weight` ... become HF's `h.N.attn.c_attn.weight`
    (a `_orig_mod.` prefix from torch.compile is dropped);
  * layout: nanoGPT's nn.Linear weights are (out, in); HF's Conv1D, which inferscope reads,
    stores (in, out), so the four matrices of each block are transposed (exactly what
    nanoGPT's own from_pretrained undoes);
  * bias=False models get zero biases (the same function), and the attention-mask buffer
    `attn.bias` (torch < 2.0) is not copied (it is not a parameter);
  * lm_head: tied to wte (nanoGPT's weight tying) unless the checkpoint's lm_head differs;
  * GELU: nanoGPT trains with torch's exact nn.GELU(), so config.json says
    activation_function "gelu" (erf); --gelu tanh for checkpoints from nanoGPT before June 2023,
    whose model.py had the tanh `new_gelu`;
  * vocabulary: vocab_size as trained (GPT-2 runs are padded to 50,304: inferscope samples only
    the tokenizer's 50,257); a meta.pkl (`itos`, from data/shakespeare_char/prepare.py) becomes
    vocab.json, id -> character; only the meta.pkl named with --meta is read (one lying beside
    ckpt.pt is someone else's file until you say otherwise).

Nothing in the files runs: both pickles are read through restricted_pickle, which admits only
what nanoGPT writes (tensors, dicts, lists, numbers, strings) and refuses anything else with
one line naming the class the file asked for (exit status 2). Bad input of any kind: one line
on stderr, exit status 2. Output files are created new beside their final names and renamed
into place when complete.
"""
import argparse
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import restricted_pickle  # noqa: E402
from new_file import NotRegular, new_file  # noqa: E402


def die(msg):
    print('nanogpt_to_safetensors: ' + msg, file=sys.stderr)
    sys.exit(2)


def refused(path, e):
    die('%s: refused: the file asks to import %s, which a nanoGPT checkpoint never holds '
        '(only tensors, dicts, lists, numbers and strings are read; nothing in the file is run)' % (path, e.name))


def load_checkpoint(path):
    try:
        import torch  # noqa: F401 (restricted_pickle makes the tensors with it)
    except ImportError:
        die('PyTorch is needed to read %s (Debian: apt-get install python3-torch)' % path)
    if not os.path.isfile(path):
        die('%s: not found' % path)
    try:
        ck = restricted_pickle.checkpoint_load(path)
    except restricted_pickle.Refused as e:
        refused(path, e)
    except Exception as e:  # a truncated or foreign file: what went wrong, on one line
        die('%s: not a readable PyTorch checkpoint (%s)' % (path, ' '.join(str(e).split())[:200]))
    if not isinstance(ck, dict):
        die('%s: not a nanoGPT checkpoint (expected a dict with "model" and "model_args")' % path)
    sd = ck.get('model', ck)  # a bare state_dict works too
    sd = {k[len('_orig_mod.'):] if k.startswith('_orig_mod.') else k: v for k, v in sd.items()}
    return ck, sd


def model_args(ck, sd):
    """n_layer, n_head, n_embd, block_size, vocab_size: from model_args, else the shapes."""
    a = dict(ck.get('model_args') or {})
    wte = sd.get('transformer.wte.weight')
    wpe = sd.get('transformer.wpe.weight')
    if wte is None or wpe is None:
        die('the checkpoint has no transformer.wte.weight / transformer.wpe.weight: not a nanoGPT GPT')
    a.setdefault('vocab_size', wte.shape[0])
    a.setdefault('n_embd', wte.shape[1])
    a.setdefault('block_size', wpe.shape[0])
    if 'n_layer' not in a:
        a['n_layer'] = 1 + max(int(k.split('.')[2]) for k in sd if k.startswith('transformer.h.'))
    if 'n_head' not in a:
        die('model_args has no n_head and the weights do not tell it: pass a checkpoint saved by train.py')
    return a


def convert(sd, a, dtype):
    import torch
    C, L = a['n_embd'], a['n_layer']
    out = {}

    def put(name, t):
        t = t.detach().to(torch.float32).contiguous()
        out[name] = t.to(dtype) if dtype != torch.float32 else t

    def get(name, shape_if_missing=None):
        t = sd.get(name)
        if t is None and shape_if_missing is not None:
            return torch.zeros(shape_if_missing)  # bias=False: the same function with zero biases
        if t is None:
            die('the checkpoint has no %s' % name)
        return t

    put('wte.weight', get('transformer.wte.weight'))
    put('wpe.weight', get('transformer.wpe.weight'))
    for l in range(L):
        p, q = 'transformer.h.%d.' % l, 'h.%d.' % l
        for ln in ('ln_1', 'ln_2'):
            put(q + ln + '.weight', get(p + ln + '.weight'))
            put(q + ln + '.bias', get(p + ln + '.bias', [C]))
        for lin, n_out in (('attn.c_attn', 3 * C), ('attn.c_proj', C), ('mlp.c_fc', 4 * C), ('mlp.c_proj', C)):
            put(q + lin + '.weight', get(p + lin + '.weight').t())  # nn.Linear (out, in) -> Conv1D (in, out)
            put(q + lin + '.bias', get(p + lin + '.bias', [n_out]))
    put('ln_f.weight', get('transformer.ln_f.weight'))
    put('ln_f.bias', get('transformer.ln_f.bias', [C]))
    head = sd.get('lm_head.weight')
    tied = head is None or torch.equal(head, sd['transformer.wte.weight'])
    if not tied:
        put('lm_head.weight', head)
    return out, tied


def write_safetensors(path, tensors):
    import torch
    names = {torch.float32: 'F32', torch.float16: 'F16', torch.bfloat16: 'BF16'}
    header, blobs, off = {}, [], 0
    for name in sorted(tensors):
        t = tensors[name]
        raw = t.view(torch.int16).numpy().tobytes() if t.dtype == torch.bfloat16 else t.numpy().tobytes()
        header[name] = {'dtype': names[t.dtype], 'shape': list(t.shape), 'data_offsets': [off, off + len(raw)]}
        blobs.append(raw)
        off += len(raw)
    header['__metadata__'] = {'format': 'pt', 'converted_by': 'inferscope tools/convert/nanogpt_to_safetensors.py'}
    h = json.dumps(header, separators=(',', ':')).encode()
    h += b' ' * ((8 - len(h) % 8) % 8)  # data 8-byte aligned, as HF writes it
    write_new(path, [struct.pack('<Q', len(h)), h] + blobs)


def write_new(path, chunks):
    """Writes the byte strings to path through new_file (a temporary created new, renamed)."""
    try:
        with new_file(path) as f:
            for c in chunks:
                f.write(c)
    except NotRegular as e:
        die(str(e))


def vocab_from_meta(path, vocab_size):
    if not os.path.isfile(path):
        die('%s: not found' % path)
    try:
        with open(path, 'rb') as f:
            meta = restricted_pickle.load_plain(f)
    except restricted_pickle.Refused as e:
        refused(path, e)
    except Exception as e:
        die('%s: not a readable pickle (%s)' % (path, ' '.join(str(e).split())[:200]))
    itos = meta.get('itos') if isinstance(meta, dict) else None
    if not isinstance(itos, dict):
        die('%s: no "itos" table (nanoGPT char meta.pkl has {"vocab_size", "itos", "stoi"})' % path)
    if len(itos) > vocab_size:
        die('%s: %d characters but the model has %d embedding rows' % (path, len(itos), vocab_size))
    try:
        return [itos[i] for i in range(len(itos))]
    except KeyError as e:
        die('%s: itos has no entry for id %s' % (path, e))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('ckpt', help="nanoGPT's ckpt.pt (train.py's out_dir/ckpt.pt)")
    ap.add_argument('out', help='folder to write config.json, model.safetensors (and vocab.json)')
    ap.add_argument('--meta', help="char vocabulary (data/<dataset>/meta.pkl); read only when named here")
    ap.add_argument('--gelu', choices=['erf', 'tanh'], default='erf',
                    help='erf = nn.GELU() (nanoGPT since June 2023, default); tanh = the older new_gelu')
    ap.add_argument('--dtype', choices=['f32', 'f16', 'bf16'], default='f32', help='storage type (default f32)')
    args = ap.parse_args()
    import torch
    ck, sd = load_checkpoint(args.ckpt)
    a = model_args(ck, sd)
    dtype = {'f32': torch.float32, 'f16': torch.float16, 'bf16': torch.bfloat16}[args.dtype]
    tensors, tied = convert(sd, a, dtype)
    vocab = vocab_from_meta(args.meta, a['vocab_size']) if args.meta else None
    if os.path.lexists(args.out) and not os.path.isdir(args.out):
        die('%s: exists and is not a folder' % args.out)
    os.makedirs(args.out, exist_ok=True)
    config = {'model_type': 'gpt2', 'architectures': ['GPT2LMHeadModel'],
              'n_layer': a['n_layer'], 'n_head': a['n_head'], 'n_embd': a['n_embd'],
              'n_positions': a['block_size'], 'n_ctx': a['block_size'], 'vocab_size': a['vocab_size'],
              'n_inner': None, 'layer_norm_epsilon': 1e-5,
              'activation_function': 'gelu' if args.gelu == 'erf' else 'gelu_new',
              'tie_word_embeddings': tied}
    write_new(os.path.join(args.out, 'config.json'), [json.dumps(config, indent=2).encode()])
    write_safetensors(os.path.join(args.out, 'model.safetensors'), tensors)
    vpath = os.path.join(args.out, 'vocab.json')
    if vocab is not None:
        write_new(vpath, [json.dumps(vocab, ensure_ascii=False).encode('utf-8')])
    elif os.path.lexists(vpath):
        os.remove(vpath)  # a stale vocabulary from an earlier conversion would mislabel tokens
    n = sum(t.numel() for t in tensors.values())
    print('wrote %s: %d layers, %d heads, %d wide, context %d, vocabulary %d%s, %.2f M parameters%s, %s, GELU %s'
          % (args.out, a['n_layer'], a['n_head'], a['n_embd'], a['block_size'], a['vocab_size'],
             ' (vocab.json: %d characters)' % len(vocab) if vocab else '', n / 1e6,
             '' if tied else ' (untied lm_head)', args.dtype.upper(), args.gelu))


if __name__ == '__main__':
    main()
