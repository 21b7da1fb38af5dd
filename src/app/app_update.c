/* app_update.c — the one place intents change the app: key presses go through the key
 * table (keys.c), clicks through the hit regions the last frame recorded, typed text
 * into the prompt editor. What changes the session or the view is an Action (action.h)
 * given to app_act, which runs model work as a job; anything that goes wrong becomes a
 * status-line message, never a crash. No drawing here. */
#include <math.h>
#include <string.h>

#include "app_class.h"
#include "app.h"
#include "app_editor.h"
#include "app_jobs.h"
#include "panel_table.h"
#include "platform.h"
#include "token_label.h"

int app_input_from_event(const SDL_Event *e, float px_scale_x, float px_scale_y, AppInput *in) {
    memset(in, 0, sizeof *in);
    switch (e->type) {
    case SDL_QUIT:
        in->kind = APP_INPUT_QUIT;
        return 1;
    case SDL_KEYDOWN:
        in->kind = APP_INPUT_KEY;
        in->key = e->key.keysym.sym;
        in->mod = e->key.keysym.mod;
        in->repeat = e->key.repeat != 0;
        return 1;
    case SDL_TEXTINPUT:
        in->kind = APP_INPUT_TEXT;
        memcpy(in->text, e->text.text, sizeof in->text - 1);
        in->text[sizeof in->text - 1] = 0;
        return 1;
    case SDL_MOUSEMOTION:
        in->kind = APP_INPUT_MOUSE_MOVE;
        in->x = (int)((float)e->motion.x * px_scale_x);
        in->y = (int)((float)e->motion.y * px_scale_y);
        return 1;
    case SDL_MOUSEBUTTONDOWN:
        in->kind = APP_INPUT_MOUSE_DOWN;
        in->x = (int)((float)e->button.x * px_scale_x);
        in->y = (int)((float)e->button.y * px_scale_y);
        in->button = e->button.button;
        in->mod = (Uint16)SDL_GetModState(); /* Shift+click switches a head off */
        return 1;
    case SDL_WINDOWEVENT:
        if (e->window.event == SDL_WINDOWEVENT_LEAVE) {
            in->kind = APP_INPUT_MOUSE_LEAVE;
            return 1;
        }
        return 0;
    default:
        return 0;
    }
}

/* The label of a token for messages ("␣upon"), in buf. */
static const char *tok_label(const AppState *app, int id, char *buf, size_t cap) {
    token_label(&app->session.tok, id, TOKEN_LABEL_DEFAULT, buf, cap);
    return buf;
}

/* ---- settings and view knobs ---- */

static void apply_settings(AppState *app, const SamplerSettings *set, const char *what) {
    Session *s = &app->session;
    Action a = {.kind = ACT_SETTINGS, .settings = set};
    if (app_act(app, &a, 0)) return;
    char lb[TOKEN_LABEL_CAP];
    if (s->has_next)
        app_set_status(app, 0, "%s; same dice, the pick is now \"%s\"%s", what,
                       tok_label(app, s->next.chosen.id, lb, sizeof lb),
                       set->greedy && !strstr(what, "greedy") ? " (greedy is on: G turns it off)" : "");
    else
        app_set_status(app, 0, "%s", what);
}

