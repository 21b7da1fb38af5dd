/* check_session.h — a Session (src/session/session.h) on the bundled model (assets/models/
 * stories16m with the GPT-2 tokenizer, every default view captured), opened the way the
 * app-side tests begin. Not for engine-only tests (it needs the app library). */
#ifndef CHECK_SESSION_H
#define CHECK_SESSION_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "check_canvas.h"
#include "frame_fill.h"
#include "panels.h"
#include "safetensors.h"
#include "session.h"

/* Opens s on the bundled model. Returns 0, or -1 after a failed check naming the problem. */
static inline int check_open_bundled(Session *s) {
    ErrorMsg err = {{0}};
    int rc = session_open(s, "assets/models/stories16m", "assets/tokenizer", 0, GPT2_CAP_DEFAULT, &err);
    CHECK(rc == 0, "bundled model: %s", err.text);
    return rc;
}

/* The traced attention weight of head h, query q, key k in layer l (NAN when the trace
 * has no pattern for l): what the attention views must show. */
static inline float check_trace_pattern(const Gpt2Trace *tr, int l, int h, int q, int k) {
    char name[64];
    Gpt2TraceView v;
    snprintf(name, sizeof name, "blocks.%d.attn.hook_pattern", l);
    if (gpt2_trace_find(tr, name, &v, NULL)) return NAN;
    return gpt2_view_at(&v, (size_t)h, (size_t)q, (size_t)k);
}

/* Fills *f from the session for `view` and draws `panel` alone on the canvas (a figure,
 * the look's whole size), its hits into *hits (emptied first). Returns 0, or -1 after a
 * failed check naming the look, the query and the draw error. */
static inline int check_draw_panel(Canvas *c, const CanvasLook *lk, const Session *s, const VizView *view,
                                   VizPanel panel, VizFrame *f, VizHits *hits) {
    frame_fill(f, s, view);
    hits->n = 0;
    int rc = draw_panel_figure(&c->viz, rect_make(0, 0, lk->w, lk->h), f, panel, hits);
    CHECK(rc == 0 && !c->viz.has_error, "%dx%d @%.1f query %d draws: %s", lk->w, lk->h, (double)lk->ui,
          view->query, c->viz.last_error.text);
    return rc == 0 && !c->viz.has_error ? 0 : -1;
}

/* Opens s on the reference tiny model (check_ref_dir()/models/tiny) with its 30-token
 * reference text as the prompt (input_ids of vectors/tiny_s30.safetensors, kept open in
 * *vec for the reference tensors). Both are left freeable (session_free, safe_close)
 * whatever happens. Returns 0, or -1 after a failed check naming the problem. */
static inline int check_open_tiny_s30(Session *s, SafeFile *vec) {
    char model_dir[1100], vpath[1200];
    snprintf(model_dir, sizeof model_dir, "%s/models/tiny", check_ref_dir());
    snprintf(vpath, sizeof vpath, "%s/vectors/tiny_s30.safetensors", check_ref_dir());
    ErrorMsg err = {{0}};
    memset(s, 0, sizeof *s);
    memset(vec, 0, sizeof *vec);
    int rc = session_open(s, model_dir, "assets/tokenizer", 0, GPT2_CAP_DEFAULT, &err);
    if (rc == 0) rc = safe_open(vec, vpath, &err);
    CHECK(rc == 0, "%s", err.text);
    const SafeTensor *t = rc ? NULL : safe_find(vec, "input_ids");
    CHECK(t && t->dtype == SAFE_I32 && t->shape[0] == 30, "input_ids: 30 int32");
    if (!t || t->dtype != SAFE_I32 || t->shape[0] != 30) return -1;
    int ids[30];
    memcpy(ids, t->data, sizeof ids);
    rc = session_set_prompt_ids(s, ids, 30, &err);
    CHECK(rc == 0, "prompt: %s", err.text);
    return rc;
}

#endif
