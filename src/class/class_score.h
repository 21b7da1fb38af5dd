/* class_score.h — how well the class and the model predicted the revealed tokens: the
 * Shlegeris measure (top-1 hit rate and log-loss in bits) for both, on the same rounds.
 * The class's guesses become a distribution mixed with the uniform one (README:
 * "Scoring"). Pure arithmetic on plain values; tested against hand-computed numbers. */
#ifndef CLASS_SCORE_H
#define CLASS_SCORE_H

#include <stddef.h>

#include "class_room.h"

/* λ of q(t) = (1 - λ)·c(t)/n + λ/V: the share of belief the class gives every token. */
#define CLASS_SMOOTH_LAMBDA 0.1

typedef struct ClassRoundScore {
    int n_guesses;       /* guesses in the round */
    int n_right;         /* guesses whose first token is the truth */
    double class_bits;   /* -log2 q(truth) */
    double plurality_hit;/* 1 if the most chosen token is the truth; 1/k in a k-way tie
                          * that holds it; 0 otherwise */
    int model_hit;       /* 1 if the model's top token is the truth */
    double model_bits;   /* -log2 p(truth) */
} ClassRoundScore;

/* Scores one round from its guesses' tokens[0..n) (n >= 1), the truth, the vocabulary
 * size V and λ, and the model's p(truth) and top token. -1 when n == 0, V == 0, λ is
 * outside (0, 1], or model_p is not in (0, 1]. */
int class_score_round(const int *tokens, size_t n, int truth, size_t V, double lambda, double model_p,
                      int model_top, ClassRoundScore *out);

/* The game so far: sums over the scored rounds (revealed, with at least one guess). */
typedef struct ClassScore {
    int rounds;              /* rounds scored */
    long guesses, right;     /* all guesses, the right ones */
    double class_bits_sum, model_bits_sum, plurality_sum;
    int model_hits;
} ClassScore;

/* Adds a round's score. */
void class_score_add(ClassScore *s, const ClassRoundScore *r);
/* The means (0 when nothing is scored): class top-1 = right/guesses, class bits =
 * class_bits_sum/rounds, plurality rate, model top-1 = model_hits/rounds, model bits. */
double class_score_hit_rate(const ClassScore *s);
double class_score_bits(const ClassScore *s);
double class_score_plurality_rate(const ClassScore *s);
double class_score_model_hit_rate(const ClassScore *s);
double class_score_model_bits(const ClassScore *s);

/* Scores every revealed round of the room with at least one guess (λ =
 * CLASS_SMOOTH_LAMBDA) into *s (zeroed first); the current round too when revealed.
 * -1 on no memory. */
int class_score_room(const ClassRoom *r, ClassScore *s);

/* Round i's score: 1 with *out when it is revealed and has guesses, 0 when it is not
 * scored, -1 on no memory. */
int class_score_round_of(const ClassRoom *r, int i, ClassRoundScore *out);

/* The current round's score if it is revealed and has guesses: 0 with *out, else -1. */
int class_score_current(const ClassRoom *r, ClassRoundScore *out);

#endif