static void knob_step(AppState *app, int dir) {
    Session *s = &app->session;
    SamplerSettings set = s->settings;
    const Gpt2Config *cfg = &s->model.config;
    char what[96];
    const SettingRow *row = keys_knob_setting(app->knob);
    if (row) {
        /* the sampler knobs step on the settings table's grid (or ladder) */
        ErrorMsg e;
        if (settings_set(row, row->word, settings_knob_next(row, settings_get(row, &set), dir), &set, &e)) {
            app_set_status(app, 1, "%s", e.text);
            return;
        }
        settings_describe(row, &set, what, sizeof what);
        apply_settings(app, &set, what);
        return;
    }
    switch (app->knob) {
    case KNOB_LAYER: case KNOB_HEAD: {
        /* the arrows stop at the ends */
        int layer = app->knob == KNOB_LAYER, n = layer ? cfg->n_layer : cfg->n_head;
        int v = (layer ? app->view.layer : app->view.head) + dir;
        v = v < 0 ? 0 : v >= n ? n - 1 : v;
        Action a = {.kind = layer ? ACT_LAYER : ACT_HEAD, .n = v};
        if (app_act(app, &a, 0) == 0) app_set_status(app, 0, "%s %d of %d", layer ? "layer" : "head", v, n);
        return;
    }
    default:
        app_set_status(app, 0, "choose what the arrows change first: T, K, P, L or H");
        return;
    }
}

/* ---- tokens and branches ---- */

static void force_token(AppState *app, int id, int rank) {
    Action a = {.kind = ACT_FORCE, .id = id};
    app_act(app, &a, rank);
}

/* The attribution's contrast: logit(pick) - logit(id), the attribution panel enlarged;
 * id -1: the pick's logit alone again. */
static void attr_vs(AppState *app, int id) {
    const Session *s = &app->session;
    char a[TOKEN_LABEL_CAP], b[TOKEN_LABEL_CAP];
    if (id >= 0 && (!s->has_next || id == s->next.chosen.id)) {
        app_set_status(app, 1, s->has_next ? "\"%s\" is the pick itself: compare it with another token"
                                           : "no pending pick to explain (the context is full)",
                       s->has_next ? tok_label(app, id, a, sizeof a) : "");
        return;
    }
    Action act = {.kind = ACT_ATTR_VS, .id = id};
    if (app_act(app, &act, 0)) return;
    if (id < 0) {
        app_set_status(app, 0, "attribution: the logit of the pick alone");
        return;
    }
    Action panel = {.kind = ACT_PANEL, .n = VIZ_PANEL_ATTRIBUTION};
    app_act(app, &panel, 0);
    app_set_status(app, 0, "attribution: why \"%s\" and not \"%s\" (V: back)",
                   tok_label(app, s->next.chosen.id, a, sizeof a), tok_label(app, id, b, sizeof b));
}

/* V: the runner-up (the likeliest token that is not the pick), or back to none. */
static void attr_vs_toggle(AppState *app) {
    const Session *s = &app->session;
    if (viz_view_attr_vs(&app->view) >= 0) {
        attr_vs(app, -1);
        return;
    }
    int id = -1;
    for (int i = 0; s->has_next && i < s->next.n && id < 0; i++)
        if (s->next.rows[i].id != s->next.chosen.id) id = s->next.rows[i].id;
    if (id < 0) {
        app_set_status(app, 1, "no other token to compare the pick with");
        return;
    }
    attr_vs(app, id);
}

static void force_rank(AppState *app, int rank) {
    const Session *s = &app->session;
    if (!s->has_next) {
        app_set_status(app, 1, "no next-token distribution (the context is full)");
        return;
    }
    if (rank < 1 || rank > s->next.n) {
        app_set_status(app, 1, "there is no bar %d", rank);
        return;
    }
    force_token(app, s->next.rows[rank - 1].id, rank);
}

static void switch_branch(AppState *app, int k) {
    Action a = {.kind = ACT_SWITCH, .n = k};
    app_act(app, &a, 0);
}

/* Head (layer, head) off, or on again when it is off (layer < 0: every part back on):
 * the model runs again, so it is a job. */
static void toggle_head_ablation(AppState *app, int layer, int head) {
    const Gpt2Config *cfg = &app->session.model.config;
    if (layer >= cfg->n_layer || head >= cfg->n_head) return;
    if (layer < 0 && app->session.trace.ablation.n_off == 0) {
        app_set_status(app, 0, "nothing is switched off (X switches the head shown off)");
        return;
    }
    AppJob j = {.kind = JOB_ABLATE, .layer = layer, .head = head};
    app_submit(app, &j);
}

