/* test_action.c — one mutator (src/session/action.h): the same changes made three ways
 * (Actions applied directly, a lesson's lines, the window's keys through app_update)
 * must leave the same tokens, branches, settings and view; action_apply's checks give the
 * one message a lesson then prefixes with FILE:LINE; the kinds that run the model are
 * the ones the window sends to a job. Bundled model, SDL dummy video driver. */
#include <stdlib.h>
#include <string.h>

#include "action.h"
#include "app.h"
#include "check.h"
#include "check_session.h"
#include "lesson.h"
#include "lesson_run.h"

#define BUNDLED "assets/models/stories16m"

/* The script, as Actions: seed 11, T 0.8, top-k 20, 6 steps, back 2, take the rank-3
 * token, 1 step, layer 2, head 1. */
static int run_actions(Session *s, VizView *v, ErrorMsg *err) {
    SamplerSettings set = s->settings;
    set.temperature = 0.8f;
    set.top_k = 20;
    const Action a[] = {
        {.kind = ACT_SEED, .seed = 11},
        {.kind = ACT_SETTINGS, .settings = &set},
        {.kind = ACT_PROMPT, .text = (const uint8_t *)"Once upon a time", .text_len = 16},
        {.kind = ACT_STEP, .n = 6},
        {.kind = ACT_BACK, .n = 2},
    };
    for (size_t i = 0; i < sizeof a / sizeof a[0]; i++)
        if (action_apply(s, v, &a[i], err)) return -1;
    Action force = {.kind = ACT_FORCE, .id = s->next.rows[2].id};
    Action rest[] = {force, {.kind = ACT_STEP, .n = 1}, {.kind = ACT_LAYER, .n = 2}, {.kind = ACT_HEAD, .n = 1}};
    for (size_t i = 0; i < sizeof rest / sizeof rest[0]; i++)
        if (action_apply(s, v, &rest[i], err)) return -1;
    return 0;
}

static void key(AppState *app, SDL_Keycode k, int n) {
    for (int i = 0; i < n; i++) {
        AppInput in = {.kind = APP_INPUT_KEY, .key = k};
        app_update(app, &in);
    }
}

static void same_state(const char *what, const Session *a, const VizView *va, const Session *b, const VizView *vb) {
    CHECK(session_len(a) == session_len(b) &&
              memcmp(session_ids(a), session_ids(b), (size_t)session_len(a) * sizeof(int)) == 0,
          "%s: the same %d tokens (%d)", what, session_len(a), session_len(b));
    CHECK(a->n_branches == b->n_branches && a->cur == b->cur, "%s: branches %d/%d vs %d/%d", what, a->cur,
          a->n_branches, b->cur, b->n_branches);
    CHECK(a->seed == b->seed && a->settings.top_k == b->settings.top_k &&
              a->settings.temperature == b->settings.temperature,
          "%s: seed %llu T %g k %d vs %llu T %g k %d", what, (unsigned long long)a->seed, a->settings.temperature,
          a->settings.top_k, (unsigned long long)b->seed, b->settings.temperature, b->settings.top_k);
    CHECK(a->has_next && b->has_next && a->next.chosen.id == b->next.chosen.id, "%s: the same pending pick", what);
    CHECK(va->layer == vb->layer && va->head == vb->head, "%s: layer/head %d/%d vs %d/%d", what, va->layer, va->head,
          vb->layer, vb->head);
}

