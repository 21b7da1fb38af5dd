#!/usr/bin/python3
"""Build the bundled model's memorisation index: the 32-bit fingerprints of every distinct
n-token window (n = 8) of the exact token streams the model was trained on.

The streams are rebuilt exactly as prepare.py made them (normalise, re-case the lower-case
part, tokenise story by story): phase 1 separated every story by <|endoftext|>; phase 2
(`prepare.py --blank-line-stories 0.5 --seed 1`) separated a seeded half of them by a blank
line (tokens 198 198). Both streams are indexed, so windows across either kind of story
boundary count as seen. The file holds fingerprints only (no ids, no text); the format and
the hash are defined in engine/ngram_index.h, and `--selftest` checks the hash against the
vector that tests/test_ngram_index.c checks on the C side.

usage: /usr/bin/python3 build_ngram_index.py [--corpus DIR] [--out FILE] [--card FILE] [--n 8]
       /usr/bin/python3 build_ngram_index.py --selftest
--corpus defaults to ../shared/corpus beside the repository; --out to
assets/models/stories16m/ngram-index.bin, --card to NGRAM-INDEX.md beside it (measured
false-hit rates and seen shares). Deterministic: the same corpus gives the same
bytes. Needs Debian's python3-numpy and python3-regex.
"""
import argparse, hashlib, os, struct, sys, time
import numpy as np
import regex

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, '..', '..'))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, '..', 'convert'))
from new_file import new_file  # noqa: E402 (created new beside the name, renamed)

SEED = 0x696E666572736370  # "inferscp": the hash's starting value (any fixed value works)
HEAD_FILE, LOWER_FILE = 'tinystories-train-head.txt', 'tinystories-train-lowercase.txt'
M64 = np.uint64(0xFFFFFFFFFFFFFFFF)

# The committed test vector: fingerprint of these ids with SEED (tests/test_ngram_index.c).
TEST_IDS = [7454, 2402, 257, 640, 11, 612, 373, 257]
TEST_FP = 0xF583F7E7


def splitmix64(x):
    """numpy uint64 array in, uint64 array out (wraps modulo 2**64 like the C code)."""
    with np.errstate(over='ignore'):
        x = x + np.uint64(0x9E3779B97F4A7C15)
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))


def fingerprints(ids, n):
    """Fingerprint of every window ids[i:i+n] (see ngram_fingerprint in engine/ngram_index.h)."""
    ids = np.asarray(ids, dtype=np.uint64)
    m = len(ids) - n + 1
    if m <= 0:
        return np.zeros(0, dtype=np.uint32)
    h = np.full(m, SEED, dtype=np.uint64)
    for j in range(n):
        h = splitmix64(h ^ ids[j:j + m])
    return (h >> np.uint64(32)).astype(np.uint32)


def training_streams(corpus):
    """The two token streams of tools/train/prepare.py (phase 1 and phase 2 settings)."""
    from normalise import normalise
    from gpt2_bpe import Encoder, EOT
    from prepare import Recaser, recase_lines
    head_raw = open(os.path.join(corpus, HEAD_FILE), encoding='utf-8').read()
    lower_raw = open(os.path.join(corpus, LOWER_FILE), encoding='utf-8').read()
    assert lower_raw[:len(head_raw)] == head_raw.lower(), 'lower-case file does not start with the head'
    head = normalise(head_raw)
    rest_cased = recase_lines(Recaser(head), normalise(lower_raw[len(head_raw):]))
    enc = Encoder()
    # prepare.tokenise_stories, with each story encoded once and both boundary choices kept
    stories = []
    for text in (head, rest_cased):
        for story in regex.split(r'(?<!\n)\n(?!\n)', text):
            story = story.strip()
            if story:
                stories.append(enc.encode(story))
    rng = np.random.default_rng(1)  # prepare.py --seed 1: one rng.random() per story, in order
    phase1, phase2 = [], []
    for ids in stories:
        phase1.extend(ids)
        phase1.append(EOT)
        phase2.extend(ids)
        if rng.random() < 0.5:
            phase2.extend([198, 198])
        else:
            phase2.append(EOT)
    return phase1, phase2


