/* text_marks.h — the numbers the Text panel's marks show, computed from a Session: per
 * token its probability, surprisal, entropy and rank under the model (engine/token_stats
 * on the traced logits of the position before it) and whether it ends an n-token run
 * of the model's training text (engine/ngram_index, the model folder's index). Kept per
 * session and recomputed only for the tokens that changed (a step costs one row), so
 * a long text redraws at frame rate; the index is read the first time it is needed.
 * Not drawing (viz/panel_text.c) and not the CLI (`eval --per-token`, `novelty`). */
#ifndef TEXT_MARKS_H
#define TEXT_MARKS_H

#include "frame.h"
#include "ngram_index.h"
#include "session.h"
#include "token_stats.h"

typedef struct TextMarks {
    char index_path[1100];  /* MODEL/ngram-index.bin */
    int index_tried;        /* 1 once loading was attempted */
    NgramIndex ix;          /* owned; count 0 when there is none */
    char missing[300];      /* why there are no seen marks ("" when there are) */
    int cap;                /* positions allocated below */
    TokenStat *stat;        /* (cap) owned: stat[i] for token i given [0, i); rank 0 = none */
    int *ids;               /* (cap) owned: the ids stat[] was computed for */
    int n_valid;            /* stat[0, n_valid) holds for ids[0, n_valid) */
    int n_prompt;           /* the prompt length they were computed under */
    unsigned char *seen;    /* (cap) owned */
    NgramSummary sum;       /* of the last text_marks_seen */
} TextMarks;

/* Allocates marks for a session of max_pos positions on the model in model_dir (the
 * index is not read yet). Returns NULL when out of memory. */
TextMarks *text_marks_new(const char *model_dir, int max_pos);
/* Frees; NULL is fine. */
void text_marks_free(TextMarks *m);

/* Brings stat[] up to date with the session's tokens and returns it ((n_pos) entries),
 * or NULL when the session has no marks or a row's logits are unusable. */
const TokenStat *text_marks_stats(TextMarks *m, const Session *s);
/* Marks the seen tokens and summarises them over the generated tokens (the whole text
 * when nothing is generated yet), like `inferscope novelty`. Returns the marks, or NULL
 * (*why says why: no index for this model, or the index file's problem). */
const unsigned char *text_marks_seen(TextMarks *m, const Session *s, NgramSummary *sum, const char **why);

/* Fills the Text panel fields of f for f->view.text_mode (nothing for PLAIN). */
void text_marks_fill(VizFrame *f, const Session *s);

#endif
