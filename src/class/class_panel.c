/* class_panel.c — class_panel.h. */
#include "class_panel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "class_score.h"
#include "gpt2_forward.h"
#include "token_stats.h"

int class_panel_init(ClassPanel *p, int max_students, ErrorMsg *err) {
    memset(p, 0, sizeof *p);
    size_t n = (size_t)(max_students > 0 ? max_students : 1);
    p->tally_id = malloc(n * sizeof *p->tally_id);
    p->tally_n = malloc(n * sizeof *p->tally_n);
    p->right = malloc(n * sizeof *p->right);
    p->max_students = (int)n;
    if (!p->tally_id || !p->tally_n || !p->right) return error_set(err, "out of memory");
    return 0;
}

void class_panel_free(ClassPanel *p) {
    free(p->tally_id);
    free(p->tally_n);
    free(p->right);
    memset(p, 0, sizeof *p);
}

/* The round's guesses by token (p->tally_*), and how many were right. Under the lock. */
static int tally_round(ClassPanel *p, const ClassRound *c, int *n_right) {
    int n = 0;
    *n_right = 0;
    for (int i = 0; c && i < c->n_guesses && n < p->max_students; i++) {
        int t = c->guesses[i].g.token, j = 0;
        while (j < n && p->tally_id[j] != t) j++;
        if (j == n) p->tally_id[n] = t, p->tally_n[n++] = 0;
        p->tally_n[j]++;
        *n_right += c->truth >= 0 && t == c->truth;
    }
    return n;
}

/* The top students by right answers over the revealed rounds (nickname set). Under the lock. */
static void top_names(ClassPanel *p, const ClassRoom *r) {
    int ns = r->n_students < p->max_students ? r->n_students : p->max_students;
    memset(p->right, 0, (size_t)ns * sizeof *p->right);
    for (int i = 0; i < r->n_rounds; i++)
        for (int g = 0; r->rounds[i].truth >= 0 && g < r->rounds[i].n_guesses; g++) {
            int st = r->rounds[i].guesses[g].student;
            if (st < ns && r->rounds[i].guesses[g].g.token == r->rounds[i].truth) p->right[st]++;
        }
    int n = 0;
    while (n < VIZ_CLASS_NAMES_MAX) {
        int best = -1;
        for (int s = 0; s < ns; s++)
            if (p->right[s] > 0 && r->students[s].nick[0] && (best < 0 || p->right[s] > p->right[best])) best = s;
        if (best < 0) break;
        snprintf(p->names[n], sizeof p->names[n], "%s", r->students[best].nick);
        p->name_ptr[n] = p->names[n];
        p->name_right[n++] = p->right[best];
        p->right[best] = 0;
    }
    p->view.n_names = n;
}

/* The room's side of the view; returns the distinct tokens guessed. */
static int copy_room(ClassPanel *p, ClassServer *srv, const ClassRoom *r, ClassGame game, int names_on) {
    if (srv) class_server_lock(srv);
    const ClassRound *c = class_room_current(r);
    VizClass *v = &p->view;
    v->phase = (int)r->phase;
    v->round = r->n_rounds;
    v->game = (int)(c && r->phase != CLASS_PHASE_WAITING ? c->game : game);
    v->joined = r->n_students;
    v->max_students = r->max_students;
    v->locked = r->locked;
    v->answered = c ? c->n_guesses : 0;
    v->truth = c && r->phase == CLASS_PHASE_REVEALED ? c->truth : -1;
    int n = tally_round(p, r->phase == CLASS_PHASE_WAITING ? NULL : c, &v->n_right);
    ClassScore sc;
    memset(&v->score, 0, sizeof v->score);
    if (class_score_room(r, &sc) == 0) {
        v->score = (VizClassScore){sc.rounds, sc.guesses, sc.right, class_score_hit_rate(&sc), class_score_bits(&sc),
                                   class_score_model_hit_rate(&sc), class_score_model_bits(&sc)};
    }
    v->n_names = 0;
    if (names_on) top_names(p, r);
    if (srv) class_server_unlock(srv);
    return n;
}

/* The model's side: its favourites with the class's votes, the class's other picks with
 * the model's p, both entropies. */
static void fill_rows(ClassPanel *p, Session *s, int n_tokens, int with_logits) {
    VizClass *v = &p->view;
    v->n_rows = v->n_fav = 0;
    v->class_entropy = v->model_entropy = -1;
    if (v->answered > 0) {
        double h = 0;
        for (int j = 0; j < n_tokens; j++) {
            double q = (double)p->tally_n[j] / v->answered;
            h -= q * log2(q);
        }
        v->class_entropy = h + 0.0; /* + 0.0: one guess gives -0.0 */
    }
    if (!s->has_next || v->phase == CLASS_PHASE_WAITING) return;
    int fav = s->next.n < VIZ_CLASS_FAVS ? s->next.n : VIZ_CLASS_FAVS;
    for (int i = 0; i < fav; i++) {
        VizClassRow *w = &p->rows[v->n_rows++];
        *w = (VizClassRow){s->next.rows[i].id, 0, s->next.rows[i].p_raw, s->next.rows[i].rank + 1};
        for (int j = 0; j < n_tokens; j++)
            if (p->tally_id[j] == w->id) w->votes = p->tally_n[j];
    }
    v->n_fav = v->n_rows;
    ErrorMsg err;
    const float *logits = with_logits && session_len(s) > 0
                              ? gpt2_logits_at(&s->model, &s->trace, session_len(s) - 1, &err)
                              : NULL;
    TokenStat st;
    int V = session_vocab(s);
    if (logits && token_stat(logits, (size_t)V, s->next.rows[0].id, &st) == 0) v->model_entropy = st.entropy_bits;
    /* the class's other picks, most votes first */
    while (v->n_rows < VIZ_CLASS_ROWS_MAX) {
        int best = -1;
        for (int j = 0; j < n_tokens; j++) {
            int listed = 0;
            for (int i = 0; i < v->n_rows; i++) listed |= p->rows[i].id == p->tally_id[j];
            if (!listed && (best < 0 || p->tally_n[j] > p->tally_n[best])) best = j;
        }
        if (best < 0) break;
        VizClassRow *w = &p->rows[v->n_rows++];
        *w = (VizClassRow){p->tally_id[best], p->tally_n[best], 0, 0};
        if (logits && token_stat(logits, (size_t)V, w->id, &st) == 0) w->model_p = st.p, w->model_rank = st.rank;
    }
}

void class_panel_fill(ClassPanel *p, ClassServer *srv, const ClassRoom *room, Session *s, ClassGame game,
                      int names_on, int with_logits, const char *url, const char *code, const unsigned char *qr,
                      int qr_size) {
    int n = copy_room(p, srv, room, game, names_on);
    fill_rows(p, s, n, with_logits);
    VizClass *v = &p->view;
    v->url = url;
    v->code = code;
    v->qr = qr;
    v->qr_size = qr_size;
    v->rows = p->rows;
    v->names_on = names_on;
    v->names = p->name_ptr;
    v->name_right = p->name_right;
}
