/* head_scores.c — the fixed probe and the five head scores (definitions in head_scores.h).
 * The probe is data written for this file; the scores are means of pattern entries. */
#include "head_scores.h"

#include <stdlib.h>
#include <string.h>

#include "gpt2_forward.h"
#include "rng.h"

/* Written for inferscope (not taken from any corpus): three short stories in plain English,
 * as the bundled model was trained on, with the repetitions real text has (names, "the
 * duck"). About 240 tokens, so a mean over the queries is not ruled by the first few rows
 * (where any head's weight on key i-1 is large by chance): on 70-token texts the best
 * previous-token head of the bundled model changed with the text, on 240 it did not. */
const char HEAD_PROBE_TEXT[] =
    "Once upon a time, a small brown dog named Max lived next to a quiet river. Every morning he "
    "ran to the water and barked at the ducks. One day a duck swam up to him and said, \"Why do you "
    "bark at us?\" Max sat down and thought about it. \"I just want to play,\" he said. So the duck "
    "and the dog played together by the river until the sun went down, and they were friends from "
    "then on.\n\n"
    "Tom had a red kite. He took it to the hill on a windy day. The kite flew high up in the sky, and "
    "Tom laughed. Then the string broke! The kite flew away over the trees. Tom was sad, but his "
    "sister said, \"Let's make a new one together.\" They used paper and sticks, and the new kite was "
    "even better.\n\n"
    "The little cat liked to sleep in the sun. Every day she found a warm spot by the window. One "
    "morning a big dog came into the garden and barked loudly. The cat woke up and ran under the bed. "
    "Later the dog said sorry, and the cat and the dog became good friends. They played with a ball "
    "all afternoon.";

/* Common words, each with its leading space (one GPT-2 token each; head_probe_build keeps
 * only those that really are one token for the tokenizer at hand). */
const char *const HEAD_PROBE_WORDS[] = {
    " dog", " cat", " bird", " fish", " tree", " house", " ball", " car", " book", " cake",
    " apple", " box", " door", " hat", " shoe", " bed", " cup", " boat", " park", " garden",
    " river", " sun", " moon", " star", " rain", " snow", " flower", " bear", " lion", " duck",
    " frog", " horse", " cow", " pig", " king", " queen", " girl", " boy", " mom", " dad",
    " friend", " teacher", " school", " toy", " game", " song", " milk", " bread", " egg", " hill",
    " red", " blue", " green", " yellow", " big", " small", " happy", " sad", " old", " new",
    " fast", " slow", " warm", " cold", " soft", " loud", " kind", " brave", " funny", " shiny",
    " run", " jump", " play", " sing", " walk", " swim", " eat", " sleep", " read", " draw",
    " look", " help", " find", " give", " hold", " open", " laugh", " smile", " cry", " dance",
    " window", " table", " chair", " bag", " key", " coat", " sea", " sky", " leaf", " rock",
    " forest", " farm", " town", " road", " bridge", " shop", " candy", " kite", " drum", " bell",
    NULL,
};

const HeadPatternInfo HEAD_PATTERNS[HEAD_PATTERN_COUNT] = {
    {"previous_token", "previous-token",
     "mean weight a query puts on the key just before it (text probe, queries 1..N-1)",
     "a bright line just below the diagonal: each token looks at its left neighbour"},
    {"first_token", "first-token sink",
     "mean weight on key 0, the first token (text probe, queries 1..N-1)",
     "a bright first column: the head parks attention it does not need on token 0"},
    {"induction", "induction",
     "on a random sequence repeated twice, mean weight from a second-copy token to the token "
     "right after its earlier occurrence",
     "on repeated text, a bright stripe R-1 columns left of the diagonal: 'what came next last time?'"},
    {"duplicate_token", "duplicate-token",
     "on the repeated sequence, mean weight from a second-copy token to its own earlier occurrence",
     "on repeated text, a bright stripe R columns left of the diagonal: 'have I seen this token before?'"},
    {"local", "local window",
     "mean total weight on the 4 newest keys i-3..i, self included (text probe, queries 4..N-1)",
     "a bright band along the diagonal: the head reads only the last few tokens"},
};

/* ---- the probe -------------------------------------------------------------------- */

void head_probe_free(HeadProbe *p) {
    if (!p) return;
    free(p->text_ids);
    free(p->rep_ids);
    memset(p, 0, sizeof *p);
}

