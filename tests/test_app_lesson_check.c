/* test_app_lesson_check.c — a lesson opens at once: its check (every beat run, its
 * `expect` lines held) goes a beat at a time. lesson_check_step counts the beats 1..n and
 * leaves the same snapshots as the one call, also when the session is changed between two
 * steps; in the window (dummy video driver, jobs on the platform) the first frame is the
 * progress screen, every beat's progress is drawn before the next beat runs, keys during
 * the check are refused with a status line and change nothing, and the first beat is
 * shown when the last has held; a false `expect` fails with the one call's message, in
 * the window too, which then closes as the app did before it opened. Tiny reference model. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "app_jobs.h"
#include "app_window.h"
#include "check.h"
#include "frame_fill.h"

static char model_dir[512];

/* the first four beats of both lessons; the third holds a claim that needs no trained
 * weights */
#define FIRST_BEATS                  \
    "title Check test\n"             \
    "prompt Once upon a time\n"      \
    "seed 3\n"                       \
    "caption one\n"                  \
    "pause\n"                        \
    "step 4\n"                       \
    "caption two\n"                  \
    "pause\n"                        \
    "step 2\n"                       \
    "expect tokens \" time\" == 1\n" \
    "pause\n"                        \
    "back 1\n"

/* 5 beats */
static const char *LESSON = FIRST_BEATS "pause\n" "step 3\n";
#define N_BEATS 5

/* the same lesson with a false claim in beat 4 (line 13) */
static const char *BAD = FIRST_BEATS "expect tokens \" time\" == 2\n" "pause\n" "step 3\n";

#define BAD_HEAD "t.lesson:13: expect failed: tokens \" time\" == 2 (measured: 1 token"

static int parse(const char *text, Lesson *l) {
    ErrorMsg err = {{0}};
    int rc = lesson_parse(l, "t.lesson", text, strlen(text), &err);
    CHECK(rc == 0, "parse: %s", err.text);
    return rc;
}

/* The tokens of each beat as the one call (lesson_check) leaves them: the reference. */
typedef struct BeatIds {
    int n[N_BEATS];
    int ids[N_BEATS][64];
} BeatIds;

static void beat_ids(Lesson *l, Session *s, int k, BeatIds *out) {
    VizView v = frame_default_view();
    LessonBeatView bv = {0};
    ErrorMsg err = {{0}};
    CHECK(lesson_goto_beat(l, k, s, &v, &bv, &err) == 0, "beat %d: %s", k + 1, err.text);
    const SessionBranch *b = &s->branch[s->cur];
    out->n[k] = session_len(s) < 64 ? session_len(s) : 64;
    memcpy(out->ids[k], b->ids, (size_t)out->n[k] * sizeof b->ids[0]);
}

static int same_beat(const BeatIds *a, const BeatIds *b, int k) {
    return a->n[k] == b->n[k] && memcmp(a->ids[k], b->ids[k], (size_t)a->n[k] * sizeof a->ids[k][0]) == 0;
}

/* The tiny model's session; 0 or -1 (checked). */
static int open_session(Session *s) {
    ErrorMsg err = {{0}};
    int rc = session_open(s, model_dir, "assets/tokenizer", 0, GPT2_CAP_DEFAULT, &err);
    CHECK(rc == 0, "open: %s", err.text);
    return rc;
}

static BeatIds ref; /* the one call's beats */
static char bad_msg[sizeof ((ErrorMsg *)0)->text]; /* the one call's message for BAD */

static void test_reference(void) {
    Session s;
    ErrorMsg err = {{0}};
    if (open_session(&s)) return;
    Lesson l;
    if (parse(LESSON, &l) == 0) {
        CHECK(l.n_beats == N_BEATS, "%d beats: %zu", N_BEATS, l.n_beats);
        VizView v = frame_default_view();
        LessonBeatView bv = {0};
        CHECK(lesson_check(&l, &s, &v, &bv, &err) == 0, "the one call: %s", err.text);
        for (int k = 0; k < N_BEATS; k++) beat_ids(&l, &s, k, &ref);
        CHECK(ref.n[0] == 4 && ref.n[1] == 8 && ref.n[2] == 10 && ref.n[3] == 9 && ref.n[4] == 12,
              "beats of 4, 8, 10, 9, 12 tokens: %d %d %d %d %d", ref.n[0], ref.n[1], ref.n[2], ref.n[3], ref.n[4]);
        lesson_free(&l);
    }
    if (parse(BAD, &l) == 0) {
        VizView v = frame_default_view();
        LessonBeatView bv = {0};
        CHECK(lesson_check(&l, &s, &v, &bv, &err) == -1 &&
                  strncmp(err.text, BAD_HEAD, strlen(BAD_HEAD)) == 0,
              "the one call fails at line 13: %s", err.text);
        snprintf(bad_msg, sizeof bad_msg, "%s", err.text);
        lesson_free(&l);
    }
    session_free(&s);
}

