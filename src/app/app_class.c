/* app_class.c — the class room in the window (app_class.h): opening and closing it, the
 * teacher's keys, and the copy of the room the class panel draws. The room's rules are
 * src/class/'s; the model's side of a round (the truth's p, its top token, moving on)
 * comes from the session, read only on the main thread while no job runs. */
#include "app_class.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_jobs.h"
#include "class_results.h"
#include "class_score.h"
#include "class_story.h"
#include "export.h"
#include "file_write.h"
#include "gpt2_forward.h"
#include "model_vocab.h"
#include "token_stats.h"

static const char *const GAME_WORDS[2] = {"guess the text", "guess the model's pick"};

/* The model's logits for the next token after the screen's tokens, or NULL (status set). */
static const float *next_logits(AppState *app) {
    Session *s = &app->session;
    ErrorMsg err;
    if (session_len(s) < 1) return NULL;
    const float *l = gpt2_logits_at(&s->model, &s->trace, session_len(s) - 1, &err);
    if (!l) app_set_status(app, 1, "class: %s", err.text);
    return l;
}

/* 1 when the screen shows the story's first tokens and there is a next one to guess. */
static int on_story(const AppState *app) {
    const AppClass *k = app->klass;
    int n = session_len(&app->session);
    if (n >= k->n_story) return 0;
    const int *ids = session_ids(&app->session);
    for (int i = 0; i < n; i++)
        if (ids[i] != k->story[i]) return 0;
    return 1;
}

/* The story's beginning as the prompt (a job): where "guess the text" starts. */
static void story_start(AppState *app) {
    AppClass *k = app->klass;
    int n = k->n_story < CLASS_STORY_START ? k->n_story : CLASS_STORY_START;
    Action a = {.kind = ACT_PROMPT_IDS, .ids = k->story, .n_ids = (size_t)n};
    app_act(app, &a, 0);
}

static void open_round(AppState *app) {
    AppClass *k = app->klass;
    Session *s = &app->session;
    if (k->room.phase == CLASS_PHASE_OPEN) {
        app_set_status(app, 0, "class: a round is open (Y reveals it)");
        return;
    }
    if (k->game == CLASS_GAME_TEXT && !on_story(app)) {
        app_set_status(app, 1, "class: the text on screen is not the story's beginning (%s): Z twice starts it again",
                       session_len(s) >= k->n_story ? "the story is over" : "it was changed");
        return;
    }
    if (k->game == CLASS_GAME_MODEL && !s->has_next)
        {
        app_set_status(app, 1, "class: no next token to guess (the context is full)");
        return;
    }
    uint8_t *text = NULL;
    size_t len = 0;
    ErrorMsg err;
    if (session_text(s, 0, session_len(s), &text, &len, &err)) {
        app_set_status(app, 1, "class: %s", err.text);
        return;
    }
    class_server_lock(&k->srv);
    int rc = class_room_open(&k->room, k->game, session_len(s), text, len, &err);
    int round = k->room.n_rounds;
    class_server_unlock(&k->srv);
    free(text);
    if (rc) app_set_status(app, 1, "class: %s", err.text);
    else app_set_status(app, 0, "class: round %d open \xE2\x80\x94 %s (Y reveals)", round, GAME_WORDS[k->game]);
}

/* The truth of the open round: the story's next token, or the model's pending pick. */
static int round_truth(const AppState *app) {
    const AppClass *k = app->klass;
    if (k->game == CLASS_GAME_TEXT) return on_story(app) ? k->story[session_len(&app->session)] : -1;
    return app->session.has_next ? app->session.next.chosen.id : -1;
}

static int reveal(AppState *app) {
    AppClass *k = app->klass;
    const ClassRound *c = class_room_current(&k->room);
    if (k->room.phase != CLASS_PHASE_OPEN || !c) return app_set_status(app, 0, "class: no round is open"), -1;
    if (c->pos != session_len(&app->session)) {
        app_set_status(app, 1, "class: the text moved since round %d opened (at token %d)", k->room.n_rounds, c->pos);
        return -1;
    }
    int truth = round_truth(app);
    const float *logits = next_logits(app);
    TokenStat st;
    int V = session_vocab(&app->session);
    if (truth < 0 || !logits || token_stat(logits, (size_t)V, truth, &st))
        return app_set_status(app, 1, "class: cannot reveal (no truth or no next-token distribution)"), -1;
    int top = 0;
    for (int i = 1; i < V; i++)
        if (logits[i] > logits[top]) top = i;
    ErrorMsg err;
    class_server_lock(&k->srv);
    int rc = class_room_reveal(&k->room, truth, st.p, top, &err);
    class_server_unlock(&k->srv);
    if (rc) return app_set_status(app, 1, "class: %s", err.text), -1;
    app_set_status(app, 0, "class: round %d revealed (N: the next one)", k->room.n_rounds);
    return 0;
}

