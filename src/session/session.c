/* session.c — the session state machine (see session.h): prompt, step, back, branch,
 * settings, dice. All model math is the engine's (gpt2_prefill/gpt2_step/sampler_run);
 * this file only decides which token goes where and keeps the branches. */
#include "session.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpt2_forward.h"
#include "gpt2_memory.h"
#include "gpt2_weights_check.h"
#include "kernels.h"
#include "logit_kl.h"
#include "model_vocab.h"
#include "rng.h"
#include "attn_cache.h"
#include "inside_data.h"
#include "text_marks.h"
#include "token_stats.h"
#include "free_all.h"
#include "session_internal.h"

double session_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

double session_dice(uint64_t seed, int pos, uint32_t salt) { return rng_dice(seed, pos, salt); }

void session_branch_free(SessionBranch *b) {
    FREE_ALL(b->ids, b->salt, b->forced);
    memset(b, 0, sizeof *b);
}

int session_branch_reserve(SessionBranch *b, int cap) {
    if (cap <= b->cap) return 0;
    int *ids = realloc(b->ids, (size_t)cap * sizeof *ids);
    if (!ids) return -1;
    b->ids = ids;
    uint32_t *salt = realloc(b->salt, (size_t)cap * sizeof *salt);
    if (!salt) return -1;
    b->salt = salt;
    unsigned char *forced = realloc(b->forced, (size_t)cap);
    if (!forced) return -1;
    b->forced = forced;
    b->cap = cap;
    return 0;
}

static void refresh_original(Session *s);

/* The records shown for the current position: the pending draw (next) and the draw
 * that chose the newest token (prev). Sampler only, no forward pass (but see
 * refresh_original while parts are switched off). */
/* The sampler on the newest logits into s->next (has_next). */
static void run_next(Session *s) {
    int n = s->trace.n_pos;
    s->has_next = 0;
    s->next_err.text[0] = 0;
    ErrorMsg err;
    /* gpt2_logits_at: kept, cached or recomputed when a trace budget dropped them */
    const float *logits = n > 0 ? gpt2_logits_at(&s->model, &s->trace, n - 1, &err) : NULL;
    if (logits && n < s->trace.max_pos) {
        s->n_sampler_runs++;
        s->has_next = sampler_run(&s->sampler, &s->settings, logits, s->trace.ids, (size_t)n,
                                  session_dice(s->seed, n, s->pending_salt), s->top_n, &s->next,
                                  &s->next_err) == 0;
    }
}

void session_compute_next(Session *s) {
    s->stale &= ~1;
    s->has_draws = 0; /* the rolls were against the record this replaces */
    run_next(s);
    refresh_original(s); /* p_orig and the KL are of this next distribution */
}

static void compute_prev(Session *s) {
    ErrorMsg err;
    int n = s->trace.n_pos;
    s->has_prev = 0;
    s->stale &= ~2;
    if (n - 1 >= s->n_prompt && n >= 2) {
        const float *pl = gpt2_logits_at(&s->model, &s->trace, n - 2, &err);
        const SessionBranch *b = &s->branch[s->cur];
        if (pl) {
            s->n_sampler_runs++;
            s->has_prev = sampler_run(&s->sampler, &s->settings, pl, s->trace.ids, (size_t)(n - 1),
                                      session_dice(s->seed, n - 1, b->salt[n - 1]), s->top_n, &s->prev, &err) == 0;
        }
    }
}

/* Brings s->orig to the tokens of the trace (the prompt as one prefill, then one step per
 * token, as the trace itself was computed). -1 when memory runs out. */
static int sync_original(Session *s, ErrorMsg *err) {
    Gpt2Trace *o = &s->orig, *t = &s->trace;
    if (!o->mem && gpt2_trace_init(o, &s->model.config, t->max_pos, t->capture, err)) return -1;
    int n = t->n_pos, common = 0;
    while (common < o->n_pos && common < n && o->ids[common] == t->ids[common]) common++;
    gpt2_trace_truncate(o, common);
    if (common == 0 && n > 0) {
        common = s->n_prompt < n ? s->n_prompt : n;
        if (gpt2_prefill(&s->model, o, t->ids, (size_t)common, err)) return -1;
    }
    for (int p = common; p < n; p++)
        if (gpt2_step(&s->model, o, t->ids[p], err)) return -1;
    return 0;
}

