/* test_app_keys.c — the window's input path without a window: synthetic SDL events go
 * through app_input_from_event + app_update (exactly what the event loop does) and
 * must change the session and view as the key table says; the key table and the help
 * overlay agree; clicks on the hits of a frame drawn offscreen force the token of the
 * bar clicked; draw_frame's layout covers the frame at several window sizes. Tiny
 * reference model (random weights), SDL dummy video driver. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app.h"
#include "app_export.h"
#include "app_jobs.h"
#include "app_window.h"
#include "check.h"
#include "offscreen.h"
#include "panels.h"

static char model_dir[512];

/* ---- synthetic events, fed through the same path as the loop ---- */

static void feed(AppState *app, const SDL_Event *e) {
    AppInput in;
    if (app_input_from_event(e, 1.0f, 1.0f, &in)) app_update(app, &in);
}

/* A zeroed event of `type`: the builders below fill in the rest and feed it. */
static SDL_Event event_of(Uint32 type) {
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = type;
    return e;
}

static void key(AppState *app, SDL_Keycode k, Uint16 mod) {
    SDL_Event e = event_of(SDL_KEYDOWN);
    e.key.keysym.sym = k;
    e.key.keysym.mod = mod;
    feed(app, &e);
}

static void keys_n(AppState *app, SDL_Keycode k, int n) {
    for (int i = 0; i < n; i++) key(app, k, KMOD_NONE);
}

static void text(AppState *app, const char *s) {
    SDL_Event e = event_of(SDL_TEXTINPUT);
    snprintf(e.text.text, sizeof e.text.text, "%s", s);
    feed(app, &e);
}

static void mouse_move(AppState *app, int x, int y) {
    SDL_Event e = event_of(SDL_MOUSEMOTION);
    e.motion.x = x;
    e.motion.y = y;
    feed(app, &e);
}

static void click(AppState *app, int x, int y) {
    SDL_Event e = event_of(SDL_MOUSEBUTTONDOWN);
    e.button.button = SDL_BUTTON_LEFT;
    e.button.x = x;
    e.button.y = y;
    feed(app, &e);
}

static int open_app_budget(AppState *app, uint64_t seed, size_t trace_budget) {
    return test_app_open_budget(app, model_dir, seed, trace_budget);
}

static int open_app(AppState *app, uint64_t seed) { return open_app_budget(app, seed, SESSION_TRACE_AUTO); }

/* ---- the key table ---- */