/* The distinct one-token ids of HEAD_PROBE_WORDS, in list order; returns how many. */
static int probe_pool(Tokenizer *tok, int *pool, int cap) {
    int n = 0;
    for (size_t w = 0; HEAD_PROBE_WORDS[w] && n < cap; w++) {
        TokEncoding e = {0};
        const char *s = HEAD_PROBE_WORDS[w];
        if (tok_encode(tok, (const uint8_t *)s, strlen(s), NULL, &e, NULL) == 0 && e.n_ids == 1) {
            int id = e.ids[0], dup = 0;
            for (int k = 0; k < n; k++) dup |= pool[k] == id;
            if (!dup) pool[n++] = id;
        }
        tok_encoding_free(&e);
    }
    return n;
}

int head_probe_build(HeadProbe *p, Tokenizer *tok, int n_positions, ErrorMsg *err) {
    memset(p, 0, sizeof *p);
    if (n_positions < 10) return error_set(err, "head probe: a context of %d positions is too short (need 10)", n_positions);
    TokEncoding e = {0};
    if (tok_encode(tok, (const uint8_t *)HEAD_PROBE_TEXT, strlen(HEAD_PROBE_TEXT), NULL, &e, err)) return -1;
    int n_text = (int)(e.n_ids < (size_t)n_positions ? e.n_ids : (size_t)n_positions);
    int pool[sizeof HEAD_PROBE_WORDS / sizeof HEAD_PROBE_WORDS[0]];
    int n_pool = probe_pool(tok, pool, (int)(sizeof pool / sizeof pool[0]));
    int R = HEAD_PROBE_R;
    if (R > n_positions / 2) R = n_positions / 2;
    if (R > n_pool) R = n_pool;
    if (R < 5) {
        tok_encoding_free(&e);
        return error_set(err, "head probe: only %d of the probe words are one token for this tokenizer (need 5)",
                         n_pool);
    }
    p->text_ids = malloc((size_t)n_text * sizeof(int));
    p->rep_ids = malloc((size_t)2 * (size_t)R * sizeof(int));
    if (!p->text_ids || !p->rep_ids) {
        tok_encoding_free(&e);
        head_probe_free(p);
        return error_set(err, "head probe: out of memory");
    }
    for (int i = 0; i < n_text; i++) p->text_ids[i] = e.ids[i];
    tok_encoding_free(&e);
    p->n_text = n_text;
    /* Fisher-Yates from the end; the modulo's bias (< 2^-25 for a pool of ~100) does not
     * matter: what matters is that the sequence is fixed, and PCG32 fixes it everywhere */
    Rng rng;
    rng_seed(&rng, HEAD_PROBE_SEED);
    for (int k = n_pool - 1; k > 0; k--) {
        int r = (int)(rng_next_u32(&rng) % (uint32_t)(k + 1));
        int t = pool[k];
        pool[k] = pool[r];
        pool[r] = t;
    }
    for (int i = 0; i < R; i++) p->rep_ids[i] = p->rep_ids[R + i] = pool[i];
    p->R = R;
    p->seed = HEAD_PROBE_SEED;
    p->n_pool = n_pool;
    return 0;
}

int head_probe_set_text(HeadProbe *p, const int *ids, size_t n, int n_positions, ErrorMsg *err) {
    if (n < 5) return error_set(err, "head probe: the text has %zu token%s, too short to score the heads (need 5)", n,
                                n == 1 ? "" : "s");
    if (n > (size_t)n_positions)
        return error_set(err, "head probe: a text of %zu tokens exceeds the model's context of %d", n, n_positions);
    int *t = malloc(n * sizeof *t);
    if (!t) return error_set(err, "head probe: out of memory");
    memcpy(t, ids, n * sizeof *t);
    free(p->text_ids);
    p->text_ids = t;
    p->n_text = (int)n;
    return 0;
}

double head_probe_uniform(const HeadProbe *p, HeadPattern k) {
    /* the same queries as the scores below, with P[i][j] = 1/(i+1) */
    int lo = 1, hi = p->n_text, keys = 1;
    if (k == HEAD_LOCAL) lo = 4, keys = 4;
    if (k == HEAD_INDUCTION || k == HEAD_DUPLICATE_TOKEN) lo = p->R, hi = 2 * p->R;
    double sum = 0.0;
    for (int i = lo; i < hi; i++) sum += (double)keys / (i + 1);
    return hi > lo ? sum / (hi - lo) : 0.0;
}

int head_score_clear(const HeadProbe *p, HeadPattern k, double score) {
    return score >= HEAD_CLEAR_FACTOR * head_probe_uniform(p, k);
}

/* ---- the scores ------------------------------------------------------------------- */

