/* test_app_class.c — the class room in the window (src/app/app_class.c) on the bundled
 * model, served on 127.0.0.1 only: J opens it with the story's first tokens as the
 * prompt, Y opens a round and reveals it, students' guesses (made through the room
 * under the server's lock, as the HTTP handler makes them) reach the class panel's copy
 * by a poll, the truth is the story's next token, N moves on one token and opens the
 * next round, Shift+J locks, W shows names, Shift+W forgets them, Z switches the game;
 * the panel takes the attention panel's place beside the bars; E exports it; J closes.
 * The server's own rules are test_class_room / test_class_http / test_class_server.sh. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "app_class.h"
#include "app_export.h"
#include "check.h"
#include "class_results_read.h"
#include "class_story.h"
#include "export.h"
#include "file_read.h"
#include "handout_class.h"
#include "lesson.h"
#include "lesson_handout.h"
#include "offscreen.h"

static void key(AppState *app, SDL_Keycode k, Uint16 mod) {
    AppInput in;
    memset(&in, 0, sizeof in);
    in.kind = APP_INPUT_KEY;
    in.key = k;
    in.mod = mod;
    app_update(app, &in);
}

/* A student joins with a device token made from n and a nickname, then guesses text. */
static ClassError student(AppClass *k, int n, const char *nick, const char *guess) {
    char dev[CLASS_DEVICE_LEN + 1];
    snprintf(dev, sizeof dev, "%032x", (unsigned)n + 1);
    int idx;
    class_server_lock(&k->srv);
    ClassError e = class_room_join(&k->room, dev, (const uint8_t *)k->code, strlen(k->code), (const uint8_t *)nick,
                                   strlen(nick), &idx);
    if (e == CLASS_OK) e = class_room_guess(&k->room, dev, (const uint8_t *)guess, strlen(guess), NULL);
    class_server_unlock(&k->srv);
    return e;
}

static int has_panel(const VizHits *h, VizPanel p) {
    for (int i = 0; i < h->n; i++)
        if (h->hit[i].kind == VIZ_HIT_PANEL && h->hit[i].a == (int)p) return 1;
    return 0;
}

static char *slurp(const char *path) {
    uint8_t *b = NULL;
    size_t n = 0;
    ErrorMsg err;
    return file_read_all(path, 1 << 20, &b, &n, &err) == 0 ? (char *)b : NULL;
}

/* U: the rounds as CSV and JSON (no names); the class panel as an SVG figure. Round 1
 * revealed: ',' (11), guesses ',' ',' ' dragon'. */