static void test_key_table(void) {
    const KeyCommand *b = keys_lookup(SDLK_SPACE, KMOD_NONE);
    CHECK(b && b->intent == INTENT_STEP, "Space steps");
    b = keys_lookup(SDLK_RIGHT, KMOD_NONE);
    CHECK(b && b->intent == INTENT_STEP, "Right steps");
    b = keys_lookup(SDLK_e, KMOD_NONE);
    CHECK(b && b->intent == INTENT_EXPORT_FRAME, "E exports the frame");
    b = keys_lookup(SDLK_e, KMOD_LSHIFT);
    CHECK(b && b->intent == INTENT_EXPORT_PANEL, "Shift+E exports the panel");
    b = keys_lookup(SDLK_EQUALS, KMOD_LCTRL);
    CHECK(b && b->intent == INTENT_SCALE_UP, "Ctrl+= scales up");
    CHECK(keys_lookup(SDLK_EQUALS, KMOD_NONE) == NULL, "= alone does nothing");
    b = keys_lookup(SDLK_MINUS, KMOD_RCTRL);
    CHECK(b && b->intent == INTENT_SCALE_DOWN, "Ctrl+- scales down");
    b = keys_lookup(SDLK_SLASH, KMOD_LSHIFT);
    CHECK(b && b->intent == INTENT_HELP, "? (Shift+/) is the help");
    b = keys_lookup(SDLK_s, KMOD_NONE | KMOD_NUM | KMOD_CAPS);
    CHECK(b && b->intent == INTENT_TOGGLE_SINK, "Num/Caps Lock do not change the key");
    b = keys_lookup(SDLK_2, KMOD_NONE);
    CHECK(b && b->intent == INTENT_FORCE_RANK && b->arg == 2, "2 forces rank 2");

    /* every command in a table is explained by a help row, and help rows are exactly the
     * rows with help text */
    int with_help[2] = {0, 0};
    for (int pres = 0; pres < 2; pres++) {
        size_t n;
        const KeyCommand *t = keys_table(pres, &n);
        for (size_t i = 0; i < n; i++) {
            if (t[i].help_keys) {
                with_help[pres]++;
                CHECK(t[i].help_action && t[i].help_action[0] && t[i].help_keys[0], "row %zu has both texts", i);
                continue;
            }
            int described = 0;
            for (size_t j = 0; j < i; j++)
                if (t[j].intent == t[i].intent && t[j].help_keys) described = 1;
            /* ↑/↓ are described by the rows of T, K, P, L, H */
            if (t[i].intent == INTENT_KNOB_UP || t[i].intent == INTENT_KNOB_DOWN) described = 1;
            CHECK(described, "command %zu (intent %d) has no help row", i, (int)t[i].intent);
        }
    }
    VizKeyHelp help[APP_HELP_MAX];
    int nh = keys_help(help, APP_HELP_MAX);
    CHECK(nh == with_help[0] && nh > 15, "help rows %d == window rows with help %d", nh, with_help[0]);
    CHECK(keys_help(help, 3) == 3, "keys_help respects cap");
    /* in a lesson the presenter rows come first, then every window row */
    nh = keys_help_mode(help, APP_HELP_MAX, 1);
    CHECK(nh == with_help[0] + with_help[1] && with_help[1] == 3 &&
              strcmp(help[0].action, "next beat of the lesson") == 0 && strcmp(help[2].keys, "Home") == 0,
          "presenter help: %d rows, first '%s'", nh, nh ? help[0].action : "");
    /* presenter rows win in a lesson and are invisible outside one */
    b = keys_lookup_mode(SDLK_SPACE, KMOD_NONE, 1);
    CHECK(b && b->intent == INTENT_BEAT_NEXT, "Space in a lesson: next beat");
    b = keys_lookup_mode(SDLK_HOME, KMOD_NONE, 1);
    CHECK(b && b->intent == INTENT_BEAT_FIRST, "Home in a lesson: first beat");
    b = keys_lookup_mode(SDLK_PAGEDOWN, KMOD_NONE, 0);
    CHECK(b == NULL, "PageDown outside a lesson does nothing");
    b = keys_lookup_mode(SDLK_t, KMOD_NONE, 1);
    CHECK(b && b->intent == INTENT_KNOB, "T in a lesson still selects the knob");
    /* no key+modifier pair is bound twice within a table (the second would be
     * unreachable), and every row has a key */
    int dup = 0, keyless = 0;
    for (int pres = 0; pres < 2; pres++) {
        size_t n;
        const KeyCommand *t = keys_table(pres, &n);
        for (size_t i = 0; i < n; i++) {
            keyless += t[i].chords[0].key == 0;
            for (int a = 0; a < KEY_CHORDS_MAX && t[i].chords[a].key; a++)
                for (size_t j = i; j < n; j++)
                    for (int c = j == i ? a + 1 : 0; c < KEY_CHORDS_MAX && t[j].chords[c].key; c++)
                        if (t[i].chords[a].key == t[j].chords[c].key && t[i].chords[a].mods == t[j].chords[c].mods) {
                            fprintf(stderr, "rows %zu and %zu bind the same key\n", i, j);
                            dup++;
                        }
        }
    }
    CHECK(keyless == 0, "%d rows without a key", keyless);
    CHECK(dup == 0, "%d keys bound twice", dup);

    CHECK(keys_top_k_step(0, +1) == 1 && keys_top_k_step(1, -1) == 0 && keys_top_k_step(0, -1) == 0,
          "top-k ladder ends");
    CHECK(keys_top_k_step(3, +1) == 5 && keys_top_k_step(7, +1) == 10 && keys_top_k_step(7, -1) == 5,
          "top-k ladder between values");
    CHECK(keys_top_k_step(40, +1) == 100 && keys_top_k_step(100, -1) == 40, "top-k 40 <-> 100");
    CHECK(keys_top_k_step(50000, +1) == 50000, "top-k top end stays");
}

/* ---- keys → session ---- */

