#!/usr/bin/python3
"""Validation loss of a training checkpoint with the training-time (compact) model, fp32.

usage: /usr/bin/python3 eval_ckpt.py CKPT [--windows 0,47,...] [--f16]
Without --windows: all non-overlapping 256-token windows of the normalised valid text.
--f16 rounds the weights to float16 first (what the exported file holds).
"""
import argparse, os, sys
import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'convert'))
from restricted_pickle import checkpoint_load  # noqa: E402 (nothing in a checkpoint runs)
from model import CompactGPT2
import paths

ap = argparse.ArgumentParser()
ap.add_argument('ckpt')
ap.add_argument('--windows', default='')
ap.add_argument('--f16', action='store_true')
ap.add_argument('--data', default=paths.WORK)
a = ap.parse_args()
torch.set_num_threads(2)
ck = checkpoint_load(a.ckpt)
ar = ck['args']
seen = np.asarray(ck['seen'])
S, V, T = len(seen), 50257, ar['T']
m = CompactGPT2(S, V, ar['L'], ar['H'], ar['C'], T, 0.0)
sd = ck['model']
if a.f16:
    sd = {k: v.half().float() for k, v in sd.items()}
m.load_state_dict(sd)
m.eval()
valid = np.fromfile(f'{a.data}/valid.bin', dtype=np.uint16).astype(np.int64)
full2c = np.full(V, S, dtype=np.int64)
full2c[seen] = np.arange(S)
nwin = (len(valid) - 1) // T
sel = [int(s) for s in a.windows.split(',')] if a.windows else list(range(nwin))
x = torch.from_numpy(np.stack([full2c[valid[w * T:(w + 1) * T]] for w in sel]))
y = torch.from_numpy(np.stack([full2c[valid[w * T + 1:(w + 1) * T + 1]] for w in sel]))
tot = 0.0
with torch.no_grad():
    for i in range(0, len(sel), 32):
        _, l = m(x[i:i + 32], y[i:i + 32])
        tot += l.item() * x[i:i + 32].shape[0]
print(f'step {ck["step"]} fp32{" (f16-rounded weights)" if a.f16 else ""} loss on {len(sel)} windows: {tot / len(sel):.4f}')
