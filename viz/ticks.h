/* ticks.h — "nice" tick positions and their labels for axes and colour bars
 * (0, 0.25, 0.5… rather than 0, 0.237, 0.474…). Pure math on the value range, no
 * SDL, no allocation. Not a formatter for data values in cells (panels choose their
 * own precision there). */
#ifndef VIZ_TICKS_H
#define VIZ_TICKS_H

#include <stddef.h>

/* Up to max_ticks tick values covering [vmin, vmax], about `target` of them, each a
 * multiple of step = {1, 2, 2.5, 5} × 10^k (Heckbert, "Nice numbers for graph labels",
 * Graphics Gems, 1990, with 2.5 added for probability axes). Only ticks inside
 * [vmin, vmax] (with a 1e-9 relative slack so the ends count) are written.
 * Returns the number written (0 if the range is empty/NaN/inf or target < 2);
 * *step_out (may be NULL) gets the spacing, which ticks_format uses for precision. */
size_t ticks_nice(double vmin, double vmax, int target, double *out, size_t max_ticks,
                  double *step_out);

/* Label for tick value v with just enough decimals for `step` ("0", "0.25", "0.5", "1e-05",
 * "-3", "1200"); "-0" never appears. Writes at most cap bytes (NUL-terminated) and
 * returns buf. */
char *ticks_format(double v, double step, char *buf, size_t cap);

#endif