/* The comparison with the original model while parts are switched off: keeps s->orig in
 * step and fills ablation_kl, next_p_orig, next_chosen_p_orig, orig_top_id. */
static void refresh_original(Session *s) {
    ErrorMsg err;
    s->ablation_kl = -1;
    s->orig_top_id = -1;
    if (s->trace.ablation.n_off == 0 || !s->track_original) {
        gpt2_trace_free(&s->orig);
        return;
    }
    if (sync_original(s, &err)) {
        gpt2_trace_free(&s->orig); /* switching off will re-run instead */
        return;
    }
    const int n = s->trace.n_pos;
    const size_t V = (size_t)s->n_vocab; /* as the sampler: padding rows are no tokens */
    const float *lo = gpt2_trace_logits(&s->orig, n - 1), *la = gpt2_trace_logits(&s->trace, n - 1);
    TokenStat st;
    if (!s->has_next || !lo || !la || token_stat(lo, V, 0, &st)) return;
    for (int i = 0; i < s->next.n; i++) s->next_p_orig[i] = exp((double)lo[s->next.rows[i].id] - st.logsumexp);
    s->next_chosen_p_orig = exp((double)lo[s->next.chosen.id] - st.logsumexp);
    int id;
    float v;
    kern_topk(&id, &v, lo, V, 1);
    s->orig_top_id = id;
    s->ablation_kl = logits_kl(lo, la, V);
}

/* 1 when the pending record `next` is, bit for bit, what compute_prev would compute once
 * one token is appended: it was computed at n_pos = n - 1 (so from the logits of row n - 2
 * and the context ids[0..n-1), which appending at n - 1 leaves as they were), with the dice
 * the new token was placed with, the current settings and as many rows. That is every
 * step of generate and of the window: reusing it halves the sampler's passes over the
 * vocabulary per token (two were ~3 ms of a 13 ms step of 124M F16, issue 38). */
static int next_is_prev(const Session *s, int n) {
    const SamplerRecord *r = &s->next;
    const SessionBranch *b = &s->branch[s->cur];
    if (!s->has_next || (s->stale & 1) || n < 2 || n - 1 < s->n_prompt || b->len < n) return 0;
    int rows = s->top_n < SAMPLER_MAX_SHOW ? s->top_n : SAMPLER_MAX_SHOW;
    if (rows > s->n_vocab) rows = s->n_vocab;
    return r->n_context == n - 1 && r->n == rows && r->u == session_dice(s->seed, n - 1, b->salt[n - 1]) &&
           settings_equal(&r->settings, &s->settings);
}

/* Brings both records up to date, or (inside a batch) marks them for the batch end. */
void session_refresh_records(Session *s) {
    if (s->batch) {
        s->stale = 3;
        return;
    }
    if (next_is_prev(s, s->trace.n_pos)) {
        s->prev = s->next; /* before compute_next replaces it */
        s->has_prev = 1;
        s->stale &= ~2;
        session_compute_next(s);
        return;
    }
    session_compute_next(s);
    compute_prev(s);
}

void session_batch_begin(Session *s) { s->batch++; }

void session_batch_end(Session *s) {
    if (s->batch > 0) s->batch--;
    if (s->batch == 0 && s->stale) {
        session_compute_next(s);
        compute_prev(s);
    }
}

void session_sync_records(Session *s) {
    if (s->stale & 1) session_compute_next(s);
    if (s->stale & 2) compute_prev(s);
}

/* Row q of the trace was (re)written: picks at positions after it were made from
 * logits that may have changed. */
void session_picks_forget_after(Session *s, int q) {
    if (!s->pick) return;
    for (int p = q + 1 < 0 ? 0 : q + 1; p < s->trace.max_pos; p++) s->pick[p].valid = 0;
}

