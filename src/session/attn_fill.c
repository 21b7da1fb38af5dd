/* attn_fill.c — the inside-attention panels' numbers of a frame (attn_fill.h). */
#include "attn_fill.h"

#include <stdio.h>
#include <stdlib.h>

#include "panel_table.h"
#include "session.h"

AttnFill *attn_fill_new(void) { return calloc(1, sizeof(AttnFill)); }

void attn_fill_free(AttnFill *a) {
    if (!a) return;
    attn_explain_free(&a->ex);
    free(a);
}

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

void attn_fill(VizFrame *f, const Session *s, unsigned needs) {
    AttnFill *a = s->attn;
    int n = session_len(s);
    f->attn_query = attn_fill_query(&f->view, n);
    if (!(needs & VIZ_NEEDS_ATTN_MATH)) return;
    if (!a) {
        f->attn_missing = "attention panels: out of memory";
        return;
    }
    a->missing[0] = 0;
    f->attn_missing = a->missing;
    if (n == 0) {
        snprintf(a->missing, sizeof a->missing, "no tokens yet: type a prompt");
        return;
    }
    if (needs & VIZ_NEEDS_ATTN_MATH) fill_math(a, f, s);
}