/* lesson_check_step: 1 while beats remain, 0 after the last, the count 1..n; the session
 * stepped between two steps is restored first (the beats are the one call's); the steps
 * go on from the session as the last one left it (no restore when nothing changed). */
static void test_steps(int disturb) {
    Session s;
    ErrorMsg err = {{0}};
    if (open_session(&s)) return;
    Lesson l;
    if (parse(LESSON, &l)) { session_free(&s); return; }
    VizView v = frame_default_view();
    LessonBeatView bv = {0};
    lesson_check_begin(&l);
    CHECK(lesson_check_done(&l) == 0, "nothing checked yet");
    int rcs[N_BEATS + 1], done[N_BEATS + 1], n = 0;
    int rc = 1;
    while (rc > 0 && n <= N_BEATS) {
        if (disturb && n == 2) {
            /* what a key would do between two steps: two more tokens, another seed */
            Action a = {.kind = ACT_STEP, .n = 2};
            CHECK(action_apply(&s, NULL, &a, &err) == 0, "step between beats: %s", err.text);
            session_set_seed(&s, 99);
        }
        rc = lesson_check_step(&l, &s, &v, &bv, &err);
        rcs[n] = rc;
        done[n++] = (int)lesson_check_done(&l);
    }
    CHECK(n == N_BEATS && rcs[0] == 1 && rcs[3] == 1 && rcs[4] == 0, "%d steps: 1 1 1 1 0 (got %d ... %d %d)", n,
          rcs[0], rcs[3], rcs[n - 1]);
    CHECK(done[0] == 1 && done[1] == 2 && done[2] == 3 && done[3] == 4 && done[4] == 5, "done counts 1..5");
    CHECK(lesson_check_step(&l, &s, &v, &bv, &err) == 0 && lesson_check_done(&l) == N_BEATS, "a step after the last: 0");
    LessonReplayStats st = lesson_replay_stats(&l);
    CHECK(st.directives_applied == (long)l.n_dir, "each line ran once: %ld of %zu", st.directives_applied, l.n_dir);
    CHECK(st.restores == disturb, "%s: %ld restores", disturb ? "the changed session restored once" : "no restore",
          st.restores);
    BeatIds got;
    for (int k = 0; k < N_BEATS; k++) {
        beat_ids(&l, &s, k, &got);
        CHECK(same_beat(&got, &ref, k), "%s: beat %d as the one call's (%d tokens, %d)", disturb ? "disturbed" : "steps",
              k + 1, got.n[k], ref.n[k]);
    }
    lesson_free(&l);
    session_free(&s);
}

/* The window as app_run runs it: jobs through the platform. */
static int open_window(AppState *app, AppWindow *w) {
    if (test_window_open(app, w, model_dir, 0)) return -1;
    app->dirty = 1;
    app->async = 1;
    return 0;
}

/* The window: the progress first, each beat's progress drawn before the next beat runs,
 * keys refused meanwhile, then beat 1 as the one call leaves it. */