/* The pending salt for position n_pos: the branch's if it already has that position. */
void session_sync_pending_salt(Session *s) {
    const SessionBranch *b = &s->branch[s->cur];
    int n = s->trace.n_pos;
    s->pending_salt = n < b->len ? b->salt[n] : 0;
}

SessionConfig session_config_default(void) {
    SessionConfig c = {.max_pos = 0, .capture = GPT2_CAP_DEFAULT, .weights = GPT2_WEIGHTS_AS_STORED,
                       .trace_budget = 0};
    return c;
}

int session_open(Session *s, const char *model_dir, const char *tok_dir, int max_pos,
                 unsigned capture, ErrorMsg *err) {
    SessionConfig c = session_config_default();
    c.max_pos = max_pos;
    c.capture = capture;
    return session_open_cfg(s, model_dir, tok_dir, &c, err);
}

int session_open_cfg(Session *s, const char *model_dir, const char *tok_dir, const SessionConfig *cfg,
                     ErrorMsg *err) {
    memset(s, 0, sizeof *s);
    int max_pos = cfg->max_pos;
    unsigned capture = cfg->capture;
    if (gpt2_model_load_as(&s->model, model_dir, cfg->weights, err)) goto fail;
    {
        char wpath[1100];
        snprintf(wpath, sizeof wpath, "%s/model.safetensors", s->model.dir);
        file_identity(wpath, &s->weights_loaded);
    }
    if (model_vocab_open(&s->tok, model_dir, s->model.config.vocab_size, tok_dir, s->vocab_desc,
                         sizeof s->vocab_desc, err))
        goto fail;
    s->n_vocab = (int)tok_vocab_size(&s->tok);
    if (max_pos <= 0) max_pos = s->model.config.n_positions < 1024 ? s->model.config.n_positions : 1024;
    /* a budget keeps what fits (gpt2_trace_plan) and says what it dropped */
    size_t wbytes = gpt2_model_weight_bytes(&s->model);
    size_t budget = cfg->trace_budget == SESSION_TRACE_AUTO
                        ? gpt2_trace_budget_default(wbytes, wbytes - (s->model.map ? s->model.map_len : 0))
                        : cfg->trace_budget;
    Gpt2TracePlan plan;
    if (gpt2_trace_plan(&s->model.config, max_pos, capture | GPT2_CAP_LOGITS, budget, &plan, err)) goto fail;
    gpt2_trace_plan_describe(&plan, budget, s->trace_note, sizeof s->trace_note);
    s->trace_dropped = plan.dropped;
    if (gpt2_trace_init(&s->trace, &s->model.config, max_pos, plan.capture, err)) goto fail;
    /* the sampler sees only the first n_vocab logits: padding rows never get probability */
    if (sampler_init(&s->sampler, s->n_vocab, err)) goto fail;
    s->pick = calloc((size_t)max_pos, sizeof *s->pick);
    s->marks = text_marks_new(s->model.dir, max_pos);
    s->inside = inside_new();
    s->attn = attn_fill_new();
    if (!s->pick || !s->marks || !s->inside || !s->attn) {
        error_set(err, "out of memory");
        goto fail;
    }
    s->settings = sampler_settings_default();
    s->top_n = SESSION_TOP_N;
    s->last_step_ms = -1;
    thread_governor_init(&s->threads, kern_get_threads());
    s->track_original = 1;
    s->ablation_kl = -1;
    s->orig_top_id = -1;
    return 0;
fail:
    session_free(s);
    return -1;
}

void session_free(Session *s) {
    if (!s) return;
    for (int i = 0; i < s->n_branches; i++) session_branch_free(&s->branch[i]);
    tok_encoding_free(&s->prompt_enc);
    FREE_ALL(s->prompt, s->pick);
    text_marks_free(s->marks);
    inside_free(s->inside);
    attn_fill_free(s->attn);
    session_compare_free(&s->cmp);
    sampler_free(&s->sampler);
    gpt2_trace_free(&s->trace);
    gpt2_trace_free(&s->orig);
    tok_free(&s->tok);
    gpt2_model_free(&s->model);
    memset(s, 0, sizeof *s);
}