def write_index(path, n, fps, source_tokens):
    fps = np.unique(fps)  # sorted, strictly increasing
    header = b'ISNGRAM1' + struct.pack('<IIIIQQQ', 1, n, 32, 1, SEED, len(fps), source_tokens)
    assert len(header) == 48
    with new_file(path) as f:
        f.write(header)
        f.write(fps.astype('<u4').tobytes())
    return len(fps)


def fingerprint_int(ids):
    """The same hash with Python integers, one window: a second path to check numpy's."""
    h = SEED
    for i in ids:
        x = (h ^ i) + 0x9E3779B97F4A7C15 & 0xFFFFFFFFFFFFFFFF
        x = (x ^ x >> 30) * 0xBF58476D1CE4E5B9 & 0xFFFFFFFFFFFFFFFF
        x = (x ^ x >> 27) * 0x94D049BB133111EB & 0xFFFFFFFFFFFFFFFF
        h = x ^ x >> 31
    return h >> 32


def seen_share(ids, index, n):
    """Share of tokens whose n-window ending at them is in the index (as ngram_mark in C)."""
    if len(ids) == 0:
        return 0.0
    return float(np.isin(fingerprints(ids, n), index).sum()) / len(ids)


def measure(corpus, index, n, stream_ids):
    """The numbers of the card: false hits on random sequences, shares on known texts."""
    from normalise import normalise
    from gpt2_bpe import Encoder
    enc = Encoder()
    rng = np.random.default_rng(20261203)
    m = 1_000_000
    uni = rng.integers(0, 50257, size=(m, n))
    seen_ids = np.unique(np.asarray(stream_ids))
    sub = seen_ids[rng.integers(0, len(seen_ids), size=(m, n))]
    out = {}
    for key, windows in (('random ids (uniform over 50,257)', uni), ('random ids (uniform over the {:,} ids of the training text)'.format(len(seen_ids)), sub)):
        h = np.full(m, SEED, dtype=np.uint64)
        for j in range(n):
            h = splitmix64(h ^ windows[:, j].astype(np.uint64))
        hits = int(np.isin((h >> np.uint64(32)).astype(np.uint32), index).sum())
        out[key] = (hits, m)
    head = normalise(open(os.path.join(corpus, HEAD_FILE), encoding='utf-8').read())
    first = '\n'.join(head.split('\n')[:200])  # the first stories of the training text, verbatim
    words = first.split(' ')
    rng.shuffle(words)
    valid = normalise(open(os.path.join(corpus, 'tinystories-valid-head.txt'), encoding='utf-8').read())
    shares = {}
    for key, text in (('the first 200 lines of the training text', first),
                      ('the same text, words shuffled', ' '.join(words)),
                      ('the validation text (tinystories-valid-head.txt, never trained on)', valid)):
        ids = enc.encode(text)
        shares[key] = (seen_share(ids, index, n), len(ids))
    return out, shares


