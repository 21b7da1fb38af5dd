/* bench_lens.h — what the "inside the model" views cost per step on a GPT-2 124M-shaped
 * model, for `make bench`: one decode step against the logit lens of the newest position
 * (all 13 depths), the lens grid's update for one new token, the direct logit
 * attribution and the token journey; medians, with the bound "lens + attribution <= one
 * decode step" as a ratio measured in the same run. Prints, never fails. */
#ifndef BENCH_LENS_H
#define BENCH_LENS_H

#include "gpt2_model.h"

/* m: the bench's random 124M model (any GPT-2 shape works). */
void bench_lens(const Gpt2Model *m);

/* `bench --lens`: bench_lens alone on a random 124M-shaped F32 model; 0, or 1 when the
 * model could not be built. */
int bench_lens_124m(void);

#endif
