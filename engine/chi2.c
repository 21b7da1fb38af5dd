/* chi2.c — see chi2.h. The two classic evaluations of the incomplete gamma function
 * (Abramowitz & Stegun 6.5.29 and 6.5.31; Press et al., Numerical Recipes §6.2): the
 * power series for P(a, x) converges fast when x < a + 1, the continued fraction for
 * Q(a, x) when x >= a + 1, so each is used where it needs few terms and no
 * cancellation (Q = 1 - P is only formed where P is small). */
#include "chi2.h"

#include <math.h>

#define GAMMA_EPS 1e-15
#define GAMMA_MAX_TERMS 10000
#define GAMMA_TINY 1e-300

/* P(a, x) = x^a e^-x / Γ(a + 1) · Σ_{n>=0} x^n / ((a+1)(a+2)...(a+n)). */
static double gamma_p_series(double a, double x) {
    double term = 1.0 / a, sum = term, ap = a;
    for (int n = 0; n < GAMMA_MAX_TERMS; n++) {
        ap += 1.0;
        term *= x / ap;
        sum += term;
        if (fabs(term) < fabs(sum) * GAMMA_EPS) break;
    }
    return sum * exp(-x + a * log(x) - lgamma(a));
}

/* Q(a, x) = x^a e^-x / Γ(a) · 1 / (x + 1 - a - 1·(1-a) / (x + 3 - a - 2·(2-a) / ...)),
 * evaluated by the modified Lentz method (every denominator guarded against 0). */
static double gamma_q_fraction(double a, double x) {
    double b = x + 1.0 - a, c = 1.0 / GAMMA_TINY, d = 1.0 / b, h = d;
    for (int i = 1; i < GAMMA_MAX_TERMS; i++) {
        double an = -i * (i - a);
        b += 2.0;
        d = an * d + b;
        if (fabs(d) < GAMMA_TINY) d = GAMMA_TINY;
        c = b + an / c;
        if (fabs(c) < GAMMA_TINY) c = GAMMA_TINY;
        d = 1.0 / d;
        double delta = d * c;
        h *= delta;
        if (fabs(delta - 1.0) < GAMMA_EPS) break;
    }
    return exp(-x + a * log(x) - lgamma(a)) * h;
}

double gamma_q(double a, double x) {
    if (!(a > 0.0) || !(x >= 0.0)) return NAN;
    if (x == 0.0) return 1.0;
    if (isinf(x)) return 0.0;
    return x < a + 1.0 ? 1.0 - gamma_p_series(a, x) : gamma_q_fraction(a, x);
}

double chi2_survival(double x, int dof) {
    if (dof < 0 || !(x >= 0.0)) return NAN;
    if (dof == 0) return 1.0;
    return gamma_q(0.5 * dof, 0.5 * x);
}
