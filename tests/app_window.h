/* app_window.h — the app and its window on SDL's dummy video driver, for the tests that
 * run the window's frames (test_app_frame, test_app_lesson_check, test_app_keys): opened as app_run
 * opens them, input given as SDL events pushed into the queue a frame reads. Header-only
 * (static): each test takes what it uses. The caller sets SDL_VIDEODRIVER=dummy. */
#ifndef APP_WINDOW_H
#define APP_WINDOW_H

#include <stdint.h>
#include <string.h>

#include "app.h"
#include "check.h"

/* The app on the model in model_dir (the repository's tokenizer and assets), no window,
 * with the trace budget given (SESSION_TRACE_AUTO: the default); 0 or -1 (checked). */
static inline int test_app_open_budget(AppState *app, const char *model_dir, uint64_t seed, size_t trace_budget) {
    AppOptions opt = app_default_options();
    opt.trace_budget = trace_budget;
    opt.model_dir = model_dir;
    opt.tok_dir = "assets/tokenizer";
    opt.assets_dir = "assets";
    opt.seed = seed;
    memset(app, 0, sizeof *app);
    ErrorMsg err = {{0}};
    int rc = app_init(app, &opt, &err);
    CHECK(rc == 0, "app_init: %s", err.text);
    return rc;
}

static inline int test_app_open(AppState *app, const char *model_dir, uint64_t seed) {
    return test_app_open_budget(app, model_dir, seed, SESSION_TRACE_AUTO);
}

/* The app and its 1280x720 window; 0 or -1 (checked; the app is freed then). */
static inline int test_window_open(AppState *app, AppWindow *w, const char *model_dir, uint64_t seed) {
    memset(w, 0, sizeof *w);
    if (test_app_open(app, model_dir, seed)) return -1;
    ErrorMsg err = {{0}};
    if (app_window_open(w, app, 1280, 720, &err) == 0) return 0;
    CHECK(0, "app_window_open: %s", err.text);
    app_free(app);
    return -1;
}

static inline void test_push_event(Uint32 type, SDL_Keycode k) {
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = type;
    e.key.keysym.sym = k;
    CHECK(SDL_PushEvent(&e) == 1, "SDL_PushEvent: %s", SDL_GetError());
}

/* A key press, as a user's. */
static inline void test_push_key(SDL_Keycode k) { test_push_event(SDL_KEYDOWN, k); }
/* The window closed. */
static inline void test_push_quit(void) { test_push_event(SDL_QUIT, 0); }

#endif
