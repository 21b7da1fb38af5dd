/* lesson_run.c — replaying lesson directives on a Session (see lesson_run.h). */
#include "lesson_run.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "action.h"
#include "frame_fill.h"
#include "lesson_expect.h"
#include "free_all.h"

/* A `model` path as written in the lesson, taken relative to the lesson file's own
 * folder (so a lesson finds its model whatever the current directory is). */
static void resolve_model_path(const Lesson *l, const char *path, char *out, size_t cap) {
    const char *slash = strrchr(l->path, '/');
    if (path[0] == '/' || !slash) {
        snprintf(out, cap, "%s", path);
        return;
    }
    snprintf(out, cap, "%.*s/%s", (int)(slash - l->path), l->path, path);
}

void lesson_model_dir(const Lesson *l, const char *bundled_dir, char *dir, size_t dir_cap,
                      char *note, size_t note_cap) {
    snprintf(dir, dir_cap, "%s", bundled_dir);
    if (note_cap) note[0] = 0;
    for (size_t i = 0; i < l->n_dir; i++) {
        const LessonDirective *d = &l->dir[i];
        if (d->op != LOP_MODEL) continue;
        if (note_cap) note[0] = 0;
        if (strcmp(d->text, "bundled") == 0) {
            snprintf(dir, dir_cap, "%s", bundled_dir);
            continue;
        }
        char path[1024], probe[1100];
        resolve_model_path(l, d->text, path, sizeof path);
        snprintf(probe, sizeof probe, "%s/model.safetensors", path);
        struct stat st;
        if (d->flag && (stat(probe, &st) != 0 || !S_ISREG(st.st_mode))) {
            snprintf(dir, dir_cap, "%s", bundled_dir);
            snprintf(note, note_cap, "%s is not downloaded (make gpt2): showing the bundled model",
                     d->text);
        } else {
            snprintf(dir, dir_cap, "%s", path);
        }
    }
}

/* "FILE:LINE: " + the engine's message */
static int fail_at(const Lesson *l, const LessonDirective *d, ErrorMsg *err, const char *msg) {
    char copy[sizeof err->text];
    snprintf(copy, sizeof copy, "%s", msg);
    return error_set(err, "%s:%d: %s", l->path, d->line, copy);
}

/* The token id a `force` directive names: #ID, or text that must be exactly one token. */
/* The one token of a `force` or `attribute_vs` line (its TEXT or #ID). */
static int force_id(const Lesson *l, const LessonDirective *d, Session *s, int *id, ErrorMsg *err) {
    const char *word = d->op == LOP_ATTR_VS ? "attribute_vs" : "force";
    if (d->flag) {
        if (d->n >= session_vocab(s)) {
            char m[128];
            snprintf(m, sizeof m, "%s #%ld: the vocabulary has only %d tokens", word, d->n, session_vocab(s));
            return fail_at(l, d, err, m);
        }
        *id = (int)d->n;
        return 0;
    }
    TokEncoding enc = {0};
    ErrorMsg e;
    if (tok_encode(&s->tok, (const uint8_t *)d->text, d->text_len, NULL, &enc, &e)) return fail_at(l, d, err, e.text);
    int rc = 0;
    if (enc.n_ids != 1) {
        char m[300];
        snprintf(m, sizeof m, "%s \"%.60s\" is %zu tokens, not one (write the token with its leading space, "
                 "or use %s #ID)", word, d->text, enc.n_ids, word);
        rc = fail_at(l, d, err, m);
    } else {
        *id = enc.ids[0];
    }
    tok_encoding_free(&enc);
    return rc;
}

/* What the directives before a point leave behind besides the session and view. */
typedef struct RunState {
    const char *last_question; /* the latest `ask` (a `reveal` shows it again) */
    int have_prompt;           /* a `prompt` line has run */
    size_t prompt_dir;         /* index of that directive, SIZE_MAX = none yet */
    size_t ablate_dir;         /* the `ablate` in force, SIZE_MAX = none (the whole model) */
    size_t compare_dir;        /* the `compare` in force, SIZE_MAX = none (the default set) */
} RunState;