static void test_steps_back_branch(void) {
    static AppState app;
    Session ref;
    if (open_app(&app, 7)) return;
    ErrorMsg err = {{0}};
    if (session_open(&ref, model_dir, "assets/tokenizer", 0, GPT2_CAP_DEFAULT, &err)) {
        CHECK(0, "session_open: %s", err.text);
        app_free(&app);
        return;
    }
    session_set_seed(&ref, 7);
    session_set_prompt(&ref, (const uint8_t *)"Once upon a time", 16, &err);
    for (int i = 0; i < 20; i++) session_step(&ref, &err);

    Session *s = &app.session;
    CHECK(session_len(s) == 4, "prompt: 4 tokens");
    keys_n(&app, SDLK_SPACE, 10);
    keys_n(&app, SDLK_RIGHT, 10);
    CHECK(session_len(s) == 24, "20 steps: %d tokens", session_len(s));
    CHECK(memcmp(session_ids(s), session_ids(&ref), 24 * sizeof(int)) == 0, "the same tokens as session_step x20");

    int steps = s->n_steps;
    keys_n(&app, SDLK_LEFT, 5);
    CHECK(session_len(s) == 19 && s->n_steps == steps, "Left x5: 19 tokens, no forward pass");

    int rank2 = s->next.rows[1].id, old = session_ids(&ref)[19];
    key(&app, SDLK_2, KMOD_NONE);
    CHECK(session_len(s) == 20 && session_ids(s)[19] == rank2, "2 takes the rank-2 token");
    CHECK(s->n_branches == (rank2 == old ? 1 : 2), "a new branch when it differs (%d)", s->n_branches);
    CHECK(!app.status_is_error && strstr(app.status, "rank 2"), "status says so: %s", app.status);

    key(&app, SDLK_TAB, KMOD_NONE);
    CHECK(s->cur == 0 && session_len(s) == 24, "Tab shows branch 1 again, all 24 tokens");
    key(&app, SDLK_TAB, KMOD_NONE);
    CHECK(s->cur == 1 && session_len(s) == 20, "Tab again: branch 2");

    key(&app, SDLK_HOME, KMOD_NONE);
    CHECK(session_len(s) == 4, "Home: back to the prompt");
    key(&app, SDLK_LEFT, KMOD_NONE);
    CHECK(session_len(s) == 4 && strstr(app.status, "prompt"), "Left at the prompt: a message (%s)", app.status);

    uint32_t salt = s->pending_salt;
    double u = s->next.u;
    key(&app, SDLK_r, KMOD_NONE);
    CHECK(s->pending_salt == salt + 1 && s->next.u != u, "R re-rolls the dice (u %g -> %g)", u, s->next.u);

    key(&app, SDLK_9, KMOD_NONE);
    CHECK(session_len(s) == 5 && session_ids(s)[4] == s->branch[s->cur].ids[4], "9 takes rank 9");

    session_free(&ref);
    app_free(&app);
}

