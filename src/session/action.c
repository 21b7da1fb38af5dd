/* action.c — action_apply, the one mutator of a session and its view (see action.h). */
#include "action.h"

#include <stdio.h>

static const char *const NAMES[ACT_COUNT] = {
    [ACT_NONE] = "none",          [ACT_STEP] = "step",         [ACT_FORCE] = "force",
    [ACT_PROMPT] = "prompt",      [ACT_PROMPT_IDS] = "prompt ids", [ACT_SWITCH] = "branch",
    [ACT_ABLATE] = "ablate",      [ACT_SETTINGS] = "settings", [ACT_SEED] = "seed",
    [ACT_SALT] = "salt",          [ACT_REROLL] = "reroll",     [ACT_BACK] = "back",
    [ACT_HOME] = "home",          [ACT_LAYER] = "layer",       [ACT_HEAD] = "head",
    [ACT_PANEL] = "panel",        [ACT_HIGHLIGHT_TOKEN] = "highlight token",
    [ACT_SELECT_TOKEN] = "select token", [ACT_QUERY] = "query", [ACT_HEADS] = "heads",
    [ACT_ATTR_VS] = "attribute vs",
    [ACT_DRAWS] = "draws", [ACT_COMPARE] = "compare",
};

const char *action_name(ActionKind k) {
    return ((int)k >= 0 && k < ACT_COUNT && NAMES[k]) ? NAMES[k] : "?";
}

int action_is_model_work(ActionKind k) {
    return k == ACT_STEP || k == ACT_FORCE || k == ACT_PROMPT || k == ACT_PROMPT_IDS || k == ACT_SWITCH ||
           k == ACT_ABLATE || k == ACT_COMPARE;
}

/* "layer 7 does not exist: the model has 4 layers (0-3)" */
static int check_index(long v, int n, const char *what, const char *unit, ErrorMsg *err) {
    if (v >= 0 && v < n) return 0;
    return error_set(err, "%s %ld does not exist: the model has %d %s (0-%d)", what, v, n, unit, n - 1);
}

/* A token position shown on screen, or -1 (none). */
static int check_position(const Session *s, long v, const char *what, ErrorMsg *err) {
    if (v >= -1 && v < session_len(s)) return 0;
    return error_set(err, "%s %ld: there are only %d tokens", what, v, session_len(s));
}

/* view field = v (already checked); 0, so a case reads "check ? -1 : set". */
static int set_int(int *field, long v) {
    *field = (int)v;
    return 0;
}

static int apply_view(const Session *s, VizView *view, const Action *a, ErrorMsg *err) {
    const Gpt2Config *cfg = &s->model.config;
    if (!view) return error_set(err, "%s: no view to change", action_name(a->kind));
    switch (a->kind) {
    case ACT_LAYER: return check_index(a->n, cfg->n_layer, "layer", "layers", err) ? -1 : set_int(&view->layer, a->n);
    case ACT_HEAD:
        return check_index(a->n, cfg->n_head, "head", "heads per layer", err) ? -1 : set_int(&view->head, a->n);
    case ACT_PANEL:
        if (a->n < 0 || a->n >= VIZ_PANEL_COUNT) return error_set(err, "there is no panel %ld", a->n);
        view->focus = (VizPanel)a->n;
        return 0;
    case ACT_HIGHLIGHT_TOKEN:
        return check_position(s, a->n, "highlight token", err) ? -1 : set_int(&view->highlight_token, a->n);
    case ACT_SELECT_TOKEN:
        if (check_position(s, a->n, "token", err)) return -1;
        view->selected_token = (int)a->n;
        view->bpe_step = -1;
        return 0;
    case ACT_QUERY: return check_position(s, a->n, "query", err) ? -1 : set_int(&view->query, a->n);
    case ACT_HEADS:
        for (int h = cfg->n_head; h < 64; h++)
            if ((a->heads >> h) & 1u)
                return error_set(err, "heads: head %d does not exist (%d heads per layer, 0..%d)", h, cfg->n_head,
                                 cfg->n_head - 1);
        view->lines_heads = a->heads;
        return 0;
    case ACT_ATTR_VS:
        if (a->id < -1 || a->id >= session_vocab(s))
            return error_set(err, "attribute vs #%d: the vocabulary has tokens 0-%d", a->id, session_vocab(s) - 1);
        viz_view_set_attr_vs(view, a->id);
        return 0;
    default:
        return error_set(err, "%s is not a view action", action_name(a->kind));
    }
}

int action_apply(Session *s, VizView *view, const Action *a, ErrorMsg *err) {
    switch (a->kind) {
    case ACT_NONE: return 0;
    case ACT_STEP:
        if (a->n < 1) return error_set(err, "step %ld: the count must be at least 1", a->n);
        for (long i = 0; i < a->n; i++)
            if (session_step(s, err)) return -1;
        return 0;
    case ACT_FORCE: return session_force(s, a->id, err);
    case ACT_PROMPT:
        if (session_set_prompt(s, a->text, a->text_len, err)) return -1;
        if (view) view->selected_token = -1;
        return 0;
    case ACT_PROMPT_IDS:
        if (session_set_prompt_ids(s, a->ids, a->n_ids, err)) return -1;
        if (view) view->selected_token = -1;
        return 0;
    case ACT_SWITCH:
        if (a->n < 0 || a->n > SESSION_MAX_BRANCHES) return error_set(err, "there is no branch %ld", a->n + 1);
        return session_switch_branch(s, (int)a->n, err);
    case ACT_ABLATE: return session_set_ablation(s, a->ablation, err);
    case ACT_COMPARE:
        if (session_compare_set(s, a->specs, a->n_specs, 0, err)) return -1;
        return session_compare_update(s, err);
    case ACT_SETTINGS:
        if (!a->settings) return error_set(err, "settings: none given");
        return session_set_settings(s, a->settings, err);
    case ACT_SEED: session_set_seed(s, a->seed); return 0;
    case ACT_SALT: session_set_pending_salt(s, a->salt); return 0;
    case ACT_REROLL: session_reroll(s); return 0;
    case ACT_DRAWS:
        if (a->n < 0 || a->n > SAMPLER_MAX_DRAWS)
            return error_set(err, "draws %ld: the count must be 0 (none) to %d", a->n, SAMPLER_MAX_DRAWS);
        if (a->n == 0) {
            s->has_draws = 0;
            return 0;
        }
        return session_draw_many(s, (int)a->n, err);
    case ACT_BACK:
        if (a->n < 0) return error_set(err, "back %ld: the count must be at least 0", a->n);
        session_back(s, a->n > session_len(s) ? session_len(s) : (int)a->n);
        return 0;
    case ACT_HOME: session_home(s); return 0;
    case ACT_LAYER: case ACT_HEAD: case ACT_PANEL: case ACT_HIGHLIGHT_TOKEN: case ACT_SELECT_TOKEN:
    case ACT_QUERY: case ACT_HEADS: case ACT_ATTR_VS:
        return apply_view(s, view, a, err);
    default:
        return error_set(err, "unknown action %d", (int)a->kind);
    }
}