/* The weights are read in place from the mapped file (MAP_PRIVATE shares the page cache
 * until written): a rewrite of model.safetensors while we run changes them under us, and
 * the loss of an eval or the next token is then silently another model's. So the file
 * (size, mtime, ctime) is compared with the one taken at load after every forward pass:
 * a stat, about a microsecond. A file replaced by rename or deleted is another inode, and
 * the mapping keeps the old one whole: the weights in use did not change. A truncation
 * is map_guard's SIGBUS. */
static int weights_unchanged(const Session *s, ErrorMsg *err) {
    if (!s->model.map || !s->weights_loaded.valid) return 0; /* nothing read from the file */
    char path[1100];
    snprintf(path, sizeof path, "%s/model.safetensors", s->model.dir);
    FileIdentity now;
    if (file_identity(path, &now) != 0 || now.ino != s->weights_loaded.ino || now.dev != s->weights_loaded.dev ||
        file_identity_same(&now, &s->weights_loaded))
        return 0;
    return error_set(err, "%s changed on disk while in use: what it computes now mixes old and new weights "
                     "(load it again)", path);
}

/* After a forward pass: the weights file must be the one loaded, and the newest logits
 * must be finite numbers. When they are not, the weights are scanned to say which tensor
 * is damaged ("tensor 'h.0.mlp.c_fc.weight' holds NaN at [3, 17]"); finite weights mean
 * the activations overflowed. A scan happens only on this failure, so healthy models pay
 * one pass over n_vocab floats per step. */
int session_check_forward(Session *s, ErrorMsg *err) {
    if (weights_unchanged(s, err)) return -1;
    int n = s->trace.n_pos;
    ErrorMsg none;
    const float *l = n > 0 ? gpt2_logits_at(&s->model, &s->trace, n - 1, &none) : NULL;
    if (!l) return 0;
    int bad = -1;
    for (int i = 0; i < s->n_vocab && bad < 0; i++)
        if (!isfinite(l[i])) bad = i;
    if (bad < 0) return 0;
    if (gpt2_weights_check_finite(&s->model, err)) return -1;
    return error_set(err, "%s: the forward pass gave logit %s for token %d at position %d although every weight is "
                     "finite (an activation overflowed float32)", s->model.dir[0] ? s->model.dir : s->model.name,
                     isnan(l[bad]) ? "NaN" : "Inf", bad, n - 1);
}

/* Runs the prompt ids and resets the branches. enc (may be NULL) and text become the
 * session's on success (ownership moves), and are freed by the caller on failure. */
static int start_prompt(Session *s, const int *ids, size_t n, ErrorMsg *err) {
    if (n == 0) return error_set(err, "the prompt is empty: type at least one character");
    if (n > (size_t)s->trace.max_pos)
        return error_set(err, "prompt of %zu tokens exceeds the context of %d tokens", n, s->trace.max_pos);
    SessionBranch b = {0};
    if (session_branch_reserve(&b, (int)n + 64)) {
        session_branch_free(&b);
        return error_set(err, "out of memory");
    }
    /* the same prompt as the last prefill, rows still intact: nothing to recompute */
    int reuse = (int)n == s->prefill_len && s->memo_len >= (int)n &&
                memcmp(s->trace.ids, ids, n * sizeof *ids) == 0;
    if (reuse) {
        if (s->trace.n_pos > (int)n) gpt2_trace_truncate(&s->trace, (int)n);
        else gpt2_trace_regrow(&s->trace, (int)n);
    } else {
        double t0 = session_now_ms();
        s->memo_len = s->prefill_len = 0;
        session_picks_forget_after(s, -1);
        gpt2_trace_truncate(&s->orig, 0); /* the original starts again from this prefill */
        if (gpt2_prefill(&s->model, &s->trace, ids, n, err) || session_check_forward(s, err)) {
            session_branch_free(&b);
            /* the trace was emptied: restore the previous branch's tokens if there was one */
            if (s->n_branches) {
                const SessionBranch *old = &s->branch[s->cur];
                ErrorMsg e2;
                if (gpt2_prefill(&s->model, &s->trace, old->ids, (size_t)s->n_prompt, &e2) == 0)
                    s->memo_len = s->prefill_len = s->n_prompt;
            }
            return -1;
        }
        s->last_step_ms = session_now_ms() - t0;
        s->n_steps++;
        s->memo_len = s->prefill_len = (int)n;
    }
    for (int i = 0; i < s->n_branches; i++) session_branch_free(&s->branch[i]);
    memcpy(b.ids, ids, n * sizeof *ids);
    memset(b.salt, 0, n * sizeof *b.salt);
    memset(b.forced, 0, n);
    b.len = (int)n;
    s->branch[0] = b;
    s->n_branches = 1;
    s->cur = 0;
    s->n_prompt = (int)n;
    session_sync_pending_salt(s);
    session_refresh_records(s);
    return 0;
}

