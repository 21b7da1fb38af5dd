/* model_vocab.c — the vocabulary choice of model_vocab.h: look for tokenizer files in the
 * model folder first, then fall back to GPT-2's tokenizer or to ids only. */
#include "model_vocab.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static int exists(const char *dir, const char *name, char *path, size_t cap) {
    snprintf(path, cap, "%s/%s", dir, name);
    struct stat st;
    return stat(path, &st) == 0;
}

/* "50,304": counts the way `info` prints them. */
static void commas(char *buf, size_t cap, size_t v) {
    char raw[32];
    int n = snprintf(raw, sizeof raw, "%zu", v), o = 0;
    for (int i = 0; i < n && (size_t)o + 2 < cap; i++) {
        if (i && (n - i) % 3 == 0) buf[o++] = ',';
        buf[o++] = raw[i];
    }
    buf[o] = 0;
}

static void describe(char *desc, size_t cap, const char *what, size_t n, int rows) {
    char a[32], b[32];
    commas(a, sizeof a, n);
    commas(b, sizeof b, (size_t)rows);
    if ((size_t)rows == n)
        snprintf(desc, cap, "%s, %s tokens", what, a);
    else
        snprintf(desc, cap, "%s, %s tokens of %s rows (%zu padding rows, never sampled or shown)", what, a, b,
                 (size_t)rows - n);
}

int model_vocab_open(Tokenizer *tok, const char *model_dir, int model_rows, const char *gpt2_dir, char *desc,
                     size_t desc_cap, ErrorMsg *err) {
    memset(tok, 0, sizeof *tok);
    char a[1200], b[1200];
    const char *what;
    int rc;
    if (exists(model_dir, "encoder.json", a, sizeof a) && exists(model_dir, "vocab.bpe", b, sizeof b)) {
        rc = tok_load_files(tok, a, b, err);
        what = "the model's own BPE (encoder.json + vocab.bpe)";
    } else if (exists(model_dir, "vocab.json", a, sizeof a) && exists(model_dir, "merges.txt", b, sizeof b)) {
        rc = tok_load_files(tok, a, b, err);
        what = "the model's own BPE (vocab.json + merges.txt)";
    } else if (exists(model_dir, "vocab.json", a, sizeof a)) {
        rc = tok_load_vocab_json(tok, a, err);
        what = "the model's own vocabulary (vocab.json)";
    } else {
        /* GPT-2's tokenizer needs its 50,257 rows (256 at the very least for any BPE):
         * a smaller model cannot be a GPT-2-vocabulary model */
        rc = 1;
        if (model_rows >= 256) {
            rc = tok_load(tok, gpt2_dir, err);
            if (rc == 0 && tok_vocab_size(tok) > (size_t)model_rows) {
                tok_free(tok);
                rc = 1; /* too small for this tokenizer: ids only */
            }
            if (rc < 0) return -1;
        }
        what = "GPT-2 tokenizer";
        if (rc == 1) {
            rc = tok_init_ids(tok, (size_t)model_rows, err);
            what = "ids only (no vocab.json beside the model: tokens are shown as their ids)";
        }
    }
    if (rc) return -1;
    if (tok_vocab_size(tok) > (size_t)model_rows) {
        size_t n = tok_vocab_size(tok);
        tok_free(tok);
        return error_set(err, "%s: %s has %zu tokens but the model has only %d embedding rows", model_dir, what, n,
                         model_rows);
    }
    describe(desc, desc_cap, what, tok_vocab_size(tok), model_rows);
    return 0;
}
