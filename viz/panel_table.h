/* panel_table.h — THE table of panels: one row per panel of the window with everything
 * the rest of the program needs to know about it — its name (exports, lessons, figures,
 * the focus keys), its draw function, what a click on its hit regions means, the trace
 * tensors it draws (figure provenance), its figure title and file name, the engine data
 * the app must compute before it is drawn, the panel shown beside it when it is
 * enlarged in the window, and its cramped rule. A new panel is its own file plus one
 * row here; nothing else switches on the panel.
 * Not the layout of the whole frame (frame_draw.c reads the rows) and not the app: a
 * click becomes a VizClick, which src/app/app_update.c applies. */
#ifndef VIZ_PANEL_TABLE_H
#define VIZ_PANEL_TABLE_H

#include <stddef.h>

#include "frame.h"
#include "layout.h"
#include "viz.h"

/* What a click on a panel's hit region asks the app to do (a, b per kind). */
typedef enum VizClickKind {
    VIZ_CLICK_NONE = 0,
    VIZ_CLICK_FORCE_TOKEN,      /* a = token id, b = its 1-based rank: take it as the next token */
    VIZ_CLICK_SELECT_HEAD,      /* a = layer, b = head: show that head in the attention panel */
    VIZ_CLICK_SELECT_LAYER,     /* a = layer (an MLP: no head to show) */
    VIZ_CLICK_TOGGLE_ABLATION,  /* a = layer, b = head: switch that head off / on again */
    VIZ_CLICK_SELECT_TOKEN,     /* a = position: the BPE replay of its word (again: none) */
    VIZ_CLICK_HIGHLIGHT_TOKEN,  /* a = position: outline that token everywhere (again: none);
                                 * b = the query row clicked (attention-math explains it), -1 none */
    VIZ_CLICK_ISOLATE_QUERY,    /* a = position: only that query's lines (again: all lines) */
    VIZ_CLICK_TOGGLE_LINES_HEAD, /* a = layer, b = head: add that head to the lines drawn, or drop it */
    VIZ_CLICK_ATTR_VS,          /* a = token id: the attribution explains logit(pick) - logit(a) */
} VizClickKind;

typedef struct VizClick {
    VizClickKind kind;
    int a, b;
} VizClick;

/* Modifier bits of a click. */
enum { VIZ_CLICK_SHIFT = 1u };

/* Engine data a panel reads beyond the trace and the records; the app computes it only
 * when a panel that needs it is shown (src/session/inside_fill.c). */
enum {
    VIZ_NEEDS_LENS = 1u << 0,        /* VizFrame.lens: the logit-lens grid */
    VIZ_NEEDS_ATTRIBUTION = 1u << 1, /* VizFrame.attr: direct logit attribution, newest position */
    VIZ_NEEDS_JOURNEY = 1u << 2,     /* VizFrame.journey: the newest token through every stage */
    VIZ_NEEDS_ATTN_MATH = 1u << 3,   /* VizFrame.attn_math: one query's attention (src/session/attn_fill.c) */
    VIZ_NEEDS_HEADS = 1u << 4,       /* VizFrame.heads: every head's scores on the fixed probe */
    VIZ_NEEDS_ATTN_LINES = 1u << 5,  /* VizFrame.attn_lines: the strongest query -> key lines */
};

typedef struct VizPanelRow {
    VizPanel id;
    const char *name;        /* "attention": --panel, lesson `panel`, inferscope:panel, F */
    const char *what;        /* one line on what it shows (help, docs, --help of export) */
    int (*draw)(Viz *viz, Rect r, const VizFrame *f, VizHits *hits); /* NULL for the frame */
    VizClick (*click)(const VizHit *hit, unsigned mods); /* its hits -> a click; NULL: none */
    const char *tensor;      /* trace names drawn ({L} = view.layer), for inferscope:tensor */
    const char *title;       /* figure title ({L}, {H} = view.layer/head) */
    const char *stem;        /* figure file name after "step-07-" ({L}, {H}) */
    unsigned needs;          /* VIZ_NEEDS_* */
    VizPanel companion;      /* enlarged in the window or a slide: drawn beside it (FRAME = alone) */
    int inside;              /* 1: one of the "inside the model" panels the I key cycles through */
    int min_w, min_h;        /* cramped rule (logical px at 100 %): smaller than this in the
                              * window, the status line offers F; 0 = the panel's own rule */
} VizPanelRow;

/* The row of panel p, or NULL for a value outside the table. */
const VizPanelRow *viz_panel_row(VizPanel p);

/* "frame", "tokens", "attention", ...; NULL for bad values. */
const char *viz_panel_name(VizPanel p);
/* The reverse (n bytes of s, not NUL-terminated, or a C string); -1 if unknown. */
int viz_panel_from_name_n(const char *s, size_t n);
int viz_panel_from_name(const char *name);
/* Every name in table order, separated by sep ("frame, tokens, ..."), for messages. */
void viz_panel_names(const char *sep, char *buf, size_t cap);

/* A row's pattern with {L} and {H} replaced by view->layer / view->head. */
void viz_panel_format(const char *pattern, const VizView *v, char *buf, size_t cap);

/* 1 when enlarging `focus` shows panel p (focus itself or its companion). */
int viz_panel_shows(VizPanel focus, VizPanel p);

/* The next panel the I key shows after `focus`: the first "inside" row after it in table
 * order, or VIZ_PANEL_FRAME after the last (and from the frame: the first). */
VizPanel viz_panel_next_inside(VizPanel focus);

/* What a click at hit means: the row of the panel under the mouse translates its own
 * hits. {NONE} when the panel has no click or the hit is not one of its kinds. */
VizClick viz_panel_click(VizPanel p, const VizHit *hit, unsigned mods);

#endif