static void test_settings_and_view(void) {
    static AppState app;
    if (open_app(&app, 1)) return;
    Session *s = &app.session;

    key(&app, SDLK_UP, KMOD_NONE);
    CHECK(s->settings.temperature == 1.0f && strstr(app.status, "T, K, P"), "arrows need a knob: %s", app.status);

    key(&app, SDLK_t, KMOD_NONE);
    keys_n(&app, SDLK_UP, 2);
    CHECK_CLOSE(s->settings.temperature, 1.2, 1e-6, 0, "T up x2");
    CHECK_CLOSE(s->next.settings.temperature, 1.2, 1e-6, 0, "the bars use the new temperature at once");
    keys_n(&app, SDLK_DOWN, 20);
    CHECK(s->settings.temperature == 0.0f, "T clamps at 0 (%g)", (double)s->settings.temperature);
    keys_n(&app, SDLK_UP, 60);
    CHECK(s->settings.temperature == 5.0f, "T clamps at 5 (%g)", (double)s->settings.temperature);
    keys_n(&app, SDLK_DOWN, 40);
    CHECK_CLOSE(s->settings.temperature, 1.0, 1e-6, 0, "T back to 1.0 exactly on the 0.1 grid");

    key(&app, SDLK_k, KMOD_NONE);
    keys_n(&app, SDLK_UP, 3);
    CHECK(s->settings.top_k == 3 && s->next.kept_after_k == 3, "K up x3: top-k 3, 3 kept");
    key(&app, SDLK_DOWN, KMOD_NONE);
    CHECK(s->settings.top_k == 2, "K down: 2");

    key(&app, SDLK_p, KMOD_NONE);
    keys_n(&app, SDLK_DOWN, 2);
    CHECK_CLOSE(s->settings.top_p, 0.9, 1e-6, 0, "P down x2: 0.9");
    keys_n(&app, SDLK_DOWN, 30);
    CHECK_CLOSE(s->settings.top_p, 0.05, 1e-6, 0, "P clamps at 0.05");

    key(&app, SDLK_g, KMOD_NONE);
    CHECK(s->settings.greedy && s->next.greedy && s->next.chosen.id == s->next.rows[0].id, "G: greedy = argmax");
    key(&app, SDLK_g, KMOD_NONE);
    CHECK(!s->settings.greedy, "G again: sampling");

    /* O: llama.cpp's order (temperature last), O again: Hugging Face's (the default); the
     * pending record's active stages follow (the CLI's chain is checked stage by stage
     * against float64 in test_cli_sampling) */
    {
        static const uint8_t LLAMA[SAMPLER_N_STAGES] = {SAMPLER_STAGE_PENALTIES, SAMPLER_STAGE_TOP_K,
                                                        SAMPLER_STAGE_TOP_P, SAMPLER_STAGE_MIN_P,
                                                        SAMPLER_STAGE_TEMPERATURE};
        SamplerSettings was = s->settings;
        SamplerSettings hot = was;
        hot.temperature = 1.5f;
        hot.top_p = 0.9f;
        Action a = {.kind = ACT_SETTINGS, .settings = &hot};
        ErrorMsg e;
        CHECK(action_apply(s, &app.view, &a, &e) == 0, "T=1.5 top-p 0.9");
        int kept_hf = s->next.n_kept;
        key(&app, SDLK_o, KMOD_NONE);
        CHECK(memcmp(s->settings.order, LLAMA, sizeof LLAMA) == 0, "O: llama.cpp's order");
        int last = -1;
        for (int j = 0; j < s->next.n_stages; j++)
            if (s->next.stages[j].active) last = (int)s->next.stages[j].stage;
        CHECK(last == SAMPLER_STAGE_TEMPERATURE, "O: temperature is the last stage that runs (%d)", last);
        CHECK(strstr(app.status, "llama.cpp") != NULL, "O: the status names the order: %s", app.status);
        key(&app, SDLK_o, KMOD_NONE);
        uint8_t now[SAMPLER_N_STAGES], def[SAMPLER_N_STAGES];
        SamplerSettings d0 = sampler_settings_default();
        sampler_settings_order(&s->settings, now);
        sampler_settings_order(&d0, def);
        CHECK(memcmp(now, def, sizeof now) == 0 && s->next.n_kept == kept_hf, "O again: Hugging Face's order, %d kept",
              s->next.n_kept);
        a.settings = &was;
        CHECK(action_apply(s, &app.view, &a, &e) == 0, "settings back");
    }

    int L = s->model.config.n_layer, H = s->model.config.n_head;
    CHECK(app.view.layer == L - 1, "starts on the last layer");
    key(&app, SDLK_l, KMOD_NONE);
    keys_n(&app, SDLK_UP, 3);
    CHECK(app.view.layer == L - 1, "layer clamps at %d", L - 1);
    keys_n(&app, SDLK_DOWN, 9);
    CHECK(app.view.layer == 0, "layer clamps at 0");
    key(&app, SDLK_h, KMOD_NONE);
    keys_n(&app, SDLK_UP, 2);
    CHECK(app.view.head == 2, "head up x2");
    keys_n(&app, SDLK_UP, 10);
    CHECK(app.view.head == H - 1, "head clamps at %d", H - 1);

    key(&app, SDLK_s, KMOD_NONE);
    CHECK(app.view.hide_sink == 1, "S hides the sink");
    key(&app, SDLK_s, KMOD_NONE);
    CHECK(app.view.hide_sink == 0, "S again shows it");

    for (int i = 0; i < 10; i++) key(&app, SDLK_EQUALS, KMOD_LCTRL);
    CHECK(app.ui_scale == 2.5f, "Ctrl+= clamps at 250 %% (%g)", (double)app.ui_scale);
    key(&app, SDLK_MINUS, KMOD_LCTRL);
    CHECK(app.ui_scale == 2.25f, "Ctrl+- : 225 %%");
    key(&app, SDLK_MINUS, KMOD_NONE);
    CHECK(app.ui_scale == 2.25f, "- without Ctrl does nothing");

    key(&app, SDLK_d, KMOD_NONE);
    CHECK(app.theme == THEME_DARK, "D: dark");
    key(&app, SDLK_F11, KMOD_NONE);
    CHECK(app.fullscreen == 1, "F11: full screen");
    key(&app, SDLK_b, KMOD_NONE);
    CHECK(app.view.blank == 1, "B blanks");

    key(&app, SDLK_SLASH, KMOD_LSHIFT);
    CHECK(app.view.show_help == 1, "? opens the help");
    key(&app, SDLK_ESCAPE, KMOD_NONE);
    CHECK(app.view.show_help == 0 && app.view.blank == 0 && !app.quit, "Esc closes overlays first");
    key(&app, SDLK_ESCAPE, KMOD_NONE);
    CHECK(app.quit == 1, "Esc again quits");
    app.quit = 0;
    key(&app, SDLK_q, KMOD_NONE);
    CHECK(app.quit == 1, "Q quits");
    app_free(&app);
}

