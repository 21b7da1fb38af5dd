#!/usr/bin/python3
"""Export a training checkpoint as an ordinary HF-GPT2-named F16 safetensors file + config.json.

Every never-seen token id gets the shared row u (compact head), so the file is a plain tied GPT-2.
usage: /usr/bin/python3 export.py CKPT OUTDIR
"""
import json, os, sys
import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'convert'))
from restricted_pickle import checkpoint_load  # noqa: E402 (nothing in a checkpoint runs)
import safetensors_io

V = 50257


def full_weights(ckpt):
    """float32 numpy tensors with HF GPT2Model names (Conv1D layout)."""
    sd = {k: v.float().numpy() for k, v in ckpt['model'].items()}
    a = ckpt['args']
    seen = np.asarray(ckpt['seen'])
    S = len(seen)
    emb = sd['emb']
    wte = np.repeat(emb[S:S + 1], V, axis=0)
    wte[seen] = emb[:S]
    t = {'wte.weight': wte, 'wpe.weight': sd['wpe'], 'ln_f.weight': sd['ln_f.weight'], 'ln_f.bias': sd['ln_f.bias']}
    for i in range(a['L']):
        p = f'h.{i}.'
        t[p + 'ln_1.weight'] = sd[p + 'ln_1.weight']
        t[p + 'ln_1.bias'] = sd[p + 'ln_1.bias']
        t[p + 'ln_2.weight'] = sd[p + 'ln_2.weight']
        t[p + 'ln_2.bias'] = sd[p + 'ln_2.bias']
        t[p + 'attn.c_attn.weight'] = sd[p + 'c_attn.weight'].T
        t[p + 'attn.c_attn.bias'] = sd[p + 'c_attn.bias']
        t[p + 'attn.c_proj.weight'] = sd[p + 'attn_proj.weight'].T
        t[p + 'attn.c_proj.bias'] = sd[p + 'attn_proj.bias']
        t[p + 'mlp.c_fc.weight'] = sd[p + 'c_fc.weight'].T
        t[p + 'mlp.c_fc.bias'] = sd[p + 'c_fc.bias']
        t[p + 'mlp.c_proj.weight'] = sd[p + 'mlp_proj.weight'].T
        t[p + 'mlp.c_proj.bias'] = sd[p + 'mlp_proj.bias']
    return {k: np.ascontiguousarray(v) for k, v in t.items()}


def config(a):
    return {
        'activation_function': 'gelu_new',
        'architectures': ['GPT2LMHeadModel'],
        'attn_pdrop': 0.0, 'embd_pdrop': 0.0, 'resid_pdrop': 0.0,
        'bos_token_id': 50256, 'eos_token_id': 50256,
        'initializer_range': 0.02,
        'layer_norm_epsilon': 1e-05,
        'model_type': 'gpt2',
        'n_ctx': a['T'], 'n_embd': a['C'], 'n_head': a['H'], 'n_inner': None, 'n_layer': a['L'],
        'n_positions': a['T'],
        'scale_attn_weights': True,
        'tie_word_embeddings': True,
        'torch_dtype': 'float16',
        'use_cache': True,
        'vocab_size': V,
    }


def main():
    ck = checkpoint_load(sys.argv[1])
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    t = full_weights(ck)
    for k, v in t.items():
        assert np.all(np.isfinite(v)) and np.abs(v).max() < 60000, k
    safetensors_io.write(os.path.join(out, 'model.safetensors'), {k: v.astype(np.float16) for k, v in t.items()})
    with open(os.path.join(out, 'config.json'), 'w') as f:
        json.dump(config(ck['args']), f, indent=2, sort_keys=True)
        f.write('\n')
    n = sum(v.size for v in t.values())
    print(f'exported step {ck["step"]} ({n} parameters, {len(t)} tensors) to {out}; '
          f'{os.path.getsize(os.path.join(out, "model.safetensors"))} bytes')


if __name__ == '__main__':
    main()
