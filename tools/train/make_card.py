#!/usr/bin/python3
"""Write MODEL_CARD.md for an exported model from the run's records.

usage: /usr/bin/python3 make_card.py MODELDIR FINAL_CKPT VERIFY_JSON EVAL_JSON
EVAL_JSON: {"valid_full_fp32_f16w": x, "valid_full_bf16": y, "window_check": {...}}
"""
import hashlib, json, os, sys
import torch

d, ckpath, vpath, epath = sys.argv[1:5]
ck = torch.load(ckpath, map_location='cpu')
ver = json.load(open(vpath))
ev = json.load(open(epath))
cfg = json.load(open(os.path.join(d, 'config.json')))
prep = json.load(open('/tmp/inferscope-train/prepare.json'))
a = ck['args']
prev = ck.get('prev', {'steps': 0, 'tokens': 0, 'seconds': 0.0})
steps = prev['steps'] + ck['step']
tokens = prev['tokens'] + ck['tokens']
minutes = (prev['seconds'] + ck['elapsed']) / 60
size = os.path.getsize(os.path.join(d, 'model.safetensors'))
sha = hashlib.sha256(open(os.path.join(d, 'model.safetensors'), 'rb').read()).hexdigest()
nparam = ck['n_params_full']
L, H, C, T = cfg['n_layer'], cfg['n_head'], cfg['n_embd'], cfg['n_positions']
S = prep['seen_ids']
dropout_txt = f"dropout {a['dropout']} (embeddings, attention weights, both residual branches)" if a['dropout'] else 'no dropout'
if prev['steps']:
    schedule_txt = (f"Two phases (the first was cut short on a machine shared with heavy build jobs): phase 1 "
                    f"{prev['steps']} steps; phase 2 resumed its weights with a fresh optimizer, warm-up {a['warmup']} "
                    f"steps to {a['lr']:g}, cosine decay to {a['lr'] * a['min_lr_frac']:g}. Seed of the last phase: {a['seed']}.")
else:
    schedule_txt = (f"One run of {steps:,} steps from seed {a['seed']} (weights, dropout and the random data windows all "
                    f"follow it): linear warm-up over {a['warmup']} steps to {a['lr']:g}, then cosine decay to "
                    f"{a['lr'] * a['min_lr_frac']:g}. A fixed step count, so a rerun repeats the schedule exactly.")

top5 = '\n'.join(f'| {i + 1} | `{json.dumps(t)}` | {tid} | {p:.4f} |' for i, (t, tid, p) in enumerate(ver['top5']))
samples = '\n\n'.join(f'**seed {s["seed"]}**\n\n```text\n{s["text"]}\n```' for s in ver['samples'])

