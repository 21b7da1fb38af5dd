/* attn_cache.h — what the inside-attention panels keep per session (Session.attn): the
 * explained query's stages, the fixed probe and every head's scores on it, the lines of
 * the lines view. Only the data and its lifetime; filling it from a session is
 * attn_fill.h (which reads the session, so the session, which owns this, need not know it). */
#ifndef ATTN_CACHE_H
#define ATTN_CACHE_H

#include <stddef.h>

#include "attn_explain.h"
#include "attn_lines.h"
#include "frame.h"
#include "head_scores.h"

typedef struct AttnFill {
    AttnExplain ex;       /* owned; sized to the trace at the first frame that needs it */
    int ex_ready;         /* 1 once ex is sized */
    HeadProbe probe;      /* owned: the fixed probe (head_probe_build) */
    HeadScores scores;    /* owned: every head's five scores on it */
    int heads_state;      /* 0 not measured yet, 1 measured, -1 failed (heads_why says why) */
    HeadsInfo heads;      /* what the heads panel is handed (points into the above) */
    char heads_why[300];
    AttnLine *lines;      /* owned: the lines view's lines (room for lines_cap), allocated at the
                           * first frame that shows it */
    size_t lines_cap;
    char missing[300];    /* why a panel has no data ("" when it has) */
} AttnFill;

/* A zeroed fill (nothing allocated until a panel needs it); NULL when out of memory. */
AttnFill *attn_fill_new(void);
/* Frees; NULL is fine. */
void attn_fill_free(AttnFill *a);

#endif
