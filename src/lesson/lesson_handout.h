/* lesson_handout.h — `export --lesson F --handout`: a page for students to read at
 * home, written beside the slides as handout.md and handout.html: the lesson's title,
 * every slide image (a relative path, so the folder can be moved or zipped) with its
 * captions and question, and the teacher's notes (the `#` comment lines of the lesson
 * file), marked as such, next to the slide they were written above. Not the slides
 * (cmd_export.c renders them) and not the lesson parser (lesson.c). */
#ifndef LESSON_HANDOUT_H
#define LESSON_HANDOUT_H

#include <stddef.h>

#include "error.h"
#include "lesson.h"

/* One slide as it was exported. */
typedef struct HandoutSlide {
    char *image;       /* owned: file name of the PNG, relative to the handout's folder */
    char **captions;   /* (n_captions) owned lines, as drawn on the slide */
    int n_captions;
    char *question;    /* owned, or NULL */
    int answered;      /* 1: the slide reveals the answer to `question` (0: still open) */
} HandoutSlide;

/* A teacher's note: the comment lines of one block, joined into items. */
typedef struct HandoutNotes {
    char **item;       /* (n) owned: "- text" for a bullet, plain text otherwise */
    int n;
} HandoutNotes;

/* A table after the slides (e.g. how a class did in the lesson's rounds: the cli fills it
 * from a class-rounds file). Cells are plain UTF-8 text, escaped by each format. */
typedef struct HandoutTable {
    char *title;   /* owned, or NULL: no table */
    char *intro;   /* owned paragraph under the title, or NULL */
    char **cell;   /* ((n_rows + 1) * n_cols) owned: row 0 is the header */
    int n_cols, n_rows;
    char *outro;   /* owned paragraph under the table, or NULL */
} HandoutTable;

typedef struct LessonHandout {
    char *title;           /* owned copy of the lesson title, or NULL */
    char *source;          /* owned: the lesson file's name, for the footer */
    char *model;           /* owned: the model the slides were drawn from, for the footer */
    char *note;            /* owned: e.g. "gpt2-124M is not downloaded ...", shown once; or NULL */
    HandoutNotes intro;    /* notes above the first directive: about the whole lesson */
    HandoutNotes *notes;   /* (n_beats) notes written inside each beat */
    HandoutSlide *slide;   /* (n_beats) filled by lesson_handout_add */
    int n_beats;
    HandoutTable table;    /* after the slides, before the footer; empty unless set */
} LessonHandout;

/* Reads the teacher's notes from the lesson file l->path (a regular file of at most
 * 1 MiB, read without blocking) and sizes the handout for l's beats. A comment belongs
 * to the beat of the next directive after it; comments before the first directive
 * belong to the whole lesson. model_name goes in the footer; note (may be NULL or "")
 * is a line every slide carries (the model fallback), printed once under the title.
 * Returns -1 with err on a read error. */
int lesson_handout_init(LessonHandout *h, const Lesson *l, const char *model_name, const char *note,
                        ErrorMsg *err);

/* Records what slide `beat` shows: image_path (only its file name is kept), the
 * caption lines and the question (may be NULL; answered = the slide reveals it). */
int lesson_handout_add(LessonHandout *h, int beat, const char *image_path, const char *const *captions,
                       int n_captions, const char *question, int answered, ErrorMsg *err);

/* Sets the table after the slides: title, intro and outro (may be NULL) and
 * (n_rows + 1) * n_cols cells, row 0 the header; all copied. -1 with err (no memory,
 * n_cols outside 1..16, a table already set). */
int lesson_handout_set_table(LessonHandout *h, const char *title, const char *intro, const char *const *cells,
                             int n_cols, int n_rows, const char *outro, ErrorMsg *err);

/* Writes DIR/handout.md and DIR/handout.html (each atomically: temp file + rename,
 * replacing an older handout). The paths written go to md_out / html_out. */
int lesson_handout_write(const LessonHandout *h, const char *dir, char *md_out, size_t md_cap, char *html_out,
                         size_t html_cap, ErrorMsg *err);

/* The two documents as text (malloc'd, NUL-terminated; the caller frees): for tests. */
char *lesson_handout_markdown(const LessonHandout *h);
char *lesson_handout_html(const LessonHandout *h);

/* Frees everything; safe on a zeroed handout. */
void lesson_handout_free(LessonHandout *h);

#endif
