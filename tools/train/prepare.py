#!/usr/bin/python3
"""Tokenise the training text into uint16 arrays under paths.WORK (never the repo).

train  = tinystories-train-head.txt (original case)
       + tinystories-train-lowercase.txt[944K:]  re-cased (see recase.py-style table below)
stories are separated by <|endoftext|> (50256); one story per line in the train files.
  With --blank-line-stories F, a seeded fraction F of the boundaries is a blank line instead
  (tokens 198 198, exactly what "\n\n" between two stories tokenises to): that is the layout
  of the validation file, whose story boundaries are blank lines, so the model learns that a
  story may also begin after a blank line. The other boundaries keep <|endoftext|>.
valid  = tinystories-valid-head.txt, one stream (its story boundaries are not recoverable).
All text passes through normalise.normalise() first.
usage: /usr/bin/python3 prepare.py [--corpus DIR] [--out DIR] [--blank-line-stories F] [--seed N]
       (--corpus: default ../shared/corpus beside the repository, or $INFERSCOPE_CORPUS)
"""
import argparse, collections, json, os, sys, time
import numpy as np
import regex

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from normalise import normalise
from gpt2_bpe import Encoder, EOT
import paths

HEAD_CHARS = 944426  # the lower-case file's first ~944K chars are the train head lower-cased

WORD = regex.compile(r"[a-z]+")


def _sep_key(sep, at_start):
    if at_start:
        return '^'
    if '\n' in sep:
        s = sep.replace(' ', '').replace('\t', '')
        return s[:sep.index('\n') if False else None].split('\n')[0] + '\n'  # punctuation before the newline
    return regex.sub(r'\s+', ' ', sep)


class Recaser:
    """Word-casing table learned from cased text, keyed on (separator-before-word, word)."""

    def __init__(self, cased_text):
        low = cased_text.lower()
        assert len(low) == len(cased_text)
        self.ctx_word = collections.defaultdict(collections.Counter)
        self.word = collections.defaultdict(collections.Counter)
        self.ctx_cap = collections.defaultdict(lambda: [0, 0])
        items = []
        prev_end = 0
        for line in low.split('\n'):
            pass
        for m in WORD.finditer(low):
            s, e = m.span()
            sep = low[prev_end:s]
            key = _sep_key(sep, prev_end == 0 and s == 0)
            form = cased_text[s:e]
            items.append((key, m.group(), form))
            prev_end = e
        for key, w, form in items:
            self.ctx_word[(key, w)][form] += 1
            if key == ' ':
                self.word[w][form] += 1
        for w in list(self.word):
            pass
        # does this context capitalise a word whose mid-sentence form is lower-case?
        for key, w, form in items:
            base = self.base(w)
            if base is not None and base == w:
                self.ctx_cap[key][form[:1].isupper()] += 1

    def base(self, w):
        c = self.word.get(w)
        if c:
            return c.most_common(1)[0][0]
        return None

    def form(self, key, w):
        c = self.ctx_word.get((key, w))
        if c and sum(c.values()) >= 2:
            return c.most_common(1)[0][0]
        b = self.base(w)
        if b is None:
            alts = [cc for (k, ww), cc in self.ctx_word.items() if False]
            b = w
        if b == w:
            cnt = self.ctx_cap.get(key)
            if cnt is None:
                # unseen separator: sentence-ish if it ends with . ! ? or newline
                cap = bool(regex.search(r'[.!?\n]["\']?\s*["\']?$', key)) or key == '^'
            else:
                cap = cnt[True] > cnt[False]
            if cap:
                b = b[:1].upper() + b[1:]
        return b

    def recase(self, low):
        out = []
        prev_end = 0
        for m in WORD.finditer(low):
            s, e = m.span()
            sep = low[prev_end:s]
            key = _sep_key(sep, prev_end == 0 and s == 0)
            out.append(sep)
            out.append(self.form(key, m.group()))
            prev_end = e
        out.append(low[prev_end:])
        return ''.join(out)