static void step(AppState *app) {
    Action a = {.kind = ACT_STEP, .n = 1};
    app_act(app, &a, 0);
}

/* A view action on the selected head / token, then its status line. */
static void select_head(AppState *app, int layer, int head) {
    Action al = {.kind = ACT_LAYER, .n = layer}, ah = {.kind = ACT_HEAD, .n = head};
    if (app_act(app, &al, 0) == 0 && (head < 0 || app_act(app, &ah, 0) == 0)) {
        if (head >= 0) app_set_status(app, 0, "layer %d, head %d", layer, head);
        else app_set_status(app, 0, "layer %d (an MLP has no attention pattern: the heads of its block are shown)", layer);
    }
}

/* The VizPanel under the mouse, or -1. */
static int panel_under_mouse(const AppState *app) {
    const VizHit *h = viz_hits_at(&app->hits, app->view.mouse_x, app->view.mouse_y, VIZ_HIT_PANEL);
    return h ? h->a : -1;
}

/* ---- one small handler per intent; apply_intent looks it up in the table below ---- */

typedef void (*IntentHandler)(AppState *app, int arg);

static void on_step(AppState *app, int arg) { (void)arg; step(app); }

static void on_back(AppState *app, int arg) {
    (void)arg;
    Session *s = &app->session;
    int before = session_len(s);
    Action a = {.kind = ACT_BACK, .n = 1};
    app_act(app, &a, 0);
    if (session_len(s) == before) app_set_status(app, 0, "already at the prompt (Enter edits it)");
    else app->status[0] = 0;
}

static void on_home(AppState *app, int arg) {
    (void)arg;
    Action a = {.kind = ACT_HOME};
    app_act(app, &a, 0);
    app_set_status(app, 0, "back at the prompt");
}

/* 1 when there is a pending draw to act on; else says so ("nothing to WHAT") and 0. */
static int pending_draw(AppState *app, const char *what) {
    if (app->session.has_next) return 1;
    app_set_status(app, 1, "nothing to %s (the context is full)", what);
    return 0;
}

static void on_reroll(AppState *app, int arg) {
    (void)arg;
    Session *s = &app->session;
    if (!pending_draw(app, "re-roll")) return;
    Action a = {.kind = ACT_REROLL};
    app_act(app, &a, 0);
    char lb[TOKEN_LABEL_CAP];
    if (s->next.greedy)
        app_set_status(app, 0, "new dice, but greedy ignores them: still \"%s\"",
                       tok_label(app, s->next.chosen.id, lb, sizeof lb));
    else
        app_set_status(app, 0, "new dice: u = %.3f picks \"%s\"", s->next.u,
                       tok_label(app, s->next.chosen.id, lb, sizeof lb));
}

static void on_draws(AppState *app, int arg) {
    (void)arg;
    Session *s = &app->session;
    if (!pending_draw(app, "roll")) return;
    /* 100 -> 1,000 -> 10,000 -> off: the tally converges on p_final as N grows */
    long n = !s->has_draws ? 100 : s->draws.n < SAMPLER_MAX_DRAWS ? (long)s->draws.n * 10 : 0;
    if (n > SAMPLER_MAX_DRAWS) n = SAMPLER_MAX_DRAWS;
    Action a = {.kind = ACT_DRAWS, .n = n};
    if (app_act(app, &a, 0)) return;
    if (n == 0) app_set_status(app, 0, "rolls cleared");
    else if (s->has_draws)
        app_set_status(app, 0, "%ld rolls of the pending dice: chi2 = %.2f, dof %d, p = %.2g", n, s->draws.chi2,
                       s->draws.dof, s->draws.p_value);
}

/* O: the two orders students meet — Hugging Face's (penalties, temperature, top-k,
 * top-p, min-p: the default) and llama.cpp's (temperature last, so the cuts measure the
 * untempered distribution). Any other order (from --samplers) goes back to HF's. */