card = f"""# {os.path.basename(os.path.normpath(d))} — a tiny GPT-2 trained on TinyStories

A very small GPT-2 bundled with inferscope so that inference can be visualised on any machine.
Files: `model.safetensors` (F16, {size:,} bytes, Hugging Face `GPT2Model` tensor names, Conv1D layout,
no `lm_head` — it is tied to `wte`) and `config.json` (Hugging Face `gpt2` style).
sha256 of `model.safetensors`: `{sha}` (tests/test_bundled_model.sh checks that this card
describes the file that ships).

## Architecture

Exactly GPT-2: pre-LayerNorm blocks, tanh GELU (`gelu_new`), LayerNorm eps 1e-5, learned position
embeddings, biases on every linear layer and LayerNorm, output head tied to the token embedding,
the real GPT-2 byte-level BPE tokenizer (vocabulary 50,257; `<|endoftext|>` = 50256).

| | |
|---|---|
| layers | {L} |
| heads | {H} (head size {C // H}) |
| embedding width | {C} (MLP {4 * C}) |
| context (n_positions) | {T} |
| parameters | {nparam:,} ({nparam / 1e6:.2f} M; {50257 * C:,} of them in `wte`) |
| file | {size / 1e6:.1f} MB, float16 |

## Data and licence

Trained on text from **TinyStories** (Ronen Eldan and Yuanzhi Li, 2023, "TinyStories: How Small Can
Language Models Be and Still Speak Coherent English?", arXiv:2305.07759), dataset licence reported as
**CDLA-Sharing-1.0**. This model is derived from that data; credit the TinyStories authors when you
use or redistribute it.

- Training text: the first ~944 K characters of the TinyStories *train* split in original case, plus
  the following ~3.25 M characters of the train split, which were only available lower-cased and were
  **re-cased** by a word-casing table learned from the cased part (keyed on the punctuation before each
  word; sentence starts and "I" follow from it; {prep['recaser_acc'] * 100:.1f}% of words correct in a
  held-out test on cased text). Some re-casing errors remain (mostly names that never occur cased).
  Stories separated by `<|endoftext|>`; {prep['train_tokens']:,} training tokens.
- **Normalisation**: the dataset contains double-encoded ("mojibake") punctuation. Before training and
  before evaluation, `â€™`/`â€˜`/`’`/`‘` → `'`, `â€œ`/`â€`/`“`/`”`/`«`/`»` → `"`, `â€“`/`â€”`/`–`/`—` → `-`,
  `â€¦`/`…` → `...` (and other 2-character UTF-8-as-cp1252 sequences repaired). The model therefore
  writes plain ASCII quotes and dashes. Code: `tools/train/normalise.py`.
- Held out: the first stories of the TinyStories *validation* split (`tinystories-valid-head.txt`,
  {prep['valid_tokens']:,} tokens after normalisation) were never trained on.

## Training

`tools/train/` (see its README for the exact commands). AdamW (β = 0.9/0.95, weight decay {a['wd']} on
matrices/embeddings), batch {a['batch']} × {T} tokens, gradient clipping 1.0, {dropout_txt}, bf16 autocast
for matrix multiplies (LayerNorm/softmax/GELU/residual/loss in fp32), exact compact output head
(see below). {schedule_txt}

| | |
|---|---|
| optimizer steps | {steps:,} |
| tokens seen | {tokens:,} (~{tokens / prep['train_tokens']:.1f} passes over the training text) |
| wall-clock training time | {minutes:.0f} min on 2 CPU cores (torch 1.13, 2 threads, bf16) |

**Compact output head.** The training text uses only {S:,} distinct token ids. During training the
model keeps embedding rows for those ids plus one shared row `u` (its logit gets `+log(50257-{S})`), which
is exactly the full 50,257-way softmax of a GPT-2 whose remaining {50257 - S:,} rows all equal `u`. At
export `u` was written into every never-seen row of `wte`, so the file is an ordinary tied GPT-2 (the
input embedding of never-seen ids is `u` too).

## Validation loss

Measured on the normalised `tinystories-valid-head.txt`, tokenised as **one stream**, cut into
**non-overlapping {T}-token windows** ({(prep['valid_tokens'] - 1) // T} windows; every position
predicted with the context available inside its window), mean cross-entropy over the full vocabulary:

- **{ev['valid_full_fp32_f16w']:.4f} nats/token** (float32 forward of the exported float16 weights)
- {ev['valid_full_bf16']:.4f} nats/token as measured by the training program (bf16 autocast)
{ev.get('inferscope_eval_line', '')}
- independent float64 numpy forward reading only `model.safetensors`, on windows {ver['windows']}:
  {ver['loss_windows']:.4f}; the training-time model on the same windows: {ev['window_check']['train_model']:.4f}.

{ev.get('stride_line', 'A sliding window (stride 128) would give a somewhat lower number.')}

## Next token after "Once upon a"

| rank | token | id | probability |
|---|---|---|---|
{top5}

## Samples

Prompt `Once upon a time`, temperature {ev['temperature']}, top-k {ev['top_k']}, up to {ev['sample_tokens']} new tokens (stops at
`<|endoftext|>`), sampled by `tools/train/verify.py` (float64 numpy forward; `numpy.random.default_rng(seed)`).

{samples}

## Limits

- A tiny model: stories are mostly grammatical but wander, forget names and contradict themselves.
- Only simple English children's stories; anything else (code, other languages, facts) is nonsense.
- {50257 - S:,} of the 50,257 token ids never occurred in training (only {S:,} did); they all share one
  embedding row and therefore one tiny probability at every step. In the validation text
  {prep['valid_unseen_frac'] * 100:.2f}% of tokens are such ids.
- Quotes and dashes are plain ASCII (see normalisation); some re-cased words are in the wrong case.
- Not suitable for anything but demonstrating how a transformer computes.
"""
open(os.path.join(d, 'MODEL_CARD.md'), 'w').write(card)
print('wrote', os.path.join(d, 'MODEL_CARD.md'))