static void test_window(void) {
    static AppState app;
    AppWindow w;
    if (open_window(&app, &w)) return;
    Lesson l;
    ErrorMsg err = {{0}};
    if (parse(LESSON, &l) || app_lesson_open(&app, &l, "", &err)) {
        CHECK(0, "open: %s", err.text);
        app_window_close(&w);
        app_free(&app);
        return;
    }
    CHECK(app.lesson_checking && !app.in_lesson && !app.busy, "opened: checking, no beat run yet");
    int wait = app_frame(&app, &w);
    CHECK(app.n_frames == 1 && !app.busy && wait == APP_FRAME_BUSY_MS && lesson_check_done(&app.lesson) == 0,
          "the first frame is drawn before any beat runs (%d frames, busy %d, wait %d)", app.n_frames, app.busy, wait);
    CHECK(strcmp(app.progress_line, "checking the lesson on the model: beat 1 of 5") == 0 && app.hits.n == 0,
          "it shows the progress, no panels: '%s', %d hits", app.progress_line, app.hits.n);
    /* frames: note how many beats were done at every drawn frame */
    int drawn_done[64], n_drawn = 1, frames = 0, keyed = 0;
    drawn_done[0] = 0;
    char refused[APP_STATUS_MAX] = "";
    while ((app.lesson_checking || app.busy) && frames++ < 200000) {
        int before = app.n_frames;
        if (!keyed && lesson_check_done(&app.lesson) == 2 && !app.busy) {
            /* the teacher presses keys meanwhile: next beat, a token, the prompt editor */
            test_push_key(SDLK_PAGEDOWN);
            test_push_key(SDLK_SPACE);
            test_push_key(SDLK_RETURN);
            keyed = 1;
        }
        app_frame(&app, &w);
        if (keyed == 1 && app.status[0]) {
            snprintf(refused, sizeof refused, "%s", app.status);
            keyed = 2;
        }
        if (app.n_frames > before && app.lesson_checking && n_drawn < 64)
            drawn_done[n_drawn++] = (int)lesson_check_done(&app.lesson);
        SDL_Delay(1);
    }
    int in_order = n_drawn >= N_BEATS;
    for (int k = 0; in_order && k < N_BEATS; k++) {
        int seen = 0;
        for (int i = 0; i < n_drawn; i++) seen |= drawn_done[i] == k;
        in_order = seen;
    }
    for (int i = 1; in_order && i < n_drawn; i++) in_order = drawn_done[i] >= drawn_done[i - 1];
    CHECK(in_order, "the progress of beats 1..5 drawn in order (%d progress frames, last %d done)", n_drawn,
          drawn_done[n_drawn - 1]);
    CHECK(keyed == 2 && strstr(refused, "checking the lesson on the model: beat 3 of 5") &&
              strstr(refused, "keys work once every beat has held"),
          "keys during the check are refused and say why: '%s'", refused);
    /* the first beat's job, then idle */
    for (int i = 0; i < 20000 && (app.busy || app.n_queued); i++) {
        app_frame(&app, &w);
        SDL_Delay(1);
    }
    app_frame(&app, &w);
    CHECK(app.in_lesson && !app.lesson_checking && app.beat.beat == 0 && app.beat.n_beats == N_BEATS && !app.editing,
          "presenter mode on beat 1 of %d (beat %d, editing %d)", app.beat.n_beats, app.beat.beat + 1, app.editing);
    BeatIds got;
    const SessionBranch *b = &app.session.branch[app.session.cur];
    got.n[0] = session_len(&app.session) < 64 ? session_len(&app.session) : 64;
    memcpy(got.ids[0], b->ids, (size_t)got.n[0] * sizeof b->ids[0]);
    CHECK(same_beat(&got, &ref, 0), "beat 1 as the one call's: %d tokens (%d), the keys changed nothing", got.n[0],
          ref.n[0]);
    CHECK(strstr(app.status, "lesson: beat 1 of 5") != NULL && app.hits.n > 0, "its status and panels: '%s'",
          app.status);
    /* PageDown works now */
    test_push_key(SDLK_PAGEDOWN);
    for (int i = 0; i < 20000; i++) {
        app_frame(&app, &w);
        if (!app.busy && app.beat.beat == 1) break;
        SDL_Delay(1);
    }
    CHECK(app.beat.beat == 1 && session_len(&app.session) == ref.n[1], "PageDown after the check: beat 2 (%d tokens)",
          session_len(&app.session));
    app_jobs_wait(&app);
    app_window_close(&w);
    app_free(&app);
}

/* A false claim: the one call's message, headless (app_lesson_start) and in the window,
 * which then leaves presenter mode unentered and ends (as before it opened). */
static void test_fails(void) {
    static AppState app;
    AppWindow w;
    Lesson l;
    ErrorMsg err = {{0}};
    if (test_app_open(&app, model_dir, 0) == 0 && parse(BAD, &l) == 0) {
        int rc = app_lesson_start(&app, &l, "", &err);
        CHECK(rc == -1 && strcmp(err.text, bad_msg) == 0 && !app.in_lesson && !app.lesson_checking,
              "headless: -1 with the one call's message: '%s'", err.text);
        /* no window to close (the page's case too): the app stays, the line on its status */
        CHECK(!app.quit && app.status_is_error && strcmp(app.status, bad_msg) == 0, "headless: stays, status '%s'",
              app.status);
    }
    app_free(&app);

    if (open_window(&app, &w)) return;
    if (parse(BAD, &l) || app_lesson_open(&app, &l, "", &err)) {
        CHECK(0, "open: %s", err.text);
    } else {
        int wait = 0;
        for (int i = 0; i < 200000 && wait != PLATFORM_FRAME_STOP; i++) {
            wait = app_frame(&app, &w);
            SDL_Delay(1);
        }
        CHECK(wait == PLATFORM_FRAME_STOP && app.lesson_failed && !app.in_lesson && app.quit,
              "the window ends (wait %d, failed %d, in lesson %d)", wait, app.lesson_failed, app.in_lesson);
        CHECK(strcmp(app.lesson_error.text, bad_msg) == 0 && app.status_is_error && strcmp(app.status, bad_msg) == 0,
              "with the one call's message: '%s' / status '%s'", app.lesson_error.text, app.status);
        CHECK(lesson_check_done(&app.lesson) == 0 && app.lesson.n_beats == 0, "the lesson is freed");
    }
    app_jobs_wait(&app);
    app_window_close(&w);
    app_free(&app);
}

int main(void) {
    setenv("SDL_VIDEODRIVER", "dummy", 1);
    setenv("SDL_RENDER_DRIVER", "software", 1);
    snprintf(model_dir, sizeof model_dir, "%s/models/tiny", check_ref_dir());
    test_reference();
    test_steps(0);
    test_steps(1);
    test_window();
    test_fails();
    return check_summary("test_app_lesson_check");
}
