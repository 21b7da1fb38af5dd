/* frame.h — everything one frame of inferscope shows, as read-only engine data plus
 * the view settings: the contract between the app (src/, which fills a VizFrame from
 * its session every frame) and the panels (viz/panel_*.c, which only read it).
 * Panels never compute model math: probabilities, cuts and the draw come from the
 * SamplerRecord, attention from the Gpt2Trace, tokens from the Tokenizer.
 *
 * Hit regions: while drawing, panels append the clickable/hoverable things they drew
 * (a probability bar, an attention cell, a head thumbnail, a token chip) to a VizHits
 * the caller owns. The app tests the mouse against the previous frame's hits to turn
 * clicks into intents (immediate mode: nothing else is retained). */
#ifndef VIZ_FRAME_H
#define VIZ_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "attn_explain.h"
#include "attn_lines.h"
#include "class_view.h"
#include "gpt2_model.h"
#include "gpt2_trace.h"
#include "layout.h"
#include "logit_attribution.h"
#include "logit_lens.h"
#include "sampler.h"
#include "sampler_draws.h"
#include "seq_compare.h"
#include "token_stats.h"
#include "token_journey.h"
#include "tokenizer.h"

/* The panels; everything else about them (names used by exports, lessons and the
 * window's focus keys, draw functions, clicks) is their row in panel_table.h. */
typedef enum VizPanel {
    VIZ_PANEL_FRAME = 0, /* the whole window layout */
    VIZ_PANEL_TOKENS,    /* prompt + token strip (+ BPE replay of the selected word) */
    VIZ_PANEL_ATTENTION, /* heatmap of the selected head + layers × heads thumbnails */
    VIZ_PANEL_PROBS,     /* next-token bars through the sampler stages + the draw */
    VIZ_PANEL_TEXT,      /* prompt + generated text, newest token highlighted */
    VIZ_PANEL_LENS,      /* logit lens: layers x positions grid + the pick's rank by depth */
    VIZ_PANEL_ATTRIBUTION, /* direct logit attribution of the pick: signed bars per part */
    VIZ_PANEL_JOURNEY,   /* the newest token through embed, every block, ln_final, logits */
    VIZ_PANEL_ATTN_MATH, /* one query's attention, stage by stage: q.k, / sqrt(d), mask, softmax, z */
    VIZ_PANEL_ATTN_LINES, /* BertViz head view: query tokens left, keys right, a line per weight */
    VIZ_PANEL_HEADS,     /* layers x heads grids of what each head does (engine/head_scores.h) */
    VIZ_PANEL_COMPARE,   /* the prompt continued under 2-4 settings side by side (same dice) */
    VIZ_PANEL_CLASS,     /* the class room: join address, code, QR, the class's guesses beside
                          * the model's bars, the score (shown while a room is open) */
    VIZ_PANEL_COUNT
} VizPanel;

/* How the probability bars are scaled. AUTO fits the longest candidate bar (the
 * "all other tokens" bar may then run past the end: it is drawn broken, with its
 * number); LINEAR is a fixed 0 … prob_axis_max, so slides that are compared share
 * a scale; LOG spans 0.001 % … 100 % in decades, so the long tail and the top token
 * both read on one axis. */
typedef enum VizProbAxis { VIZ_AXIS_AUTO = 0, VIZ_AXIS_LINEAR, VIZ_AXIS_LOG, VIZ_AXIS_COUNT } VizProbAxis;

/* "auto", "linear 100" (the percent at the end), "log". */
void viz_axis_describe(VizProbAxis a, float max, char *buf, size_t cap);
/* Parses "auto" | "log" | "linear" | "linear N" (N percent in (0, 100], default 100);
 * returns 0 and sets *a, *max (a probability), or -1. */
int viz_axis_parse(const char *s, VizProbAxis *a, float *max);

/* What the Text panel marks on each token. SURPRISAL colours each token by -log2 p of
 * that token under the model (a sequential CVD-safe map, with a bits scale); SEEN
 * marks each token that ends an n-token run found verbatim in the model's training
 * text (an outline and a tint: never colour alone). */
typedef enum VizTextMode { VIZ_TEXT_PLAIN = 0, VIZ_TEXT_SURPRISAL, VIZ_TEXT_SEEN, VIZ_TEXT_MODE_COUNT } VizTextMode;

/* "plain", "surprisal", "seen"; NULL for bad values. And the reverse (-1 if unknown). */
const char *viz_text_mode_name(VizTextMode m);
int viz_text_mode_from_name(const char *name);

/* What each head does, as the heads panel draws it (src/session/attn_fill.c fills it from
 * engine/head_scores.h; every number is the engine's). head_scores.h is not included
 * here: its HeadPattern would clash with viz/attn_heatmap.h's. */