/* N: reveal if open; after a reveal, one token on (a job) and a round opens after it. */
static void next_round(AppState *app) {
    AppClass *k = app->klass;
    if (k->room.phase == CLASS_PHASE_OPEN && reveal(app)) return;
    if (k->room.phase != CLASS_PHASE_REVEALED) {
        open_round(app);
        return;
    }
    const ClassRound *c = class_room_current(&k->room);
    if (c->pos != session_len(&app->session))
        {
        app_set_status(app, 1, "class: the text moved since the reveal: Y opens a round here");
        return;
    }
    /* the revealed token joins the text: the model's own pick is a plain step (the same
     * dice), anything else (the story's token, a pick re-rolled since) is forced */
    const Session *s = &app->session;
    int pick = s->has_next && s->next.chosen.id == c->truth;
    Action a = {.kind = pick ? ACT_STEP : ACT_FORCE, .id = c->truth, .n = 1};
    k->pending_open = c->pos + 1;
    app_act(app, &a, 0);
}

static void switch_game(AppState *app) {
    AppClass *k = app->klass;
    if (k->room.phase == CLASS_PHASE_OPEN) {
        app_set_status(app, 1, "class: reveal the open round first (Y)");
        return;
    }
    k->game = k->game == CLASS_GAME_TEXT ? CLASS_GAME_MODEL : CLASS_GAME_TEXT;
    if (k->game == CLASS_GAME_TEXT && !on_story(app)) story_start(app);
    app_set_status(app, 0, "class: the next round is \xE2\x80\x98%s\xE2\x80\x99", GAME_WORDS[k->game]);
}

/* U: the rounds as CSV and JSON beside the figures (the teacher's act: nothing about the
 * class is written otherwise, and these files hold no nickname). */
static void export_results(AppState *app) {
    AppClass *k = app->klass;
    const char *dir = app->export_dir && *app->export_dir ? app->export_dir : EXPORT_DEFAULT_DIR;
    char csv[FILE_WRITE_PATH_MAX], json[FILE_WRITE_PATH_MAX];
    ErrorMsg err;
    if (export_make_dir(dir, &err)) {
        app_set_status(app, 1, "class export: %s", err.text);
        return;
    }
    StrBuf cb = {0}, jb = {0};
    class_server_lock(&k->srv);
    int rc = class_results_csv(&k->room, &cb) || class_results_json(&k->room, &jb);
    int rounds = k->room.n_rounds;
    class_server_unlock(&k->srv);
    if (rc) error_set(&err, "out of memory");
    else rc = class_results_write(&cb, &jb, dir, csv, json, sizeof csv, &err);
    strbuf_free(&cb);
    strbuf_free(&jb);
    if (rc) app_set_status(app, 1, "class export: %s", err.text);
    else app_set_status(app, 0, "class: %d round%s exported to %s and %s", rounds, rounds == 1 ? "" : "s", csv, json);
}

void app_class_command(AppState *app, int cmd) {
    if (cmd == CLASS_CMD_ROOM) {
        if (app->klass) {
            app_class_close(app);
            app_set_status(app, 0, "class room closed: nothing about the students was kept");
        } else {
            ErrorMsg err;
            if (app_class_open(app, app->class_address, &err)) app_set_status(app, 1, "class: %s", err.text);
        }
        app->dirty = 1;
        return;
    }
    AppClass *k = app->klass;
    if (!k) {
        app_set_status(app, 1, "no class room open: J opens one");
        return;
    }
    switch (cmd) {
    case CLASS_CMD_ROUND:
        if (k->room.phase == CLASS_PHASE_OPEN) reveal(app);
        else open_round(app);
        break;
    case CLASS_CMD_NEXT: next_round(app); break;
    case CLASS_CMD_LOCK:
        class_server_lock(&k->srv);
        class_room_lock(&k->room, !k->room.locked);
        int locked = k->room.locked;
        class_server_unlock(&k->srv);
        app_set_status(app, 0, "class: %s", locked ? "room locked: nobody new may join" : "room unlocked");
        break;
    case CLASS_CMD_CLEAR:
        class_server_lock(&k->srv);
        class_room_clear_names(&k->room);
        class_server_unlock(&k->srv);
        app_set_status(app, 0, "class: every nickname forgotten");
        break;
    case CLASS_CMD_NAMES:
        k->names_on = !k->names_on;
        app_set_status(app, 0, "class: top students by nickname %s", k->names_on ? "shown" : "hidden");
        break;
    case CLASS_CMD_GAME: switch_game(app); break;
    case CLASS_CMD_EXPORT: export_results(app); break;
    default: break;
    }
    app->dirty = 1;
}