static void check_exports(AppState *app, AppClass *k, const char *dir) {
    key(app, SDLK_u, KMOD_NONE);
    char csv[600], json[600];
    snprintf(csv, sizeof csv, "%s/class-rounds-0001.csv", dir);
    snprintf(json, sizeof json, "%s/class-rounds-0001.json", dir);
    CHECK(!app->status_is_error && strstr(app->status, csv) && strstr(app->status, json), "U: '%s'", app->status);
    char *c = slurp(csv), *j = slurp(json);
    CHECK(c && strncmp(c, "round,game,position,truth_id,truth,guesses,right,class_top1,", 60) == 0, "CSV header");
    /* p(',') = 0.786190 (inferscope next); class bits: -log2(0.9 * 2/3 + 0.1/50257) */
    CHECK(c && strstr(c, "\n1,text,4,11,\",\",3,2,0.666667,0.736961,1.000000,0.786190,0.347050,11,1\n"), "CSV row 1: %s", c ? c : "");
    CHECK(j && strstr(j, "\"votes\": 2, \"token\": {\"id\": 11, \"text\": \",\"}") &&
              strstr(j, "\"text\": \" dragon\"") && strstr(j, "\"right\": 2"),
          "JSON: the tally and the score");
    CHECK(j && !strstr(j, "ada") && c && !strstr(c, "ada") && !strstr(j, k->room.students[0].device),
          "no nickname, no device token in the files");
    /* the JSON read back as the handout reads it (export --handout --class-results) */
    ClassResults cr;
    ErrorMsg rerr;
    int rrc = class_results_read(json, &cr, &rerr);
    CHECK(rrc == 0 && cr.n >= 1 && cr.round[0].round == 1 && cr.round[0].guesses == 3 && cr.round[0].truth &&
              strcmp(cr.round[0].truth, ",") == 0 && cr.round[0].scored && cr.round[0].right == 2 &&
              fabs(cr.round[0].class_bits - 0.736961) < 1e-9 && cr.round[0].has_model &&
              fabs(cr.round[0].model_p - 0.786190) < 1e-9 && cr.round[0].model_hit == 1,
          "the rounds' JSON reads back: round 1 ',' 3 answered, 2 right, 0.736961 bits, p 0.786190 (%s)",
          rrc ? rerr.text : "read");
    LessonHandout ho = {0};
    ho.source = strdup("12.lesson");
    ho.model = strdup("stories16m");
    CHECK(rrc == 0 && handout_class_table(&ho, &cr, &rerr) == 0, "the handout's table of the rounds");
    char *md = lesson_handout_markdown(&ho);
    CHECK(md && strstr(md, "## How the class did") &&
              strstr(md, "| 1 | guess the text | ',' | 3 | 2 (67 %) | 0.74 | 78.6 % | ',' (right) |"),
          "the handout's row of round 1: %s", md ? md : "");
    free(md);
    lesson_handout_free(&ho);
    class_results_free(&cr);
    free(c);
    free(j);
    key(app, SDLK_u, KMOD_NONE);
    snprintf(csv, sizeof csv, "%s/class-rounds-0002.csv", dir);
    CHECK(strstr(app->status, csv) != NULL, "U again: the next number, nothing overwritten: '%s'", app->status);
    const char *saved = app->export_dir;
    app->export_dir = "/proc/inferscope-no-such";
    key(app, SDLK_u, KMOD_NONE);
    CHECK(app->status_is_error && strstr(app->status, "/proc/inferscope-no-such"), "a folder that cannot be: '%s'",
          app->status);
    app->export_dir = saved;
    /* the panel as SVG: panels never know the backend */
    ExportOptions opt = export_options_default();
    opt.dir = dir;
    opt.panel = VIZ_PANEL_CLASS;
    opt.format = EXPORT_SVG;
    opt.assets_dir = "assets";
    opt.klass = &k->panel.view;
    char path[1024];
    ErrorMsg err;
    int rc = export_png(&app->session, &app->view, &opt, path, sizeof path, &err);
    char *svg = rc == 0 ? slurp(path) : NULL;
    CHECK(svg && strstr(svg, k->code) && strstr(svg, "answered") && strstr(svg, "inferscope:panel"),
          "the class panel as SVG with its code and provenance (%s)", rc ? err.text : path);
    free(svg);
}

/* The window's options on the bundled model with a room on `address` (loopback). */
static AppOptions bundled_options(const char *address) {
    AppOptions opt = app_default_options();
    opt.model_dir = "assets/models/stories16m";
    opt.tok_dir = "assets/tokenizer";
    opt.assets_dir = "assets";
    opt.class_address = address;
    return opt;
}

