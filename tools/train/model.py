"""GPT-2 (pre-LN, gelu_new, LN eps 1e-5, learned positions, biases, tied embeddings) with an
exact compact output head.

Compact head: the training text uses only S of the 50257 ids ("seen" ids). The model keeps
embedding rows for those S ids plus ONE shared row u. Every unseen id uses u both as input
embedding and as output row, so the model is exactly an ordinary tied GPT-2 whose unseen
wte rows all equal u. Over the S+1 compact classes the logit of u gets +log(V-S), which
makes the compact softmax equal to the full 50257-way softmax with the unseen ids pooled.
"""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class Block(nn.Module):
    def __init__(self, C, H, T, dropout):
        super().__init__()
        self.H = H
        self.ln_1 = nn.LayerNorm(C, eps=1e-5)
        self.c_attn = nn.Linear(C, 3 * C)
        self.attn_proj = nn.Linear(C, C)
        self.ln_2 = nn.LayerNorm(C, eps=1e-5)
        self.c_fc = nn.Linear(C, 4 * C)
        self.mlp_proj = nn.Linear(4 * C, C)
        self.drop = nn.Dropout(dropout)
        self.register_buffer('mask', torch.tril(torch.ones(T, T, dtype=torch.bool)).view(1, 1, T, T), persistent=False)

    def forward(self, x):
        B, T, C = x.shape
        H = self.H
        h = self.ln_1(x.float())
        qkv = self.c_attn(h)
        q, k, v = qkv.split(C, dim=2)
        q = q.view(B, T, H, C // H).transpose(1, 2)
        k = k.view(B, T, H, C // H).transpose(1, 2)
        v = v.view(B, T, H, C // H).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)).float() * (1.0 / math.sqrt(C // H))
        att = att.masked_fill(~self.mask[:, :, :T, :T], float('-inf'))
        att = F.softmax(att, dim=-1)
        att = self.drop(att)
        y = (att.to(v.dtype) @ v).transpose(1, 2).contiguous().view(B, T, C)
        x = x + self.drop(self.attn_proj(y).float())
        h = self.ln_2(x)
        h = F.gelu(self.c_fc(h).float(), approximate="tanh")  # == gelu_new
        x = x + self.drop(self.mlp_proj(h).float())
        return x


class CompactGPT2(nn.Module):
    def __init__(self, n_seen, vocab=50257, L=4, H=4, C=256, T=256, dropout=0.0):
        super().__init__()
        self.n_seen, self.vocab, self.L, self.H, self.C, self.T = n_seen, vocab, L, H, C, T
        self.emb = nn.Parameter(torch.randn(n_seen + 1, C) * 0.02)  # rows 0..S-1 seen ids, row S = u
        self.wpe = nn.Parameter(torch.randn(T, C) * 0.01)
        self.drop = nn.Dropout(dropout)
        self.h = nn.ModuleList([Block(C, H, T, dropout) for _ in range(L)])
        self.ln_f = nn.LayerNorm(C, eps=1e-5)
        for n, p in self.named_parameters():
            if n.endswith('.weight') and p.dim() == 2:
                nn.init.normal_(p, 0.0, 0.02 / math.sqrt(2 * L) if ('proj' in n) else 0.02)
            elif n.endswith('.bias') and ('c_attn' in n or 'c_fc' in n or 'proj' in n):
                nn.init.zeros_(p)
        bias = torch.zeros(n_seen + 1)
        bias[n_seen] = math.log(vocab - n_seen)
        self.register_buffer('logit_bias', bias, persistent=False)

    def forward(self, idx, targets=None):
        """idx/targets are COMPACT indices (0..S, S = any unseen id). Returns (logits, loss)
        where loss is the full-vocabulary cross entropy in nats (mean) and logits are compact."""
        B, T = idx.shape
        x = F.embedding(idx, self.emb) + self.wpe[:T]
        x = self.drop(x.float())
        for blk in self.h:
            x = blk(x)
        x = self.ln_f(x)
        logits = (x @ self.emb.t()).float() + self.logit_bias
        if targets is None:
            return logits, None
        lp = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), reduction='none')
        # a target that is an unseen id: its own probability is the pooled one / (V-S)
        lp = lp + (targets.view(-1) == self.n_seen).float() * self.logit_bias[self.n_seen]
        return logits, lp.mean()
