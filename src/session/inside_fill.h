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
} InsideData;

/* A zeroed InsideData (the engine scratch is sized at first need). NULL: out of memory. */
InsideData *inside_new(void);
/* Frees; NULL is fine. */
void inside_free(InsideData *d);

/* Fills the inside fields of f (lens, strip, attribution, journey: those in `needs`,
 * VIZ_NEEDS_*; the ablation banner and the original distribution always) from s. */
void inside_fill(VizFrame *f, const struct Session *s, unsigned needs);

/* The VIZ_NEEDS_* of the panels view shows (view->focus and its companion). */
unsigned inside_needs_of_view(const VizView *view);

#endif
