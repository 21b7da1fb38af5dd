/* inside_fill.c — the lens, attribution and journey numbers of a frame (inside_fill.h). */
#include "inside_fill.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "panel_table.h"
#include "session.h"

#define INSIDE_LENS_COLUMNS 64

InsideData *inside_new(void) { return calloc(1, sizeof(InsideData)); }

void inside_free(InsideData *d) {
    if (!d) return;
    logit_lens_free(&d->lens);
    logit_lens_grid_free(&d->grid);
    free(d->strip);
    attribution_free(&d->attr);
    token_journey_free(&d->journey);
    free(d);
}

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
    if (!needs || n == 0 || inside_size(d, s)) {
        f->inside_missing = d->missing;
        return;
    }
    d->missing[0] = 0;
    f->inside_missing = d->missing;
    ErrorMsg err;
    const Gpt2Model *m = &s->model;
    const Gpt2Trace *tr = &s->trace;
    /* the token the strip and the bars explain: the pending pick, else the model's top-1 */
    int target = s->has_next ? s->next.chosen.id : logit_lens_final_token(tr, n - 1, session_vocab(s));
    f->lens_target = target;
    if (needs & VIZ_NEEDS_LENS) {
        /* the newest INSIDE_LENS_COLUMNS columns only: more than any panel width shows, and
         * a 1024-token text would otherwise cost a lens pass per token (40 ms each on 124M) */
        d->grid.from = n > INSIDE_LENS_COLUMNS ? n - INSIDE_LENS_COLUMNS : 0;
        if (logit_lens_grid_update(&d->lens, &d->grid, m, tr, &err) < 0) {
            snprintf(d->missing, sizeof d->missing, "logit lens: %.250s", err.text);
            return;
        }
        f->lens = &d->grid;
        unsigned long long key = newest_key(s, target);
        if (d->strip_key != key) {
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
        f->lens_strip = d->strip;
        f->n_lens_strip = d->n_strip;
    }
    if ((needs & VIZ_NEEDS_ATTRIBUTION) && target >= 0) {
        unsigned long long key = newest_key(s, target);
        if (d->attr_key != key) {
            d->attr_key = key;
            d->attr_ok = attribution_run(&d->attr, m, tr, n - 1, target, -1, &err) == 0;
            if (!d->attr_ok) { /* tried again next frame: a failure is cheap and says why */
                d->attr_key = 0;
                snprintf(d->missing, sizeof d->missing, "attribution: %.250s", err.text);
            }
        }
        f->attr = d->attr_ok ? &d->attr : NULL;
    }
    if (needs & VIZ_NEEDS_JOURNEY) {
        unsigned long long key = newest_key(s, -1);
        if (d->journey_key != key) {
            d->journey_key = key;
            d->journey_ok = token_journey_at(&d->journey, &d->lens, m, tr, n - 1, &err) == 0;
            if (!d->journey_ok) {
                d->journey_key = 0;
                snprintf(d->missing, sizeof d->missing, "journey: %.250s", err.text);
            }
        }
        f->journey = d->journey_ok ? &d->journey : NULL;
    }
}
