/* head_scores.h — "what each head does": for every head of a model, five named,
 * measurable attention habits, scored by running the model on a FIXED probe and reading
 * its attention patterns (the same numbers every time for a model: no sampling, no clock).
 * Not a panel and not the CLI (src/cli/cmd_heads.c); no model math beyond gpt2_prefill.
 *
 * THE PROBE (head_probe_build)
 *   text    HEAD_PROBE_TEXT, three short children's stories written for this project (not
 *           from any corpus), ~240 tokens; cut to the model's context if that is shorter.
 *           N = its token count. No <|endoftext|> is prepended: the window does not either.
 *   repeat  S S: S = R distinct tokens drawn from HEAD_PROBE_WORDS (common English words
 *           that are one GPT-2 token each, so every GPT-2 checkpoint, small ones trained on
 *           children's stories included, has seen them) by a Fisher-Yates shuffle driven by
 *           PCG32 seeded with HEAD_PROBE_SEED (rng.h), first R of the shuffle.
 *           R = min(HEAD_PROBE_R, context / 2, pool size). Because the R tokens of S are
 *           distinct, every token of the second copy occurs exactly once earlier.
 *
 * THE SCORES — P = the head's pattern (rows = queries i, columns = keys j, rows sum to 1);
 * each score is a mean over the listed queries, in double, in [0, 1]:
 *   previous_token   text,   i = 1..N-1:     P[i][i-1]           (weight on the key before)
 *   first_token      text,   i = 1..N-1:     P[i][0]             (the "attention sink")
 *   local            text,   i = 4..N-1:     sum_{j=i-3..i} P[i][j]  (the 4 newest keys,
 *                    self included; from i = 4 on so the window never holds key 0 and the
 *                    sink cannot pass for locality)
 *   induction        repeat, i = R..2R-1:    P[i][i-R+1]         (query = a token of the
 *                    second copy, key = the token right AFTER its occurrence in the first copy)
 *   duplicate_token  repeat, i = R..2R-1:    P[i][i-R]           (key = the earlier
 *                    occurrence of the same token)
 * Chance level: a head that spread its weight evenly over the keys it may see would
 * score head_probe_uniform() (about 0.02 on the single-key scores for the ~240-token text
 * probe); compare against that: 0.3 on previous_token is a strong habit, 0.05 is none. */
#ifndef HEAD_SCORES_H
#define HEAD_SCORES_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "gpt2_model.h"
#include "gpt2_trace.h"
#include "tokenizer.h"

#define HEAD_PROBE_SEED 18u  /* the issue that defined these scores: any fixed number would do */
#define HEAD_PROBE_R 50      /* tokens in each copy of the repeated sequence */

extern const char HEAD_PROBE_TEXT[];
extern const char *const HEAD_PROBE_WORDS[];  /* NULL-terminated */

typedef struct HeadProbe {
    int *text_ids;      /* (n_text) the natural-text probe */
    int n_text;
    int *rep_ids;       /* (2R) the repeated random sequence S S */
    int R;
    uint64_t seed;      /* HEAD_PROBE_SEED */
    int n_pool;         /* distinct one-token words the draw chose from */
} HeadProbe;

/* Builds the probe for a model whose context is n_positions (both probes fit it).
 * *p is overwritten (head_probe_free a built one first).
 * -1 with err when the tokenizer gives too few one-token words or out of memory. */
int head_probe_build(HeadProbe *p, Tokenizer *tok, int n_positions, ErrorMsg *err);
void head_probe_free(HeadProbe *p); /* safe on a zeroed struct */

/* Replaces the text probe by ids[0..n) (a lesson's own prompt, say): 5 <= n <= context.
 * The repeat probe stays. -1 with err (probe unchanged) otherwise. */
int head_probe_set_text(HeadProbe *p, const int *ids, size_t n, int n_positions, ErrorMsg *err);

typedef enum HeadPattern {
    HEAD_PREVIOUS_TOKEN,
    HEAD_FIRST_TOKEN,
    HEAD_INDUCTION,
    HEAD_DUPLICATE_TOKEN,
    HEAD_LOCAL,
    HEAD_PATTERN_COUNT
} HeadPattern;

/* How each score is named, defined and read (the texts the CLI and the grid print). */
typedef struct HeadPatternInfo {
    const char *key;        /* JSON key: "previous_token" */
    const char *title;      /* "previous-token" */
    const char *definition; /* one line: what is averaged */
    const char *look_for;   /* one line: what a high score looks like in the heatmap */
} HeadPatternInfo;

extern const HeadPatternInfo HEAD_PATTERNS[HEAD_PATTERN_COUNT];

/* The score of pattern k for a head attending uniformly (weight 1/(i+1) on each of the
 * keys 0..i) on this probe: the chance level to read every score against. */
double head_probe_uniform(const HeadProbe *p, HeadPattern k);

/* A habit is called clear when the score is at least HEAD_CLEAR_FACTOR times the chance
 * level: so a caption never names "the induction head" of a model that has none (the
 * bundled model's best induction score is 0.016 against a chance level of 0.014). */
#define HEAD_CLEAR_FACTOR 2.0
int head_score_clear(const HeadProbe *p, HeadPattern k, double score);

typedef struct HeadScores {
    int n_layer, n_head;
    double *score;      /* (HEAD_PATTERN_COUNT, L, NH) */
} HeadScores;

/* Allocates zeroed scores for L x NH heads (*s overwritten). -1 with err on out of memory. */
int head_scores_init(HeadScores *s, int n_layer, int n_head, ErrorMsg *err);
void head_scores_free(HeadScores *s); /* safe on a zeroed struct */

static inline double *head_score_at(const HeadScores *s, HeadPattern k, int layer, int head) {
    return &s->score[((size_t)k * (size_t)s->n_layer + (size_t)layer) * (size_t)s->n_head + (size_t)head];
}

/* Runs the model on both probes (its own trace, capture 0, sized to the longer probe)
 * and fills every score. s must be sized for the model (head_scores_init). */
int head_scores_run(HeadScores *s, const Gpt2Model *m, const HeadProbe *p, ErrorMsg *err);

/* The scores one probe gives, from a trace that holds exactly that probe:
 * text scores (previous_token, first_token, local) need n_pos >= 5; repeat scores
 * (induction, duplicate_token) need n_pos == 2R. Returns -1 with err otherwise. */
int head_scores_from_text(HeadScores *s, const Gpt2Trace *tr, ErrorMsg *err);
int head_scores_from_repeat(HeadScores *s, const Gpt2Trace *tr, int R, ErrorMsg *err);

/* The best head for pattern k (highest score; ties: lower layer, then lower head). */
void head_scores_best(const HeadScores *s, HeadPattern k, int *layer, int *head);

#endif