struct HeadScores;
#define VIZ_HEAD_PATTERN_COUNT 5            /* = HEAD_PATTERN_COUNT (checked in attn_fill.c) */
typedef struct HeadsInfo {
    const struct HeadScores *scores;        /* L x NH scores of each pattern */
    double chance[VIZ_HEAD_PATTERN_COUNT];      /* head_probe_uniform: an even spread's score */
    int best_layer[VIZ_HEAD_PATTERN_COUNT], best_head[VIZ_HEAD_PATTERN_COUNT]; /* head_scores_best */
    int clear[VIZ_HEAD_PATTERN_COUNT];          /* head_score_clear of the best: at least 2 x chance */
    int n_text, R;                          /* probe sizes: story tokens, words repeated twice */
    unsigned long long seed;                /* the repeat's PCG32 seed */
} HeadsInfo;

/* View settings: what to show and how, chosen by the user (keys, mouse, lesson).
 * Plain values; the app owns them, panels read them. */
typedef struct VizView {
    int layer, head;        /* the attention head shown large (0-based, valid for the model) */
    int hide_sink;          /* 1: the colour scale ignores key column 0 ("attention sink") */
    int mouse_x, mouse_y;   /* mouse in frame pixels (-1,-1 = outside): hover readouts */
    int selected_token;     /* token index whose word the BPE replay shows, -1 = none */
    int bpe_step;           /* merges shown in the BPE replay: 0..n, -1 = all */
    VizPanel focus;         /* VIZ_PANEL_FRAME = full layout, else that panel fills the frame */
    int highlight_panel;    /* -1 none, else a VizPanel drawn with an accent border */
    int highlight_token;    /* -1 none, else a token index (chip outlined) */
    int highlight_bar;      /* 0 none, else a 1-based rank in the probability bars */
    int hide_probs;         /* 1 while a lesson question is open: bars hidden */
    int blank;              /* 1: presenter blanked the screen (draw background only) */
    int show_help;          /* 1: key overlay on top */
    int top_n;              /* probability bars to show (e.g. 10..20) */
    int print;              /* 1: drawing a figure for print — no interaction hints */
    int fill;               /* 1: the panel is shown alone (focus, figure, slide): its content
                             * grows to fill it (texts set large, chips large, rows tall) */
    int slide;              /* 1: a lesson slide: title band, figure, caption band; one panel
                             * alone has no status line (an error still shows) */
    VizProbAxis prob_axis;  /* scale of the probability bars */
    float prob_axis_max;    /* VIZ_AXIS_LINEAR: the axis end, a probability in (0, 1] */
    VizTextMode text_mode;  /* what the Text panel marks on the tokens */
    int query;              /* attention-math: the query position explained, -1 = the newest;
                             * attention-lines: the query whose lines alone are drawn, -1 = all */
    unsigned long long lines_heads; /* attention-lines: bit h = head h drawn; 0 = view.head alone */
    int attr_vs1;           /* attribution: the token the pick is compared with ("why ' time' and
                             * not ' day'": logit(pick) - logit(it)) as id + 1; 0 = none, the pick's
                             * logit alone, so a zeroed view compares with nothing. Read and set it
                             * with viz_view_attr_vs / viz_view_set_attr_vs (a token id, -1 none) */
} VizView;

static inline int viz_view_attr_vs(const VizView *v) { return v->attr_vs1 - 1; }
static inline void viz_view_set_attr_vs(VizView *v, int id) { v->attr_vs1 = id < 0 ? 0 : id + 1; }

/* One row of the key overlay (`?`), taken from the app's key table so the help can
 * never disagree with the handlers. */
typedef struct VizKeyHelp {
    const char *keys;   /* "Space / →" */
    const char *action; /* "one step (one token)" */
} VizKeyHelp;

