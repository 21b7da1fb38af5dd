/* attn_fill.h — the engine data of the "inside attention" panels, computed from a Session
 * only when a panel that needs it is shown (panel_table.h VIZ_NEEDS_ATTN_*, VIZ_NEEDS_HEADS):
 * the attention computation of one query (engine/attn_explain.h), stage by stage, and what
 * each head does (engine/head_scores.h: five scores per head on the fixed probe, the same
 * numbers as `inferscope heads`, measured once per session: the probe does not depend on
 * the text on screen). Kept per session (Session.attn) so nothing is allocated per frame.
 * Not drawing (viz/panel_attn_math.c, panel_heads.c) and no model math of its own: every
 * number is the engine's. */
#ifndef ATTN_FILL_H
#define ATTN_FILL_H

#include "attn_cache.h"
#include "frame.h"

struct Session;

/* The query a view explains in a text of n tokens: view->query when it is one of them,
 * else the newest (n - 1). */
int attn_fill_query(const VizView *view, int n);

/* The lines view's selection: the 3 strongest keys of every query and head at least 2 %
 * of its row, or, for one query alone (view->query >= 0), every key at least 1 %. */
enum { ATTN_LINES_TOP_K = 3 };
#define ATTN_LINES_MIN_WEIGHT 0.02f
#define ATTN_LINES_MIN_WEIGHT_ONE 0.01f

/* The heads a view's lines show: view->lines_heads limited to the model's n_head heads, or
 * view->head alone when that leaves none. */
unsigned long long attn_fill_lines_heads(const VizView *view, int n_head);

/* Fills the attention fields of f (attn_math, attn_query, attn_missing) that `needs`
 * (VIZ_NEEDS_*) asks for from s; nothing for the others. */
void attn_fill(VizFrame *f, const struct Session *s, unsigned needs);

#endif
