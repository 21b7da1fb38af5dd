/* inside_fill.c — the lens, attribution and journey numbers of a frame (inside_fill.h). */
#include "inside_fill.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "panel_table.h"
#include "session.h"

#define INSIDE_LENS_COLUMNS 64

/* FNV-1a over what a column of the newest position depends on: the tokens, the
 * forward passes run (a re-run prompt may differ in the last bits), the mask, the target. */
static unsigned long long fnv(unsigned long long h, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static unsigned long long newest_key(const Session *s, int target) {
    unsigned long long h = 1469598103934665603ull;
    const Gpt2Trace *tr = &s->trace;
    h = fnv(h, &tr->n_pos, sizeof tr->n_pos);
    h = fnv(h, tr->ids, (size_t)tr->n_pos * sizeof *tr->ids);
    h = fnv(h, &s->n_steps, sizeof s->n_steps);
    h = fnv(h, &s->n_prompt, sizeof s->n_prompt);
    h = fnv(h, &target, sizeof target);
    const Gpt2Ablation *ab = &tr->ablation;
    h = fnv(h, &ab->n_off, sizeof ab->n_off);
    if (ab->n_off && ab->off) h = fnv(h, ab->off, (size_t)ab->n_layer * (size_t)(ab->n_head + 2));
    return h + 1; /* never 0, the "nothing computed" key */
}

/* The attribution's key: the newest column's, the pick's and the contrast token's
 * (-1: the pick's logit alone). Also what an async fill waits for. */
static unsigned long long attr_key_of(const Session *s, int target, int vs) {
    return fnv(newest_key(s, target), &vs, sizeof vs) | 1u;
}

/* The engine scratch, at the first frame that needs it (about (2L+1)(C+V) floats). */
static int inside_size(InsideData *d, const Session *s) {
    if (d->sized) return 0;
    if (d->failed) return -1;
    ErrorMsg err;
    const Gpt2Config *cfg = &s->model.config;
    d->strip = calloc((size_t)cfg->n_layer + 1, sizeof *d->strip);
    if (!d->strip || logit_lens_init(&d->lens, cfg, session_vocab(s), &err) ||
        logit_lens_grid_init(&d->grid, cfg, s->trace.max_pos, 0, &err) || attribution_init(&d->attr, cfg, &err) ||
        token_journey_init(&d->journey, cfg, &err)) {
        if (!d->strip) snprintf(err.text, sizeof err.text, "out of memory");
        snprintf(d->missing, sizeof d->missing, "inside the model: %.250s", err.text);
        d->failed = 1;
        return -1;
    }
    d->sized = 1;
    return 0;
}

unsigned inside_needs_of_view(const VizView *view) {
    unsigned needs = 0;
    for (int p = VIZ_PANEL_TOKENS; p < VIZ_PANEL_COUNT; p++)
        if (view->focus != VIZ_PANEL_FRAME && viz_panel_shows(view->focus, (VizPanel)p))
            needs |= viz_panel_row((VizPanel)p)->needs;
    return needs;
}

/* The token the strip and the bars explain: the pending pick, else the model's top-1. */
static int inside_target(const Session *s) {
    int n = session_len(s);
    return s->has_next ? s->next.chosen.id : logit_lens_final_token(&s->trace, n - 1, session_vocab(s));
}

/* Brings the caches up to s for `needs` when `compute` (the model math: the worker, or a
 * synchronous fill), else only hands out what the caches hold for s (the window's draw:
 * no model math); the frame's inside fields point into d. Why a part is missing: d->missing. */
static void inside_run(InsideData *d, VizFrame *f, const Session *s, unsigned needs, int compute, int vs) {
    d->missing[0] = 0;
    f->inside_missing = d->missing;
    ErrorMsg err;
    const Gpt2Model *m = &s->model;
    const Gpt2Trace *tr = &s->trace;
    int n = session_len(s);
    int target = inside_target(s);
    f->lens_target = target;
    if (needs & VIZ_NEEDS_LENS) {
        unsigned long long grid_key = newest_key(s, -1);
        if (compute) {
            /* the newest INSIDE_LENS_COLUMNS columns only: more than any panel width shows, and
             * a 1024-token text would otherwise cost a lens pass per token (40 ms each on 124M) */
            d->grid.from = n > INSIDE_LENS_COLUMNS ? n - INSIDE_LENS_COLUMNS : 0;
            d->grid_key = 0;
            if (logit_lens_grid_update(&d->lens, &d->grid, m, tr, &err) < 0) {
                snprintf(d->missing, sizeof d->missing, "logit lens: %.250s", err.text);
                return;
            }
            if (d->grid.n_pos < n) return; /* cancelled: the worker stops, nothing shown */
            d->grid_key = grid_key;
        }
        if (d->grid_key != grid_key) return;
        f->lens = &d->grid;
        unsigned long long key = newest_key(s, target);
        if (d->strip_key != key && compute) {
            d->strip_key = 0;
            int rows = target >= 0 ? logit_lens_at(&d->lens, m, tr, n - 1, target, 0, JOURNEY_TOP, d->strip, &err) : -1;
            if (rows < 0) {
                snprintf(d->missing, sizeof d->missing, "logit lens: %.250s", target >= 0 ? err.text : "no next token");
                return;
            }
            d->n_strip = rows;
            d->strip_target = target;
            d->strip_key = key;
        }
        if (d->strip_key != key) return;
        f->lens_strip = d->strip;
        f->n_lens_strip = d->n_strip;
    }
    if ((needs & VIZ_NEEDS_ATTRIBUTION) && target >= 0) {
        /* a contrast that is the pick itself (a reroll picked it): the pick's logit alone,
         * and the panel says so (view.attr_vs set, Attribution.vs -1) */
        if (vs == target) vs = -1;
        unsigned long long key = attr_key_of(s, target, vs);
        if (d->attr_key != key && compute) {
            d->attr_key = key;
            d->attr_ok = attribution_run(&d->attr, m, tr, n - 1, target, vs, &err) == 0;
            if (!d->attr_ok) { /* tried again next time: a failure is cheap and says why */
                d->attr_key = 0;
                snprintf(d->missing, sizeof d->missing, "attribution: %.250s", err.text);
            }
        }
        f->attr = d->attr_ok && d->attr_key == key ? &d->attr : NULL;
    }
    if (needs & VIZ_NEEDS_JOURNEY) {
        unsigned long long key = newest_key(s, -1);
        if (d->journey_key != key && compute) {
            d->journey_key = key;
            d->journey_ok = token_journey_at(&d->journey, &d->lens, m, tr, n - 1, &err) == 0;
            if (!d->journey_ok) {
                d->journey_key = 0;
                snprintf(d->missing, sizeof d->missing, "journey: %.250s", err.text);
            }
        }
        f->journey = d->journey_ok && d->journey_key == key ? &d->journey : NULL;
    }
}

void inside_fill(VizFrame *f, const Session *s, unsigned needs) {
    InsideData *d = s->inside;
    f->lens_target = -1;
    f->ablation_kl = s->ablation_kl;
    f->orig_top_id = s->orig_top_id;
    f->p_orig = s->ablation_kl >= 0 && s->has_next ? s->next_p_orig : NULL;
    if (!d) return;
    gpt2_ablation_format(&s->trace.ablation, d->ablated, sizeof d->ablated);
    f->ablated = d->ablated;
    int n = session_len(s);
    if (d->running) { /* the worker writes the caches: read none of them */
        f->inside_missing = INSIDE_COMPUTING;
        return;
    }
    if (!needs || n == 0 || inside_size(d, s)) {
        f->inside_missing = d->missing;
        return;
    }
    const int vs = viz_view_attr_vs(&f->view);
    if (!d->async) {
        inside_run(d, f, s, needs, 1, vs);
        return;
    }
    unsigned long long key = attr_key_of(s, inside_target(s), vs);
    if (d->done_key != key || (d->done_needs & needs) != needs) {
        /* not computed for these tokens yet: placeholders, and the app starts the worker */
        d->want_needs = needs;
        d->want_vs = vs;
        f->lens_target = inside_target(s);
        f->inside_missing = INSIDE_COMPUTING;
        return;
    }
    inside_run(d, f, s, needs, 0, vs);
    if (d->done_missing[0] && !d->missing[0]) snprintf(d->missing, sizeof d->missing, "%s", d->done_missing);
}

unsigned inside_wanted(const InsideData *d) { return d && !d->running ? d->want_needs : 0; }

void inside_compute(InsideData *d, const Session *s, unsigned needs, int vs) {
    if (!d || !needs || session_len(s) == 0 || inside_size(d, s)) return;
    VizFrame scratch;
    memset(&scratch, 0, sizeof scratch);
    d->grid.cancel = &d->cancel;
    inside_run(d, &scratch, s, needs, 1, vs);
    d->grid.cancel = NULL;
    if (atomic_load(&d->cancel)) return; /* stopped: still wanted, started again later */
    unsigned long long key = attr_key_of(s, inside_target(s), vs);
    d->done_needs = d->done_key == key ? d->done_needs | needs : needs;
    d->done_key = key;
    snprintf(d->done_missing, sizeof d->done_missing, "%s", d->missing);
}