def write_card(path, index_path, n, count, n_windows, streams, sha, fp, shares):
    expected = count / 2 ** 32
    lines = [
        '# ngram-index.bin — what the bundled model has seen, as fingerprints',
        '',
        'Made by `tools/train/build_ngram_index.py` from `../shared/corpus` (never committed);',
        'the same corpus gives the same bytes. Read by `engine/ngram_index.c` (`inferscope novelty`,',
        "the window's memorisation marks). Format and hash: `engine/ngram_index.h`.",
        '',
        '| | |', '|---|---|',
        f'| sha256 | `{sha}` |',
        f'| bytes | {os.path.getsize(index_path):,} |',
        f'| n (tokens per window) | {n} |',
        f'| fingerprints | {count:,} distinct, 32 bits each, sorted |',
        f'| windows indexed | {n_windows:,} (phase-1 stream {streams[0]:,} tokens + phase-2 stream {streams[1]:,} tokens) |',
        '| hash | splitmix64 chain over the ids from a fixed seed, top 32 bits |',
        '',
        '## What was indexed',
        '',
        'Exactly the token streams the model was trained on (`prepare.py`: normalised text, the',
        'lower-case part re-cased, stories tokenised one by one): phase 1 separated every story by',
        '`<|endoftext|>`, phase 2 a seeded half of them by a blank line. Every 8-token window of both.',
        '',
        '## False hits (measured, 1,000,000 random windows each)',
        '',
        f'A window that is not in the training text still matches with probability about',
        f'fingerprints / 2^32 = {expected:.2e}:',
        '',
        '| random windows | hits | rate |', '|---|---:|---:|',
    ]
    for k, (h, m) in fp.items():
        lines.append(f'| {k} | {h} | {h / m:.2e} |')
    lines += ['', '## Seen share of some texts (tokens that end a seen 8-token window)', '',
              '| text | tokens | seen |', '|---|---:|---:|']
    for k, (sh, nt) in shares.items():
        lines.append(f'| {k} | {nt:,} | {100 * sh:.1f} % |')
    lines += ['',
              '## Can the text be read back out of it?',
              '',
              'Not directly: the file holds no token ids and no text, only 32-bit hashes of 8-token',
              'windows, and a hash cannot be inverted. But it answers membership questions, so it is',
              'not one-way in the strong sense. An attacker who already has 8 tokens of a story can try',
              'every possible next token: besides the true one, about',
              f'{50257 * expected:.0f} of all 50,257 ids pass each step by chance, and about',
              f'{8704 * expected:.1f} of the 8,704 ids the model was trained on (the weights reveal',
              'which ids those are: every unseen embedding row is the same). So a blind walk soon',
              'branches, but one that ranks the candidates with a language model of the same text (the',
              'bundled model itself) can follow long stretches. The index adds little to what the',
              'model already gives away: the model reproduces training phrases on its own, which is',
              'exactly what the meter shows. 32 bits is the trade-off chosen: a longer key would make',
              'the walk exact, a shorter one would make the meter wrong too often. The training text',
              'is TinyStories (Eldan & Li, 2023; CDLA-Sharing-1.0), which is public.', '']
    with new_file(path) as f:
        f.write('\n'.join(lines).encode())


def selftest():
    fp = int(fingerprints(TEST_IDS, len(TEST_IDS))[0])
    fi = fingerprint_int(TEST_IDS)
    print(f'fingerprint of {TEST_IDS} with seed {SEED:#x}: numpy {fp:#010x}, int {fi:#010x}')
    if fp != TEST_FP or fi != TEST_FP:
        print(f'selftest FAILED: want {TEST_FP:#010x} (the value tests/test_ngram_index.c checks)')
        return 1
    print('selftest ok')
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--corpus', default=os.path.join(REPO, '..', 'shared', 'corpus'))
    ap.add_argument('--out', default=os.path.join(REPO, 'assets', 'models', 'stories16m', 'ngram-index.bin'))
    ap.add_argument('--n', type=int, default=8)
    ap.add_argument('--card', default=os.path.join(REPO, 'assets', 'models', 'stories16m', 'NGRAM-INDEX.md'),
                    help="the index's card with measured false-hit rates ('' = none)")
    ap.add_argument('--selftest', action='store_true')
    args = ap.parse_args()
    if args.selftest:
        return selftest()
    t0 = time.time()
    p1, p2 = training_streams(args.corpus)
    fps = np.concatenate([fingerprints(p1, args.n), fingerprints(p2, args.n)])
    count = write_index(args.out, args.n, fps, len(p2))
    sha = hashlib.sha256(open(args.out, 'rb').read()).hexdigest()
    if args.card:
        index = np.unique(fps)
        fp, shares = measure(args.corpus, index, args.n, p1)
        write_card(args.card, args.out, args.n, count, len(fps), (len(p1), len(p2)), sha, fp, shares)
        print(f'{args.card}: written')
    print(f'{args.out}: n={args.n} windows={len(fps)} distinct fingerprints={count} '
          f'bytes={os.path.getsize(args.out)} stream tokens={len(p1)}/{len(p2)} '
          f'sha256={sha} ({time.time() - t0:.1f} s)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
