/* seq_compare.h — settings side by side: one prompt continued N tokens under 2..4
 * sampler settings (specs as settings_spec.h reads them: "greedy", "T=0.7", "top-k=40",
 * "top-p=0.9,T=1.5") with THE SAME DICE — the draw for position p is rng_dice(seed, p, 0)
 * in every column, as a fresh `generate --seed` or the window takes it — so the columns
 * differ by their settings alone. Per column the chosen ids, each one's probability under
 * the model's own distribution, distinct-1/2/3 and repeated n-grams, the mean surprisal
 * and the first position where it leaves the greedy continuation (seq_metrics.h).
 * Runs the model on its own small trace (logits only): a Session is not touched, so the
 * window can compute it on its worker thread. Not the drawing and not the CLI.
 *
 * Usage:
 *     const char *specs[] = {"greedy", "T=0.7"};
 *     SeqCompare c = {0};
 *     if (seq_compare_run(&model, NULL, V, prompt, n_prompt, specs, 2, 40, seed, &c, &err)) ...;
 *     ... c.col[1].ids[0 .. c.n_new), c.col[1].diverge ...
 *     seq_compare_free(&c);
 */
#ifndef SEQ_COMPARE_H
#define SEQ_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "gpt2_ablation.h"
#include "gpt2_model.h"
#include "seq_metrics.h"
#include "settings.h"
#include "settings_spec.h"

#define SEQ_COMPARE_MIN_COLS 2
#define SEQ_COMPARE_MAX_COLS 4
#define SEQ_COMPARE_MAX_NEW 256 /* tokens per column: a screenful, not an essay */

typedef struct SeqCompareColumn {
    char spec[SETTINGS_SPEC_MAX + 1]; /* as given ("top-p=0.9,T=1.5") */
    SamplerSettings settings;         /* what it parsed to */
    int greedy;                       /* 1: argmax chose every token (greedy or T = 0) */
    int *ids;                         /* (n_new) the chosen tokens */
    double *p_raw;                    /* (n_new) each one's probability under the model's
                                       * own distribution (softmax of the logits, T = 1) */
    SeqNgrams ngrams[SEQ_MAX_NGRAM];  /* [n - 1]: n-gram counts of ids, n = 1..3 */
    double mean_surprisal_bits;       /* (1/N) Σ -log2 p_raw: under the UNTEMPERED model,
                                       * whatever the column's settings */
    long diverge;                     /* first index i where ids[i] differs from the greedy
                                       * continuation's; -1 when it never does */
} SeqCompareColumn;

typedef struct SeqCompare {
    int n_cols;
    SeqCompareColumn col[SEQ_COMPARE_MAX_COLS];
    int *greedy_ids;   /* (n_new) the greedy continuation every `diverge` is measured from */
    int *prompt;       /* (n_prompt) owned copy */
    int n_prompt;
    int n_new;         /* tokens per column */
    uint64_t seed;     /* the dice: position p draws rng_dice(seed, p, 0) */
} SeqCompare;

/* Parses specs[0..n_cols) (2..4 of them; each error names its spec), then continues
 * prompt[0..n_prompt) by n_new tokens (1..SEQ_COMPARE_MAX_NEW, and n_prompt + n_new must
 * fit the model's context) under each, with ablation `ab` (NULL or empty = the whole
 * model). Only ids < n_vocab are sampled (a padded vocabulary's extra rows never are).
 * Fills *out (seq_compare_free it, also after an error: it is left freeable) and returns
 * 0, or -1 with err. */
int seq_compare_run(const Gpt2Model *m, const Gpt2Ablation *ab, int n_vocab, const int *prompt, int n_prompt,
                    const char *const *specs, int n_cols, int n_new, uint64_t seed, SeqCompare *out,
                    ErrorMsg *err);

/* Frees everything; safe on a zeroed or half-filled struct, and twice. */
void seq_compare_free(SeqCompare *c);

#endif
