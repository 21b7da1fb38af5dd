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

#include <stdatomic.h>

#include "frame.h"
#include "logit_attribution.h"
#include "logit_lens.h"
#include "token_journey.h"

struct Session;

typedef struct InsideData {
    int sized;               /* 1 once the engine scratch below is allocated */
    int failed;              /* 1: allocation failed (why: missing) */
    LogitLens lens;          /* owned scratch of the lens */
    LensGrid grid;           /* owned: layers x positions */
    LensRow *strip;          /* (L + 1) owned: the newest position's rows ranking strip_target */
    int n_strip, strip_target;
    unsigned long long strip_key;
    Attribution attr;        /* owned: of strip_target at the newest position */
    unsigned long long attr_key;
    int attr_ok;
    TokenJourney journey;    /* owned: of the newest position */
    unsigned long long journey_key;
    int journey_ok;
    char ablated[256];       /* the canonical SPEC switched off ("" = whole model) */
    char missing[300];       /* why a panel has no data ("" when it has) */
    unsigned long long grid_key; /* newest_key the grid was last brought up to (0: none) */
    /* --- the window's background computation (src/app/app_jobs.c) --- */
    int async;               /* 1 while the window draws: a fill only reads the caches */
    int running;             /* 1 while a worker runs inside_compute (set, cleared by the app) */
    atomic_int cancel;       /* set by the app to stop a running worker early */
    unsigned want_needs;     /* what an async fill found not computed yet (the app clears it) */
    int want_vs;             /* and the attribution's contrast token it wants (-1 none) */
    unsigned long long done_key; /* the tokens, ablation, pick and contrast inside_compute last finished */
    unsigned done_needs;     /* the VIZ_NEEDS_* it finished for them */
    char done_missing[300];  /* why a part failed in that run ("" none) */
} InsideData;

/* What an inside panel shows while its numbers are being computed. */
#define INSIDE_COMPUTING "computing\xE2\x80\xA6"

/* A zeroed InsideData (the engine scratch is sized at first need). NULL: out of memory. */
InsideData *inside_new(void);
/* Frees; NULL is fine. */
void inside_free(InsideData *d);

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
