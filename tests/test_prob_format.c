/* test_prob_format.c — viz/prob_format.c: probabilities never round to 100 % or 0 %
 * while they are not (issue: "almost certain" 0.9996 printed as 100.0 %), and the
 * ordinary values keep 3 significant digits. Each expected string is written out. */
#include <string.h>

#include "check.h"
#include "prob_format.h"

static void pct(double p, const char *want) {
    char b[32];
    prob_format_pct(p, b, sizeof b);
    CHECK(strcmp(b, want) == 0, "pct(%.10g) = \"%s\", want \"%s\"", p, b, want);
}

static void fixed(double p, int d, const char *want) {
    char b[32];
    prob_format_fixed(p, d, b, sizeof b);
    CHECK(strcmp(b, want) == 0, "fixed(%.10g, %d) = \"%s\", want \"%s\"", p, d, b, want);
}

static void sig(double p, int s, const char *want) {
    char b[32];
    prob_format_sig(p, s, b, sizeof b);
    CHECK(strcmp(b, want) == 0, "sig(%.10g, %d) = \"%s\", want \"%s\"", p, s, b, want);
}

int main(void) {
    pct(0.0, "0%");
    pct(-1e-9, "0%");
    pct(1.0, "100%");
    pct(5e-6, "<0.001%");
    pct(0.000123, "0.0123%");
    pct(0.0665, "6.65%");
    pct(0.359, "35.9%");
    pct(0.998, "99.8%");
    pct(0.9994, "99.9%");
    pct(0.9996, "99.96%");  /* the bundled model's p(" time" | "Once upon a") */
    pct(0.99996, "99.996%");
    pct(0.999996, ">99.999%");
    pct(0.99951, "99.95%");
    fixed(0.26, 2, "0.26");
    fixed(0.004, 2, "0.00");
    fixed(1.0, 2, "1.00");
    fixed(0.996, 2, ">0.99");
    fixed(0.99996, 4, ">0.9999");
    fixed(0.99994, 4, "0.9999");
    sig(0.953, 3, "0.953");
    sig(0.99996, 3, "0.99996");
    sig(1.0, 3, "1");
    sig(0.5, 3, "0.5");
    /* every probability in (0, 1) on a fine grid: never "100%" and never "0%" */
    int bad = 0;
    for (int i = 1; i < 100000; i++) {
        double p = 1.0 - (double)i * 1e-6;
        char b[32];
        prob_format_pct(p, b, sizeof b);
        if (strcmp(b, "100%") == 0 || strcmp(b, "100.0%") == 0 || strncmp(b, "100", 3) == 0) bad++;
        prob_format_pct((double)i * 1e-9, b, sizeof b);
        if (strcmp(b, "0%") == 0) bad++;
    }
    CHECK(bad == 0, "%d probabilities in (0, 1) printed as 100%% or 0%%", bad);
    return check_summary("test_prob_format");
}
