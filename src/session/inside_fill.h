/* inside_fill.h — the "inside the model" numbers a frame shows, computed from a Session
 * by the engine only when a panel that needs them is shown (panel_table.h VIZ_NEEDS_*):
 * the logit-lens grid (brought up to date one column per new token), the lens rows of
 * the newest position ranking the pending pick, the direct logit attribution of that
 * pick and the journey of the newest token. Kept per session (Session.inside) and
 * recomputed only when the tokens, the ablation or the pick change, so a frame redraws
 * without model math. Also the ablation banner and the original distribution the probs
 * panel compares with. Not drawing (viz/panel_lens.c, panel_attribution.c,
 * panel_journey.c) and not the CLI (`inferscope lens`, `attribute`). */
#ifndef INSIDE_FILL_H
#define INSIDE_FILL_H

#include "frame.h"
#include "inside_data.h"

struct Session;

/* Fills the inside fields of f (lens, strip, attribution, journey: those in `needs`,
 * VIZ_NEEDS_*; the ablation banner and the original distribution always) from s and
 * f->view (its attr_vs1: the attribution's contrast token, set before the call): computed
 * here (d->async 0: the CLI, exports, lessons, tests), or, while the window draws
 * (d->async 1), only what inside_compute has finished for s; else NULL with
 * inside_missing = INSIDE_COMPUTING, and d->want_needs says what to compute. */
void inside_fill(VizFrame *f, const struct Session *s, unsigned needs);

/* The model math of inside_fill for `needs` (and the attribution's contrast token vs, -1
 * none: what d->want_vs asked for), on a worker thread while the window draws
 * placeholders: writes only d (the session is read, and must not change meanwhile); stops
 * early when d->cancel is set. Then an async fill (d->async) hands the results out. */
void inside_compute(InsideData *d, const struct Session *s, unsigned needs, int vs);
/* The VIZ_NEEDS_* an async fill found missing (0 when nothing is to compute or a worker runs). */
unsigned inside_wanted(const InsideData *d);

/* The VIZ_NEEDS_* of the panels view shows (view->focus and its companion). */
unsigned inside_needs_of_view(const VizView *view);

#endif
