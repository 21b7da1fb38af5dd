/* prob_format.c — probabilities as text (prob_format.h). */
#include "prob_format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void prob_format_pct(double p, char *buf, size_t cap) {
    if (cap == 0) return;
    if (!(p > 0.0)) {
        snprintf(buf, cap, "0%%");
        return;
    }
    if (p >= 1.0) {
        snprintf(buf, cap, "100%%");
        return;
    }
    if (p < 1e-5) { /* exponents read badly in class */
        snprintf(buf, cap, "<0.001%%");
        return;
    }
    double pct = p * 100.0;
    /* %.3g prints 99.95 … 99.999 as "100": add decimals until it does not */
    if (pct < 99.95) {
        snprintf(buf, cap, "%.3g%%", pct);
        return;
    }
    for (int d = 1; d <= 3; d++) {
        char num[32];
        snprintf(num, sizeof num, "%.*f", d, pct);
        if (strtod(num, NULL) < 100.0) {
            snprintf(buf, cap, "%s%%", num);
            return;
        }
    }
    snprintf(buf, cap, ">99.999%%");
}

void prob_format_fixed(double p, int decimals, char *buf, size_t cap) {
    if (cap == 0) return;
    if (decimals < 1) decimals = 1;
    if (decimals > 6) decimals = 6;
    if (!(p > 0.0)) p = 0.0;
    if (p >= 1.0) {
        snprintf(buf, cap, "%.*f", decimals, 1.0);
        return;
    }
    char num[32];
    snprintf(num, sizeof num, "%.*f", decimals, p);
    if (strtod(num, NULL) < 1.0) {
        snprintf(buf, cap, "%s", num);
        return;
    }
    /* ">0.99": as many nines as decimals */
    char nines[8] = {0};
    for (int i = 0; i < decimals; i++) nines[i] = '9';
    snprintf(buf, cap, ">0.%s", nines);
}

void prob_format_sig(double p, int sig, char *buf, size_t cap) {
    if (cap == 0) return;
    if (sig < 1) sig = 1;
    if (sig > 9) sig = 9;
    for (int s = sig; s <= 9; s++) {
        snprintf(buf, cap, "%.*g", s, p);
        if (!(p < 1.0) || strtod(buf, NULL) < 1.0) return;
    }
}