static void on_sampler_order(AppState *app, int arg) {
    (void)arg;
    static const uint8_t LLAMA_CPP[SAMPLER_N_STAGES] = {SAMPLER_STAGE_PENALTIES, SAMPLER_STAGE_TOP_K,
                                                        SAMPLER_STAGE_TOP_P, SAMPLER_STAGE_MIN_P,
                                                        SAMPLER_STAGE_TEMPERATURE};
    SamplerSettings set = app->session.settings;
    uint8_t now[SAMPLER_N_STAGES];
    sampler_settings_order(&set, now);
    int to_llama = memcmp(now, LLAMA_CPP, sizeof now) != 0 && settings_is_default(settings_row(SETTING_SAMPLERS), &set);
    if (to_llama) memcpy(set.order, LLAMA_CPP, sizeof set.order);
    else memset(set.order, 0, sizeof set.order); /* all zero: the default order */
    char order[96], what[160];
    sampler_order_format(&set, order, sizeof order);
    snprintf(what, sizeof what, "sampler order %s (%s)", order,
             to_llama ? "llama.cpp: temperature last" : "Hugging Face: temperature first");
    apply_settings(app, &set, what);
}

static void on_toggle_greedy(AppState *app, int arg) {
    (void)arg;
    SamplerSettings set = app->session.settings;
    set.greedy = !set.greedy;
    apply_settings(app, &set, set.greedy ? "greedy on" : "greedy off (sampling)");
}

static void on_knob(AppState *app, int arg) {
    app->knob = (AppKnob)arg;
    app_set_status(app, 0, "%s: \xE2\x86\x91/\xE2\x86\x93 to change", keys_knob_name(app->knob));
}

static void on_knob_up(AppState *app, int arg) { (void)arg; knob_step(app, +1); }
static void on_knob_down(AppState *app, int arg) { (void)arg; knob_step(app, -1); }

static void on_toggle_sink(AppState *app, int arg) {
    (void)arg;
    app->view.hide_sink = !app->view.hide_sink;
    app_set_status(app, 0, app->view.hide_sink ? "attention colour scale ignores key 0 (the sink)"
                                               : "attention colour scale over every key");
}

static void on_axis(AppState *app, int arg) {
    (void)arg;
    /* auto → linear 0..100 % (slides compared share a scale) → log (the tail) → auto */
    VizView *v = &app->view;
    v->prob_axis = v->prob_axis == VIZ_AXIS_AUTO ? VIZ_AXIS_LINEAR : v->prob_axis == VIZ_AXIS_LINEAR ? VIZ_AXIS_LOG : VIZ_AXIS_AUTO;
    v->prob_axis_max = 1.0f;
    app_set_status(app, 0, v->prob_axis == VIZ_AXIS_LINEAR ? "probability axis fixed at 0 \xE2\x80\x93 100 %%"
                           : v->prob_axis == VIZ_AXIS_LOG ? "probability axis logarithmic (0.001 %% \xE2\x80\x93 100 %%)"
                                                          : "probability axis fits the longest bar");
}

static void on_text_mode(AppState *app, int arg) {
    (void)arg;
    VizView *v = &app->view;
    v->text_mode = (VizTextMode)(((int)v->text_mode + 1) % VIZ_TEXT_MODE_COUNT);
    app_set_status(app, 0, v->text_mode == VIZ_TEXT_SURPRISAL ? "text coloured by surprisal (bits): point at a token for its numbers"
                           : v->text_mode == VIZ_TEXT_SEEN ? "text marks the tokens that end a run seen in the training text"
                                                           : "plain text");
}

static void on_next_branch(AppState *app, int arg) {
    (void)arg;
    const Session *s = &app->session;
    if (s->n_branches < 2)
        app_set_status(app, 0, "only one branch: take another token (1-9 or click a bar) to make one");
    else
        switch_branch(app, (s->cur + 1) % s->n_branches);
}