int session_set_prompt(Session *s, const uint8_t *text, size_t len, ErrorMsg *err) {
    TokEncoding enc = {0};
    TokEncodeOptions opt = {.record_merges = true};
    if (len == 0) return error_set(err, "the prompt is empty: type at least one character");
    if (tok_encode(&s->tok, text, len, &opt, &enc, err)) {
        char msg[sizeof err->text];
        snprintf(msg, sizeof msg, "%s", err->text);
        return error_set(err, "prompt: %s", msg);
    }
    uint8_t *copy = malloc(len + 1);
    int *ids = malloc((enc.n_ids ? enc.n_ids : 1) * sizeof *ids);
    if (!copy || !ids) {
        FREE_ALL(copy, ids);
        tok_encoding_free(&enc);
        return error_set(err, "out of memory");
    }
    for (size_t i = 0; i < enc.n_ids; i++) ids[i] = enc.ids[i];
    int rc = start_prompt(s, ids, enc.n_ids, err);
    free(ids);
    if (rc) {
        free(copy);
        tok_encoding_free(&enc);
        return -1;
    }
    memcpy(copy, text, len);
    copy[len] = 0;
    free(s->prompt);
    s->prompt = copy;
    s->prompt_len = len;
    tok_encoding_free(&s->prompt_enc);
    s->prompt_enc = enc;
    return 0;
}

int session_set_prompt_ids(Session *s, const int *ids, size_t n, ErrorMsg *err) {
    for (size_t i = 0; i < n; i++)
        if (ids[i] < 0 || ids[i] >= s->n_vocab)
            return error_set(err, "token id %d at position %zu is outside the vocabulary [0, %d)", ids[i], i,
                             s->n_vocab);
    if (start_prompt(s, ids, n, err)) return -1;
    free(s->prompt);
    s->prompt = NULL;
    s->prompt_len = 0;
    tok_encoding_free(&s->prompt_enc);
    return 0;
}

/* Puts token id at the current position and updates the records: from the redo rows
 * when the trace still holds this very token there (no work, the same bits), else by
 * one forward step. */
int session_forward_one(Session *s, int id, ErrorMsg *err) {
    int pos = s->trace.n_pos;
    if (pos < s->memo_len && s->trace.ids[pos] == id) {
        gpt2_trace_regrow(&s->trace, pos + 1);
    } else {
        double t0 = session_now_ms();
        int threads = thread_governor_next(&s->threads);
        kern_set_region_threads(threads);
        int rc = gpt2_step(&s->model, &s->trace, id, err);
        kern_set_region_threads(s->threads.most);
        if (rc) return -1;
        thread_governor_record(&s->threads, threads, session_now_ms() - t0);
        /* row pos now holds the new token: redo rows from pos on and the picks made
         * from them are gone, whether the step turns out good or not */
        if (pos < s->memo_len) s->memo_len = pos;
        session_picks_forget_after(s, pos);
        if (session_check_forward(s, err)) { /* undo the step: the screen keeps the last good state */
            gpt2_trace_truncate(&s->trace, s->trace.n_pos - 1);
            session_refresh_records(s);
            return -1;
        }
        s->last_step_ms = session_now_ms() - t0;
        s->n_steps++;
        if (pos <= s->memo_len) s->memo_len = pos + 1;
    }
    session_sync_pending_salt(s);
    session_refresh_records(s);
    return 0;
}