int head_scores_init(HeadScores *s, int n_layer, int n_head, ErrorMsg *err) {
    memset(s, 0, sizeof *s);
    if (n_layer <= 0 || n_head <= 0) return error_set(err, "head scores: invalid size %d x %d", n_layer, n_head);
    s->score = calloc((size_t)HEAD_PATTERN_COUNT * (size_t)n_layer * (size_t)n_head, sizeof *s->score);
    if (!s->score) return error_set(err, "head scores: out of memory");
    s->n_layer = n_layer;
    s->n_head = n_head;
    return 0;
}

void head_scores_free(HeadScores *s) {
    if (!s) return;
    free(s->score);
    memset(s, 0, sizeof *s);
}

/* Row i of head (l, h)'s packed pattern: i+1 weights. */
static const float *pattern_row(const Gpt2Trace *tr, int l, int h, int i) {
    size_t P = gpt2_tri_row((size_t)tr->max_pos);
    return gpt2_trace_layer_patterns(tr, (size_t)l) + (size_t)h * P + gpt2_tri_row((size_t)i);
}

static int sizes_match(const HeadScores *s, const Gpt2Trace *tr, ErrorMsg *err) {
    if (!s->score || s->n_layer != tr->cfg.n_layer || s->n_head != tr->cfg.n_head)
        return error_set(err, "head scores: sized for %d x %d heads, the trace has %d x %d", s->n_layer, s->n_head,
                         tr->cfg.n_layer, tr->cfg.n_head);
    return 0;
}

int head_scores_from_text(HeadScores *s, const Gpt2Trace *tr, ErrorMsg *err) {
    if (sizes_match(s, tr, err)) return -1;
    const int N = tr->n_pos;
    if (N < 5) return error_set(err, "head scores: the text probe has %d tokens, need at least 5", N);
    for (int l = 0; l < s->n_layer; l++)
        for (int h = 0; h < s->n_head; h++) {
            double prev = 0.0, first = 0.0, local = 0.0;
            for (int i = 1; i < N; i++) {
                const float *p = pattern_row(tr, l, h, i);
                prev += p[i - 1];
                first += p[0];
                if (i >= 4) local += (double)p[i - 3] + p[i - 2] + p[i - 1] + p[i];
            }
            *head_score_at(s, HEAD_PREVIOUS_TOKEN, l, h) = prev / (N - 1);
            *head_score_at(s, HEAD_FIRST_TOKEN, l, h) = first / (N - 1);
            *head_score_at(s, HEAD_LOCAL, l, h) = local / (N - 4);
        }
    return 0;
}

int head_scores_from_repeat(HeadScores *s, const Gpt2Trace *tr, int R, ErrorMsg *err) {
    if (sizes_match(s, tr, err)) return -1;
    if (R < 2 || tr->n_pos != 2 * R)
        return error_set(err, "head scores: the repeat probe holds %d tokens, want 2 x %d", tr->n_pos, R);
    for (int l = 0; l < s->n_layer; l++)
        for (int h = 0; h < s->n_head; h++) {
            double ind = 0.0, dup = 0.0;
            for (int i = R; i < 2 * R; i++) {
                const float *p = pattern_row(tr, l, h, i);
                ind += p[i - R + 1]; /* the token after the earlier copy of token i */
                dup += p[i - R];     /* the earlier copy itself */
            }
            *head_score_at(s, HEAD_INDUCTION, l, h) = ind / R;
            *head_score_at(s, HEAD_DUPLICATE_TOKEN, l, h) = dup / R;
        }
    return 0;
}

int head_scores_run(HeadScores *s, const Gpt2Model *m, const HeadProbe *p, ErrorMsg *err) {
    if (!s->score || s->n_layer != m->config.n_layer || s->n_head != m->config.n_head)
        return error_set(err, "head scores: not sized for this model (%d x %d heads)", m->config.n_layer,
                         m->config.n_head);
    int max_pos = p->n_text > 2 * p->R ? p->n_text : 2 * p->R;
    Gpt2Trace tr = {0};
    if (gpt2_trace_init(&tr, &m->config, max_pos, 0, err)) return -1;
    int rc = gpt2_prefill(m, &tr, p->text_ids, (size_t)p->n_text, err) || head_scores_from_text(s, &tr, err) ||
             gpt2_prefill(m, &tr, p->rep_ids, (size_t)(2 * p->R), err) ||
             head_scores_from_repeat(s, &tr, p->R, err);
    gpt2_trace_free(&tr);
    return rc ? -1 : 0;
}

void head_scores_best(const HeadScores *s, HeadPattern k, int *layer, int *head) {
    *layer = *head = 0;
    for (int l = 0; l < s->n_layer; l++)
        for (int h = 0; h < s->n_head; h++)
            if (*head_score_at(s, k, l, h) > *head_score_at(s, k, *layer, *head)) {
                *layer = l;
                *head = h;
            }
}