def recase_lines(rc, text):
    # each line treated independently so that a story start is '^'
    return '\n'.join(rc.recase(l) if l else l for l in text.split('\n'))


def word_accuracy(pred, gold):
    a = regex.findall(r'\p{L}+', pred)
    b = regex.findall(r'\p{L}+', gold)
    assert len(a) == len(b)
    return sum(x == y for x, y in zip(a, b)) / len(a)


def tokenise_stories(enc, text, blank_frac=0.0, rng=None):
    ids = []
    # a single newline separates stories, a blank line separates paragraphs inside one
    for story in regex.split(r'(?<!\n)\n(?!\n)', text):
        story = story.strip()
        if not story:
            continue
        ids.extend(enc.encode(story))
        if blank_frac > 0 and rng.random() < blank_frac:
            ids.extend([198, 198])  # "\n\n" followed by text: two newline tokens, not 628
        else:
            ids.append(EOT)
    return ids


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--corpus', default=paths.CORPUS, help='folder with the tinystories-*.txt files')
    ap.add_argument('--out', default=paths.WORK)
    ap.add_argument('--blank-line-stories', type=float, default=0.0)
    ap.add_argument('--seed', type=int, default=1)
    args = ap.parse_args()
    out_dir = args.out
    rng = np.random.default_rng(args.seed)
    t0 = time.time()
    os.makedirs(out_dir, exist_ok=True)
    head = normalise(open(paths.corpus_file(args.corpus, 'tinystories-train-head.txt'), encoding='utf-8').read())
    lower_raw = open(paths.corpus_file(args.corpus, 'tinystories-train-lowercase.txt'), encoding='utf-8').read()
    valid = normalise(open(paths.corpus_file(args.corpus, 'tinystories-valid-head.txt'), encoding='utf-8').read())
    head_raw = open(paths.corpus_file(args.corpus, 'tinystories-train-head.txt'), encoding='utf-8').read()
    assert lower_raw[:len(head_raw)] == head_raw.lower(), 'lower-case file does not start with the head'
    rest = normalise(lower_raw[len(head_raw):])
    # held-out check of the re-caser: learn on the first 80% of head lines, test on the rest
    lines = head.split('\n')
    cut = int(len(lines) * 0.8)
    rc_test = Recaser('\n'.join(lines[:cut]) + '\n')
    gold = '\n'.join(lines[cut:])
    acc = word_accuracy(recase_lines(rc_test, gold.lower()), gold)
    print(f'recaser held-out word accuracy: {acc * 100:.2f}%')
    rc = Recaser(head)
    rest_cased = recase_lines(rc, rest)
    enc = Encoder()
    tr_head = tokenise_stories(enc, head, args.blank_line_stories, rng)
    tr = tr_head + tokenise_stories(enc, rest_cased, args.blank_line_stories, rng)
    va = enc.encode(valid)
    tr = np.array(tr, dtype=np.uint16)
    va = np.array(va, dtype=np.uint16)
    tr.tofile(f'{out_dir}/train.bin')
    va.tofile(f'{out_dir}/valid.bin')
    seen = np.unique(tr)
    with open(f'{out_dir}/recased-rest-sample.txt', 'w', encoding='utf-8') as f:
        f.write(rest_cased[:20000])
    info = dict(train_tokens=int(len(tr)), valid_tokens=int(len(va)), seen_ids=int(len(seen)),
                valid_unseen_frac=float(np.mean(~np.isin(va, seen))), recaser_acc=acc,
                head_tokens=len(tr_head),
                blank_line_stories=args.blank_line_stories, seed=args.seed)
    json.dump(info, open(f'{out_dir}/prepare.json', 'w'), indent=1)
    print(info, f'{time.time() - t0:.1f}s')


if __name__ == '__main__':
    main()