static void test_prompt_editor(void) {
    static AppState app;
    if (open_app(&app, 1)) return;
    Session *s = &app.session;
    key(&app, SDLK_SPACE, KMOD_NONE);
    key(&app, SDLK_RETURN, KMOD_NONE);
    CHECK(app.editing && strcmp(app.edit, "Once upon a time") == 0, "Enter opens the editor with the prompt");
    text(&app, "s");                  /* typed text goes into the editor... */
    key(&app, SDLK_SPACE, KMOD_NONE); /* ...and keys do not act meanwhile */
    CHECK(session_len(s) == 5 && strcmp(app.edit, "Once upon a times") == 0, "keys are text while editing");
    key(&app, SDLK_BACKSPACE, KMOD_NONE);
    text(&app, " \xC3\xA9t\xC3\xA9"); /* " été": Backspace must remove whole characters */
    key(&app, SDLK_BACKSPACE, KMOD_NONE);
    CHECK(strcmp(app.edit, "Once upon a time \xC3\xA9t") == 0, "Backspace removes one UTF-8 character: %s", app.edit);
    key(&app, SDLK_ESCAPE, KMOD_NONE);
    CHECK(!app.editing && !app.quit && session_len(s) == 5, "Esc cancels: nothing changed");

    key(&app, SDLK_RETURN, KMOD_NONE);
    key(&app, SDLK_u, KMOD_LCTRL);
    key(&app, SDLK_RETURN, KMOD_NONE);
    CHECK(app.editing && app.status_is_error && strstr(app.status, "empty"), "empty prompt: error, still editing (%s)",
          app.status);
    text(&app, "Hello world");
    key(&app, SDLK_RETURN, KMOD_NONE);
    CHECK(!app.editing && s->n_prompt == 2 && session_len(s) == 2, "new prompt applied: %d tokens", s->n_prompt);
    CHECK(s->prompt_len == 11 && memcmp(s->prompt, "Hello world", 11) == 0, "the session has the new text");
    app_free(&app);
}

/* ---- a frame drawn offscreen: layout, hits, clicks ---- */

static int find_hit(const VizHits *h, VizHitKind kind, int b) {
    for (int i = 0; i < h->n; i++)
        if (h->hit[i].kind == kind && (b < 0 || h->hit[i].b == b)) return i;
    return -1;
}

