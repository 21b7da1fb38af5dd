/* chi2.h — the chi-square distribution's upper tail, P(X >= x) for X ~ χ²(dof): the
 * p-value of Pearson's goodness-of-fit statistic (used by sampler_draws.c so a test or
 * a viewer can say whether observed draws fit the sampler's final distribution). Not a
 * statistics library: this one function and the regularised incomplete gamma under it. */
#ifndef CHI2_H
#define CHI2_H

/* Q(a, x) = Γ(a, x) / Γ(a), the regularised upper incomplete gamma function, for
 * a > 0 and x >= 0 (NaN otherwise). Accurate to ~1e-14 relative. */
double gamma_q(double a, double x);

/* P(χ²(dof) >= x) = Q(dof / 2, x / 2). dof = 0 (a single category: nothing can vary)
 * gives 1 for every x >= 0. NaN for dof < 0 or x < 0 or x NaN. */
double chi2_survival(double x, int dof);

#endif
