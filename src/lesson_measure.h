/* lesson_measure.h — {placeholders} in lesson captions, filled in when the beat is
 * shown with values measured on the running model: its shape ({layers}, {params}...),
 * the time one token takes on this machine ({step_ms}) and what that is in FLOPs and
 * bytes, the strongest attention head of a kind, and for the published GPT-2 sizes
 * their shapes and an estimate (labelled as one) of their time per token here. So a
 * caption about cost or scale is true of whatever model and machine run it. Not the
 * claims (lesson_expect.h). The names are listed in lessons/README.md. */
#ifndef LESSON_MEASURE_H
#define LESSON_MEASURE_H

#include <stddef.h>

#include "session.h"

/* 0 if every {name} in text[0..len) is a known placeholder; else -1 with the first
 * unknown one (e.g. "{stepms}") in bad. Braces that do not enclose a name are text. */
int lesson_placeholders_check(const char *text, size_t len, char *bad, size_t cap);

/* 1 if text contains a placeholder. */
int lesson_has_placeholder(const char *text);

/* text with every placeholder replaced by its value now (out is always terminated). */
void lesson_caption_expand(const char *text, const Session *s, char *out, size_t cap);

/* FLOPs of one forward step for one token that attends over n_keys positions:
 * per layer 24*C^2 (q,k,v, output projection, MLP; 2 FLOPs per multiply-add) +
 * 4*C*n_keys (scores and the weighted sum), plus 2*C*V for the logits. */
double lesson_flops_per_token(int n_layer, int n_embd, int vocab, int n_keys);

#endif
