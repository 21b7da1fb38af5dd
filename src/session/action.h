/* action.h — the one way anything changes a session and its view. A key press
 * (app/app_update.c), a lesson line (lesson/lesson_run.c) and a figure's provenance
 * replayed (figure/figure_state_apply.c) each become Actions, and action_apply is the
 * one function that carries them out, so the three can never disagree on what "step",
 * "force #id" or "temperature 0.7" does. The window runs the actions that do model work
 * (action_is_model_work) as jobs on a worker thread (app/app_jobs.c); those need no view.
 * Validation with a message naming the value happens here once (a layer that does not
 * exist, a token outside the vocabulary); callers add where it came from ("FILE:LINE:"). */
#ifndef ACTION_H
#define ACTION_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "frame.h"
#include "gpt2_ablation.h"
#include "session.h"

typedef enum ActionKind {
    ACT_NONE = 0,
    /* model work: a forward pass runs */
    ACT_STEP,            /* n tokens, each the sampler's pick (n >= 1) */
    ACT_FORCE,           /* token id: a new branch unless the branch continues with it */
    ACT_PROMPT,          /* text/text_len: tokenized and run; fresh branches */
    ACT_PROMPT_IDS,      /* ids/n_ids: the same with token ids */
    ACT_SWITCH,          /* n: show branch n (0-based) */
    ACT_ABLATE,          /* ablation: the parts switched off (NULL = every part on again) */
    ACT_COMPARE,         /* specs/n_specs: the settings side by side (0 = the default set),
                            computed for the current prompt and seed (session_compare.h) */
    /* the sampler only (same logits): cheap */
    ACT_SETTINGS,        /* settings: validated; the same dice choose again */
    ACT_SEED,            /* seed: the pending and all future draws */
    ACT_SALT,            /* salt of the pending draw */
    ACT_REROLL,          /* new dice for the pending draw */
    ACT_DRAWS,           /* n rolls of the pending dice (1..SAMPLER_MAX_DRAWS; 0 = forget them):
                            the tally and its χ² (session_draw_many), shown over the bars */
    ACT_BACK,            /* n tokens back (nothing recomputed) */
    ACT_HOME,            /* back to the end of the prompt */
    /* the view only */
    ACT_LAYER,           /* n: the layer shown */
    ACT_HEAD,            /* n: the head shown */
    ACT_PANEL,           /* n: the VizPanel enlarged (VIZ_PANEL_FRAME = the full layout) */
    ACT_HIGHLIGHT_TOKEN, /* n: outline token n everywhere, -1 = none */
    ACT_SELECT_TOKEN,    /* n: the BPE replay of token n's word, -1 = none */
    ACT_QUERY,           /* n: the query position attention-math explains, -1 = the newest
                          * (the lines view: the query whose lines alone are drawn, -1 = all) */
    ACT_HEADS,           /* heads: the heads the lines view draws, bit h = head h; 0 = view.head */
    ACT_ATTR_VS,         /* id: the token the attribution compares the pick with, -1 = none */
    ACT_COUNT
} ActionKind;

typedef struct Action {
    ActionKind kind;
    long n;                          /* STEP/BACK count; SWITCH branch; view indices */
    int id;                          /* FORCE; ATTR_VS (-1 = none) */
    uint64_t seed;                   /* SEED */
    uint32_t salt;                   /* SALT */
    const uint8_t *text;             /* PROMPT (borrowed, UTF-8) */
    size_t text_len;
    const int *ids;                  /* PROMPT_IDS (borrowed) */
    size_t n_ids;
    const SamplerSettings *settings; /* SETTINGS (borrowed) */
    const Gpt2Ablation *ablation;    /* ABLATE (borrowed; NULL = none) */
    unsigned long long heads;        /* HEADS */
    const char *const *specs;        /* COMPARE (borrowed, n_specs of them) */
    int n_specs;
} Action;

/* Carries out a. view may be NULL for the actions that do not touch it (the model-work
 * and sampler kinds); a view action without one is an error. On error nothing changed
 * that the message does not name (a multi-token STEP keeps the tokens before the one
 * that failed). */
int action_apply(Session *s, VizView *view, const Action *a, ErrorMsg *err);

/* 1 for the kinds that run the model (the window runs them as jobs). */
int action_is_model_work(ActionKind k);

/* "step", "force", ... for messages and tests; "?" for an unknown kind. */
const char *action_name(ActionKind k);

#endif
