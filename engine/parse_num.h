/* parse_num.h — the ONE strict number parser every reader uses (CLI flags, lesson lines,
 * figure provenance, the settings table): a text is a number only when the WHOLE text
 * is one plain decimal number. Refused, each with its own error value so a message can
 * say what is wrong: an empty text, a leading space or '+', text after the number (or
 * no number at all, "0x10" included: hexadecimal is not a decimal number), NaN, an
 * infinity (written out or overflowing, "1e999"), and for the integer parsers a number
 * with a fraction or exponent ("2.5", "1e3") or outside the type.
 * Not range checks (the caller knows the range: engine/settings.h for the sampler) and
 * no messages beyond the phrase parse_num_problem gives. */
#ifndef PARSE_NUM_H
#define PARSE_NUM_H

#include <stdint.h>

typedef enum NumError {
    NUM_OK = 0,
    NUM_EMPTY,     /* "" or NULL */
    NUM_SPACE,     /* starts with white space (" 7") */
    NUM_PLUS,      /* starts with '+' ("+7"): we write numbers without one */
    NUM_JUNK,      /* not a decimal number, or text after one ("0.5x", "0x10", "abc") */
    NUM_NAN,       /* "nan" in any case, signed or not */
    NUM_INF,       /* "inf", "infinity", or a value that overflows a double ("1e999") */
    NUM_NOT_WHOLE, /* integer parsers: a decimal point or an exponent ("2.5", "4e1") */
    NUM_TOO_BIG,   /* integer parsers: outside the type (long long / uint64_t) */
    NUM_NEGATIVE,  /* parse_num_u64: a minus sign */
} NumError;

/* A finite double, e.g. "0.95", "-1", ".5", "2e-3". Underflow ("1e-400") gives the
 * nearest double (0 or a subnormal), not an error. *out is written only on NUM_OK. */
NumError parse_num_real(const char *s, double *out);

/* A whole number: an optional '-' and decimal digits only ("40", "-3", "007"). */
NumError parse_num_int(const char *s, long long *out);

/* A whole number >= 0 up to 2^64 - 1 (seeds). */
NumError parse_num_u64(const char *s, uint64_t *out);

/* What is wrong, as a phrase that follows the quoted text: "'x' is not a number" —
 * "is empty", "starts with a space", "starts with '+'", "is not a number",
 * "is NaN, not a number", "is infinite", "is not a whole number", "is too large",
 * "is negative". "" for NUM_OK. */
const char *parse_num_problem(NumError e);

#endif
