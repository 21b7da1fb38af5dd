/* handout_class.c — handout_class.h. Token texts are shown quoted ('␣there' keeps its
 * leading space visible as a space inside quotes) with control bytes as \xNN. */
#include "handout_class.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text_visible.h"

#define HC_COLS 8
#define HC_CELL 320 /* bytes of one cell: a token of 256 bytes with \xNN escapes is cut here */

/* 'tok' into out (cap >= 3), cut to fit */
static void quoted(char *out, size_t cap, const char *tok) {
    out[0] = '\'';
    text_visible(out + 1, cap - 2, (const uint8_t *)tok, strlen(tok), 0);
    size_t n = strlen(out);
    out[n] = '\'';
    out[n + 1] = '\0';
}

int handout_class_table(LessonHandout *h, const ClassResults *r, ErrorMsg *err) {
    static const char *const HEAD[HC_COLS] = {"Round", "Game", "The next token was", "Answered", "Class right",
                                              "Class bits", "Model p", "Model's top pick"};
    size_t n_cells = (size_t)(r->n + 1) * HC_COLS;
    char (*buf)[HC_CELL] = calloc(n_cells, sizeof *buf);
    const char **cells = calloc(n_cells, sizeof *cells);
    if (!buf || !cells) {
        free(buf);
        free(cells);
        return error_set(err, "handout: out of memory");
    }
    for (int c = 0; c < HC_COLS; c++) cells[c] = HEAD[c];
    for (int i = 0; i < r->n; i++) {
        const ClassResultRound *x = &r->round[i];
        char(*row)[HC_CELL] = buf + (size_t)(i + 1) * HC_COLS;
        snprintf(row[0], HC_CELL, "%d", x->round);
        snprintf(row[1], HC_CELL, "%s", x->model_game ? "guess the model" : "guess the text");
        if (x->truth) quoted(row[2], HC_CELL, x->truth);
        else snprintf(row[2], HC_CELL, "(not revealed)");
        snprintf(row[3], HC_CELL, "%d", x->guesses);
        if (x->scored) {
            snprintf(row[4], HC_CELL, "%d (%.0f %%)", x->right, 100.0 * x->class_top1);
            snprintf(row[5], HC_CELL, "%.2f", x->class_bits);
        }
        if (x->has_model) {
            snprintf(row[6], HC_CELL, "%.1f %%", 100.0 * x->model_p);
            char q[HC_CELL - 16];
            quoted(q, sizeof q, x->model_top);
            snprintf(row[7], HC_CELL, "%s%s", q, x->model_hit ? " (right)" : "");
        }
        for (int c = 0; c < HC_COLS; c++) cells[(size_t)(i + 1) * HC_COLS + (size_t)c] = row[c];
    }
    char outro[600];
    if (r->rounds > 0)
        snprintf(outro, sizeof outro,
                 "Over %d scored round%s (%ld answers): the class guessed the next token %.1f %% of the time, "
                 "%.2f bits a token; the model %.1f %%, %.2f bits. The class's bits score its guesses as one "
                 "distribution, %s (so a token nobody chose costs bits, not infinity).",
                 r->rounds, r->rounds == 1 ? "" : "s", r->guesses, 100.0 * r->class_top1, r->class_bits,
                 100.0 * r->model_top1, r->model_bits, r->smoothing);
    else
        snprintf(outro, sizeof outro, "No round was revealed with an answer, so there is no score yet.");
    int rc = lesson_handout_set_table(h, "How the class did", "Each round, every student guessed the next token "
                                      "on their phone before it was revealed; the model guessed too.",
                                      cells, HC_COLS, r->n, outro, err);
    free(buf);
    free(cells);
    return rc;
}