/* `compare SPEC SPEC ...`: the specs (split at spaces into buf) side by side, computed
 * now (an Action: the window runs it as a job). text NULL: back to the default set. */
static int lesson_compare(Session *s, VizView *view, const char *text, ErrorMsg *err) {
    char buf[4 * (SETTINGS_SPEC_MAX + 2) + 8];
    const char *specs[SEQ_COMPARE_MAX_COLS + 1];
    int n = 0;
    if (text) {
        if (strlen(text) >= sizeof buf) return error_set(err, "compare: the list is too long");
        strcpy(buf, text);
        char *save = NULL;
        for (char *t = strtok_r(buf, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
            if (n > SEQ_COMPARE_MAX_COLS) break;
            specs[n++] = t;
        }
        if (n < 2 || n > SEQ_COMPARE_MAX_COLS)
            return error_set(err, "compare: %d settings given, 2 to %d side by side", n, SEQ_COMPARE_MAX_COLS);
    }
    Action a = {.kind = ACT_COMPARE, .specs = specs, .n_specs = n};
    if (!text) return session_compare_set(s, NULL, 0, 0, err);
    return action_apply(s, view, &a, err);
}

/* Switches off what `ablate SPEC` lists ("none" or NULL: everything back on). */
static int lesson_ablate(Session *s, VizView *view, const char *spec, ErrorMsg *err) {
    Gpt2Ablation ab = {0};
    int rc = 0;
    if (spec && strcmp(spec, "none") != 0) rc = gpt2_ablation_parse(&ab, &s->model.config, spec, err);
    if (rc) {
        /* the parser speaks of the CLI flag; in a lesson it is the `ablate` line (the caller
         * puts FILE:LINE in front) */
        char why[sizeof err->text];
        snprintf(why, sizeof why, "%s", strncmp(err->text, "--ablate: ", 10) == 0 ? err->text + 10 : err->text);
        error_set(err, "ablate %s: %s", spec, why);
    }
    Action act = {.kind = ACT_ABLATE, .ablation = &ab};
    if (rc == 0) rc = action_apply(s, view, &act, err);
    gpt2_ablation_free(&ab);
    return rc;
}

/* Applies directive d (of the beat being built: its captions, question and
 * highlights go to bv and view). */
static int apply(const Lesson *l, size_t di, Session *s, VizView *view, LessonBeatView *bv, RunState *rs,
                 ErrorMsg *err) {
    const LessonDirective *d = &l->dir[di];
    ErrorMsg e;
    SamplerSettings set = s->settings;
    Action act = {.kind = ACT_NONE};
    if (!rs->have_prompt && (d->op == LOP_STEP || d->op == LOP_BACK || d->op == LOP_HOME || d->op == LOP_FORCE ||
                             d->op == LOP_REROLL || d->op == LOP_BPE || d->op == LOP_DRAWS || d->op == LOP_COMPARE))
        return fail_at(l, d, err, "this needs a prompt first: put a 'prompt' line before it");
    switch (d->op) {
    case LOP_TITLE: case LOP_MODEL: case LOP_PAUSE: break;
    case LOP_EXPECT:
        if (!rs->have_prompt && d->kind != LEXP_TOKENS && d->kind != LEXP_IDS) return fail_at(l, d, err, "this needs a prompt first: put a 'prompt' line before it");
        if (lesson_expect_check(l, d, s, view, err)) return -1;
        break;
    case LOP_PROMPT:
        act = (Action){.kind = ACT_PROMPT, .text = (const uint8_t *)d->text, .text_len = d->text_len};
        if (action_apply(s, view, &act, &e)) return fail_at(l, d, err, e.text);
        rs->have_prompt = 1;
        rs->prompt_dir = di;
        break;
    case LOP_SEED: act = (Action){.kind = ACT_SEED, .seed = d->seed}; break;
    case LOP_SETTING:
        settings_copy(settings_row((SettingId)d->kind), &set, &d->setting);
        act = (Action){.kind = ACT_SETTINGS, .settings = &set};
        break;
    case LOP_STEP: act = (Action){.kind = ACT_STEP, .n = d->n}; break;
    case LOP_BACK: act = (Action){.kind = ACT_BACK, .n = d->n}; break;
    case LOP_HOME: act = (Action){.kind = ACT_HOME}; break;
    case LOP_REROLL: act = (Action){.kind = ACT_REROLL}; break;
    case LOP_DRAWS: act = (Action){.kind = ACT_DRAWS, .n = d->n}; break;
    case LOP_COMPARE:
        if (lesson_compare(s, view, d->text, &e)) return fail_at(l, d, err, e.text);
        rs->compare_dir = di;
        break;
    case LOP_FORCE: {
        int id = 0;
        if (force_id(l, d, s, &id, err)) return -1;
        act = (Action){.kind = ACT_FORCE, .id = id};
        break;
    }
    case LOP_ATTR_VS: {
        int id = -1;
        if (d->kind == 0 && force_id(l, d, s, &id, err)) return -1;
        act = (Action){.kind = ACT_ATTR_VS, .id = id};
        break;
    }
    case LOP_LAYER: act = (Action){.kind = ACT_LAYER, .n = d->n}; break;
    case LOP_HEAD: act = (Action){.kind = ACT_HEAD, .n = d->n}; break;
    case LOP_PANEL: act = (Action){.kind = ACT_PANEL, .n = d->kind}; break;
    case LOP_QUERY: act = (Action){.kind = ACT_QUERY, .n = d->n}; break;
    case LOP_HEADS: {
        int NH = s->model.config.n_head;
        unsigned long long all = NH >= 64 ? ~0ULL : (1ULL << NH) - 1ULL;
        act = (Action){.kind = ACT_HEADS,
                       .heads = d->flag ? all : ((unsigned long long)d->arg[0] | ((unsigned long long)d->arg[1] << 32))};
        break;
    }
    case LOP_ABLATE:
        if (lesson_ablate(s, view, d->text, &e)) return fail_at(l, d, err, e.text);
        rs->ablate_dir = strcmp(d->text, "none") == 0 ? SIZE_MAX : di;
        break;
    case LOP_TEXTMODE: view->text_mode = (VizTextMode)d->kind; break;
    case LOP_AXIS: view->prob_axis = (VizProbAxis)d->kind, view->prob_axis_max = (float)d->x; break;
    case LOP_CAPTION:
        if (bv->n_captions < LESSON_MAX_CAPTIONS) bv->captions[bv->n_captions++] = d->text;
        break;
    case LOP_HIGHLIGHT:
        view->highlight_panel = -1;
        view->highlight_token = -1;
        view->highlight_bar = 0;
        if (d->kind == LHL_PANEL) view->highlight_panel = d->panel;
        if (d->kind == LHL_TOKEN) act = (Action){.kind = ACT_HIGHLIGHT_TOKEN, .n = d->n};
        if (d->kind == LHL_BAR) view->highlight_bar = (int)d->n;
        break;
    case LOP_BPE:
        if (d->n >= s->n_prompt || !s->prompt_enc.n_ids) {
            char m[160];
            snprintf(m, sizeof m, "bpe %ld: the prompt has only %d tokens", d->n, s->n_prompt);
            return fail_at(l, d, err, m);
        }
        act = (Action){.kind = ACT_SELECT_TOKEN, .n = d->n};
        break;
    case LOP_ASK:
        rs->last_question = d->text;
        bv->question = d->text;
        view->hide_probs = 1;
        break;
    case LOP_REVEAL:
        bv->question = rs->last_question;
        view->hide_probs = 0;
        break;
    case LOP_CLASS:
        /* the room itself is the window's (app_class.c): here the round is a question like
         * `ask` (the bars hidden while the class guesses, so the model's answer is not on
         * the wall; the slide and the handout say it is a class round) */
        if (d->kind == LCLASS_ROUND) {
            rs->last_question = LESSON_CLASS_QUESTION;
            bv->question = LESSON_CLASS_QUESTION;
            view->hide_probs = 1;
        }
        if (d->kind == LCLASS_REVEAL) {
            bv->question = rs->last_question;
            view->hide_probs = 0;
        }
        break;
    }
    /* the lines that change the session or the view: one action each, applied as a key
     * press or a figure's replay would apply it (action.h) */
    if (act.kind != ACT_NONE && action_apply(s, view, &act, &e)) return fail_at(l, d, err, e.text);
    return 0;
}

/* ---- the replay cache: the state at the end of every beat shown so far ----
 * Beat k is rebuilt from the snapshot of beat k (session_restore: only the tokens
 * that differ from what the trace holds are stepped, and the redo rows make even
 * that free when they are still there), never by replaying beats 0..k. Branch
 * token arrays are immutable blobs shared by consecutive snapshots when unchanged,
 * so a long lesson costs memory in proportion to what its beats change. */
typedef struct BeatSnap {
    int has_state;             /* 0: no prompt had run (the session was shown as it was) */
    int n_branches, cur, n_pos, n_prompt;
    int branch_blob[SESSION_MAX_BRANCHES]; /* index into LessonReplay.blob per branch */
    const uint8_t *prompt;     /* borrowed from the lesson (or the replay's pre_prompt) */
    size_t prompt_len;
    uint32_t pending_salt;
    int draws;                 /* rolls of the pending dice shown (0: none) */
    SamplerSettings settings;
    uint64_t seed;
    VizView view;
    const char *captions[LESSON_MAX_CAPTIONS]; /* the beat's captions as written */
    int n_captions;
    const char *question;
    RunState rs;
} BeatSnap;

typedef struct LessonReplay LessonReplay;
struct LessonReplay {
    const Session *owner;      /* the session the snapshots were taken on */
    BeatSnap *snap;            /* (n_snap) beats 0 .. n_snap-1 */
    size_t n_snap, cap_snap;
    SessionBranch *blob;       /* (n_blob) owned immutable branch copies */
    size_t n_blob, cap_blob;
    uint8_t *pre_prompt;       /* the session's prompt before the lesson's first `prompt` */
    size_t pre_prompt_len;
    int live;                  /* 1: the last lesson_check_step left the session at the end of
                                * the last snapshot (the next step goes on from there) */
    LessonReplayStats stats;
};

void lesson_replay_free(Lesson *l) {
    LessonReplay *r = l ? l->replay : NULL;
    if (!r) return;
    for (size_t i = 0; i < r->n_blob; i++) {
        FREE_ALL(r->blob[i].ids, r->blob[i].salt, r->blob[i].forced);
    }
    FREE_ALL(r->blob, r->snap, r->pre_prompt, r);
    l->replay = NULL;
}

LessonReplayStats lesson_replay_stats(const Lesson *l) {
    LessonReplayStats z = {0};
    return l->replay ? l->replay->stats : z;
}

static int same_branch(const SessionBranch *a, const SessionBranch *b) {
    return a->len == b->len && memcmp(a->ids, b->ids, (size_t)a->len * sizeof *a->ids) == 0 &&
           memcmp(a->salt, b->salt, (size_t)a->len * sizeof *a->salt) == 0 &&
           memcmp(a->forced, b->forced, (size_t)a->len) == 0;
}

/* Index of an immutable copy of b: the previous snapshot's blob for this branch
 * slot when equal, else a new copy. -1 when out of memory. */
static int blob_for(LessonReplay *r, const BeatSnap *prev, int slot, const SessionBranch *b) {
    if (prev && prev->has_state && slot < prev->n_branches && same_branch(&r->blob[prev->branch_blob[slot]], b))
        return prev->branch_blob[slot];
    if (r->n_blob == r->cap_blob) {
        size_t nc = r->cap_blob ? r->cap_blob * 2 : 16;
        SessionBranch *nb = realloc(r->blob, nc * sizeof *nb);
        if (!nb) return -1;
        r->blob = nb;
        r->cap_blob = nc;
    }
    size_t n = b->len > 0 ? (size_t)b->len : 1;
    SessionBranch c = {.ids = malloc(n * sizeof *c.ids), .salt = malloc(n * sizeof *c.salt), .forced = malloc(n),
                       .len = b->len, .cap = b->len};
    if (!c.ids || !c.salt || !c.forced) {
        FREE_ALL(c.ids, c.salt, c.forced);
        return -1;
    }
    memcpy(c.ids, b->ids, (size_t)b->len * sizeof *c.ids);
    memcpy(c.salt, b->salt, (size_t)b->len * sizeof *c.salt);
    memcpy(c.forced, b->forced, (size_t)b->len);
    r->blob[r->n_blob] = c;
    r->stats.branch_copies++;
    return (int)r->n_blob++;
}

static int take_snapshot(const Lesson *l, LessonReplay *r, const Session *s, const VizView *view,
                         const LessonBeatView *bv, const RunState *rs, ErrorMsg *err) {
    if (r->n_snap == r->cap_snap) {
        size_t nc = r->cap_snap ? r->cap_snap * 2 : 16;
        BeatSnap *ns = realloc(r->snap, nc * sizeof *ns);
        if (!ns) return error_set(err, "%s: out of memory", l->path);
        r->snap = ns;
        r->cap_snap = nc;
    }
    const BeatSnap *prev = r->n_snap ? &r->snap[r->n_snap - 1] : NULL;
    BeatSnap sn = {.view = *view, .rs = *rs, .settings = s->settings, .seed = s->seed,
                   .n_captions = bv->n_captions, .question = bv->question};
    memcpy(sn.captions, bv->captions, sizeof sn.captions);
    sn.has_state = s->n_branches > 0;
    if (sn.has_state) {
        sn.n_branches = s->n_branches;
        sn.cur = s->cur;
        sn.n_pos = session_len(s);
        sn.n_prompt = s->n_prompt;
        sn.pending_salt = s->pending_salt;
        sn.draws = s->has_next && s->has_draws ? s->draws.n : 0;
        if (rs->prompt_dir != SIZE_MAX) {
            sn.prompt = (const uint8_t *)l->dir[rs->prompt_dir].text;
            sn.prompt_len = l->dir[rs->prompt_dir].text_len;
        } else if (s->prompt) {
            if (!r->pre_prompt) {
                r->pre_prompt = malloc(s->prompt_len + 1);
                if (!r->pre_prompt) return error_set(err, "%s: out of memory", l->path);
                memcpy(r->pre_prompt, s->prompt, s->prompt_len);
                r->pre_prompt_len = s->prompt_len;
            }
            sn.prompt = r->pre_prompt;
            sn.prompt_len = r->pre_prompt_len;
        }
        for (int i = 0; i < s->n_branches; i++) {
            sn.branch_blob[i] = blob_for(r, prev, i, &s->branch[i]);
            if (sn.branch_blob[i] < 0) return error_set(err, "%s: out of memory", l->path);
        }
    }
    r->snap[r->n_snap++] = sn;
    return 0;
}

/* Shows snapshot k: the session restored, view and beat overlay as they were. */
static int restore_snapshot(const Lesson *l, LessonReplay *r, size_t k, Session *s, VizView *view,
                            LessonBeatView *bv, RunState *rs, ErrorMsg *err) {
    const BeatSnap *sn = &r->snap[k];
    ErrorMsg e;
    /* the parts switched off first, so the tokens restored run under them */
    const char *abl = sn->rs.ablate_dir == SIZE_MAX ? NULL : l->dir[sn->rs.ablate_dir].text;
    if (lesson_ablate(s, view, abl, &e)) return error_set(err, "%s: beat %zu: %s", l->path, k + 1, e.text);
    if (sn->has_state) {
        SessionBranch br[SESSION_MAX_BRANCHES];
        for (int i = 0; i < sn->n_branches; i++) br[i] = r->blob[sn->branch_blob[i]];
        SessionState st = {.prompt = sn->prompt, .prompt_len = sn->prompt_len, .branch = br,
                           .n_branches = sn->n_branches, .cur = sn->cur, .n_pos = sn->n_pos,
                           .n_prompt = sn->n_prompt, .pending_salt = sn->pending_salt,
                           .settings = sn->settings, .seed = sn->seed};
        if (session_restore(s, &st, &e)) return error_set(err, "%s: beat %zu: %s", l->path, k + 1, e.text);
        /* the rolls as they were (0 clears a tally a later beat left on the same record) */
        Action roll = {.kind = ACT_DRAWS, .n = sn->draws};
        if (s->has_next && action_apply(s, NULL, &roll, &e))
            return error_set(err, "%s: beat %zu: %s", l->path, k + 1, e.text);
        /* the settings side by side of that beat (computed again only when not current) */
        const char *cmp = sn->rs.compare_dir == SIZE_MAX ? NULL : l->dir[sn->rs.compare_dir].text;
        if (lesson_compare(s, view, cmp, &e)) return error_set(err, "%s: beat %zu: %s", l->path, k + 1, e.text);
    } else {
        session_set_settings(s, &sn->settings, &e);
        session_set_seed(s, sn->seed);
    }
    *view = sn->view;
    memset(bv, 0, sizeof *bv);
    memcpy(bv->captions, sn->captions, sizeof bv->captions);
    bv->n_captions = sn->n_captions;
    bv->question = sn->question;
    *rs = sn->rs;
    r->stats.restores++;
    return 0;
}

/* 1 when s still holds what the last snapshot holds, as the previous check step left it
 * (nothing ran on it since): the next beat goes on from the session as it is. A session
 * changed meanwhile is restored as usual, so this only saves work, never decides a result. */
static int session_still_at(const BeatSnap *sn, const Session *s) {
    if (sn->has_state != (s->n_branches > 0) || sn->seed != s->seed ||
        memcmp(&sn->settings, &s->settings, sizeof sn->settings) != 0)
        return 0;
    return !sn->has_state || (sn->n_branches == s->n_branches && sn->cur == s->cur && sn->n_pos == session_len(s) &&
                              sn->n_prompt == s->n_prompt && sn->pending_salt == s->pending_salt);
}

/* Runs beats n_snap .. k from the last snapshot (or a clean start), one snapshot per beat.
 * go_on: the session is where the previous check step left it (LessonReplay.live): that
 * snapshot's view and run state are taken back without restoring the session. */
static int run_beats(const Lesson *l, LessonReplay *r, size_t k, Session *s, VizView *view, LessonBeatView *bv,
                     int go_on, ErrorMsg *err) {
    RunState rs = {.last_question = NULL, .have_prompt = 0, .prompt_dir = SIZE_MAX, .ablate_dir = SIZE_MAX,
                   .compare_dir = SIZE_MAX};
    int rc = 0;
    session_batch_begin(s);
    if (r->n_snap && go_on && session_still_at(&r->snap[r->n_snap - 1], s)) {
        *view = r->snap[r->n_snap - 1].view;
        rs = r->snap[r->n_snap - 1].rs;
    } else if (r->n_snap) {
        rc = restore_snapshot(l, r, r->n_snap - 1, s, view, bv, &rs, err);
    } else {
        /* a clean start: default settings, seed 0, default view */
        SamplerSettings def = sampler_settings_default();
        ErrorMsg e;
        session_set_settings(s, &def, &e);
        session_set_seed(s, 0);
        lesson_ablate(s, view, NULL, &e); /* the whole model until an `ablate` line */
        *view = frame_default_view();
    }
    for (size_t j = r->n_snap; rc == 0 && j <= k; j++) {
        /* per-beat overlay and view state start fresh */
        memset(bv, 0, sizeof *bv);
        view->highlight_panel = -1;
        view->highlight_token = -1;
        view->highlight_bar = 0;
        view->hide_probs = 0;
        for (size_t i = j ? l->beat_end[j - 1] : 0; rc == 0 && i < l->beat_end[j]; i++) {
            rc = apply(l, i, s, view, bv, &rs, err);
            r->stats.directives_applied++;
        }
        if (rc == 0) rc = take_snapshot(l, r, s, view, bv, &rs, err);
    }
    session_batch_end(s);
    return rc;
}

/* lesson_goto_beat; go_on: lesson_check_step's (run_beats). */
static int goto_beat(Lesson *l, int k, Session *s, VizView *view, LessonBeatView *bv, int go_on, ErrorMsg *err) {
    if (k < 0 || (size_t)k >= l->n_beats) return error_set(err, "%s: there is no beat %d (it has %zu)", l->path, k + 1, l->n_beats);
    if (l->replay && l->replay->owner != s) lesson_replay_free(l);
    if (!l->replay) {
        l->replay = calloc(1, sizeof *l->replay);
        if (!l->replay) return error_set(err, "%s: out of memory", l->path);
        l->replay->owner = s;
    }
    LessonReplay *r = l->replay;
    r->live = 0;
    char note[sizeof bv->note];
    snprintf(note, sizeof note, "%s", bv->note);
    int keep_top_n = view->top_n;
    RunState rs;
    int rc = (size_t)k < r->n_snap ? restore_snapshot(l, r, (size_t)k, s, view, bv, &rs, err)
                                   : run_beats(l, r, (size_t)k, s, view, bv, go_on, err);
    if (keep_top_n > 0) view->top_n = keep_top_n;
    snprintf(bv->note, sizeof bv->note, "%s", note);
    bv->beat = k;
    bv->n_beats = (int)l->n_beats;
    snprintf(bv->beat_label, sizeof bv->beat_label, "%d / %zu", k + 1, l->n_beats);
    return rc;
}

int lesson_goto_beat(Lesson *l, int k, Session *s, VizView *view, LessonBeatView *bv, ErrorMsg *err) {
    return goto_beat(l, k, s, view, bv, 0, err);
}

void lesson_check_begin(Lesson *l) {
    /* from scratch every time: the lesson runs, and its claims are checked, once per beat */
    lesson_replay_free(l);
}

size_t lesson_check_done(const Lesson *l) { return l->replay ? l->replay->n_snap : 0; }

int lesson_check_step(Lesson *l, Session *s, VizView *view, LessonBeatView *bv, ErrorMsg *err) {
    const LessonReplay *r = l->replay && l->replay->owner == s ? l->replay : NULL;
    size_t k = r ? r->n_snap : 0;
    if (k >= l->n_beats) return 0;
    if (goto_beat(l, (int)k, s, view, bv, r && r->live, err)) {
        lesson_replay_free(l);
        return -1;
    }
    l->replay->live = 1;
    return l->replay->n_snap < l->n_beats ? 1 : 0;
}

int lesson_check(Lesson *l, Session *s, VizView *view, LessonBeatView *bv, ErrorMsg *err) {
    lesson_check_begin(l);
    /* one batch around every beat: the records (next, prev) are computed once, at the end */
    session_batch_begin(s);
    int rc;
    while ((rc = lesson_check_step(l, s, view, bv, err)) > 0) continue;
    session_batch_end(s);
    if (rc) return -1;
    return lesson_goto_beat(l, 0, s, view, bv, err);
}