static void on_edit_prompt(AppState *app, int arg) { (void)arg; app_edit_open(app); }
static void on_export_frame(AppState *app, int arg) { (void)arg; app->export_request = APP_EXPORT_FRAME; }
static void on_record(AppState *app, int arg) { (void)arg; app->record_request = 1; }

static void on_export_panel(AppState *app, int arg) {
    (void)arg;
    int p = panel_under_mouse(app);
    if (p < 0) {
        app_set_status(app, 1, "Shift+E exports the panel under the mouse: point at one first");
        return;
    }
    app->export_request = APP_EXPORT_PANEL;
    app->export_panel = p;
}

static void on_focus(AppState *app, int arg) {
    (void)arg;
    int p = app->view.focus != VIZ_PANEL_FRAME ? VIZ_PANEL_FRAME : panel_under_mouse(app);
    Action a = {.kind = ACT_PANEL, .n = p};
    if (p < 0 || (p == VIZ_PANEL_FRAME && app->view.focus == VIZ_PANEL_FRAME))
        app_set_status(app, 0, "F enlarges the panel under the mouse: point at one first");
    else app_act(app, &a, 0);
}

static void on_inside(AppState *app, int arg) { (void)arg; app->view.focus = viz_panel_next_inside(app->view.focus); }
static void on_attr_vs(AppState *app, int arg) { (void)arg; attr_vs_toggle(app); }
/* the columns run the model 4 x 40 times: a job, never at draw time */

static void on_compare(AppState *app, int arg) {
    (void)arg;
    if (app->view.focus == VIZ_PANEL_COMPARE) {
        app->view.focus = VIZ_PANEL_FRAME;
        return;
    }
    app->view.focus = VIZ_PANEL_COMPARE;
    if (session_compare_current(&app->session)) app_set_status(app, 0, "settings side by side (C: back)");
    else app_set_status(app, 0, "continuing the prompt under each setting ...");
    app_compare_refresh(app);
}

static void on_ablate_head(AppState *app, int arg) {
    if (arg == 1) { /* Shift+X: every part back on */
        toggle_head_ablation(app, -1, 0);
        return;
    }
    /* the head the attention panel shows: the view clamped to the model, as frame_fill does */
    const Gpt2Config *cfg = &app->session.model.config;
    int l = app->view.layer < 0 ? 0 : app->view.layer >= cfg->n_layer ? cfg->n_layer - 1 : app->view.layer;
    int h = app->view.head < 0 ? 0 : app->view.head >= cfg->n_head ? cfg->n_head - 1 : app->view.head;
    toggle_head_ablation(app, l, h);
}

static void on_blank(AppState *app, int arg) { (void)arg; app->view.blank = !app->view.blank; }
static void on_help(AppState *app, int arg) { (void)arg; app->view.show_help = !app->view.show_help; }
static void on_fullscreen(AppState *app, int arg) { (void)arg; app->fullscreen = !app->fullscreen; }
static void scale_by(AppState *app, float d) {
    float sc = app->ui_scale + d;
    if (sc < VIZ_UI_SCALE_MIN) sc = VIZ_UI_SCALE_MIN;
    if (sc > VIZ_UI_SCALE_MAX) sc = VIZ_UI_SCALE_MAX;
    app->ui_scale = sc;
    app_set_status(app, 0, "UI scale %d %%", (int)lroundf(sc * 100.0f));
}

static void on_scale_up(AppState *app, int arg) { (void)arg; scale_by(app, APP_SCALE_STEP); }
static void on_scale_down(AppState *app, int arg) { (void)arg; scale_by(app, -APP_SCALE_STEP); }
static void on_theme(AppState *app, int arg) { (void)arg; app->theme = app->theme == THEME_LIGHT ? THEME_DARK : THEME_LIGHT; }
static void on_quit(AppState *app, int arg) {
    (void)arg;
    if (platform_can_quit()) app->quit = 1;
    else app_set_status(app, 0, "the page stays open (close the tab to leave)");
}