static void check_layout(AppState *app, Viz *viz, int w, int h) {
    app_draw(app, viz, rect_make(0, 0, w, h));
    CHECK(!viz->has_error, "%dx%d: draw error %s", w, h, viz->last_error.text);
    viz_clear_error(viz);
    Rect panel[VIZ_PANEL_COUNT] = {{0}};
    int count = 0;
    for (int i = 0; i < app->hits.n; i++) {
        const VizHit *x = &app->hits.hit[i];
        if (x->kind != VIZ_HIT_PANEL) continue;
        count++;
        CHECK(x->a > VIZ_PANEL_FRAME && x->a < VIZ_PANEL_COUNT, "panel id %d", x->a);
        if (x->a > VIZ_PANEL_FRAME && x->a < VIZ_PANEL_COUNT) panel[x->a] = x->r;
        CHECK(x->r.x >= 0 && x->r.y >= 0 && x->r.x + x->r.w <= w && x->r.y + x->r.h <= h - 20,
              "%dx%d: panel %d inside the frame, above the status line", w, h, x->a);
        /* the token strip and the text are as tall as their content (bounded); the
         * pictures (heatmap, bars) get the rest */
        int picture = x->a == VIZ_PANEL_ATTENTION || x->a == VIZ_PANEL_PROBS;
        CHECK(x->r.w >= w / 5 && x->r.h >= (picture ? h / 3 : h / 10), "%dx%d: panel %d big enough (%dx%d)", w, h,
              x->a, x->r.w, x->r.h);
    }
    CHECK(count == 4, "%dx%d: 4 panel hits (%d)", w, h, count);
    for (int a = 1; a < VIZ_PANEL_COUNT; a++)
        for (int b = a + 1; b < VIZ_PANEL_COUNT; b++)
            CHECK(rect_intersect(panel[a], panel[b]).w == 0, "%dx%d: panels %d and %d overlap", w, h, a, b);
    /* the panels cover most of the frame: no large dead areas */
    long area = 0;
    for (int a = 1; a < VIZ_PANEL_COUNT; a++) area += (long)panel[a].w * panel[a].h;
    CHECK(area > (long)w * h * 80 / 100, "%dx%d: panels cover %ld%% of the frame", w, h, area * 100 / ((long)w * h));
}