static void test_room_in_window(void) {
    static AppState app;
    AppOptions opt = bundled_options("127.0.0.1:0"); /* loopback only */
    char dir[] = "/tmp/test_app_class.XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "temp folder");
    opt.export_dir = dir;
    memset(&app, 0, sizeof app);
    ErrorMsg err = {{0}};
    if (app_init(&app, &opt, &err)) {
        CHECK(0, "app_init: %s", err.text);
        return;
    }
    Session *s = &app.session;

    key(&app, SDLK_y, KMOD_NONE);
    CHECK(!app.klass && app.status_is_error && strstr(app.status, "J opens one"), "Y without a room: '%s'", app.status);
    key(&app, SDLK_j, KMOD_NONE);
    AppClass *k = app.klass;
    CHECK(k != NULL, "J opens the room: '%s'", app.status);
    if (!k) goto done;
    CHECK(strncmp(k->srv.url, "http://127.0.0.1:", 17) == 0 && strstr(app.status, k->code), "status names %s and %s: '%s'",
          k->srv.url, k->code, app.status);
    CHECK(k->qr.size >= 21 && k->qr.modules && k->panel.view.qr == k->qr.modules, "a QR code of the address (%d modules)",
          k->qr.size);
    CHECK(session_len(s) == CLASS_STORY_START && memcmp(session_ids(s), k->story, CLASS_STORY_START * sizeof(int)) == 0,
          "the prompt is the story's first %d tokens (%d)", CLASS_STORY_START, session_len(s));

    key(&app, SDLK_y, KMOD_NONE);
    CHECK(k->room.phase == CLASS_PHASE_OPEN && k->room.n_rounds == 1, "Y opens round 1: '%s'", app.status);
    /* the story goes on "Once upon a time, there": ',' is its 5th token */
    CHECK(student(k, 1, "ada", ",") == CLASS_OK && student(k, 2, "bo", " , ") == CLASS_OK &&
              student(k, 3, "", "dragon") == CLASS_OK,
          "three guesses");
    CHECK(student(k, 1, "ada", "again") == CLASS_ERR_ALREADY, "one guess per device per round");
    CHECK(app_class_poll(&app) == 1 && app_class_poll(&app) == 0, "a poll sees the votes once");
    const VizClass *v = &k->panel.view;
    CHECK(v->answered == 3 && v->joined == 3 && v->phase == 1 && v->truth == -1, "3 of 3 answered, no truth yet");
    double h = -(2.0 / 3) * log2(2.0 / 3) - (1.0 / 3) * log2(1.0 / 3);
    CHECK(fabs(v->class_entropy - h) < 1e-12, "class entropy %.6f = %.6f bits (2 + 1 votes)", v->class_entropy, h);
    CHECK(v->model_entropy > 0 && v->n_fav == VIZ_CLASS_FAVS, "model entropy %.3f bits, %d favourites",
          v->model_entropy, v->n_fav);
    int votes = 0, dragon_row = -1;
    for (int i = 0; i < v->n_rows; i++) {
        votes += v->rows[i].votes;
        if (i >= v->n_fav) dragon_row = i;
        CHECK(i == 0 || i == v->n_fav || v->rows[i].votes <= v->rows[i - 1].votes || i < v->n_fav,
              "the class's other picks, most votes first");
    }
    CHECK(votes == 3, "every vote is in a row (%d)", votes);
    CHECK(dragon_row >= 0 && v->rows[dragon_row].votes == 1 && v->rows[dragon_row].model_p > 0 &&
              v->rows[dragon_row].model_rank > VIZ_CLASS_FAVS,
          "' dragon' is the class's own pick with the model's p and rank (%d)",
          dragon_row >= 0 ? v->rows[dragon_row].model_rank : -1);

    key(&app, SDLK_y, KMOD_NONE);
    app_class_poll(&app);
    int truth = k->story[CLASS_STORY_START];
    CHECK(k->room.phase == CLASS_PHASE_REVEALED && v->truth == truth && v->n_right == 2,
          "Y reveals the story's next token (%d = %d), 2 right", v->truth, truth);
    CHECK(v->score.rounds == 1 && v->score.right == 2 && v->score.guesses == 3, "score: 1 round, 2 of 3 right");

    key(&app, SDLK_n, KMOD_SHIFT);
    app_class_poll(&app);
    CHECK(v->names_on && v->n_names == 2 && strcmp(v->names[0], "ada") == 0 && v->name_right[0] == 1,
          "W: the students who were right, by nickname (%d)", v->n_names);

    /* the panel beside the bars, in place of the attention panel; E exports it */
    Offscreen off = {0};
    Viz viz = {0};
    if (offscreen_create(&off, 1280, 720, &err) || viz_init(&viz, off.renderer, "assets", 1.0f, 1.0f, THEME_LIGHT, &err)) {
        CHECK(0, "offscreen: %s", err.text);
    } else {
        CHECK(app_draw(&app, &viz, rect_make(0, 0, 1280, 720)) == 0, "draws: %s", viz.last_error.text);
        CHECK(has_panel(&app.hits, VIZ_PANEL_CLASS) && has_panel(&app.hits, VIZ_PANEL_PROBS) &&
                  !has_panel(&app.hits, VIZ_PANEL_ATTENTION),
              "the class panel takes the attention panel's place beside the bars");
    }
    viz_free(&viz);
    offscreen_free(&off);
    app.export_request = APP_EXPORT_FRAME;
    app_export(&app, 1280, 720, 1);
    CHECK(!app.status_is_error && strstr(app.status, "exported"), "E: '%s'", app.status);

    check_exports(&app, k, dir);

    key(&app, SDLK_n, KMOD_NONE);
    CHECK(app_class_poll(&app) == 1 && session_len(s) == CLASS_STORY_START + 1 && session_ids(s)[CLASS_STORY_START] == truth,
          "N: the truth joins the text (%d tokens)", session_len(s));
    CHECK(k->room.phase == CLASS_PHASE_OPEN && k->room.n_rounds == 2 && v->answered == 0, "N opens round 2: '%s'",
          app.status);
    key(&app, SDLK_z, KMOD_NONE);
    CHECK(app.status_is_error && k->game == CLASS_GAME_TEXT, "Z while a round is open: refused");

    key(&app, SDLK_j, KMOD_SHIFT);
    CHECK(k->room.locked && student(k, 9, "late", "x") == CLASS_ERR_LOCKED, "Shift+J locks: nobody new joins");
    key(&app, SDLK_n, KMOD_CTRL);
    CHECK(k->room.students[0].nick[0] == 0 && k->room.students[1].nick[0] == 0, "Shift+W forgets every nickname");

    key(&app, SDLK_n, KMOD_NONE); /* reveal round 2 (nobody answered) */
    CHECK(k->room.phase == CLASS_PHASE_REVEALED, "N reveals round 2");
    key(&app, SDLK_z, KMOD_NONE);
    CHECK(k->game == CLASS_GAME_MODEL, "Z: the model's pick next");
    key(&app, SDLK_n, KMOD_NONE);
    app_class_poll(&app);
    CHECK(k->room.n_rounds == 3 && k->room.rounds[2].game == CLASS_GAME_MODEL && k->room.phase == CLASS_PHASE_OPEN,
          "round 3 is a guess of the model's pick");
    int pick = s->next.chosen.id;
    key(&app, SDLK_y, KMOD_NONE);
    CHECK(k->room.rounds[2].truth == pick, "its truth is the model's pending pick (%d)", pick);

    key(&app, SDLK_j, KMOD_NONE);
    CHECK(app.klass == NULL && strstr(app.status, "closed"), "J closes the room: '%s'", app.status);
done:
    app_free(&app);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0, "clean up");
}