/* Makes branch[cur] continue with (id, salt, forced) at position pos = n_pos: follows
 * the branch when it already does, else starts a new branch sharing [0, pos). */
static int place_token(Session *s, int id, uint32_t salt, int forced, ErrorMsg *err) {
    int pos = s->trace.n_pos;
    SessionBranch *b = &s->branch[s->cur];
    if (b->len > pos && b->ids[pos] == id) return 0; /* replaying the branch */
    if (b->len > pos) {
        /* a different token than this branch has: keep the old branch, fork a new one */
        if (s->n_branches >= SESSION_MAX_BRANCHES)
            return error_set(err, "too many branches (%d): switch to an old one (B) instead", SESSION_MAX_BRANCHES);
        SessionBranch nb = {0};
        if (session_branch_reserve(&nb, pos + 64)) {
            session_branch_free(&nb);
            return error_set(err, "out of memory");
        }
        memcpy(nb.ids, b->ids, (size_t)pos * sizeof *nb.ids);
        memcpy(nb.salt, b->salt, (size_t)pos * sizeof *nb.salt);
        memcpy(nb.forced, b->forced, (size_t)pos);
        nb.len = pos;
        s->branch[s->n_branches] = nb;
        s->cur = s->n_branches++;
        b = &s->branch[s->cur];
    }
    if (session_branch_reserve(b, b->len < b->cap ? b->cap : b->cap * 2 + 16)) return error_set(err, "out of memory");
    b->ids[pos] = id;
    b->salt[pos] = salt;
    b->forced[pos] = (unsigned char)forced;
    b->len = pos + 1;
    return 0;
}

/* place_token + the forward step; a branch made for a step that then fails is undone. */
static int append_token(Session *s, int id, int forced, ErrorMsg *err) {
    int old_cur = s->cur, old_n = s->n_branches;
    SessionBranch *b = &s->branch[s->cur];
    int old_len = b->len, pos = s->trace.n_pos;
    int old_id = pos < b->len ? b->ids[pos] : -1;
    if (place_token(s, id, s->pending_salt, forced, err)) return -1;
    if (session_forward_one(s, id, err)) {
        if (s->n_branches > old_n) {
            session_branch_free(&s->branch[--s->n_branches]);
            s->cur = old_cur;
        } else if (old_id < 0) {
            b->len = old_len; /* the branch had not gone this far: it does not now */
        }
        return -1;
    }
    return 0;
}

static int check_room(const Session *s, ErrorMsg *err) {
    if (s->trace.n_pos == 0) return error_set(err, "no prompt yet");
    if (s->trace.n_pos >= s->trace.max_pos)
        return error_set(err, "the context is full (%d tokens): step back or start a new prompt", s->trace.max_pos);
    return 0;
}

int session_step(Session *s, ErrorMsg *err) {
    if (check_room(s, err)) return -1;
    int pos = s->trace.n_pos;
    const SessionBranch *b = &s->branch[s->cur];
    int id, forced = 0;
    SessionPick *pk = &s->pick[pos];
    if (b->len > pos && b->forced[pos]) {
        id = b->ids[pos]; /* the user's own choice is replayed as it was */
        forced = 1;
    } else if (pk->valid && pk->seed == s->seed && pk->salt == s->pending_salt &&
               settings_equal(&pk->settings, &s->settings)) {
        id = pk->id; /* the same logits, settings and dice as last time: the same pick */
    } else {
        if (s->stale & 1) session_compute_next(s);
        if (!s->has_next)
            return error_set(err, "no next-token distribution at position %d%s%s", pos, s->next_err.text[0] ? ": " : "",
                             s->next_err.text);
        id = s->next.chosen.id;
        *pk = (SessionPick){.seed = s->seed, .salt = s->pending_salt, .settings = s->settings, .id = id, .valid = 1};
    }
    return append_token(s, id, forced, err);
}