static void test_frame_and_clicks(void) {
    static AppState app;
    if (open_app(&app, 7)) return;
    Offscreen off = {0};
    Viz viz = {0};
    ErrorMsg err = {{0}};
    if (offscreen_create(&off, 1280, 720, &err) || viz_init(&viz, off.renderer, "assets", 1.0f, 1.0f, THEME_LIGHT, &err)) {
        CHECK(0, "offscreen: %s", err.text);
        goto done;
    }
    Session *s = &app.session;
    keys_n(&app, SDLK_SPACE, 3);
    check_layout(&app, &viz, 1280, 720);

    /* click the bar of rank 3: that token is appended */
    int i = find_hit(&app.hits, VIZ_HIT_PROB_BAR, 2);
    CHECK(i >= 0, "a probability bar of rank 3 was drawn");
    if (i >= 0) {
        VizHit bar = app.hits.hit[i];
        CHECK(bar.a == s->next.rows[2].id, "bar hit names the rank-3 token");
        click(&app, bar.r.x + bar.r.w / 2, bar.r.y + bar.r.h / 2);
        CHECK(session_len(s) == 8 && session_ids(s)[7] == bar.a, "clicking the bar takes its token");
    }
    /* click a head thumbnail: that head is shown */
    app_draw(&app, &viz, rect_make(0, 0, 1280, 720));
    for (int k = 0; k < app.hits.n; k++) {
        const VizHit *x = &app.hits.hit[k];
        if (x->kind != VIZ_HIT_HEAD_THUMB || (x->a == app.view.layer && x->b == app.view.head)) continue;
        int la = x->a, hb = x->b;
        click(&app, x->r.x + x->r.w / 2, x->r.y + x->r.h / 2);
        CHECK(app.view.layer == la && app.view.head == hb, "thumbnail click: layer %d head %d", la, hb);
        break;
    }

    /* F over the attention panel enlarges it; the frame then has one panel */
    int pa = -1;
    for (int k = 0; k < app.hits.n; k++)
        if (app.hits.hit[k].kind == VIZ_HIT_PANEL && app.hits.hit[k].a == VIZ_PANEL_ATTENTION) pa = k;
    CHECK(pa >= 0, "attention panel hit");
    if (pa >= 0) {
        Rect ar = app.hits.hit[pa].r;
        mouse_move(&app, ar.x + ar.w / 2, ar.y + ar.h / 2);
        key(&app, SDLK_e, KMOD_LSHIFT);
        CHECK(app.export_request == APP_EXPORT_PANEL && app.export_panel == VIZ_PANEL_ATTENTION,
              "Shift+E asks for the panel under the mouse");
        app.export_request = APP_EXPORT_NONE;
        key(&app, SDLK_f, KMOD_NONE);
        CHECK(app.view.focus == VIZ_PANEL_ATTENTION, "F focuses the attention panel");
        app_draw(&app, &viz, rect_make(0, 0, 1280, 720));
        int n_panels = 0, big = 0;
        for (int k = 0; k < app.hits.n; k++)
            if (app.hits.hit[k].kind == VIZ_HIT_PANEL) {
                n_panels++;
                big = app.hits.hit[k].r.w > 1200 && app.hits.hit[k].r.h > 600;
            }
        CHECK(n_panels == 1 && big, "focused: one panel filling the frame");
        key(&app, SDLK_ESCAPE, KMOD_NONE);
        CHECK(app.view.focus == VIZ_PANEL_FRAME && !app.quit, "Esc leaves the focus");
    }
    mouse_move(&app, 2, 2); /* the gap: no panel */
    key(&app, SDLK_e, KMOD_LSHIFT);
    CHECK(app.export_request == APP_EXPORT_NONE && app.status_is_error, "Shift+E outside panels: a message");
    key(&app, SDLK_e, KMOD_NONE);
    CHECK(app.export_request == APP_EXPORT_FRAME, "E asks for the frame");

    /* E runs the exporter: a PNG appears in the folder, the status names it */
    char dir[] = "/tmp/inferscope-test-app-XXXXXX";
    if (mkdtemp(dir)) {
        app.export_dir = dir;
        app_export(&app, 1024, 640, 1);
        CHECK(!app.status_is_error && strstr(app.status, dir), "export status: %s", app.status);
        const char *p = strstr(app.status, dir);
        struct stat st;
        CHECK(p && stat(p, &st) == 0 && st.st_size > 1000, "exported file exists: %s", p ? p : "?");
        if (p) unlink(p);
        rmdir(dir);
    }

    /* blank: black (a projector shows nothing), nothing clickable */
    key(&app, SDLK_b, KMOD_NONE);
    app_draw(&app, &viz, rect_make(0, 0, 1280, 720));
    CHECK(app.hits.n == 0, "blank frame has no hits");
    uint8_t px[4 * 16];
    Rect probe = rect_make(640, 360, 16, 1);
    if (renderer_read_rgba(off.renderer, &probe, px, sizeof px, &err) == 0) {
        CHECK(px[0] == 0 && px[1] == 0 && px[2] == 0, "blank frame is black (%d,%d,%d)", px[0], px[1], px[2]);
    }
    key(&app, SDLK_b, KMOD_NONE);

    /* the layout at the smallest supported window, a HD one and 4K, and at UI scale 2 */
    offscreen_free(&off);
    viz_free(&viz);
    static const int sizes[3][2] = {{1024, 640}, {1920, 1080}, {3840, 2160}};
    for (int k = 0; k < 3; k++) {
        if (offscreen_create(&off, sizes[k][0], sizes[k][1], &err) ||
            viz_init(&viz, off.renderer, "assets", k == 2 ? 2.0f : 1.0f, 1.0f, THEME_DARK, &err)) {
            CHECK(0, "offscreen %d: %s", k, err.text);
            break;
        }
        check_layout(&app, &viz, sizes[k][0], sizes[k][1]);
        viz_free(&viz);
        offscreen_free(&off);
    }
done:
    viz_free(&viz);
    offscreen_free(&off);
    app_free(&app);
}

/* The window's way: the forward pass on a worker thread while the loop polls. */
static void test_async_step(void) {
    static AppState app;
    if (open_app(&app, 7)) return;
    app.async = 1;
    key(&app, SDLK_SPACE, KMOD_NONE);
    CHECK(app.busy == 1, "Space starts a job on the worker");
    key(&app, SDLK_SPACE, KMOD_NONE); /* app_update ignores a second job while busy */
    int polls = 0;
    while (!app_jobs_poll(&app) && polls < 20000) {
        SDL_Delay(1);
        polls++;
    }
    CHECK(!app.busy && session_len(&app.session) == 5, "the job finished: 5 tokens (%d polls)", polls);
    key(&app, SDLK_2, KMOD_NONE);
    app_jobs_wait(&app);
    CHECK(!app.busy && session_len(&app.session) == 6 && strstr(app.status, "rank 2"), "forced on the worker: %s",
          app.status);
    app.async = 0;
    app_free(&app);
}

