/* session.h — one inference session: a model, its tokenizer, the prompt, the tokens
 * generated so far (with every branch the user made), the trace of the forward pass,
 * the sampler settings and the dice. The window, the headless exporter and the lesson
 * runner all drive a Session; none of them does model math themselves.
 *
 * The dice: the draw u for position p is a pure function of (seed, p, salt), so
 * stepping back and forward, or replaying a lesson, gives exactly the same tokens.
 * "Re-roll" bumps the salt of the pending draw. Changing the settings re-runs only the
 * sampler on the stored logits with the same u ("the same dice, other settings").
 *
 * Branches: every token sequence the user has seen is kept. Stepping forward along a
 * branch replays it while the sampler still picks the same token; forcing another
 * token (or a pick that differs after a settings change) starts a new branch that
 * shares the prefix. Not the UI: no SDL here. */
#ifndef SESSION_H
#define SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "gpt2_model.h"
#include "gpt2_trace.h"
#include "sampler.h"
#include "tokenizer.h"

/* One token sequence: the prompt followed by generated/forced tokens. */
typedef struct SessionBranch {
    int *ids;               /* (len) token at each position */
    uint32_t *salt;         /* (len) dice salt that chose ids[p] (prompt positions: 0) */
    unsigned char *forced;  /* (len) 1 if the user chose ids[p] (a branch point) */
    int len, cap;
} SessionBranch;

#define SESSION_MAX_BRANCHES 64
#define SESSION_TOP_N 20

typedef struct Session {
    Gpt2Model model;            /* owned */
    Tokenizer tok;              /* owned: GPT-2's, the model's own, or ids only (model_vocab.h) */
    int n_vocab;                /* tokens that exist: the tokenizer's, <= the model's rows;
                                 * rows beyond it (a padded vocabulary) are never sampled,
                                 * shown or accepted as ids */
    char vocab_desc[192];       /* one line on which vocabulary this is (info, window) */
    char trace_note[256];       /* what the trace keeps and, under a budget, what it dropped */
    unsigned trace_dropped;     /* GPT2_CAP_* bits the budget dropped (GPT2_CAP_LEAN: patterns) */
    Gpt2Trace trace;            /* owned: activations + KV cache of positions [0, n_pos) */
    Sampler sampler;            /* owned scratch */
    SamplerSettings settings;   /* current sampler settings (validated) */
    uint64_t seed;              /* the dice seed */
    int top_n;                  /* rows kept in the records (<= SAMPLER_MAX_SHOW) */

    uint8_t *prompt;            /* (prompt_len) owned prompt text ("" when given as ids) */
    size_t prompt_len;
    TokEncoding prompt_enc;     /* owned: pieces and merges of the prompt (BPE replay) */
    int n_prompt;               /* prompt tokens */

    SessionBranch branch[SESSION_MAX_BRANCHES]; /* owned; branch[cur] holds the screen */
    int n_branches, cur;

    uint32_t pending_salt;      /* salt of the draw for the next position */
    SamplerRecord next;         /* the next-token distribution and the pending draw */
    int has_next;               /* 0 only when the context is full */
    SamplerRecord prev;         /* the draw that chose the newest token, if generated */
    int has_prev;
    ErrorMsg next_err;          /* why has_next is 0 when the context is not full (the sampler's
                                 * message, e.g. non-finite logits) */
    double last_step_ms;        /* wall time of the last forward pass (ms), -1 = none */
    int n_steps;                /* forward steps run since open (for stats) */
} Session;

/* How to open a session (session_config_default(): context min(NP, 1024), capture
 * GPT2_CAP_DEFAULT, weights as stored, no trace budget). */
#define SESSION_TRACE_AUTO ((size_t)-1) /* trace_budget from free RAM (gpt2_trace_budget_default) */
typedef struct SessionConfig {
    int max_pos;        /* trace positions, 0 = min(context, 1024) */
    unsigned capture;   /* GPT2_CAP_* kept for every position */
    int weights;        /* GPT2_WEIGHTS_AS_STORED or a KernDtype (--weights) */
    size_t trace_budget; /* bytes (--trace-mb), 0 = keep everything, or SESSION_TRACE_AUTO */
} SessionConfig;

SessionConfig session_config_default(void);

/* Loads the model (model_dir) and its vocabulary (model_vocab_open: the model folder's own
 * tokenizer files, else the GPT-2 tokenizer in tok_dir, else ids only), and sizes the trace
 * as cfg says. No prompt yet. On error returns -1 with err set and *s zeroed. */
int session_open_cfg(Session *s, const char *model_dir, const char *tok_dir, const SessionConfig *cfg,
                     ErrorMsg *err);

/* session_open_cfg with max_pos and capture (GPT2_CAP_*; the default GPT2_CAP_DEFAULT
 * keeps what stepping back needs), weights as stored. */
int session_open(Session *s, const char *model_dir, const char *tok_dir, int max_pos,
                 unsigned capture, ErrorMsg *err);
/* Frees everything; safe on a zeroed session. */
void session_free(Session *s);

/* Tokenizes text (invalid UTF-8 and empty text are errors), runs the prompt and
 * starts a fresh branch set. On error the session is unchanged. */
int session_set_prompt(Session *s, const uint8_t *text, size_t len, ErrorMsg *err);
/* The same with token ids given directly. */
int session_set_prompt_ids(Session *s, const int *ids, size_t n, ErrorMsg *err);

/* Appends one token: the sampler's pick with the current settings and the pending
 * dice (or the forced token of the branch being replayed). Errors: context full. */
int session_step(Session *s, ErrorMsg *err);
/* Steps back n tokens (not into the prompt): truncates the trace, recomputes nothing
 * of the model. Returns how many positions were actually removed. */
int session_back(Session *s, int n);
/* Back to the end of the prompt. */
void session_home(Session *s);
/* New dice for the pending draw (the bars stay, the pick may change). */
void session_reroll(Session *s);
/* Appends token `id` chosen by the user: a new branch unless the current branch
 * already continues with it. Errors: id out of range, context full, too many branches. */
int session_force(Session *s, int id, ErrorMsg *err);
/* Shows branch k (0-based) up to its end. */
int session_switch_branch(Session *s, int k, ErrorMsg *err);

/* Validates and applies new settings; only the sampler runs again (same logits,
 * same dice). On error nothing changes. */
int session_set_settings(Session *s, const SamplerSettings *set, ErrorMsg *err);
/* New seed: the pending draw and all future draws change; past tokens stay. */
void session_set_seed(Session *s, uint64_t seed);

/* Number of real tokens (the sampler's and the viewer's vocabulary). */
static inline int session_vocab(const Session *s) { return s->n_vocab; }

/* Tokens on screen: ids[0..n) with n = session_len(s). */
static inline int session_len(const Session *s) { return s->trace.n_pos; }
static inline const int *session_ids(const Session *s) { return s->trace.ids; }
/* Tokens generated after the prompt. */
static inline int session_step_index(const Session *s) { return s->trace.n_pos - s->n_prompt; }

/* The dice for position pos with salt: u in [0, 1) from (seed, pos, salt). */
double session_dice(uint64_t seed, int pos, uint32_t salt);

/* Decodes tokens [from, to) of the screen into malloc'd bytes (caller frees). */
int session_text(const Session *s, int from, int to, uint8_t **out, size_t *len, ErrorMsg *err);

#endif