int session_back(Session *s, int n) {
    int target = s->trace.n_pos - n;
    if (target < s->n_prompt) target = s->n_prompt;
    int removed = s->trace.n_pos - target;
    if (removed <= 0) return 0;
    gpt2_trace_truncate(&s->trace, target);
    session_sync_pending_salt(s);
    session_refresh_records(s);
    return removed;
}

void session_home(Session *s) { session_back(s, s->trace.n_pos); }

int session_draw_many(Session *s, int n, ErrorMsg *err) {
    session_sync_records(s);
    if (!s->has_next)
        return error_set(err, "draws: there is no next position to roll for%s%s", s->next_err.text[0] ? ": " : "",
                         s->next_err.text);
    /* compute_prev ran the sampler after next: run next's chain again (same logits, same
     * settings, same dice: the same record) so its final distribution is the scratch's */
    if (s->next.run != s->sampler.runs) run_next(s);
    if (!s->has_next) return error_set(err, "draws: %s", s->next_err.text);
    s->has_draws = 0;
    if (sampler_draw_many(&s->sampler, &s->next, s->seed, s->trace.n_pos, s->pending_salt, n, &s->draws, err))
        return -1;
    s->has_draws = 1;
    return 0;
}

void session_reroll(Session *s) {
    s->pending_salt++;
    session_refresh_records(s);
}

int session_force(Session *s, int id, ErrorMsg *err) {
    if (id < 0 || id >= s->n_vocab)
        return error_set(err, "token id %d is outside the vocabulary [0, %d)", id, s->n_vocab);
    if (check_room(s, err)) return -1;
    return append_token(s, id, 1, err);
}

int session_switch_branch(Session *s, int k, ErrorMsg *err) {
    if (k < 0 || k >= s->n_branches) return error_set(err, "there is no branch %d (there are %d)", k + 1, s->n_branches);
    const SessionBranch *t = &s->branch[k];
    int n = s->trace.n_pos, common = 0;
    while (common < n && common < t->len && s->trace.ids[common] == t->ids[common]) common++;
    if (common == 0) return error_set(err, "branch %d does not share the prompt", k + 1);
    gpt2_trace_truncate(&s->trace, common);
    /* gpt2_extend computes rows another way than step by step: not redo rows */
    if (s->memo_len > common) s->memo_len = common;
    session_picks_forget_after(s, common - 1);
    double t0 = session_now_ms();
    if (t->len > common &&
        gpt2_extend(&s->model, &s->trace, t->ids + common, (size_t)(t->len - common), err))
        return -1;
    if (t->len > common) s->last_step_ms = session_now_ms() - t0;
    s->cur = k;
    session_sync_pending_salt(s);
    session_refresh_records(s);
    return 0;
}

int session_set_settings(Session *s, const SamplerSettings *set, ErrorMsg *err) {
    if (sampler_settings_validate(set, err)) return -1;
    s->settings = *set;
    session_refresh_records(s);
    return 0;
}

void session_set_seed(Session *s, uint64_t seed) {
    s->seed = seed;
    session_refresh_records(s);
}

void session_set_pending_salt(Session *s, uint32_t salt) {
    s->pending_salt = salt;
    session_refresh_records(s);
}

int session_text(const Session *s, int from, int to, uint8_t **out, size_t *len, ErrorMsg *err) {
    if (from < 0) from = 0;
    if (to > s->trace.n_pos) to = s->trace.n_pos;
    if (to < from) to = from;
    int32_t *ids = malloc(((size_t)(to - from) + 1) * sizeof *ids);
    if (!ids) return error_set(err, "out of memory");
    for (int i = from; i < to; i++) ids[i - from] = s->trace.ids[i];
    int rc = tok_decode(&s->tok, ids, (size_t)(to - from), out, len, err);
    free(ids);
    return rc;
}
