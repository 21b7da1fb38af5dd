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
#include "sampler_draws.h"
#include "session_compare.h"
#include "sha256_file.h"
#include "thread_governor.h"
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

/* The sampler's pick for one position, remembered with what it depended on (the
 * logits of the row before are covered by the redo rule, see Session.memo_len). */
typedef struct SessionPick {
    uint64_t seed;
    uint32_t salt;
    SamplerSettings settings;
    int id;
    int valid;
} SessionPick;

typedef struct Session {
    Gpt2Model model;            /* owned */
    Tokenizer tok;              /* owned: GPT-2's, the model's own, or ids only (model_vocab.h) */
    int n_vocab;                /* tokens that exist: the tokenizer's, <= the model's rows;
                                 * rows beyond it (a padded vocabulary) are never sampled,
                                 * shown or accepted as ids */
    char vocab_desc[192];       /* one line on which vocabulary this is (info, window) */
    char trace_note[256];       /* what the trace keeps and, under a budget, what it dropped */
    unsigned trace_dropped;     /* GPT2_CAP_* bits the budget dropped (GPT2_CAP_LEAN: patterns) */
    FileIdentity weights_loaded; /* model.safetensors as it was when loaded (stat right
                                 * after the load): a figure hashes only that file */
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
    SamplerDraws draws;         /* the last session_draw_many: many rolls against `next` */
    int has_draws;              /* 1 while `draws` tallies the current `next` (any change of
                                 * next, a re-roll included, clears it) */
    ErrorMsg next_err;          /* why has_next is 0 when the context is not full (the sampler's
                                 * message, e.g. non-finite logits) */
    double last_step_ms;        /* wall time of the last forward pass (ms), -1 = none */
    int n_steps;                /* forward passes actually run since open (for stats) */
    ThreadGovernor threads;     /* one thread or all for the next decode step, by the last
                                 * steps' times (thread_governor.h): the same bits either way */
    long n_sampler_runs;        /* sampler passes over the vocabulary since open (stats) */

    /* Redo memory, exact by construction: rows [0, memo_len) of the trace hold what the
     * one path every session takes (a prefill of the prompt, then one gpt2_step per
     * token) computed for trace.ids[0..memo_len), also past n_pos after stepping back;
     * rows [0, prefill_len) came from that prefill. Stepping over the same token again,
     * or setting the same prompt again, reuses those rows instead of recomputing them:
     * the same bits, no forward pass. pick[p] remembers the sampler's choice at p. */
    int memo_len, prefill_len;
    SessionPick *pick;          /* (trace.max_pos) owned */
    int batch;                  /* > 0 inside session_batch_begin/end */
    struct TextMarks *marks;    /* owned: the Text panel's per-token numbers, a cache that
                                 * src/session/text_marks.c brings up to date when a frame asks */
    int stale;                  /* records waiting for session_batch_end: 1 next, 2 prev */
    struct InsideData *inside;  /* owned: the lens / attribution / journey panels' numbers, a
                                 * cache src/session/inside_fill.c brings up to date when a frame asks */
    struct AttnFill *attn;      /* owned: the inside-attention panels' numbers (src/session/attn_fill.c),
                                 * computed when a frame shows one of them */

    /* Ablation (gpt2_ablation.h): the parts switched off are trace.ablation. While that
     * is not empty and track_original is set, `orig` holds the same tokens run through
     * the whole model, kept in step with the trace (a second forward pass per token), so
     * the original distribution can be shown beside the ablated one, and switching off is
     * instant and gives back the original numbers bit for bit. */
    Gpt2Trace orig;             /* owned; unallocated unless ablated and tracked */
    int track_original;         /* 1 (default); 0 saves the second pass (switching off re-runs) */
    double ablation_kl;         /* KL(original || ablated) of the next-token distributions in
                                 * nats; -1 when nothing is switched off or not tracked */
    double next_p_orig[SAMPLER_MAX_SHOW]; /* the original's p_raw of next.rows[i] */
    double next_chosen_p_orig;  /* the original's p_raw of next.chosen */
    int orig_top_id;            /* the original's most likely next token (-1: none) */

    /* Settings side by side (the compare panel, export --compare): the specs asked for
     * and the columns computed for the prompt, on their own trace (session_compare.h). */
    SessionCompare cmp;         /* owned */
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

/* The logical state of a session, without the model and the trace: what
 * session_restore needs to rebuild exactly the same screen. All borrowed. */
typedef struct SessionState {
    const uint8_t *prompt;          /* prompt text (NULL: the prompt was given as ids) */
    size_t prompt_len;
    const SessionBranch *branch;    /* (n_branches) */
    int n_branches, cur;
    int n_pos;                      /* tokens on screen: a prefix of branch[cur] */
    int n_prompt;                   /* the first n_prompt tokens of every branch */
    uint32_t pending_salt;
    SamplerSettings settings;
    uint64_t seed;
} SessionState;

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
/* Switches parts of the model off (gpt2_ablation.h; NULL or an empty mask = none) and
 * runs the tokens on screen again under the new mask (one prefill): the same tokens, the
 * ablated distributions (the pending draw keeps its dice). With track_original the trace
 * as it was moves to s->orig, and switching off moves it back: the original numbers bit
 * for bit, without a forward pass. On error (a mask for another model, out of memory)
 * nothing changes. */
int session_set_ablation(Session *s, const Gpt2Ablation *ab, ErrorMsg *err);
/* New seed: the pending draw and all future draws change; past tokens stay. */
void session_set_seed(Session *s, uint64_t seed);
/* The salt of the pending draw (a figure's recorded dice, a lesson's replay): the pending
 * pick is drawn again with it; past tokens stay. */
void session_set_pending_salt(Session *s, uint32_t salt);

/* Rolls the pending draw's dice n times (1..SAMPLER_MAX_DRAWS) against next's final
 * distribution: roll k is the draw after k re-rolls, rng_dice(seed, n_pos,
 * pending_salt + k), so roll 0 is the pending draw and the same seed gives the same
 * counts (sampler_draws.h). Fills s->draws and sets has_draws; the sampler's tally
 * (sampler_draws_list) stays valid until the next sampler run. Errors: no next
 * position, n out of range. */
int session_draw_many(Session *s, int n, ErrorMsg *err);

/* Times `probes` one-token forward steps at the current position (the likeliest next
 * token, or the newest one again) and forgets them: the screen is unchanged and the
 * redo rows and remembered picks stay correct. Median ms, or -1 when the context is
 * full or probes < 1. For captions that show the cost of a token (lesson_facts.c). */
double session_probe_step_ms(Session *s, int probes);

/* The same timing for a model that is not the session's: the folder dir opened as
 * --model opens it (weights as stored, mapped), a trace of 16 positions, a prefill of 4
 * tokens, then the median ms of `probes` one-token steps, each undone; everything is
 * freed again. -1 when dir has no model.safetensors, the model does not load, its shape
 * (layers, heads, width, vocabulary) is not `want`'s (a folder named gpt2-1558M holding
 * another model must not be timed as GPT-2 1.5B), or probes < 1. */
double session_probe_folder_ms(const char *dir, const Gpt2Config *want, int probes);

/* A batch of changes (a lesson beat, a restore): inside it the records (next, prev)
 * are not recomputed after every change, only once at session_batch_end. Nests. */
void session_batch_begin(Session *s);
void session_batch_end(Session *s);
/* Brings next/prev up to date now, also inside a batch (for a check that reads them). */
void session_sync_records(Session *s);

/* The session's state as borrowed pointers (valid until the session changes). */
void session_get_state(const Session *s, SessionState *st);
/* Makes the session show exactly state st (taken from this session or one on the
 * same model): the prompt is run again only if it differs, the tokens that differ
 * from what the trace holds are stepped (reusing redo rows), then the settings, seed
 * and dice. The result is bit for bit what the original sequence of calls gave. On
 * error (out of memory, bad settings) returns -1; the session is valid but its state
 * unspecified. */
int session_restore(Session *s, const SessionState *st, ErrorMsg *err);

/* Number of real tokens (the sampler's and the viewer's vocabulary). */
static inline int session_vocab(const Session *s) { return s->n_vocab; }

/* Tokens on screen: ids[0..n) with n = session_len(s). */
static inline int session_len(const Session *s) { return s->trace.n_pos; }
static inline const int *session_ids(const Session *s) { return s->trace.ids; }
/* Tokens generated after the prompt. */
static inline int session_step_index(const Session *s) { return s->trace.n_pos - s->n_prompt; }

/* The dice for position pos with salt: rng_dice (engine/rng.h), the one rule. */
double session_dice(uint64_t seed, int pos, uint32_t salt);

/* Decodes tokens [from, to) of the screen into malloc'd bytes (caller frees). */
int session_text(const Session *s, int from, int to, uint8_t **out, size_t *len, ErrorMsg *err);

#endif
