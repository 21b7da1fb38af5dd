/* class_score.c — the class's and the model's hit rates and bits (class_score.h). */
#include "class_score.h"

#include <math.h>
#include <stdlib.h>

static int by_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int class_score_round(const int *tokens, size_t n, int truth, size_t V, double lambda, double model_p,
                      int model_top, ClassRoundScore *out) {
    if (n == 0 || V == 0 || !(lambda > 0.0 && lambda <= 1.0) || !(model_p > 0.0 && model_p <= 1.0)) return -1;
    int *sorted = malloc(n * sizeof *sorted);
    if (!sorted) return -1;
    for (size_t i = 0; i < n; i++) sorted[i] = tokens[i];
    qsort(sorted, n, sizeof *sorted, by_int);
    /* counts by run: the truth's, the largest, and how many tokens share the largest */
    size_t c_truth = 0, best = 0, n_best = 0;
    int truth_is_best = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && sorted[j] == sorted[i]) j++;
        size_t c = j - i;
        if (sorted[i] == truth) c_truth = c;
        if (c > best) {
            best = c;
            n_best = 1;
            truth_is_best = sorted[i] == truth;
        } else if (c == best) {
            n_best++;
            truth_is_best |= sorted[i] == truth;
        }
        i = j;
    }
    free(sorted);
    double q = (1.0 - lambda) * (double)c_truth / (double)n + lambda / (double)V;
    out->n_guesses = (int)n;
    out->n_right = (int)c_truth;
    out->class_bits = -log2(q);
    out->plurality_hit = truth_is_best ? 1.0 / (double)n_best : 0.0;
    out->model_hit = model_top == truth;
    out->model_bits = -log2(model_p);
    return 0;
}

void class_score_add(ClassScore *s, const ClassRoundScore *r) {
    s->rounds++;
    s->guesses += r->n_guesses;
    s->right += r->n_right;
    s->class_bits_sum += r->class_bits;
    s->model_bits_sum += r->model_bits;
    s->plurality_sum += r->plurality_hit;
    s->model_hits += r->model_hit;
}

double class_score_hit_rate(const ClassScore *s) { return s->guesses ? (double)s->right / (double)s->guesses : 0.0; }
double class_score_bits(const ClassScore *s) { return s->rounds ? s->class_bits_sum / s->rounds : 0.0; }
double class_score_plurality_rate(const ClassScore *s) { return s->rounds ? s->plurality_sum / s->rounds : 0.0; }
double class_score_model_hit_rate(const ClassScore *s) { return s->rounds ? (double)s->model_hits / s->rounds : 0.0; }
double class_score_model_bits(const ClassScore *s) { return s->rounds ? s->model_bits_sum / s->rounds : 0.0; }

/* Scores round c if it is revealed and has guesses: 1 scored, 0 not scorable, -1 no memory. */
static int score_one(const ClassRoom *r, const ClassRound *c, ClassRoundScore *out) {
    if (c->truth < 0 || c->n_guesses == 0) return 0;
    int *tokens = malloc((size_t)c->n_guesses * sizeof *tokens);
    if (!tokens) return -1;
    for (int i = 0; i < c->n_guesses; i++) tokens[i] = c->guesses[i].g.token;
    int rc = class_score_round(tokens, (size_t)c->n_guesses, c->truth, r->n_vocab, CLASS_SMOOTH_LAMBDA,
                               c->model_p, c->model_top, out);
    free(tokens);
    return rc == 0 ? 1 : -1;
}

int class_score_room(const ClassRoom *r, ClassScore *s) {
    *s = (ClassScore){0};
    for (int i = 0; i < r->n_rounds; i++) {
        ClassRoundScore one;
        int k = score_one(r, &r->rounds[i], &one);
        if (k < 0) return -1;
        if (k) class_score_add(s, &one);
    }
    return 0;
}

int class_score_round_of(const ClassRoom *r, int i, ClassRoundScore *out) {
    return i >= 0 && i < r->n_rounds ? score_one(r, &r->rounds[i], out) : 0;
}

int class_score_current(const ClassRoom *r, ClassRoundScore *out) {
    const ClassRound *c = class_room_current(r);
    return c && score_one(r, c, out) == 1 ? 0 : -1;
}
