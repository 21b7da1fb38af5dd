/* gelu_erf.h — the exact GELU, x * Phi(x) = 0.5 x (1 + erf(x / sqrt 2)) (Hendrycks &
 * Gimpel 2016): HF's activation_function "gelu" and torch's nn.GELU(), which nanoGPT
 * trains with. GPT-2 itself uses the tanh approximation (kern_gelu); the two differ by
 * up to 4.7e-4, enough to move logits by ~1e-3, so a model gets the one it was trained
 * with (Gpt2Config.gelu_exact). Not on the speed path of the original GPT-2s. */
#ifndef GELU_ERF_H
#define GELU_ERF_H

#include <stddef.h>

/* y[i] = 0.5 x[i] (1 + erf(x[i] / sqrt 2)); y may alias x. */
void gelu_erf(float *y, const float *x, size_t n);

#endif
