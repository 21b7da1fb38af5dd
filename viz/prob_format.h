/* prob_format.h — how a probability is written on screen: as a percentage on the bars
 * ("35.9%"), as a fixed-point weight in a heatmap cell ("0.26"), or with significant
 * digits ("÷ 0.953"). One rule everywhere: a probability below 1 never reads as 100 %
 * (or "1.00"), one above 0 never as 0 %: 0.9996 is "99.96%", not "100.0%" — rounding
 * must not hide the long tail a lesson is about. Pure formatting, no SDL. */
#ifndef VIZ_PROB_FORMAT_H
#define VIZ_PROB_FORMAT_H

#include <stddef.h>

/* p in [0, 1] as a percentage with 3 significant digits, more when p is close to 1:
 * "0%", "<0.001%", "0.0123%", "6.65%", "35.9%", "99.8%", "99.96%", "99.996%",
 * ">99.999%", "100%" (only for p >= 1). Writes at most cap bytes (NUL-terminated). */
void prob_format_pct(double p, char *buf, size_t cap);

/* p with `decimals` decimals (1..6): "0.26", "0.00", "1.00" only for p >= 1; a p below 1
 * that would round to 1 is written ">0.99" (decimals nines). */
void prob_format_fixed(double p, int decimals, char *buf, size_t cap);

/* p with `sig` significant digits (1..9), more when p < 1 would print as "1":
 * 0.953 → "0.953", 0.99996 → "0.99996". */
void prob_format_sig(double p, int sig, char *buf, size_t cap);

#endif
