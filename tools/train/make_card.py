#!/usr/bin/python3
"""Write MODEL_CARD.md for an exported model from the run's records.

usage: /usr/bin/python3 make_card.py MODELDIR FINAL_CKPT VERIFY_JSON EVAL_JSON
EVAL_JSON: {"valid_full_fp32_f16w": x, "valid_full_bf16": y, "window_check": {...}}
"""
import hashlib, json, os, sys
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'convert'))
from restricted_pickle import checkpoint_load  # noqa: E402 (nothing in a checkpoint runs)
import paths  # noqa: E402

d, ckpath, vpath, epath = sys.argv[1:5]
ck = checkpoint_load(ckpath)
ver = json.load(open(vpath))
ev = json.load(open(epath))
cfg = json.load(open(os.path.join(d, 'config.json')))
a = ck['args']
# the data of the last phase (its prepare.json sits beside its train.bin)
prep = json.load(open(os.path.join(a.get('data', paths.WORK), 'prepare.json')))
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
    a1 = checkpoint_load(prev['from'])['args']
    sep1 = '`<|endoftext|>` between all stories'
    schedule_txt = (
        f"Two phases, each a fixed step count from its own seed (weights init, dropout, data windows), so a "
        f"rerun repeats both. **Phase 1**: {prev['steps']:,} steps from seed {a1['seed']}, warm-up {a1['warmup']} steps "
        f"to {a1['lr']:g}, cosine decay to {a1['lr'] * a1['min_lr_frac']:g}, {sep1}. **Phase 2** resumed phase 1's "
        f"weights and AdamW state: {ck['step']:,} steps from seed {a['seed']}, warm-up {a['warmup']} steps to "
        f"{a['lr']:g}, cosine decay to {a['lr'] * a['min_lr_frac']:g}, with two changes to what the model sees "
        f"(below: blank-line story boundaries and rare ids standing in for never-seen ones).")
    if ck.get('ema'):
        last = checkpoint_load(os.path.join(os.path.dirname(ckpath), 'final.pt'))['valid_bf16_full']
        schedule_txt += (f" The exported weights are the exponential moving average of phase 2's weights "
                         f"(decay {ck['ema']} per step), chosen because it scored better on the validation text "
                         f"than the last step's weights ({ck['valid_bf16_full']:.4f} vs {last:.4f}, bf16, all windows).")
else:
    schedule_txt = (f"One run of {steps:,} steps from seed {a['seed']} (weights, dropout and the random data windows all "
                    f"follow it): linear warm-up over {a['warmup']} steps to {a['lr']:g}, then cosine decay to "
                    f"{a['lr'] * a['min_lr_frac']:g}. A fixed step count, so a rerun repeats the schedule exactly.")

bl = prep.get('blank_line_stories', 0.0)
if bl:
    sep_txt = (f"Stories separated by `<|endoftext|>`, except a seeded {bl * 100:.0f}% of boundaries (phase 2) that are a "
               f"blank line instead: the validation file separates its stories by blank lines, so a model that only "
               f"ever saw `<|endoftext|>` there is surprised by every new story (\"Once\" after a blank line cost 5.6 "
               f"nats on average before this)")
else:
    sep_txt = 'Stories separated by `<|endoftext|>`'
unk = a.get('rare_unk_count', 0)
unk_txt = ''
if unk:
    unk_txt = (f"\n\n**Never-seen ids.** Training text alone never shows `u` as a target, so a model trained on it gives "
               f"`u` almost no probability and every name it never saw costs ~20 nats. In phase 2, each occurrence of "
               f"an id seen at most {unk} times in the training text was replaced by `u` (as input and as target) "
               f"with probability {a['rare_unk_prob']} (seeded): the model learns *where* an unknown token is likely "
               f"(a new name after \"named\"), the Good-Turing idea that the mass of rare events estimates that of "
               f"unseen ones.")
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
  {sep_txt}; {prep['train_tokens']:,} training tokens.
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
input embedding of never-seen ids is `u` too).{unk_txt}

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
  embedding row and therefore one probability at each step (shared among all of them). In the validation text
  {prep['valid_unseen_frac'] * 100:.2f}% of tokens are such ids.
- Quotes and dashes are plain ASCII (see normalisation); some re-cased words are in the wrong case.
- Not suitable for anything but demonstrating how a transformer computes.
"""
open(os.path.join(d, 'MODEL_CARD.md'), 'w').write(card)
print('wrote', os.path.join(d, 'MODEL_CARD.md'))
