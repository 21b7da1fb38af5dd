/* text_marks.c — per-token surprisal and seen marks for the Text panel (text_marks.h). */
#include "text_marks.h"
#include "file_read.h"
#include "free_all.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TextMarks *text_marks_new(const char *model_dir, int max_pos) {
    if (max_pos < 1) max_pos = 1;
    TextMarks *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    snprintf(m->index_path, sizeof m->index_path, "%s/%s", model_dir ? model_dir : ".", NGRAM_INDEX_FILE);
    m->cap = max_pos;
    m->stat = calloc((size_t)max_pos, sizeof *m->stat);
    m->ids = calloc((size_t)max_pos, sizeof *m->ids);
    m->seen = calloc((size_t)max_pos, 1);
    if (!m->stat || !m->ids || !m->seen) {
        text_marks_free(m);
        return NULL;
    }
    return m;
}

void text_marks_free(TextMarks *m) {
    if (!m) return;
    ngram_index_free(&m->ix);
    FREE_ALL(m->stat, m->ids, m->seen, m);
}

const TokenStat *text_marks_stats(TextMarks *m, const Session *s) {
    int n = session_len(s);
    if (!m || n > m->cap) return NULL;
    const int *ids = session_ids(s);
    /* stat[i] depends on ids[0..i] only; the prompt is recomputed by a prefill whose
     * float sums may differ in the last bits from single steps, so a new prompt length
     * starts over */
    if (m->n_prompt != s->n_prompt) m->n_valid = 0;
    m->n_prompt = s->n_prompt;
    int same = 0;
    while (same < m->n_valid && same < n && m->ids[same] == ids[same]) same++;
    for (int i = same; i < n; i++) {
        TokenStat *st = &m->stat[i];
        memset(st, 0, sizeof *st);
        st->id = ids[i];
        m->ids[i] = ids[i];
        if (i == 0) continue; /* the first token has no context: no prediction of it */
        const float *lg = gpt2_trace_logits(&s->trace, i - 1);
        /* only the first n_vocab rows are real tokens (a padded vocabulary's rows never are) */
        if (!lg || token_stat(lg, (size_t)session_vocab(s), ids[i], st)) {
            m->n_valid = i;
            return NULL;
        }
    }
    m->n_valid = n;
    return m->stat;
}

const unsigned char *text_marks_seen(TextMarks *m, const Session *s, NgramSummary *sum, const char **why) {
    memset(sum, 0, sizeof *sum);
    *why = "no training-text index for this model";
    if (!m) return NULL;
    if (!m->index_tried) {
        m->index_tried = 1;
        if (!file_exists(m->index_path)) { /* never opened here: a FIFO must not block */
            snprintf(m->missing, sizeof m->missing, "no training-text index for this model");
        } else {
            ErrorMsg err;
            if (ngram_index_load(&m->ix, m->index_path, &err))
                snprintf(m->missing, sizeof m->missing, "training-text index unusable: %.250s", err.text);
        }
    }
    if (m->missing[0]) {
        *why = m->missing;
        return NULL;
    }
    int n = session_len(s);
    if (n > m->cap) return NULL;
    int from = n > s->n_prompt ? s->n_prompt : 0;
    ngram_mark_from(&m->ix, session_ids(s), (size_t)n, (size_t)from, m->seen, sum);
    m->sum = *sum;
    *why = NULL;
    return m->seen;
}

void text_marks_fill(VizFrame *f, const Session *s) {
    if (f->view.text_mode == VIZ_TEXT_PLAIN) return;
    f->tok_stats = text_marks_stats(s->marks, s); /* both modes: the hover readout shows them */
    if (f->view.text_mode == VIZ_TEXT_SEEN) {
        NgramSummary sum;
        f->seen = text_marks_seen(s->marks, s, &sum, &f->seen_missing);
        if (f->seen) {
            f->seen_n = s->marks->ix.n;
            f->seen_count = (int)sum.n_seen;
            f->seen_total = (int)sum.n_tokens;
            f->seen_longest = (int)sum.longest_run;
        }
    }
}