static void on_beat_next(AppState *app, int arg) {
    (void)arg;
    if (app->beat.beat + 1 < app->beat.n_beats) app_lesson_show(app, app->beat.beat + 1);
    else app_set_status(app, 0, "lesson: that was the last beat (%d of %d)", app->beat.n_beats, app->beat.n_beats);
}

static void on_beat_prev(AppState *app, int arg) { (void)arg; if (app->beat.beat > 0) app_lesson_show(app, app->beat.beat - 1); }
static void on_beat_first(AppState *app, int arg) { (void)arg; app_lesson_show(app, 0); }
/* Indexed by AppIntent: a new intent is one handler and one row. */
static const IntentHandler INTENT_HANDLERS[INTENT_COUNT] = {
    [INTENT_STEP] = on_step,
    [INTENT_BACK] = on_back,
    [INTENT_HOME] = on_home,
    [INTENT_REROLL] = on_reroll,
    [INTENT_DRAWS] = on_draws,
    [INTENT_SAMPLER_ORDER] = on_sampler_order,
    [INTENT_TOGGLE_GREEDY] = on_toggle_greedy,
    [INTENT_KNOB] = on_knob,
    [INTENT_KNOB_UP] = on_knob_up,
    [INTENT_KNOB_DOWN] = on_knob_down,
    [INTENT_TOGGLE_SINK] = on_toggle_sink,
    [INTENT_AXIS] = on_axis,
    [INTENT_TEXT_MODE] = on_text_mode,
    [INTENT_FORCE_RANK] = force_rank,
    [INTENT_NEXT_BRANCH] = on_next_branch,
    [INTENT_EDIT_PROMPT] = on_edit_prompt,
    [INTENT_EXPORT_FRAME] = on_export_frame,
    [INTENT_EXPORT_PANEL] = on_export_panel,
    [INTENT_RECORD] = on_record,
    [INTENT_FOCUS] = on_focus,
    [INTENT_INSIDE] = on_inside,
    [INTENT_ATTR_VS] = on_attr_vs,
    [INTENT_COMPARE] = on_compare,
    [INTENT_ABLATE_HEAD] = on_ablate_head,
    [INTENT_BLANK] = on_blank,
    [INTENT_HELP] = on_help,
    [INTENT_FULLSCREEN] = on_fullscreen,
    [INTENT_SCALE_UP] = on_scale_up,
    [INTENT_SCALE_DOWN] = on_scale_down,
    [INTENT_THEME] = on_theme,
    [INTENT_QUIT] = on_quit,
    [INTENT_BEAT_NEXT] = on_beat_next,
    [INTENT_BEAT_PREV] = on_beat_prev,
    [INTENT_BEAT_FIRST] = on_beat_first,
    [INTENT_CLASS] = app_class_command,
};

static void apply_intent(AppState *app, AppIntent intent, int arg) {
    app->dirty = 1;
    if ((int)intent > INTENT_NONE && intent < INTENT_COUNT && INTENT_HANDLERS[intent])
        INTENT_HANDLERS[intent](app, arg);
}

/* A click: the panel under the mouse says what its hit region means (its row of the
 * panel table), and this is the one place that does it. */