int app_class_open(AppState *app, const char *address, ErrorMsg *err) {
    if (app->klass) return 0;
    ClassAddress addr;
    if (address ? class_address_parse(address, &addr, err) : class_address_default(&addr, err)) return -1;
    AppClass *k = calloc(1, sizeof *k);
    if (!k) return error_set(err, "out of memory");
    Session *s = &app->session;
    char desc[256];
    TokEncoding enc = {0};
    int V = session_vocab(s);
    if (model_vocab_open(&k->tok, app->model_dir, s->model.config.vocab_size, app->tok_dir, desc, sizeof desc, err) ||
        tok_encode(&k->tok, (const uint8_t *)CLASS_STORY, CLASS_STORY_LEN, NULL, &enc, err))
        goto fail;
    k->story = malloc(enc.n_ids * sizeof *k->story);
    if (!k->story) {
        error_set(err, "out of memory");
        goto fail;
    }
    if (class_panel_init(&k->panel, CLASS_MAX_STUDENTS, err)) goto fail;
    for (size_t i = 0; i < enc.n_ids; i++) k->story[i] = enc.ids[i];
    k->n_story = (int)enc.n_ids;
    class_random_code(k->code);
    if (class_room_init(&k->room, &k->tok, (size_t)V, k->code, CLASS_MAX_STUDENTS, err) ||
        class_server_start(&k->srv, &k->room, &addr, CLASS_DEVICES_PER_ADDR, err) ||
        class_qr_encode(&k->qr, k->srv.url, err))
        goto fail;
    tok_encoding_free(&enc);
    app->klass = k;
    fprintf(stderr, "class: %s code %s\n", k->srv.url, k->code);
    app_set_status(app, 0, "class room open: %s code %s%s \xC2\xB7 at most %d students", k->srv.url, k->code,
                   addr.any ? " on ALL interfaces (you asked for it)" : "", CLASS_MAX_STUDENTS);
    k->lesson_beat = -1;
    /* a lesson drives the text itself; the window alone starts the story */
    if (app->in_lesson) app_class_lesson_beat(app, app->beat.beat);
    else if (!on_story(app)) story_start(app);
    app_class_poll(app);
    return 0;
fail:
    tok_encoding_free(&enc);
    app->klass = k;
    app_class_close(app);
    return -1;
}

void app_class_lesson_beat(AppState *app, int beat) {
    AppClass *k = app->klass;
    const Lesson *l = &app->lesson;
    if (!k || !app->in_lesson || beat <= k->lesson_beat || beat < 0 || (size_t)beat >= l->n_beats) return;
    k->lesson_beat = beat;
    for (size_t i = beat ? l->beat_end[beat - 1] : 0; i < l->beat_end[beat]; i++) {
        const LessonDirective *d = &l->dir[i];
        if (d->op != LOP_CLASS) continue;
        if (d->kind == LCLASS_TEXT || d->kind == LCLASS_MODEL)
            k->game = d->kind == LCLASS_TEXT ? CLASS_GAME_TEXT : CLASS_GAME_MODEL;
        else if (d->kind == LCLASS_ROUND) open_round(app);
        else if (k->room.phase == CLASS_PHASE_OPEN) reveal(app);
    }
    app->dirty = 1;
}

void app_class_close(AppState *app) {
    AppClass *k = app->klass;
    if (!k) return;
    class_server_stop(&k->srv); /* the server thread first: then nothing reads the room */
    class_room_free(&k->room);
    class_qr_free(&k->qr);
    tok_free(&k->tok);
    free(k->story);
    class_panel_free(&k->panel);
    free(k);
    app->klass = NULL;
}

/* FNV-1a over n bytes, continuing h: has the view changed? */
static uint64_t fnv(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* Everything the panel draws from: pointers are stable, the rest are values. */
static uint64_t view_hash(const ClassPanel *p) {
    uint64_t h = fnv(1469598103934665603ull, &p->view, sizeof p->view);
    h = fnv(h, p->rows, (size_t)p->view.n_rows * sizeof p->rows[0]);
    return fnv(h, p->names, sizeof p->names);
}

int app_class_poll(AppState *app) {
    AppClass *k = app->klass;
    if (!k || app->busy) return 0;
    if (k->pending_open > 0) {
        int want = k->pending_open;
        k->pending_open = 0;
        if (session_len(&app->session) == want) open_round(app); /* else the job failed: its status stays */
    }
    uint64_t before = view_hash(&k->panel);
    /* inside_worker may be computing from the trace: the logits are read only when it is not */
    class_panel_fill(&k->panel, &k->srv, &k->room, &app->session, k->game, k->names_on,
                     !platform_job_running(&app->inside_worker), k->srv.url, k->code, k->qr.modules, k->qr.size);
    uint64_t after = view_hash(&k->panel);
    if (after != before) app->dirty = 1;
    return after != before;
}
