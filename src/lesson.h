/* lesson.h — the lesson file format: parse a `.lesson` text file into a list of
 * directives grouped into beats (one beat = one slide; `pause` and `reveal` end a
 * beat). Parsing only: applying a beat to a session is src/lesson_run.c. The format
 * is documented for teachers in lessons/README.md; errors are "FILE:LINE: problem". */
#ifndef LESSON_H
#define LESSON_H

#include <stddef.h>

#include "error.h"

typedef enum LessonOp {
    LOP_TITLE,       /* title TEXT                      lesson title (once) */
    LOP_MODEL,       /* model bundled | PATH [or-bundled] */
    LOP_PROMPT,      /* prompt TEXT (\n and \\ escapes)  resets the text to this prompt */
    LOP_SEED,        /* seed N */
    LOP_TEMPERATURE, /* temperature X                   0 = greedy */
    LOP_TOP_K,       /* top_k N                         0 = off */
    LOP_TOP_P,       /* top_p X                         1 = off */
    LOP_GREEDY,      /* greedy on|off */
    LOP_STEP,        /* step [N]                        generate N tokens (default 1) */
    LOP_BACK,        /* back [N]                        step back N tokens (default 1) */
    LOP_HOME,        /* home                            back to the prompt */
    LOP_FORCE,       /* force TEXT | #ID                choose this next token (a branch) */
    LOP_REROLL,      /* reroll                          same step, new dice */
    LOP_LAYER,       /* layer N                         0-based */
    LOP_HEAD,        /* head N                          0-based */
    LOP_PANEL,       /* panel frame|tokens|attention|probs|text */
    LOP_CAPTION,     /* caption TEXT                    one line of narration (repeatable) */
    LOP_HIGHLIGHT,   /* highlight none | panel NAME | token N | bar N */
    LOP_BPE,         /* bpe N                           replay the merges of token N's word */
    LOP_ASK,         /* ask TEXT                        question; the bars stay hidden */
    LOP_REVEAL,      /* reveal                          new beat that shows the answer */
    LOP_PAUSE,       /* pause                           end of this beat (next key continues) */
} LessonOp;

typedef enum LessonPanel {
    LPANEL_FRAME, LPANEL_TOKENS, LPANEL_ATTENTION, LPANEL_PROBS, LPANEL_TEXT, LPANEL_COUNT
} LessonPanel;

typedef enum LessonHighlightKind { LHL_NONE, LHL_PANEL, LHL_TOKEN, LHL_BAR } LessonHighlightKind;

typedef struct LessonDirective {
    LessonOp op;
    int line;         /* 1-based line in the file, for messages */
    long n;           /* integer argument (N, seed, layer, head, token index, bar rank, id) */
    double x;         /* real argument (temperature, top_p) */
    int flag;         /* on/off; FORCE: 1 = by id (#ID), 0 = by text; MODEL: 1 = or-bundled */
    int kind;         /* PANEL: LessonPanel; HIGHLIGHT: LessonHighlightKind */
    int panel;        /* HIGHLIGHT panel: LessonPanel */
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

/* "attention" -> LPANEL_ATTENTION; -1 if unknown. And the reverse. */
int lesson_panel_from_name(const char *s, size_t n);
const char *lesson_panel_name(int panel);

#endif