static void click(AppState *app, int x, int y, int button, Uint16 mod) {
    if (button != SDL_BUTTON_LEFT) return;
    const VizHit *panel = viz_hits_at(&app->hits, x, y, VIZ_HIT_PANEL);
    const VizHit *h = viz_hits_at(&app->hits, x, y, VIZ_HIT_NONE);
    if (!panel || !h) return;
    VizClick c = viz_panel_click((VizPanel)panel->a, h, (mod & KMOD_SHIFT) ? VIZ_CLICK_SHIFT : 0);
    app->dirty = 1;
    switch (c.kind) {
    case VIZ_CLICK_FORCE_TOKEN:
        force_token(app, c.a, c.b);
        break;
    case VIZ_CLICK_ATTR_VS:
        attr_vs(app, c.a);
        break;
    case VIZ_CLICK_SELECT_HEAD:
        select_head(app, c.a, c.b);
        break;
    case VIZ_CLICK_SELECT_LAYER:
        select_head(app, c.a, -1);
        break;
    case VIZ_CLICK_TOGGLE_ABLATION:
        toggle_head_ablation(app, c.a, c.b);
        break;
    case VIZ_CLICK_SELECT_TOKEN: { /* again: none */
        Action a = {.kind = ACT_SELECT_TOKEN, .n = app->view.selected_token == c.a ? -1 : c.a};
        app_act(app, &a, 0);
        break;
    }
    case VIZ_CLICK_HIGHLIGHT_TOKEN: {
        Action a = {.kind = ACT_HIGHLIGHT_TOKEN, .n = app->view.highlight_token == c.a ? -1 : c.a};
        app_act(app, &a, 0);
        if (c.b >= 0) { /* a heatmap row: the query attention-math explains */
            Action q = {.kind = ACT_QUERY, .n = c.b};
            app_act(app, &q, 0);
        }
        break;
    }
    case VIZ_CLICK_TOGGLE_LINES_HEAD: { /* the lines view's legend: that head in or out (never none) */
        int NH = app->session.model.config.n_head;
        unsigned long long cur = app->view.lines_heads ? app->view.lines_heads
                                 : (app->view.head >= 0 && app->view.head < 64 ? 1ULL << app->view.head : 1ULL);
        unsigned long long m = c.b >= 0 && c.b < 64 && c.b < NH ? cur ^ (1ULL << c.b) : cur;
        if (m) {
            Action a = {.kind = ACT_HEADS, .heads = m};
            app_act(app, &a, 0);
        }
        break;
    }
    case VIZ_CLICK_ISOLATE_QUERY: { /* the lines view: that query's lines alone; again: all */
        Action q = {.kind = ACT_QUERY, .n = app->view.query == c.a ? -1 : c.a};
        app_act(app, &q, 0);
        break;
    }
    default:
        break;
    }
}

void app_update(AppState *app, const AppInput *in) {
    switch (in->kind) {
    case APP_INPUT_QUIT:
        app->quit = 1;
        return;
    case APP_INPUT_TEXT:
        if (app->editing) app_edit_text(app, in->text);
        return;
    case APP_INPUT_MOUSE_MOVE:
        app->view.mouse_x = in->x;
        app->view.mouse_y = in->y;
        app->dirty = 1; /* hover readouts follow the mouse */
        return;
    case APP_INPUT_MOUSE_LEAVE:
        app->view.mouse_x = app->view.mouse_y = -1;
        app->dirty = 1;
        return;
    case APP_INPUT_MOUSE_DOWN:
        app->view.mouse_x = in->x;
        app->view.mouse_y = in->y;
        if (!app->editing) click(app, in->x, in->y, in->button, in->mod);
        return;
    case APP_INPUT_KEY: {
        if (app->editing) {
            app_edit_key(app, in->key, in->mod);
            return;
        }
        /* Esc closes what is on top before it quits; Q always quits */
        if (in->key == SDLK_ESCAPE && (in->mod & (KMOD_SHIFT | KMOD_CTRL)) == 0) {
            if (app->view.show_help || app->view.blank || app->view.focus != VIZ_PANEL_FRAME) {
                app->view.show_help = 0;
                app->view.blank = 0;
                app->view.focus = VIZ_PANEL_FRAME;
                app->dirty = 1;
                return;
            }
        }
        const KeyCommand *b = keys_lookup_mode(in->key, in->mod, app->in_lesson || app->lesson_checking);
        if (b && app_lesson_refuses(app, b->intent)) return;
        if (b) apply_intent(app, b->intent, b->arg);
        return;
    }
    default:
        return;
    }
}
