/* inside_data.h — what the "inside the model" panels keep per session (Session.inside):
 * the engine scratch of the lens, its grid, the attribution and the journey, with the
 * keys that say what they were computed for, and the window's worker hand-off. Only the
 * data and its lifetime; filling it from a session is inside_fill.h (which reads the
 * session, so the session, which owns this, need not know it). */
#ifndef INSIDE_DATA_H
#define INSIDE_DATA_H

#include <stdatomic.h>

#include "logit_attribution.h"
#include "logit_lens.h"
#include "token_journey.h"

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

#endif
