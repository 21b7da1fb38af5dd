/* logit_kl.h — how far one next-token distribution moved from another, both given as
 * logits (temperature 1): the Kullback-Leibler divergence KL(P || Q) in nats. Used to
 * say how much an ablation changed the model's prediction (P = original, Q = ablated).
 * Not the sampler and not a loss over a text. */
#ifndef LOGIT_KL_H
#define LOGIT_KL_H

#include <stddef.h>

/* KL(softmax(p) || softmax(q)) = sum_i P_i (ln P_i - ln Q_i) >= 0, summed in double after
 * subtracting each side's logsumexp. A token with P_i = 0 (logit -inf) adds nothing; one
 * with P_i > 0 and Q_i = 0 makes it +inf. NaN when V == 0 or a logit is NaN or +inf. */
double logits_kl(const float *p, const float *q, size_t V);

#endif
