/* lesson_facts.h — captions with numbers measured live on the running model, so a
 * slide about scale and cost is true on the machine it is shown on:
 *   {model} {params} {layers} {heads} {width} {context}   the running model
 *   {step_ms}      median wall time of 5 single-token forward steps, timed right here
 *   {flops}        floating-point operations of one forward step at this position
 *   {rate}         {flops} / {step_ms}, in GFLOP/s
 *   {train_flops}  what one training step on that token would cost (forward + backward ≈ 3×)
 *   {gpt2 SIZE}    SIZE = 124M | 355M | 774M | 1558M: layers, heads, parameters, FLOPs
 *                  per token and the time per token — MEASURED when it is the running
 *                  model, or when a model of that shape is downloaded (the folder
 *                  gpt2-SIZE next to the running model's, else models/gpt2-SIZE, where
 *                  `make gpt2 SIZE=...` puts it: opened as --model opens it and timed by
 *                  a short decode, session_probe_folder_ms); otherwise an ESTIMATE (its
 *                  weights ÷ the read speed measured on the running model). Each
 *                  labelled as such.
 * `{{` is a literal `{`. The formulas are the published GPT-2 shapes (Radford et al.
 * 2019) and the usual matrix-multiply count (2 FLOPs per multiply-add). Not the lesson
 * runner (lesson_run.c): it calls lesson_facts_format for a caption holding a `{`. */
#ifndef LESSON_FACTS_H
#define LESSON_FACTS_H

#include <stddef.h>

#include "lesson.h"
#include "lesson_run.h"
#include "session.h"

/* What one slide measured, shared by all its captions so that their numbers agree
 * (one timing per slide, not one per line). Zero it at the start of each slide. */
#define LESSON_FACTS_SIZES 4 /* the GPT-2 sizes {gpt2 SIZE} knows */
typedef struct LessonFacts {
    int measured;    /* 1 once step_ms was timed */
    double step_ms;  /* median single-token step, ms; -1 when the context had no room */
    /* {gpt2 SIZE} of a size downloaded (see above), by size (124M first):
     * 0 not looked for yet, 1 timed (size_ms), -1 no such folder or not that shape */
    int size_state[LESSON_FACTS_SIZES];
    double size_ms[LESSON_FACTS_SIZES];
} LessonFacts;

/* Checks every placeholder of a caption without a model (at parse time). Returns 0, or
 * -1 with msg naming the first unknown one ("unknown placeholder {stepms} ..."). */
int lesson_facts_validate(const char *text, char *msg, size_t cap);

/* Writes the caption with every placeholder replaced into out (cut at cap, never inside
 * a character). Timing runs extra forward steps past the current position and then
 * forgets them (the trace keeps rows [0, n_pos) exactly; the session is unchanged).
 * facts (may be NULL) carries the measurement from one caption to the next.
 * Returns 0, or -1 with msg for an unknown placeholder. */
int lesson_facts_format(const char *text, Session *s, LessonFacts *facts, char *out, size_t cap, char *msg,
                        size_t msg_cap);

/* Every caption of the lesson checked with lesson_facts_validate: -1 with
 * "FILE:LINE: unknown placeholder ..." for the first bad one. Run after parsing. */
int lesson_facts_check(const Lesson *l, ErrorMsg *err);

/* The lines a slide shows: the beat's note (model fallback), then its captions with
 * their live numbers filled in (one measurement shared by the whole slide). */
typedef struct LessonCaptions {
    const char *line[LESSON_MAX_CAPTIONS + 1]; /* borrowed from bv or text[] */
    int n;
    char text[LESSON_MAX_CAPTIONS][320];       /* the formatted captions */
    LessonFacts facts;
} LessonCaptions;

/* Fills out for the beat just reached (bv after lesson_goto_beat). facts: the
 * measurement to share across slides (an export times once, so the GPT-2 sizes spread
 * over two slides are estimated from the same number), or NULL to time this slide
 * afresh (the window: "measured now"). The lines borrow from bv and out: valid while
 * both are. -1 with msg on an unknown placeholder. */
int lesson_facts_captions(const LessonBeatView *bv, Session *s, LessonFacts *facts, LessonCaptions *out, char *msg,
                          size_t cap);

/* Floating-point operations of one forward step of a GPT-2 of this shape for the token
 * at position pos (0-based; it attends to pos + 1 keys):
 *   per layer 24·C² (q,k,v, output, MLP: 2·(3C² + C² + 8C²)) + 4·C·(pos+1) (scores and
 *   weighted sum), plus the output head 2·C·V. LayerNorm, GELU, softmax are O(C), left out. */
double lesson_facts_flops(const Gpt2Config *cfg, int pos);

/* Bytes of float32 weights one step reads: every matrix and the (tied) embedding
 * that the output head multiplies by; the one row of wte/wpe it looks up is noise. */
double lesson_facts_weight_bytes(const Gpt2Config *cfg);

/* The shape of GPT-2 SIZE ("124M", "355M", "774M", "1558M"); -1 if unknown. */
int lesson_facts_gpt2_shape(const char *size, size_t n, Gpt2Config *cfg);

#endif
