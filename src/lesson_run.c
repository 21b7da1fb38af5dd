/* lesson_run.c — replaying lesson directives on a Session (see lesson_run.h). */
#include "lesson_run.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "frame_fill.h"

void lesson_model_dir(const Lesson *l, const char *bundled_dir, char *dir, size_t dir_cap,
                      char *note, size_t note_cap) {
    snprintf(dir, dir_cap, "%s", bundled_dir);
    if (note_cap) note[0] = 0;
    for (size_t i = 0; i < l->n_dir; i++) {
        const LessonDirective *d = &l->dir[i];
        if (d->op != LOP_MODEL) continue;
        if (strcmp(d->text, "bundled") == 0) {
            snprintf(dir, dir_cap, "%s", bundled_dir);
            continue;
        }
        char probe[1200];
        snprintf(probe, sizeof probe, "%s/model.safetensors", d->text);
        struct stat st;
        if (d->flag && stat(probe, &st) != 0) {
            snprintf(dir, dir_cap, "%s", bundled_dir);
            snprintf(note, note_cap, "%s is not downloaded (run `make gpt2`): showing the bundled model instead",
                     d->text);
        } else {
            snprintf(dir, dir_cap, "%s", d->text);
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
static int force_id(const Lesson *l, const LessonDirective *d, Session *s, int *id, ErrorMsg *err) {
    if (d->flag) {
        if (d->n >= session_vocab(s)) {
            char m[128];
            snprintf(m, sizeof m, "force #%ld: the vocabulary has only %d tokens", d->n, session_vocab(s));
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
        snprintf(m, sizeof m, "force \"%.60s\" is %zu tokens, not one (write the token with its leading space, "
                 "or use force #ID)", d->text, enc.n_ids);
        rc = fail_at(l, d, err, m);
    } else {
        *id = enc.ids[0];
    }
    tok_encoding_free(&enc);
    return rc;
}

static int check_index(const Lesson *l, const LessonDirective *d, long v, int n, const char *what,
                       const char *unit, ErrorMsg *err) {
    if (v < n) return 0;
    char m[200];
    snprintf(m, sizeof m, "%s %ld does not exist: the model has %d %s (0-%d)", what, v, n, unit, n - 1);
    return fail_at(l, d, err, m);
}

/* Applies directive d. in_beat: d belongs to the beat being shown (captions etc.). */
static int apply(const Lesson *l, const LessonDirective *d, int in_beat, Session *s, VizView *view,
                 LessonBeatView *bv, const char **last_question, int *have_prompt, ErrorMsg *err) {
    ErrorMsg e;
    SamplerSettings set = s->settings;
    const Gpt2Config *cfg = &s->model.config;
    if (!*have_prompt && (d->op == LOP_STEP || d->op == LOP_BACK || d->op == LOP_HOME || d->op == LOP_FORCE ||
                          d->op == LOP_REROLL || d->op == LOP_BPE))
        return fail_at(l, d, err, "this needs a prompt first: put a 'prompt' line before it");
    switch (d->op) {
    case LOP_TITLE: case LOP_MODEL: case LOP_PAUSE: break;
    case LOP_PROMPT:
        if (session_set_prompt(s, (const uint8_t *)d->text, d->text_len, &e)) return fail_at(l, d, err, e.text);
        *have_prompt = 1;
        view->selected_token = -1;
        break;
    case LOP_SEED: session_set_seed(s, (uint64_t)d->n); break;
    case LOP_TEMPERATURE: set.temperature = (float)d->x; goto settings;
    case LOP_TOP_K: set.top_k = (int)d->n; goto settings;
    case LOP_TOP_P: set.top_p = (float)d->x; goto settings;
    case LOP_GREEDY: set.greedy = d->flag; goto settings;
    settings:
        if (session_set_settings(s, &set, &e)) return fail_at(l, d, err, e.text);
        break;
    case LOP_STEP:
        for (long i = 0; i < d->n; i++)
            if (session_step(s, &e)) return fail_at(l, d, err, e.text);
        break;
    case LOP_BACK: session_back(s, (int)d->n); break;
    case LOP_HOME: session_home(s); break;
    case LOP_REROLL: session_reroll(s); break;
    case LOP_FORCE: {
        int id = 0;
        if (force_id(l, d, s, &id, err)) return -1;
        if (session_force(s, id, &e)) return fail_at(l, d, err, e.text);
        break;
    }
    case LOP_LAYER:
        if (check_index(l, d, d->n, cfg->n_layer, "layer", "layers", err)) return -1;
        view->layer = (int)d->n;
        break;
    case LOP_HEAD:
        if (check_index(l, d, d->n, cfg->n_head, "head", "heads per layer", err)) return -1;
        view->head = (int)d->n;
        break;
    case LOP_PANEL: view->focus = (VizPanel)d->kind; break;
    case LOP_CAPTION:
        if (in_beat && bv->n_captions < LESSON_MAX_CAPTIONS) bv->captions[bv->n_captions++] = d->text;
        break;
    case LOP_HIGHLIGHT:
        view->highlight_panel = -1;
        view->highlight_token = -1;
        view->highlight_bar = 0;
        if (d->kind == LHL_PANEL) view->highlight_panel = d->panel;
        if (d->kind == LHL_TOKEN) {
            if (d->n >= session_len(s)) {
                char m[160];
                snprintf(m, sizeof m, "highlight token %ld: there are only %d tokens", d->n, session_len(s));
                return fail_at(l, d, err, m);
            }
            view->highlight_token = (int)d->n;
        }
        if (d->kind == LHL_BAR) view->highlight_bar = (int)d->n;
        break;
    case LOP_BPE:
        if (d->n >= s->n_prompt || !s->prompt_enc.n_ids) {
            char m[160];
            snprintf(m, sizeof m, "bpe %ld: the prompt has only %d tokens", d->n, s->n_prompt);
            return fail_at(l, d, err, m);
        }
        view->selected_token = (int)d->n;
        view->bpe_step = -1;
        break;
    case LOP_ASK:
        *last_question = d->text;
        if (in_beat) {
            bv->question = d->text;
            view->hide_probs = 1;
        }
        break;
    case LOP_REVEAL:
        if (in_beat) {
            bv->question = *last_question;
            view->hide_probs = 0;
        }
        break;
    }
    return 0;
}

int lesson_goto_beat(const Lesson *l, int k, Session *s, VizView *view, LessonBeatView *bv, ErrorMsg *err) {
    if (k < 0 || (size_t)k >= l->n_beats) return error_set(err, "%s: there is no beat %d (it has %zu)", l->path, k + 1, l->n_beats);
    char note[sizeof bv->note];
    snprintf(note, sizeof note, "%s", bv->note);
    memset(bv, 0, sizeof *bv);
    snprintf(bv->note, sizeof bv->note, "%s", note);
    bv->beat = k;
    bv->n_beats = (int)l->n_beats;
    snprintf(bv->beat_label, sizeof bv->beat_label, "%d / %zu", k + 1, l->n_beats);

    /* a clean start every time: default settings, seed 0, default view */
    SamplerSettings def = sampler_settings_default();
    ErrorMsg e;
    session_set_settings(s, &def, &e);
    session_set_seed(s, 0);
    int keep_top_n = view->top_n;
    *view = frame_default_view();
    if (keep_top_n > 0) view->top_n = keep_top_n;

    size_t start = k ? l->beat_end[k - 1] : 0, end = l->beat_end[k];
    const char *last_question = NULL;
    int have_prompt = 0;
    for (size_t i = 0; i < end; i++) {
        if (i == start) {
            /* per-beat view state starts fresh */
            view->highlight_panel = -1;
            view->highlight_token = -1;
            view->highlight_bar = 0;
            view->hide_probs = 0;
        }
        if (apply(l, &l->dir[i], i >= start, s, view, bv, &last_question, &have_prompt, err)) return -1;
    }
    return 0;
}

int lesson_check(const Lesson *l, Session *s, VizView *view, LessonBeatView *bv, ErrorMsg *err) {
    /* the last beat replays every directive, so one pass checks them all */
    if (lesson_goto_beat(l, (int)l->n_beats - 1, s, view, bv, err)) return -1;
    return lesson_goto_beat(l, 0, s, view, bv, err);
}
