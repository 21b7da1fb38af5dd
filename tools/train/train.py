#!/usr/bin/python3
"""Train the bundled small GPT-2 on the prepared TinyStories tokens (see README.md).

Run with jemalloc preloaded (see README.md). Writes log + checkpoints to --out (default paths.WORK: <temp folder>/inferscope-train).
"""
import argparse, json, math, os, sys, time
import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'convert'))
from restricted_pickle import checkpoint_load  # noqa: E402 (nothing in a checkpoint runs)
from new_file import new_file  # noqa: E402
from model import CompactGPT2
import paths

p = argparse.ArgumentParser()
p.add_argument('--data', default=paths.WORK)
p.add_argument('--out', default=paths.WORK)
p.add_argument('--L', type=int, default=4)
p.add_argument('--H', type=int, default=4)
p.add_argument('--C', type=int, default=256)
p.add_argument('--T', type=int, default=256)
p.add_argument('--batch', type=int, default=32)
p.add_argument('--lr', type=float, default=1.5e-3)
p.add_argument('--min-lr-frac', type=float, default=0.1)
p.add_argument('--warmup', type=int, default=200)
p.add_argument('--wd', type=float, default=0.1)
p.add_argument('--dropout', type=float, default=0.1)
p.add_argument('--steps', type=int, default=0, help='total steps; 0 = set from --minutes after calibration')
p.add_argument('--minutes', type=float, default=65.0, help='wall-clock budget; schedule also ends when it is used up')
p.add_argument('--eval-every', type=float, default=240.0, help='seconds between validation runs')
p.add_argument('--eval-stride', type=int, default=4, help='during training evaluate every k-th valid window (all at the end)')
p.add_argument('--schedule', choices=['auto', 'time'], default='auto', help='auto: steps calibrated early (or --steps); time: LR progress = elapsed/--minutes only')
p.add_argument('--resume', default='', help='checkpoint to start from (weights; optimizer state too if saved)')
p.add_argument('--rare-unk-count', type=int, default=0,
               help='ids seen at most this often in the training text may stand in for "unseen" (see --rare-unk-prob)')
p.add_argument('--rare-unk-prob', type=float, default=0.0,
               help='probability that a rare-id occurrence in a batch is replaced by the shared unseen row u')
p.add_argument('--ema', type=float, default=0.0, help='also keep an exponential moving average of the weights (decay per step)')
p.add_argument('--seed', type=int, default=1337)
p.add_argument('--threads', type=int, default=2)
args = p.parse_args()

torch.set_num_threads(args.threads)
torch.manual_seed(args.seed)
gen = np.random.default_rng(args.seed)
V = 50257

train = np.fromfile(f'{args.data}/train.bin', dtype=np.uint16).astype(np.int64)
valid = np.fromfile(f'{args.data}/valid.bin', dtype=np.uint16).astype(np.int64)
seen = np.unique(train)
S = len(seen)
full2c = np.full(V, S, dtype=np.int64)
full2c[seen] = np.arange(S)
train_c = torch.from_numpy(full2c[train])
# Rare ids as stand-ins for unseen ones: the training text never shows an unseen id, so without
# this the model learns p(u) ~ 0 and every new name in other text costs ~20 nats. Replacing a
# seeded fraction of the rarest ids' occurrences (input and target alike) by u teaches the model
# in which contexts a never-seen token is likely (Good-Turing: novel mass ~ rare-token mass).
counts = np.bincount(train, minlength=V)
rare_c = torch.from_numpy(counts[train] <= args.rare_unk_count) if args.rare_unk_count > 0 else None
nwin = (len(valid) - 1) // args.T
vx = torch.from_numpy(full2c[valid[:nwin * args.T]].reshape(nwin, args.T))
vy = torch.from_numpy(full2c[valid[1:nwin * args.T + 1]].reshape(nwin, args.T))

model = CompactGPT2(S, V, args.L, args.H, args.C, args.T, args.dropout)
resume = checkpoint_load(args.resume) if args.resume else None
if resume is not None:
    assert np.array_equal(np.asarray(resume['seen']), seen)
    model.load_state_dict(resume['model'])
ema = {k: v.detach().clone().float() for k, v in model.state_dict().items()} if args.ema > 0 else None
n_full = V * args.C + sum(p.numel() for n, p in model.named_parameters() if n != 'emb')
decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
nodecay = [p for n, p in model.named_parameters() if p.dim() < 2]
opt = torch.optim.AdamW([{'params': decay, 'weight_decay': args.wd}, {'params': nodecay, 'weight_decay': 0.0}],
                        lr=args.lr, betas=(0.9, 0.95), eps=1e-8)

if resume is not None and 'opt' in resume:
    opt.load_state_dict(resume['opt'])
logf = open(f'{args.out}/log.txt', 'a')


def log(msg):
    line = f'{time.strftime("%H:%M:%S", time.gmtime())} {msg}'
    print(line, flush=True)
    logf.write(line + '\n')
    logf.flush()


log(f'args {json.dumps(vars(args))}')
log(f'train tokens {len(train)}, valid tokens {len(valid)} ({nwin} windows of {args.T}), seen ids {S}, '
    f'full-model params {n_full} ({n_full / 1e6:.2f} M)')


def evaluate(bf16=True, bs=16, stride=1):
    model.eval()
    tot = 0.0
    ex, ey = vx[::stride].contiguous(), vy[::stride].contiguous()
    with torch.no_grad(), torch.autocast('cpu', dtype=torch.bfloat16, enabled=bf16):
        for i in range(0, len(ex), bs):
            _, l = model(ex[i:i + bs], ey[i:i + bs])
            tot += l.item() * ex[i:i + bs].shape[0]
    model.train()
    return tot / len(ex)