/* --trace-mb in the window: a budget too small for full patterns gives a lean trace,
 * the status line says what was dropped, the dice give the same tokens as a window with
 * everything kept, and the frame still draws every head's thumbnail (from the block
 * summaries) with a working click. */
static void test_lean_window(void) {
    static AppState lean, full;
    if (open_app_budget(&lean, 7, (size_t)2 * 1000000u)) return;
    if (open_app(&full, 7)) {
        app_free(&lean);
        return;
    }
    CHECK(gpt2_trace_is_lean(&lean.session.trace) && !gpt2_trace_is_lean(&full.session.trace),
          "a 2 MB budget is lean, the default (auto) keeps full patterns here");
    CHECK(strstr(lean.status, "dropped") != NULL, "the status says what the budget dropped: %s", lean.status);
    keys_n(&lean, SDLK_SPACE, 5);
    keys_n(&full, SDLK_SPACE, 5);
    int same = session_len(&lean.session) == session_len(&full.session) &&
               memcmp(session_ids(&lean.session), session_ids(&full.session),
                      (size_t)session_len(&full.session) * sizeof(int)) == 0;
    CHECK(same, "lean and full windows draw the same 5 tokens with seed 7");
    Offscreen off = {0};
    Viz viz = {0};
    ErrorMsg err = {{0}};
    if (offscreen_create(&off, 1280, 720, &err) == 0 &&
        viz_init(&viz, off.renderer, "assets", 1.0f, 1.0f, THEME_LIGHT, &err) == 0) {
        app_draw(&lean, &viz, rect_make(0, 0, 1280, 720));
        const Gpt2Config *c = &lean.session.model.config;
        int thumbs = 0, target = -1;
        for (int k = 0; k < lean.hits.n; k++)
            if (lean.hits.hit[k].kind == VIZ_HIT_HEAD_THUMB) {
                thumbs++;
                if (lean.hits.hit[k].a == 0 && lean.hits.hit[k].b == c->n_head - 1) target = k;
            }
        CHECK(thumbs == c->n_layer * c->n_head, "%d thumbnails drawn from the lean trace (want %d)", thumbs,
              c->n_layer * c->n_head);
        if (target >= 0) {
            Rect r = lean.hits.hit[target].r;
            click(&lean, r.x + r.w / 2, r.y + r.h / 2);
        }
        CHECK(lean.view.layer == 0 && lean.view.head == c->n_head - 1, "thumbnail click in a lean window");
    } else {
        CHECK(0, "offscreen: %s", err.text);
    }
    viz_free(&viz);
    offscreen_free(&off);
    app_free(&lean);
    app_free(&full);
}

static void test_state_json(void) {
    static AppState app;
    if (open_app(&app, 7)) return;
    keys_n(&app, SDLK_SPACE, 2);
    char path[] = "/tmp/inferscope-test-state-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) {
        app_free(&app);
        return;
    }
    close(fd);
    ErrorMsg err = {{0}};
    CHECK(app_write_state_json(&app, path, &err) == 0, "state json: %s", err.text);
    FILE *f = fopen(path, "r");
    char buf[4096] = {0};
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f) fclose(f);
    char want[128];
    snprintf(want, sizeof want, "\"ids\": [7454, 2402, 257, 640, %d, %d]", session_ids(&app.session)[4],
             session_ids(&app.session)[5]);
    CHECK(n > 0 && strstr(buf, want), "ids in the snapshot (%s)", want);
    CHECK(strstr(buf, "\"n_prompt\": 4") && strstr(buf, "\"n_branches\": 1") && strstr(buf, "\"seed\": 7"),
          "counts and seed in the snapshot");
    CHECK(app_write_state_json(&app, "/nonexistent-dir/x.json", &err) == -1 && strstr(err.text, "/nonexistent-dir"),
          "unwritable path: %s", err.text);
    unlink(path);
    app_free(&app);
}

int main(void) {
    setenv("SDL_VIDEODRIVER", "dummy", 1);
    snprintf(model_dir, sizeof model_dir, "%s/models/tiny", check_ref_dir());
    test_key_table();
    test_steps_back_branch();
    test_settings_and_view();
    test_prompt_editor();
    test_frame_and_clicks();
    test_async_step();
    test_lean_window();
    test_state_json();
    return check_summary("test_app_keys");
}
