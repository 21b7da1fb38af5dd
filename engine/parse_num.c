/* parse_num.c — the strict number parser (see parse_num.h). The syntax is checked by
 * hand first, so strtod/strtoll only ever see a plain decimal number: they would also
 * take leading spaces, '+', hexadecimal ("0x10") and "nan"/"inf", each of which has been
 * a hostile value in a figure or a typo that silently became a number. */
#include "parse_num.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <strings.h>

/* The shape of a decimal number at the start of s: [-] digits [. digits] [e [+-] digits]
 * with at least one digit before the exponent. Returns the length of that number (0 if
 * there is none) and whether it has a fraction or an exponent. */
static size_t decimal_length(const char *s, int *has_frac_or_exp) {
    size_t i = 0, digits = 0;
    *has_frac_or_exp = 0;
    if (s[i] == '-') i++;
    while (s[i] >= '0' && s[i] <= '9') i++, digits++;
    if (s[i] == '.') {
        *has_frac_or_exp = 1;
        i++;
        while (s[i] >= '0' && s[i] <= '9') i++, digits++;
    }
    if (digits == 0) return 0;
    if (s[i] == 'e' || s[i] == 'E') {
        size_t j = i + 1, exp_digits = 0;
        if (s[j] == '-' || s[j] == '+') j++;
        while (s[j] >= '0' && s[j] <= '9') j++, exp_digits++;
        if (exp_digits == 0) return i; /* "1e" : the number is "1", then junk */
        *has_frac_or_exp = 1;
        i = j;
    }
    return i;
}

/* Everything the three parsers refuse the same way: empty, space, '+', NaN, infinity,
 * junk. Returns NUM_OK when s is one whole decimal number. */
static NumError check_shape(const char *s, int *has_frac_or_exp) {
    *has_frac_or_exp = 0;
    if (!s || !*s) return NUM_EMPTY;
    if (*s == ' ' || (*s >= '\t' && *s <= '\r')) return NUM_SPACE;
    if (*s == '+') return NUM_PLUS;
    const char *word = *s == '-' ? s + 1 : s;
    if (strcasecmp(word, "nan") == 0) return NUM_NAN;
    if (strcasecmp(word, "inf") == 0 || strcasecmp(word, "infinity") == 0) return NUM_INF;
    size_t n = decimal_length(s, has_frac_or_exp);
    if (n == 0 || s[n] != '\0') return NUM_JUNK;
    return NUM_OK;
}

NumError parse_num_real(const char *s, double *out) {
    int frac;
    NumError e = check_shape(s, &frac);
    if (e != NUM_OK) return e;
    errno = 0;
    double x = strtod(s, NULL);
    if (errno == ERANGE && isinf(x)) return NUM_INF; /* "1e999" */
    *out = x; /* ERANGE towards 0 is underflow: the nearest double is the answer */
    return NUM_OK;
}

NumError parse_num_int(const char *s, long long *out) {
    int frac;
    NumError e = check_shape(s, &frac);
    if (e != NUM_OK) return e;
    if (frac) return NUM_NOT_WHOLE;
    errno = 0;
    long long x = strtoll(s, NULL, 10);
    if (errno == ERANGE) return NUM_TOO_BIG;
    *out = x;
    return NUM_OK;
}

NumError parse_num_u64(const char *s, uint64_t *out) {
    int frac;
    NumError e = check_shape(s, &frac);
    if (e != NUM_OK) return e;
    if (frac) return NUM_NOT_WHOLE;
    if (*s == '-') return NUM_NEGATIVE;
    errno = 0;
    unsigned long long x = strtoull(s, NULL, 10);
    if (errno == ERANGE) return NUM_TOO_BIG;
    *out = (uint64_t)x;
    return NUM_OK;
}

const char *parse_num_problem(NumError e) {
    switch (e) {
    case NUM_OK: return "";
    case NUM_EMPTY: return "is empty";
    case NUM_SPACE: return "starts with a space";
    case NUM_PLUS: return "starts with '+'";
    case NUM_JUNK: return "is not a number";
    case NUM_NAN: return "is NaN, not a number";
    case NUM_INF: return "is infinite";
    case NUM_NOT_WHOLE: return "is not a whole number";
    case NUM_TOO_BIG: return "is too large";
    case NUM_NEGATIVE: return "is negative";
    }
    return "is not a number";
}