def save(path, step, extra):
    with new_file(path) as f:
        torch.save({'model': model.state_dict(), 'opt': opt.state_dict(), 'seen': seen, 'prev': prev, 'args': vars(args),
                    'step': step, 'n_params_full': n_full, **extra}, f)


def lr_at(prog, step):
    if step < args.warmup:
        return args.lr * (step + 1) / args.warmup
    c = 0.5 * (1 + math.cos(math.pi * min(prog, 1.0)))
    return args.lr * (args.min_lr_frac + (1 - args.min_lr_frac) * c)


prev = {'steps': 0, 'tokens': 0, 'seconds': 0.0, 'hist': []}
if resume is not None:
    pv = resume.get('prev', {'steps': 0, 'tokens': 0, 'seconds': 0.0, 'hist': []})
    prev = {'steps': pv['steps'] + resume['step'], 'tokens': pv['tokens'] + resume['tokens'],
            'seconds': pv['seconds'] + resume['elapsed'], 'hist': pv['hist'] + resume['hist'],
            'from': args.resume}
    log(f'resumed from {args.resume}: earlier phases {prev["steps"]} steps, {prev["tokens"]} tokens, '
        f'{prev["seconds"] / 60:.1f} min')
budget = args.minutes * 60
max_steps = args.steps if args.steps > 0 else 10 ** 9
t0 = time.time()
last_eval = t0
best = float('inf')
tokens = 0
step = 0
loss_acc, n_acc = 0.0, 0
time_dominated = False
hist = []
while True:
    elapsed = time.time() - t0
    if args.steps == 0 and step == 60 and args.schedule == 'auto':
        rate = 50 / (elapsed - t10)
        max_steps = int(budget * rate * 0.97)
        log(f'calibrated: {rate:.2f} steps/s -> max_steps {max_steps}')
    if step == 10:
        t10 = elapsed
    # progress from the later of step- and time-based fraction, so the decay always completes in time
    ps = step / max_steps if args.schedule == 'auto' else 0.0
    pt = elapsed / budget if (args.steps == 0 or args.schedule == 'time') else 0.0
    if pt > ps and step > args.warmup and not time_dominated:
        time_dominated = True
        log('note: the time budget now drives the schedule')
    prog = max(ps, pt) if step > args.warmup else 0.0
    done = prog >= 1.0
    if done or time.time() - last_eval >= args.eval_every:
        vl = evaluate(stride=args.eval_stride)
        tl = loss_acc / max(n_acc, 1)
        loss_acc, n_acc = 0.0, 0
        hist.append({'step': step, 'min': elapsed / 60, 'tokens': tokens, 'train': tl, 'valid': vl})
        log(f'EVAL(windows::{args.eval_stride}) step {step} min {elapsed / 60:.1f} tokens {tokens} train {tl:.4f} valid {vl:.4f} '
            f'lr {lr_at(prog, step):.2e} tok/s {tokens / max(elapsed, 1e-9):.0f}')
        json.dump(hist, open(f'{args.out}/history.json', 'w'), indent=0)
        extra = {'valid_bf16': vl, 'tokens': tokens, 'elapsed': elapsed, 'hist': hist}
        save(f'{args.out}/ckpt.pt', step, extra)
        if vl < best:
            best = vl
            save(f'{args.out}/best.pt', step, extra)
        last_eval = time.time()
    if done:
        break
    lr = lr_at(prog, step)
    for g in opt.param_groups:
        g['lr'] = lr
    ix = gen.integers(0, len(train_c) - args.T - 1, size=args.batch)
    w = torch.stack([train_c[i:i + args.T + 1] for i in ix])
    if rare_c is not None:
        rare = torch.stack([rare_c[i:i + args.T + 1] for i in ix])
        hit = rare & torch.from_numpy(gen.random(w.shape) < args.rare_unk_prob)
        w = torch.where(hit, torch.full_like(w, S), w)
    x, y = w[:, :-1].contiguous(), w[:, 1:].contiguous()
    with torch.autocast('cpu', dtype=torch.bfloat16):
        _, loss = model(x, y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    if ema is not None:
        with torch.no_grad():
            for k, v in model.state_dict().items():
                ema[k].lerp_(v.float(), 1.0 - args.ema)
    step += 1
    tokens += args.batch * args.T
    loss_acc += loss.item()
    n_acc += 1
    if step % 50 == 0:
        el = time.time() - t0
        log(f'step {step} loss {loss.item():.4f} lr {lr:.2e} min {el / 60:.1f} tok/s {tokens / el:.0f}')

train_minutes = (time.time() - t0) / 60
save(f'{args.out}/final.pt', step, {'valid_bf16_sub': hist[-1]['valid'], 'tokens': tokens,
                                     'elapsed': time.time() - t0, 'hist': hist})
vl_full = evaluate(stride=1)
log(f'FINAL step {step} tokens {tokens} train-minutes {train_minutes:.1f} valid(bf16, every {args.eval_stride}th window) '
    f'{hist[-1]["valid"]:.4f} valid(bf16, all {nwin} windows) {vl_full:.4f} best-sub {best:.4f}')
save(f'{args.out}/final.pt', step, {'valid_bf16_sub': hist[-1]['valid'], 'valid_bf16_full': vl_full, 'tokens': tokens,
                                     'elapsed': time.time() - t0, 'hist': hist})
if ema is not None:
    model.load_state_dict(ema)
    vl_ema = evaluate(stride=1)
    log(f'FINAL-EMA decay {args.ema} valid(bf16, all {nwin} windows) {vl_ema:.4f}')
    save(f'{args.out}/final-ema.pt', step, {'valid_bf16_full': vl_ema, 'tokens': tokens, 'ema': args.ema,
                                             'elapsed': time.time() - t0, 'hist': hist})
