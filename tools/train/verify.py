#!/usr/bin/python3
"""Independent check of an exported model: a float64 numpy GPT-2 forward that reads ONLY
model.safetensors + config.json (no torch), tokenised with gpt2_bpe.

usage: /usr/bin/python3 verify.py MODELDIR [--windows N] [--samples K] [--valid PATH]
Prints: validation loss on N evenly spaced non-overlapping 256-token windows of the normalised
valid text (window indices printed), p(" time" | "Once upon a"), top-5, and K samples.
"""
import argparse, json, math, os, sys
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import paths
import safetensors_io
from gpt2_bpe import Encoder
from normalise import normalise


class NumpyGPT2:
    def __init__(self, d):
        w, meta = safetensors_io.read(os.path.join(d, 'model.safetensors'))
        self.w = {k: v.astype(np.float64) for k, v in w.items()}
        self.cfg = json.load(open(os.path.join(d, 'config.json')))
        self.L, self.H, self.C = self.cfg['n_layer'], self.cfg['n_head'], self.cfg['n_embd']
        self.eps = self.cfg['layer_norm_epsilon']

    def ln(self, x, p):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) / np.sqrt(v + self.eps) * self.w[p + '.weight'] + self.w[p + '.bias']

    @staticmethod
    def gelu(x):
        return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))

    def logits(self, ids, last_only=False):
        w, C, H = self.w, self.C, self.H
        T = len(ids)
        x = w['wte.weight'][ids] + w['wpe.weight'][:T]
        mask = np.triu(np.ones((T, T), dtype=bool), 1)
        hd = C // H
        for i in range(self.L):
            p = f'h.{i}.'
            h = self.ln(x, p + 'ln_1')
            qkv = h @ w[p + 'attn.c_attn.weight'] + w[p + 'attn.c_attn.bias']
            q, k, v = qkv[:, :C], qkv[:, C:2 * C], qkv[:, 2 * C:]
            ys = []
            for hh in range(H):
                s = slice(hh * hd, (hh + 1) * hd)
                a = q[:, s] @ k[:, s].T / math.sqrt(hd)
                a[mask] = -np.inf
                a = np.exp(a - a.max(-1, keepdims=True))
                a /= a.sum(-1, keepdims=True)
                ys.append(a @ v[:, s])
            y = np.concatenate(ys, axis=1)
            x = x + y @ w[p + 'attn.c_proj.weight'] + w[p + 'attn.c_proj.bias']
            h = self.ln(x, p + 'ln_2')
            h = self.gelu(h @ w[p + 'mlp.c_fc.weight'] + w[p + 'mlp.c_fc.bias'])
            x = x + h @ w[p + 'mlp.c_proj.weight'] + w[p + 'mlp.c_proj.bias']
        x = self.ln(x, 'ln_f')
        if last_only:  # sampling needs one row: skip T-1 rows of the 50257-wide head
            x = x[-1:]
        return x @ w['wte.weight'].T

    @staticmethod
    def logsoftmax(z):
        z = z - z.max(-1, keepdims=True)
        return z - np.log(np.exp(z).sum(-1, keepdims=True))


def sample(model, enc, prompt, n_new, seed, temperature, top_k):
    rng = np.random.default_rng(seed)
    ids = enc.encode(prompt)
    T = model.cfg['n_positions']
    for _ in range(n_new):
        z = model.logits(ids[-T:], last_only=True)[-1] / temperature
        if top_k:
            kth = np.sort(z)[-top_k]
            z = np.where(z < kth, -np.inf, z)
        p = np.exp(z - z.max())
        p /= p.sum()
        nxt = int(rng.choice(len(p), p=p))
        if nxt == 50256:
            break
        ids.append(nxt)
    return enc.decode(ids)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('model')
    ap.add_argument('--windows', type=int, default=16)
    ap.add_argument('--samples', type=int, default=0)
    ap.add_argument('--sample-tokens', type=int, default=120)
    ap.add_argument('--temperature', type=float, default=0.8)
    ap.add_argument('--top-k', type=int, default=40)
    ap.add_argument('--valid', default=os.path.join(paths.CORPUS, 'tinystories-valid-head.txt'),
                    help='validation text (default: the corpus beside the repository, or $INFERSCOPE_CORPUS)')
    ap.add_argument('--out', default=paths.WORK, help='folder for verify.json')
    ap.add_argument('--eval-prefix', type=int, default=0, metavar='CHARS',
                    help="loss on the first CHARS characters of the normalised valid text with exactly "
                         "`inferscope eval`'s counting (windows of n_positions, stride = window, the first "
                         "token of each window not counted): the reference for tests/test_bundled_model.sh")
    a = ap.parse_args()
    enc = Encoder()
    m = NumpyGPT2(a.model)
    res = {}
    lp = m.logsoftmax(m.logits(enc.encode('Once upon a'))[-1])
    top = np.argsort(-lp)[:5]
    res['p_time'] = float(np.exp(lp[640]))
    res['top5'] = [(enc.decode([int(i)]), int(i), float(np.exp(lp[i]))) for i in top]
    print('p(" time" | "Once upon a") =', res['p_time'])
    print('top-5:', res['top5'])
    if a.windows:
        ids = np.array(enc.encode(normalise(open(a.valid, encoding='utf-8').read())))
        T = m.cfg['n_positions']
        nwin = (len(ids) - 1) // T
        sel = np.unique(np.linspace(0, nwin - 1, a.windows).round().astype(int))
        tot = 0.0
        for wi in sel:
            x = ids[wi * T:(wi + 1) * T]
            y = ids[wi * T + 1:(wi + 1) * T + 1]
            l = m.logsoftmax(m.logits(list(x)))
            tot += -l[np.arange(T), y].mean()
        res['windows'] = sel.tolist()
        res['loss_windows'] = tot / len(sel)
        print(f'numpy float64 loss on {len(sel)} windows {sel.tolist()}: {res["loss_windows"]:.4f}')
    if a.eval_prefix:
        text = normalise(open(a.valid, encoding='utf-8').read())[:a.eval_prefix]
        ids = enc.encode(text)
        T = m.cfg['n_positions']
        tot, cnt = 0.0, 0
        for st in range(0, len(ids), T):
            win = ids[st:st + T]
            if len(win) < 2:
                continue
            l = m.logsoftmax(m.logits(win[:-1]))
            tot += -l[np.arange(len(win) - 1), win[1:]].sum()
            cnt += len(win) - 1
        res['eval_prefix'] = {'chars': a.eval_prefix, 'tokens': cnt, 'loss': tot / cnt}
        print(f'eval-prefix {a.eval_prefix} chars: loss={tot / cnt:.6f} tokens={cnt} (float64, eval counting)')
    res['samples'] = []
    for s in range(a.samples):
        txt = sample(m, enc, 'Once upon a time', a.sample_tokens, s, a.temperature, a.top_k)
        res['samples'].append({'seed': s, 'text': txt})
        print(f'--- sample seed {s} (temperature {a.temperature}, top-k {a.top_k}, numpy RNG default_rng(seed)):\n{txt}')
    os.makedirs(a.out, exist_ok=True)
    json.dump(res, open(os.path.join(a.out, 'verify.json'), 'w'), indent=1)


if __name__ == '__main__':
    main()