static void test_three_ways(void) {
    Session s;
    if (check_open_bundled(&s)) return;
    VizView v = {.selected_token = -1, .highlight_token = -1};
    ErrorMsg err = {{0}};
    CHECK(run_actions(&s, &v, &err) == 0, "actions: %s", err.text);
    CHECK(session_len(&s) == 4 + 6 - 2 + 2 && s.n_branches >= 1, "actions: %d tokens", session_len(&s));

    /* a lesson with the same lines; the rank-3 token is named by id */
    Session ls;
    if (check_open_bundled(&ls)) {
        session_free(&s);
        return;
    }
    char text[512];
    snprintf(text, sizeof text,
             "title t\nseed 11\ntemperature 0.8\ntop_k 20\nprompt Once upon a time\nstep 6\nback 2\n"
             "force #%d\nstep 1\nlayer 2\nhead 1\ncaption done\n",
             session_ids(&s)[8]);
    Lesson l;
    LessonBeatView bv = {0};
    VizView lv = {.selected_token = -1, .highlight_token = -1};
    if (lesson_parse(&l, "three.lesson", text, strlen(text), &err) == 0) {
        CHECK(lesson_check(&l, &ls, &lv, &bv, &err) == 0 && lesson_goto_beat(&l, 0, &ls, &lv, &bv, &err) == 0,
              "lesson: %s", err.text);
        same_state("lesson", &s, &v, &ls, &lv);
        lesson_free(&l);
    } else {
        CHECK(0, "lesson_parse: %s", err.text);
    }
    session_free(&ls);

    /* the window's keys: T ↓↓ (1.0 → 0.8), K ↑ x6 (off, 1, 2, 3, 5, 10, 20), Space x6,
     * ← x2, 3 (the rank-3 bar), Space, L ↓ to 0 ↑↑ (layer 2), H ↓ to 0 ↑ (head 1) */
    static AppState app;
    AppOptions opt = app_default_options();
    opt.model_dir = BUNDLED;
    opt.tok_dir = "assets/tokenizer";
    opt.assets_dir = "assets";
    opt.seed = 11;
    if (app_init(&app, &opt, &err) == 0) {
        key(&app, SDLK_t, 1);
        key(&app, SDLK_DOWN, 2);
        key(&app, SDLK_k, 1);
        key(&app, SDLK_UP, 6);
        key(&app, SDLK_SPACE, 6);
        key(&app, SDLK_LEFT, 2);
        key(&app, SDLK_3, 1);
        key(&app, SDLK_SPACE, 1);
        key(&app, SDLK_l, 1); /* the arrows stop at the ends: ↓ x9 is layer 0 */
        key(&app, SDLK_DOWN, 9);
        key(&app, SDLK_UP, 2);
        key(&app, SDLK_h, 1);
        key(&app, SDLK_DOWN, 9);
        key(&app, SDLK_UP, 1);
        same_state("keys", &s, &v, &app.session, &app.view);
    } else {
        CHECK(0, "app_init: %s", err.text);
    }
    app_free(&app);
    session_free(&s);
}

static void test_checks(void) {
    Session s;
    if (check_open_bundled(&s)) return;
    VizView v = {.selected_token = -1, .highlight_token = -1};
    ErrorMsg err = {{0}};
    Action layer = {.kind = ACT_LAYER, .n = 4};
    CHECK(action_apply(&s, &v, &layer, &err) == -1 &&
              strcmp(err.text, "layer 4 does not exist: the model has 4 layers (0-3)") == 0,
          "layer 4: %s", err.text);
    layer.n = -1;
    CHECK(action_apply(&s, &v, &layer, &err) == -1, "layer -1 refused");
    layer.n = 3;
    CHECK(action_apply(&s, NULL, &layer, &err) == -1 && strstr(err.text, "no view"), "a view action needs a view");
    CHECK(action_apply(&s, &v, &layer, &err) == 0 && v.layer == 3, "layer 3 shown");
    Action step0 = {.kind = ACT_STEP, .n = 0};
    CHECK(action_apply(&s, NULL, &step0, &err) == -1 && strstr(err.text, "at least 1"), "step 0: %s", err.text);
    Action force = {.kind = ACT_FORCE, .id = session_vocab(&s)};
    CHECK(action_apply(&s, NULL, &force, &err) == -1 && strstr(err.text, "outside the vocabulary"), "force: %s",
          err.text);
    Action hl = {.kind = ACT_HIGHLIGHT_TOKEN, .n = session_len(&s)};
    CHECK(action_apply(&s, &v, &hl, &err) == -1 && strstr(err.text, "there are only"), "highlight: %s", err.text);
    Action panel = {.kind = ACT_PANEL, .n = VIZ_PANEL_COUNT};
    CHECK(action_apply(&s, &v, &panel, &err) == -1, "panel past the table refused");

    /* the lesson says the same, after FILE:LINE */
    const char *text = "prompt Hi\nlayer 4\n";
    Lesson l;
    LessonBeatView bv = {0};
    if (lesson_parse(&l, "bad.lesson", text, strlen(text), &err) == 0) {
        CHECK(lesson_check(&l, &s, &v, &bv, &err) == -1 &&
                  strcmp(err.text, "bad.lesson:2: layer 4 does not exist: the model has 4 layers (0-3)") == 0,
              "lesson: %s", err.text);
        lesson_free(&l);
    }
    session_free(&s);
}

static void test_model_work(void) {
    int n = 0;
    for (int k = 0; k < ACT_COUNT; k++) {
        n += action_is_model_work((ActionKind)k);
        CHECK(strcmp(action_name((ActionKind)k), "?") != 0, "kind %d has a name", k);
    }
    CHECK(n == 7 && action_is_model_work(ACT_STEP) && action_is_model_work(ACT_ABLATE) &&
              action_is_model_work(ACT_COMPARE) && !action_is_model_work(ACT_DRAWS) &&
              !action_is_model_work(ACT_SETTINGS) && !action_is_model_work(ACT_BACK),
          "seven kinds run the model (%d)", n);
    CHECK(strcmp(action_name(ACT_COUNT), "?") == 0, "out of range: '?'");
}

int main(void) {
    setenv("SDL_VIDEODRIVER", "dummy", 1);
    test_three_ways();
    test_checks();
    test_model_work();
    return check_summary("test_action");
}
