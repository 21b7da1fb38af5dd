#!/usr/bin/python3
"""GPT-2 byte-level BPE encoder/decoder (written for inferscope's training tools).

Reads encoder.json / vocab.bpe from the repository's assets/tokenizer, else from the vendored
reference (tests/reference/tokenizer). `python3 gpt2_bpe.py --selftest` checks every case in
the reference's tok_public.jsonl.
"""
import json, os, sys
import regex

PAT = regex.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""")
EOT = 50256
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import paths  # noqa: E402
CANDIDATES = [paths.TOKENIZER, os.path.join(paths.REFERENCE, 'tokenizer')]


def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


class Encoder:
    def __init__(self, tokdir=None):
        if tokdir is None:
            for d in CANDIDATES:
                if os.path.exists(os.path.join(d, 'encoder.json')) and os.path.exists(os.path.join(d, 'vocab.bpe')):
                    tokdir = d
                    break
        with open(os.path.join(tokdir, 'encoder.json'), encoding='utf-8') as f:
            self.encoder = json.load(f)
        self.decoder = {v: k for k, v in self.encoder.items()}
        with open(os.path.join(tokdir, 'vocab.bpe'), encoding='utf-8') as f:
            lines = f.read().split('\n')
        merges = [tuple(l.split()) for l in lines[1:] if l.strip()]
        self.ranks = {m: i for i, m in enumerate(merges)}
        self.b2u = bytes_to_unicode()
        self.u2b = {v: k for k, v in self.b2u.items()}
        self.cache = {}

    def bpe(self, token):
        if token in self.cache:
            return self.cache[token]
        word = list(token)
        while len(word) > 1:
            best, bi = None, None
            for i in range(len(word) - 1):
                r = self.ranks.get((word[i], word[i + 1]))
                if r is not None and (best is None or r < best):
                    best, bi = r, i
            if best is None:
                break
            a, b = word[bi], word[bi + 1]
            new = []
            i = 0
            while i < len(word):
                if i < len(word) - 1 and word[i] == a and word[i + 1] == b:
                    new.append(a + b)
                    i += 2
                else:
                    new.append(word[i])
                    i += 1
            word = new
        if len(self.cache) < 500000:
            self.cache[token] = word
        return word

    def encode(self, text):
        ids = []
        for piece in PAT.findall(text):
            u = ''.join(self.b2u[b] for b in piece.encode('utf-8'))
            ids.extend(self.encoder[t] for t in self.bpe(u))
        return ids

    def decode_bytes(self, ids):
        return bytes(self.u2b[c] for i in ids for c in self.decoder[i])

    def decode(self, ids):
        return self.decode_bytes(ids).decode('utf-8', errors='replace')


def selftest():
    enc = Encoder()
    path = os.path.join(paths.REFERENCE, 'tokenizer', 'tok_public.jsonl')
    n = bad = 0
    with open(path, encoding='utf-8') as f:
        for line in f:
            rec = json.loads(line)
            n += 1
            got = enc.encode(rec['text'])
            if got != rec['ids'] or enc.decode(got) != rec['decoded']:
                bad += 1
                print('MISMATCH', rec['index'], rec['case'], got[:20], rec['ids'][:20])
    print(f'gpt2_bpe selftest: {n - bad}/{n} cases match')
    return bad == 0


if __name__ == '__main__':
    if '--selftest' in sys.argv:
        sys.exit(0 if selftest() else 1)
    enc = Encoder()
    text = sys.stdin.read()
    print(enc.encode(text))
