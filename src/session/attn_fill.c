/* attn_fill.c — the inside-attention panels' numbers of a frame (attn_fill.h). */
#include "attn_fill.h"

#include <stdio.h>
#include <stdlib.h>

#include "panel_table.h"
#include "session.h"

_Static_assert(VIZ_HEAD_PATTERN_COUNT == HEAD_PATTERN_COUNT, "frame.h's copy of the pattern count");

int attn_fill_query(const VizView *view, int n) {
    int q = view ? view->query : -1;
    return q >= 0 && q < n ? q : n - 1;
}

/* attn_explain_compute is a few dot products per key (T x HS for q.k, T x HS for p v, one
 * C x C projection): cheap enough to run every frame the panel is shown, so no cache key. */
static void fill_math(AttnFill *a, VizFrame *f, const Session *s) {
    ErrorMsg err;
    if (!a->ex_ready) {
        if (attn_explain_init(&a->ex, &s->model.config, s->trace.max_pos, &err)) {
            snprintf(a->missing, sizeof a->missing, "attention math: %.250s", err.text);
            return;
        }
        a->ex_ready = 1;
    }
    if (attn_explain_compute(&a->ex, &s->model, &s->trace, f->view.layer, f->view.head, f->attn_query, &err)) {
        snprintf(a->missing, sizeof a->missing, "attention math: %.250s", err.text);
        return;
    }
    f->attn_math = &a->ex;
}

/* The scores once per session: about 300 tokens through the model on its own trace (the
 * bundled model: a few ms; GPT-2 124M: well under a second), then kept. The tokenizer is
 * only read (tok_encode of the probe words; the cast is for its signature). */
static void fill_heads(AttnFill *a, VizFrame *f, const Session *s) {
    ErrorMsg err;
    const Gpt2Config *cfg = &s->model.config;
    if (a->heads_state == 0) {
        if (head_probe_build(&a->probe, (Tokenizer *)&s->tok, cfg->n_positions, &err) ||
            head_scores_init(&a->scores, cfg->n_layer, cfg->n_head, &err) ||
            head_scores_run(&a->scores, &s->model, &a->probe, &err)) {
            snprintf(a->heads_why, sizeof a->heads_why, "what each head does: %.250s", err.text);
            a->heads_state = -1;
        } else {
            HeadsInfo *h = &a->heads;
            h->scores = &a->scores;
            for (int k = 0; k < HEAD_PATTERN_COUNT; k++) {
                h->chance[k] = head_probe_uniform(&a->probe, (HeadPattern)k);
                head_scores_best(&a->scores, (HeadPattern)k, &h->best_layer[k], &h->best_head[k]);
                h->clear[k] = head_score_clear(&a->probe, (HeadPattern)k,
                                               *head_score_at(&a->scores, (HeadPattern)k, h->best_layer[k], h->best_head[k]));
            }
            h->n_text = a->probe.n_text;
            h->R = a->probe.R;
            h->seed = (unsigned long long)a->probe.seed;
            a->heads_state = 1;
        }
    }
    if (a->heads_state < 0) {
        snprintf(a->missing, sizeof a->missing, "%s", a->heads_why);
        return;
    }
    f->heads = &a->heads;
}

unsigned long long attn_fill_lines_heads(const VizView *view, int n_head) {
    unsigned long long all = n_head >= 64 ? ~0ULL : (1ULL << n_head) - 1ULL;
    unsigned long long m = view->lines_heads & all;
    if (m) return m;
    return view->head >= 0 && view->head < 64 && view->head < n_head ? 1ULL << view->head : 1ULL;
}

/* The selection is a pass over the layer's pattern rows (NH x T(T+1)/2 floats) and a sort of
 * at most NH x T x 3 lines: cheap enough every frame the panel is shown. */
static void fill_lines(AttnFill *a, VizFrame *f, const Session *s) {
    ErrorMsg err;
    const Gpt2Config *cfg = &s->model.config;
    if (!a->lines) {
        size_t cap = attn_lines_capacity(cfg->n_head, s->trace.max_pos, ATTN_LINES_TOP_K);
        a->lines = malloc(cap * sizeof *a->lines);
        if (!a->lines) {
            snprintf(a->missing, sizeof a->missing, "attention lines: out of memory");
            return;
        }
        a->lines_cap = cap;
    }
    int n = session_len(s), one = f->view.query >= 0 && f->view.query < n;
    AttnLinesSelect sel = {
        .layer = f->view.layer,
        .head_mask = attn_fill_lines_heads(&f->view, cfg->n_head),
        .top_k = one ? n : ATTN_LINES_TOP_K,
        .min_weight = one ? ATTN_LINES_MIN_WEIGHT_ONE : ATTN_LINES_MIN_WEIGHT,
        .only_query = one ? f->view.query : -1,
        .only_key = -1,
    };
    if (attn_lines_select(a->lines, a->lines_cap, &s->trace, &sel, &f->lines_res, &err)) {
        snprintf(a->missing, sizeof a->missing, "%.290s", err.text);
        return;
    }
    f->lines_sel = sel;
    f->attn_lines = a->lines;
    f->n_attn_lines = f->lines_res.n;
}

void attn_fill(VizFrame *f, const Session *s, unsigned needs) {
    AttnFill *a = s->attn;
    int n = session_len(s);
    f->attn_query = attn_fill_query(&f->view, n);
    if (!(needs & (VIZ_NEEDS_ATTN_MATH | VIZ_NEEDS_HEADS | VIZ_NEEDS_ATTN_LINES))) return;
    if (!a) {
        f->attn_missing = "attention panels: out of memory";
        return;
    }
    a->missing[0] = 0;
    f->attn_missing = a->missing;
    if (needs & VIZ_NEEDS_HEADS) fill_heads(a, f, s); /* the fixed probe: no text needed */
    if (!(needs & (VIZ_NEEDS_ATTN_MATH | VIZ_NEEDS_ATTN_LINES))) return;
    if (n == 0) {
        snprintf(a->missing, sizeof a->missing, "no tokens yet: type a prompt");
        return;
    }
    if (needs & VIZ_NEEDS_ATTN_MATH) fill_math(a, f, s);
    if (needs & VIZ_NEEDS_ATTN_LINES) fill_lines(a, f, s);
}
