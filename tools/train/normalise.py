#!/usr/bin/python3
"""Mojibake repair / punctuation normalisation for the TinyStories text.

The dataset holds curly quotes that were UTF-8 encoded twice (read back as cp1252), e.g.
'â€™' for U+2019. We map them -- and the genuine curly quotes/dashes -- to plain ASCII.
The same function is used for training text and for the validation text.

CLI:  /usr/bin/python3 normalise.py IN OUT     (writes a normalised copy; OUT e.g. under /tmp)
"""
import sys

# longer sequences first: 'â€' alone (the right double quote, whose last byte 0x9D has no
# cp1252 character and was dropped) must be handled after all 3-character forms.
_TABLE = [
    ('â€™', "'"), ('â€˜', "'"), ('â€œ', '"'), ('â€\x9d', '"'),
    ('â€“', '-'), ('â€”', '-'), ('â€¦', '...'), ('â€¢', '*'),
    ('â€Š', ' '), ('â€‹', ''), ('â€‰', ' '), ('â€¯', ' '),
    ('â€', '"'),
    # genuine typographic characters
    ('\u2019', "'"), ('\u2018', "'"), ('\u201c', '"'), ('\u201d', '"'),
    ('\u2013', '-'), ('\u2014', '-'), ('\u2026', '...'), ('\u00a0', ' '),
    ('\u00ab', '"'), ('\u00bb', '"'),
    ('\u200a', ' '), ('\u200b', ''), ('\u2009', ' '), ('\u202f', ' '),
]


def _fix_latin(text):
    """Repair other 2-character mojibake (UTF-8 read as cp1252/latin-1), e.g. 'Ã©' -> 'é'."""
    out = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c in 'ÃÂÅÆ' and i + 1 < n or c in 'ãâåæ' and i + 1 < n and ord(text[i + 1]) >= 0x80:
            pair = text[i:i + 2]
            for cand in (pair, pair[0].upper() + pair[1]):
                try:
                    fixed = cand.encode('cp1252').decode('utf-8')
                except (UnicodeEncodeError, UnicodeDecodeError):
                    continue
                if len(fixed) == 1:
                    if cand != pair:
                        fixed = fixed.lower()
                    if fixed == '\u00a0':
                        fixed = ' '
                    out.append(fixed)
                    i += 2
                    break
            else:
                out.append(c)
                i += 1
            continue
        out.append(c)
        i += 1
    return ''.join(out)


def normalise(text):
    for a, b in _TABLE:
        if a in text:
            text = text.replace(a, b)
    return _fix_latin(text)


if __name__ == '__main__':
    if len(sys.argv) != 3:
        print(__doc__)
        sys.exit(2)
    with open(sys.argv[1], encoding='utf-8') as f:
        t = f.read()
    with open(sys.argv[2], 'w', encoding='utf-8') as f:
        f.write(normalise(t))
