/* lesson.h — the lesson file format: parse a `.lesson` text file into a list of
 * directives grouped into beats (one beat = one slide; `pause` and `reveal` end a
 * beat). Parsing only: applying a beat to a session is src/lesson/lesson_run.c. The format
 * is documented for teachers in lessons/README.md; errors are "FILE:LINE: problem". */
#ifndef LESSON_H
#define LESSON_H

#include <stddef.h>

#include "error.h"
#include "settings.h"

typedef enum LessonOp {
    LOP_TITLE,       /* title TEXT                      lesson title (once) */
    LOP_MODEL,       /* model bundled | PATH [or-bundled] */
    LOP_PROMPT,      /* prompt TEXT (\n and \\ escapes)  resets the text to this prompt */
    LOP_SEED,        /* seed N */
    LOP_SETTING,     /* WORD VALUE                      a sampler setting: the settings table's
                      * lesson words (temperature X, top_k N, top_p X, greedy on|off, ...) */
    LOP_STEP,        /* step [N]                        generate N tokens (default 1) */
    LOP_BACK,        /* back [N]                        step back N tokens (default 1) */
    LOP_HOME,        /* home                            back to the prompt */
    LOP_FORCE,       /* force TEXT | #ID                choose this next token (a branch) */
    LOP_REROLL,      /* reroll                          same step, new dice */
    LOP_DRAWS,       /* draws N                         roll the pending dice N times (0 = none) */
    LOP_COMPARE,     /* compare SPEC SPEC [SPEC [SPEC]] the settings side by side, the same dice */
    LOP_LAYER,       /* layer N                         0-based */
    LOP_HEAD,        /* head N                          0-based */
    LOP_QUERY,       /* query N | query all             the query attention-math explains and
                      *                                 whose lines alone attention-lines draws */
    LOP_HEADS,       /* heads all | one | LIST          the heads attention-lines draws */
    LOP_PANEL,       /* panel NAME                      a panel of the panel table (panel_table.h) */
    LOP_CAPTION,     /* caption TEXT                    one line of narration (repeatable) */
    LOP_HIGHLIGHT,   /* highlight none | panel NAME | token N | bar N */
    LOP_BPE,         /* bpe N                           replay the merges of token N's word */
    LOP_ASK,         /* ask TEXT                        question; the bars stay hidden */
    LOP_REVEAL,      /* reveal                          new beat that shows the answer */
    LOP_PAUSE,       /* pause                           end of this beat (next key continues) */
    LOP_AXIS,        /* axis auto|log|linear [N]        scale of the probability bars (N %) */
    LOP_TEXTMODE,    /* textmode plain|surprisal|seen    what the Text panel marks on the tokens */
    LOP_EXPECT,      /* expect CLAIM                    a claim about the state, checked (lesson_expect.h) */
    LOP_ABLATE,      /* ablate SPEC | none              switch parts off (--ablate's SPEC: L.H, L.attn,
                      *                                 L.mlp, comma-separated) or everything back on */
    LOP_ATTR_VS,     /* attribute_vs TEXT | #ID | none  the attribution explains logit(pick) - logit(TEXT);
                      *                                 kind 1: none (the pick's logit alone) */
    LOP_CLASS,       /* class round | reveal | text | model   the class room (kind: LessonClass): a
                      *                                 round opens here (the bars hidden), its answer
                      *                                 shown (a new beat), the game switched */
} LessonOp;

/* What a `class` line does (kind of an LOP_CLASS directive). Without a class room open
 * (an export, the tests) only the bars' hiding and showing remain; in the window with
 * a room open the app opens the round and reveals it (src/app/app_class.c). */
typedef enum LessonClass { LCLASS_ROUND, LCLASS_REVEAL, LCLASS_TEXT, LCLASS_MODEL } LessonClass;

/* The question a `class round` beat shows (the slide, the handout), answered by its reveal. */
#define LESSON_CLASS_QUESTION "Class round: what comes next?"

/* What an `expect` line claims (kind of an LOP_EXPECT directive). */
typedef enum LessonExpect {
    LEXP_NEXT,      /* next TEXT            the most likely next token (rank 1, before sampling) */
    LEXP_PROB,      /* prob TEXT OP X       p_final of token TEXT, as the bars show it */
    LEXP_CHOSEN,    /* chosen TEXT          the token the last step appended */
    LEXP_TEXT,      /* text TEXT            the generated text (after the prompt) is exactly TEXT */
    LEXP_TOKENS,    /* tokens TEXT OP N     TEXT tokenizes into OP N tokens */
    LEXP_KEPT,      /* kept OP N            tokens left after the sampler's cuts */
    LEXP_REPEATS,   /* repeats N            a run of N generated tokens occurs at least twice */
    LEXP_ATTENTION, /* attention L H Q K OP X | attention L H prev|first OP X | ... strongest */
    LEXP_TOKEN,     /* token POS TEXT       the token at position POS (0-based) on screen is TEXT */
    LEXP_IDS,       /* ids TEXT A,B,C       TEXT tokenizes into exactly these ids */
    LEXP_PICK,      /* pick TEXT            the token the pending draw picks now */
    LEXP_TOP,       /* top N OP X           p_final of the N likeliest tokens together */
    LEXP_SEEN,      /* seen [run|count] OP X  share of seen tokens (of the generated ones, else all),
                     * the longest seen run, or the number of seen tokens */
    LEXP_SURPRISAL, /* surprisal POS|max|mean OP X   -log2 p in bits of token POS, or the largest /
                     * mean over the generated tokens (else all but the first) */
    LEXP_LENS,      /* lens TEXT DEPTH OP N   the rank of TEXT in the logit lens at depth DEPTH (0 =
                     * embeddings, L = the output) of the newest position, as the lens panel prints */
    LEXP_ATTRIBUTION, /* attribution PART OP X  what PART (embed, LxHy, Lx.mlp, bias) adds to the logit
                     * of the pending pick at the newest position, as the attribution panel shows */
    LEXP_HEAD,      /* head L.H best PATTERN | head L.H PATTERN OP X   engine/head_scores on the fixed
                     * probe (inferscope heads): L.H scores highest of all heads, or compares OP X */
    LEXP_DRAWS,     /* draws TEXT OP N      how often TEXT came up in the rolls of `draws N` */
    LEXP_CHI2,      /* chi2 OP X | chi2 p OP X   Pearson's chi2 of those rolls, or its p-value */
    LEXP_PENALTY,   /* penalty TEXT OP X    the logit change the penalties gave TEXT (the token strip's Δ) */
    LEXP_COMPARE,   /* compare K METRIC OP X  column K (1-based) of `compare`: repeated2, repeated3,
                     * distinct2, surprisal (mean bits) or diverge (first token leaving greedy, -1 never) */
    LEXP_COUNT      /* not a claim: how many kinds there are (new kinds go above this line) */
} LessonExpect;

