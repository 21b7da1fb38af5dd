"""Where the training tools find their inputs and put their outputs: every default is
relative to this repository (or the system's temp folder), never a path of one machine.

CORPUS    the TinyStories text files: $INFERSCOPE_CORPUS, else ../shared/corpus beside the
          repository (it is never committed); every tool that reads it takes --corpus DIR.
WORK      token arrays, checkpoints, logs: $INFERSCOPE_TRAIN_DIR, else
          <system temp folder>/inferscope-train (never inside the repository).
TOKENIZER GPT-2's encoder.json / vocab.bpe shipped in assets/tokenizer.
REFERENCE the vendored reference data (tests/reference), or $INFERSCOPE_REF.
"""
import os
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, '..', '..'))
CORPUS = os.environ.get('INFERSCOPE_CORPUS') or os.path.normpath(os.path.join(REPO, '..', 'shared', 'corpus'))
WORK = os.environ.get('INFERSCOPE_TRAIN_DIR') or os.path.join(tempfile.gettempdir(), 'inferscope-train')
TOKENIZER = os.path.join(REPO, 'assets', 'tokenizer')
REFERENCE = os.environ.get('INFERSCOPE_REF') or os.path.join(REPO, 'tests', 'reference')


def corpus_file(corpus_dir, name):
    """corpus_dir/name, or exit with one line naming what is missing and how to point at it."""
    path = os.path.join(corpus_dir, name)
    if not os.path.isfile(path):
        raise SystemExit(f'{path}: not found (the training text is not in the repository: '
                         f'give --corpus DIR or set INFERSCOPE_CORPUS)')
    return path
