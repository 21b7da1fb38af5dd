#!/usr/bin/python3
"""Print the run record (validation-loss table + ASCII loss curve) from a final checkpoint."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'convert'))
from restricted_pickle import checkpoint_load  # noqa: E402 (nothing in a checkpoint runs)

ck = checkpoint_load(sys.argv[1])
prev = ck.get('prev', {'steps': 0, 'tokens': 0, 'seconds': 0.0, 'hist': []})
rows = [('1', h) for h in prev.get('hist', [])]
off_min, off_tok = prev['seconds'] / 60, prev['tokens']
this_phase = '2' if rows else '1'  # a resumed run is phase 2
rows += [(this_phase, dict(h, min=h['min'] + off_min, tokens=h['tokens'] + off_tok)) for h in ck['hist']]
print('| phase | minutes | tokens | train loss (since last eval) | valid loss (bf16, every 4th window) |')
print('|---|---:|---:|---:|---:|')
for ph, h in rows:
    print(f"| {ph} | {h['min']:.1f} | {h['tokens']:,} | {h['train']:.3f} | {h['valid']:.3f} |")
print('\n```text\nvalid loss vs minutes (each # = 0.05 nats above 2.0)')
for ph, h in rows:
    if h['valid'] < 6:
        print(f"{h['min']:6.1f} min {h['valid']:.3f} " + '#' * int(max(0, h['valid'] - 2.0) / 0.05))
print('```')