static void test_bad_address(void) {
    static AppState app;
    AppOptions opt = bundled_options("127.0.0.1:99999");
    memset(&app, 0, sizeof app);
    ErrorMsg err = {{0}};
    if (app_init(&app, &opt, &err)) {
        CHECK(0, "app_init: %s", err.text);
        return;
    }
    key(&app, SDLK_j, KMOD_NONE);
    CHECK(!app.klass && app.status_is_error && strstr(app.status, "99999"), "a bad port is one line: '%s'", app.status);
    app_free(&app);
}

/* A lesson's `class` lines: parsed (refusals name the line), the bars hidden while a
 * round is open, and in the window with a room open, each beat shown going forward
 * opens or reveals the round, once. */
static void test_lesson_rounds(void) {
    static const char *const BAD[][2] = {
        {"prompt Once upon a time\nclass reveal\n", "b.lesson:2: 'class reveal' without a 'class round' before it"},
        {"prompt Once upon a time\nclass guess\n", "b.lesson:2: class takes round, reveal, text or model, not 'guess'"},
        {"prompt Once upon a time\nclass round\n", "b.lesson:3: the file ends with a class round that is never revealed"},
        {"prompt Once upon a time\nask Next?\nclass round\n", "b.lesson:3: 'class round' before the open question"},
        {"prompt Once upon a time\nclass round\nreveal\n", "b.lesson:3: 'reveal' without a question"},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        Lesson l;
        ErrorMsg err = {{0}};
        int rc = lesson_parse(&l, "b.lesson", BAD[i][0], strlen(BAD[i][0]), &err);
        CHECK(rc == -1 && strstr(err.text, BAD[i][1]), "refused: '%s'", err.text);
        if (rc == 0) lesson_free(&l);
    }
    static AppState app;
    AppOptions opt = bundled_options("127.0.0.1:0");
    memset(&app, 0, sizeof app);
    ErrorMsg err = {{0}};
    const char *text = "prompt Once upon a time\nclass text\nclass round\npause\nclass reveal\nexpect next \",\"\n"
                       "pause\nforce \",\"\nclass model\nclass round\npause\nclass reveal\n";
    Lesson l;
    if (app_init(&app, &opt, &err) || lesson_parse(&l, "r.lesson", text, strlen(text), &err)) {
        CHECK(0, "setup: %s", err.text);
        app_free(&app);
        return;
    }
    CHECK(l.n_beats == 4, "class reveal starts a beat (%zu beats)", l.n_beats);
    if (app_lesson_start(&app, &l, "", &err)) {
        CHECK(0, "lesson: %s", err.text);
        app_free(&app);
        return;
    }
    CHECK(app.view.hide_probs == 1 && app.beat.question && strcmp(app.beat.question, LESSON_CLASS_QUESTION) == 0,
          "a class round hides the bars and asks its question (the slide, the handout)");
    CHECK(app_class_open(&app, opt.class_address, &err) == 0 && app.klass, "room: %s", err.text);
    AppClass *k = app.klass;
    if (!k) {
        app_free(&app);
        return;
    }
    CHECK(session_len(&app.session) == 4 && k->room.phase == CLASS_PHASE_OPEN && k->room.n_rounds == 1,
          "opened on beat 1: the lesson's prompt kept, round 1 open");
    CHECK(student(k, 1, "", ",") == CLASS_OK, "a guess");
    app_lesson_show(&app, 1);
    CHECK(app.view.hide_probs == 0 && app.beat.question && strcmp(app.beat.question, LESSON_CLASS_QUESTION) == 0 &&
              k->room.phase == CLASS_PHASE_REVEALED && k->room.rounds[0].truth == 11,
          "beat 2 reveals: ',' (%d)", k->room.rounds[0].truth);
    app_lesson_show(&app, 2);
    CHECK(k->room.n_rounds == 2 && k->room.phase == CLASS_PHASE_OPEN && k->room.rounds[1].game == CLASS_GAME_MODEL,
          "beat 3: a guess-the-model round at token %d", k->room.rounds[1].pos);
    app_lesson_show(&app, 1);
    CHECK(k->room.n_rounds == 2 && k->room.phase == CLASS_PHASE_OPEN, "going back opens nothing and reveals nothing");
    app_lesson_show(&app, 3);
    int truth = k->room.rounds[1].truth;
    CHECK(k->room.phase == CLASS_PHASE_REVEALED && truth >= 0, "beat 4 (new) reveals round 2: %d", truth);
    app_lesson_show(&app, 2);
    app_lesson_show(&app, 3);
    CHECK(k->room.n_rounds == 2 && k->room.phase == CLASS_PHASE_REVEALED && k->room.rounds[1].truth == truth,
          "beats 3 and 4 again: nothing opened or revealed twice");
    app_free(&app);
}

int main(void) {
    test_room_in_window();
    test_lesson_rounds();
    test_bad_address();
    return check_summary("test_app_class");
}