/* `expect top N`: at most this many bars (the rows a session keeps, SESSION_TOP_N). */
#define LESSON_TOP_MAX 20

/* Captions a beat may have: lesson_load refuses more (they were once dropped in silence);
 * what does not fit on a slide is counted there ("... 3 more lines"), the handout shows all. */
#define LESSON_MAX_CAPTIONS 12

/* A lesson file is refused above this size (lesson_load and the handout read it). */
#define LESSON_MAX_BYTES ((size_t)1 << 20)

typedef enum LessonCmp { LCMP_GE, LCMP_LE, LCMP_GT, LCMP_LT, LCMP_EQ, LCMP_STRONGEST } LessonCmp;

/* attention query forms (arg[2]): a position >= 0, or the mean over rows 1..T-1 of */
enum { LATT_PREV = -1 /* the weight on key i-1 */, LATT_FIRST = -2 /* the weight on key 0 */ };
/* surprisal positions (arg[0]): a position >= 1, or over the generated tokens */
enum { LSUR_MAX = -1, LSUR_MEAN = -2 };
/* what `expect seen` measures (arg[0]) */
enum { LSEEN_SHARE = 0, LSEEN_RUN = 1, LSEEN_COUNT = 2 };

typedef enum LessonHighlightKind { LHL_NONE, LHL_PANEL, LHL_TOKEN, LHL_BAR } LessonHighlightKind;

typedef struct LessonDirective {
    LessonOp op;
    int line;         /* 1-based line in the file, for messages */
    long n;           /* integer argument (N, layer, head, token index, bar rank, id) */
    uint64_t seed;    /* SEED: all 64 bits (settings_parse_seed) */
    double x;         /* real argument (EXPECT threshold; AXIS: the linear end, 0..1) */
    int flag;         /* on/off; FORCE, EXPECT: 1 = by id (#ID), 0 = by text; MODEL: 1 = or-bundled */
    int kind;         /* CLASS: LessonClass; SETTING: SettingId; ATTR_VS: 1 = none; PANEL: VizPanel (panel_table.h); HIGHLIGHT: LessonHighlightKind; EXPECT: LessonExpect; AXIS: VizProbAxis */
    int cmp;          /* EXPECT: LessonCmp */
    long arg[4];      /* EXPECT attention: layer, head, query (or LATT_*), key; token: position;
                       * HEADS: the mask's low and high 32 bits (flag 1: all heads) */
    char *claim;      /* EXPECT: owned, the claim as written (for "expect failed: CLAIM") */
    int *ids;         /* EXPECT ids: owned (n_ids) */
    size_t n_ids;
    int panel;        /* HIGHLIGHT panel: VizPanel */
    SamplerSettings setting; /* SETTING: defaults with row `kind`'s field set (settings.h) */
    char *text;       /* owned; TITLE/MODEL/PROMPT/FORCE/CAPTION/ASK text (UTF-8, validated) */
    size_t text_len;  /* bytes in text (may contain NUL after \x00-free escapes: never) */
} LessonDirective;

struct LessonReplay; /* lesson_run.c: the state after each beat, filled as beats run */

typedef struct Lesson {
    char path[512];            /* file it came from */
    char *title;               /* borrowed from the TITLE directive, or NULL */
    LessonDirective *dir;      /* (n_dir) owned */
    size_t n_dir;
    size_t *beat_end;          /* (n_beats) index one past each beat's last directive */
    size_t n_beats;            /* >= 1 for a valid lesson */
    struct LessonReplay *replay; /* owned by lesson_run.c (NULL until a beat is shown) */
} Lesson;

/* Parses the file at path. On error returns -1 with "PATH:LINE: problem" in err and
 * *out zeroed; nothing to free. */
int lesson_load(Lesson *out, const char *path, ErrorMsg *err);

/* Same, from bytes already in memory (path is used in messages only). */
int lesson_parse(Lesson *out, const char *path, const char *text, size_t len, ErrorMsg *err);

/* Frees everything, the replay cache too; safe on a zeroed Lesson. */
void lesson_free(Lesson *l);
/* Frees only the replay cache (lesson_run.c); the next beat shown rebuilds it. */
void lesson_replay_free(Lesson *l);

#endif
