#!/usr/bin/python3
"""Loss curve PNG of a training run (Debian's python3-matplotlib).

usage: /usr/bin/python3 plot_loss.py FINAL_CKPT OUT.png
Plots the training loss (mean since the previous evaluation) and the validation loss
(bf16, every 4th window during training) against tokens seen, with the target line.
"""
import sys
import matplotlib
matplotlib.use('Agg')  # no display here
import matplotlib.pyplot as plt
import os

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'convert'))
from restricted_pickle import checkpoint_load  # noqa: E402 (nothing in a checkpoint runs)

ck = checkpoint_load(sys.argv[1])
prev = ck.get('prev', {'tokens': 0, 'hist': []})
hist = list(prev.get('hist', [])) + [dict(h, tokens=h['tokens'] + prev['tokens']) for h in ck['hist']]
x = [h['tokens'] / 1e6 for h in hist]
fig, ax = plt.subplots(figsize=(8, 4.5), dpi=150)
# Okabe-Ito blue and vermillion: distinguishable with every common colour-vision deficiency
ax.plot(x, [h['train'] for h in hist], 'o-', color='#0072B2', label='training loss (with dropout)')
ax.plot(x, [h['valid'] for h in hist], 's-', color='#D55E00', label='validation loss (held-out text)')
ax.axhline(2.6, color='0.4', ls='--', lw=1)
if prev['tokens']:  # a resumed run: mark where phase 2 begins
    ax.axvline(prev['tokens'] / 1e6, color='0.5', ls=':', lw=1)
    ax.text(prev['tokens'] / 1e6, 4.8, ' phase 2', color='0.3', fontsize=10)
ax.text(x[0], 2.6, ' target 2.6', va='bottom', color='0.3', fontsize=10)
ax.set_xlabel('tokens seen (millions)', fontsize=12)
ax.set_ylabel('cross-entropy (nats/token)', fontsize=12)
ax.set_ylim(min(2.0, min(h['valid'] for h in hist) - 0.1), 5.0)
ax.set_title(f"{ck['args']['L']} layers, {ck['args']['C']} wide: loss while training", fontsize=13)
ax.grid(alpha=0.3)
ax.legend(fontsize=11)
fig.tight_layout()
fig.savefig(sys.argv[2])
print('wrote', sys.argv[2])