typedef struct VizFrame {
    /* --- engine data, borrowed for the duration of the draw call --- */
    const Gpt2Config *cfg;        /* model shape (layers, heads, context, vocab) */
    const Tokenizer *tok;         /* for token text/bytes */
    const Gpt2Trace *trace;       /* attention patterns etc. for positions [0, n_pos) */
    const int *ids;               /* (n_pos) tokens on screen: prompt then generated */
    int n_pos;                    /* tokens so far */
    int n_prompt;                 /* the first n_prompt of them are the prompt */
    const TokEncoding *prompt_enc;/* the prompt's pieces and merges (BPE replay), may be NULL */
    const SamplerRecord *rec;     /* the next-token distribution and the draw, may be NULL */
    const SamplerRecord *prev_rec;/* the record that chose the newest token, may be NULL */
    const SamplerDraws *draws;    /* many rolls of rec's pending dice (row_counts per rows[i]), or NULL */

    /* --- session facts for the status line and titles --- */
    const char *model_name;       /* "stories16m", "gpt2-124M" */
    size_t n_params;
    const char *weights;          /* precision the weight matrices ran in ("F16"), or NULL */
    uint64_t seed;
    int step;                     /* tokens generated after the prompt (n_pos - n_prompt) */
    double last_step_ms;          /* wall time of the last forward step, <0 = none yet */
    int n_branches, branch;       /* branches kept and the one shown (0-based) */
    const char *status;           /* one-line message ("exported figs/0001.png"), or NULL */
    int status_is_error;          /* 1: draw `status` as an error */

    /* --- lesson/presenter overlay (all NULL/0 outside a lesson) --- */
    const char *title;            /* lesson title, drawn on top when set */
    const char *const *captions;  /* (n_captions) narration lines */
    int n_captions;
    const char *question;         /* an open question (bars hidden until reveal) */
    const char *beat_label;       /* "3 / 12" in the corner */
    const char *progress;         /* set: model work that must end before anything is shown
                                   * ("checking the lesson on the model: beat 3 of 12"), drawn
                                   * alone with the title, a bar and the status, no panels */
    int progress_done, progress_total; /* the bar: parts done of how many */

    /* --- Text panel marks (src/session/text_marks.c fills them when view.text_mode asks) --- */
    const TokenStat *tok_stats;   /* (n_pos) how expected token i was after tokens [0, i);
                                   * entry 0 has rank 0 (no context: not measured); NULL = none */
    const unsigned char *seen;    /* (n_pos) 1: the n-token window ending at token i occurs in
                                   * the training text; NULL when the model has no index */
    int seen_n;                   /* tokens per window (8 for the bundled model) */
    int seen_count, seen_total;   /* seen tokens / tokens counted (the generated ones once
                                   * there are any, else the whole text) */
    int seen_longest;             /* longest stretch of those whose every window is seen */
    const char *seen_missing;     /* why there are no marks ("no training-text index for this
                                   * model"), NULL when there are */

    /* --- inside the model (src/session/inside_fill.c, computed only for a shown panel that needs it) --- */
    const LensGrid *lens;         /* the logit-lens grid of positions [0, lens->n_pos), or NULL */
    const LensRow *lens_strip;    /* (n_lens_strip) the newest position depth by depth, ranking
                                   * lens_target, or NULL */
    int n_lens_strip;
    int lens_target;              /* the token the strip and the attribution are about: the pending
                                   * pick (rec->chosen), -1 = none */
    const Attribution *attr;      /* direct logit attribution of lens_target at the newest position */
    const TokenJourney *journey;  /* the newest token through every stage, or NULL */
    const char *inside_missing;   /* why the three above are NULL ("" or NULL: they are not) */
    const char *ablated;          /* canonical --ablate SPEC of what is switched off; "" or NULL = none */
    double ablation_kl;           /* KL(original || ablated) of the next-token distribution, nats; <0 none */
    const double *p_orig;         /* (rec->n) the unablated model's p_raw of rec->rows[i]; NULL = none */
    int orig_top_id;              /* the unablated model's most likely next token (-1: none) */
    /* --- settings side by side (src/session_compare.c computes them; NULL = not yet) --- */
    const SeqCompare *compare;    /* the columns for the current prompt and seed, or NULL */
    const char *compare_note;     /* when NULL: why ("computing ...", the error), or NULL */

    /* --- inside attention (src/session/attn_fill.c, computed only for a shown panel that needs it) --- */
    const AttnExplain *attn_math; /* view.layer/head at query attn_query, every stage; NULL = none */
    int attn_query;               /* the query position explained (view.query resolved) */
    const char *attn_missing;     /* why attn_math / heads is NULL ("" or NULL: it is not) */
    const HeadsInfo *heads;       /* what each head does (the fixed probe), or NULL */
    const AttnLine *attn_lines;   /* (n_attn_lines) the lines view's lines of view.layer, weakest
                                   * first (engine/attn_lines.h), or NULL */
    size_t n_attn_lines;
    AttnLinesSelect lines_sel;    /* what they were selected by (heads, top-k, threshold, query) */
    AttnLinesResult lines_res;    /* the share of the attention they carry */

    /* --- the class room (src/app/app_class.c; NULL = no room open: no class panel) --- */
    const VizClass *klass;

    const VizKeyHelp *keys;       /* (n_keys) for the help overlay */
    int n_keys;

    VizView view;
} VizFrame;

/* What a hit region is. a/b carry the details listed per kind. */
typedef enum VizHitKind {
    VIZ_HIT_NONE = 0,
    VIZ_HIT_PROB_BAR,   /* a = token id, b = rank */
    VIZ_HIT_ATTN_CELL,  /* a = query position, b = key position (of view.layer/head) */
    VIZ_HIT_HEAD_THUMB, /* a = layer, b = head */
    VIZ_HIT_TOKEN_CHIP, /* a = token index (position) */
    VIZ_HIT_PANEL,      /* a = VizPanel: the panel's whole rect (for Shift+E) */
    VIZ_HIT_ATTR_BAR,   /* a = layer, b = head (-1: an MLP; layer -1: embed or bias) */
} VizHitKind;

typedef struct VizHit {
    Rect r;
    VizHitKind kind;
    int a, b;
} VizHit;

#define VIZ_MAX_HITS 4096

typedef struct VizHits {
    VizHit hit[VIZ_MAX_HITS];
    int n;                /* regions recorded; extra ones are dropped silently */
} VizHits;

/* Appends a region (no-op when hits is NULL or full). */
void viz_hits_add(VizHits *hits, Rect r, VizHitKind kind, int a, int b);
/* The LAST region (drawn on top) of `kind` containing (x, y), or NULL. kind
 * VIZ_HIT_NONE matches any kind except VIZ_HIT_PANEL. */
const VizHit *viz_hits_at(const VizHits *hits, int x, int y, VizHitKind kind);

#endif
