/* cmd_class.c — `inferscope class`: the class room without the window. The model runs
 * here; the room (src/class/) is served on the classroom network; the teacher drives the
 * rounds from standard input (open, reveal, next, lock, unlock, clear, status, score,
 * quit) and sees the tallies and the running score on standard output. One line on
 * stderr says where to join: `class: http://ADDR:PORT/ code NNNN`. Nothing about the
 * students is written anywhere: the room ends with the program. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "class_panel.h"
#include "class_qr.h"
#include "class_results.h"
#include "class_score.h"
#include "class_server.h"
#include "class_story.h"
#include "cli.h"
#include "cli_model.h"
#include "cli_opts.h"
#include "export.h"
#include "file_write.h"
#include "frame_fill.h"
#include "gpt2_forward.h"
#include "token_stats.h"

static const char *const CMD = "class";

static void usage(void) {
    printf("usage: inferscope class [options]\n"
           "\n"
           "Opens a class room on the local network: students join on their phones with the room\n"
           "code and guess the next token; the model plays the same rounds. The teacher types\n"
           "commands on standard input:\n"
           "  open      open a round at the current position\n"
           "  reveal    show the true token, the tally and the score\n"
           "  next      reveal if needed, move on one token, open the next round\n"
           "  lock      let nobody new join (unlock: let them again)\n"
           "  clear     forget every nickname\n"
           "  status    who answered;  score: the running score;  quit (or end of input)\n"
           "  export    the class panel as a figure (PNG with provenance, and SVG) and the rounds\n"
           "            as CSV and JSON (no names) into --export-dir\n"
           "One line on stderr says where to join: class: http://ADDR:PORT/ code NNNN\n"
           "\n"
           "  --class-address ADDR:PORT   where to listen (IPv4, or [IPv6]:PORT; port 0 = any free\n"
           "                    port). Default: this machine's LAN address, port %d; never all\n"
           "                    interfaces unless you write 0.0.0.0\n"
           "  --text FILE       the text to guess (default: a short built-in story)\n"
           "  --export-dir DIR  where export writes (default %s)\n"
           "  --start N         tokens shown before the first round (default 4)\n"
           "  --game text|model guess the text's next token (default) or the model's pick\n"
           "  --class-max-students N          at most N students (default %d)\n"
           "  --class-devices-per-address N   device tokens one address may take (default %d)\n"
           "%s%s"
           "  --help            this text\n",
           CLASS_DEFAULT_PORT, EXPORT_DEFAULT_DIR, CLASS_MAX_STUDENTS, CLASS_DEVICES_PER_ADDR, CLI_MODEL_USAGE_MODEL,
           CLI_MODEL_USAGE_SAMPLER);
}

/* What the teacher's side holds besides the room. */
typedef struct Teacher {
    Session s;
    ClassRoom room;
    ClassServer srv;
    ClassGame game;
    int *text_ids;     /* (n_text) the text's tokens */
    size_t n_text;
    int *ids;          /* (cap) the tokens shown: the text's, or the model's picks */
    int pos, cap;      /* tokens shown; the most the context allows */
    ClassQr qr;        /* the join address as a QR code (the exported panel) */
    const char *export_dir;
} Teacher;

/* The most likely token (ties: lower id, the sampler's order). */
static int top_token(const float *logits, int V) {
    int best = 0;
    for (int i = 1; i < V; i++)
        if (logits[i] > logits[best]) best = i;
    return best;
}

/* The token of the current round, once it is decided: the text's, or the model's pick. */
static int round_truth(const Teacher *t) {
    return t->game == CLASS_GAME_TEXT ? t->text_ids[t->pos] : t->s.next.chosen.id;
}

static int cmd_open(Teacher *t) {
    if (t->room.phase == CLASS_PHASE_OPEN) return printf("a round is open: reveal it first\n"), 0;
    if (t->pos >= t->cap || (t->game == CLASS_GAME_TEXT && (size_t)t->pos >= t->n_text))
        return printf("the text is over (%d tokens): quit, or start again with another --text\n", t->pos), 0;
    uint8_t *text = NULL;
    size_t len = 0;
    ErrorMsg err;
    if (session_text(&t->s, 0, t->pos, &text, &len, &err)) return printf("cannot open: %s\n", err.text), -1;
    class_server_lock(&t->srv);
    int rc = class_room_open(&t->room, t->game, t->pos, text, len, &err);
    int round = t->room.n_rounds;
    class_server_unlock(&t->srv);
    size_t tail = len > 60 ? len - 60 : 0;
    if (rc) printf("cannot open: %s\n", err.text);
    else printf("round %d open: ...%.*s ___\n", round, (int)(len - tail), (const char *)text + tail);
    free(text);
    return rc;
}

static void print_token(const Tokenizer *tok, int id) {
    size_t n = 0;
    const uint8_t *b = tok_token_bytes(tok, id, &n);
    printf("'%.*s' (%d)", (int)n, b ? (const char *)b : "", id);
}

static void print_score(const ClassScore *sc) {
    if (sc->rounds == 0) {
        printf("nothing scored yet: a round counts once it is revealed with at least one guess\n");
        return;
    }
    printf("so far, %d round%s: class top-1 %.1f%% (%ld of %ld guesses), plurality %.1f%%, %.2f bits/token; "
           "model top-1 %.1f%%, %.2f bits/token\n",
           sc->rounds, sc->rounds == 1 ? "" : "s", 100 * class_score_hit_rate(sc), sc->right, sc->guesses,
           100 * class_score_plurality_rate(sc), class_score_bits(sc), 100 * class_score_model_hit_rate(sc),
           class_score_model_bits(sc));
}

/* The round's guesses by token, most chosen first (at most 8 lines). Under the lock. */
static void print_tally(const Teacher *t, const ClassRound *c) {
    int shown = 0;
    char *done = calloc((size_t)c->n_guesses + 1, 1);
    if (!done) return;
    for (int i = 0; i < c->n_guesses && shown < 8; i++) {
        if (done[i]) continue;
        int n = 0;
        for (int j = i; j < c->n_guesses; j++)
            if (c->guesses[j].g.token == c->guesses[i].g.token) n++, done[j] = 1;
        printf("  %3d x ", n);
        print_token(&t->s.tok, c->guesses[i].g.token);
        printf("%s\n", c->guesses[i].g.token == c->truth ? "  <- right" : "");
        shown++;
    }
    free(done);
}

static int cmd_reveal(Teacher *t) {
    if (t->room.phase != CLASS_PHASE_OPEN) return printf("no round is open\n"), 0;
    ErrorMsg err;
    const float *logits = gpt2_logits_at(&t->s.model, &t->s.trace, t->pos - 1, &err);
    TokenStat st;
    int truth = round_truth(t), V = session_vocab(&t->s);
    if (!logits || token_stat(logits, (size_t)V, truth, &st)) return printf("cannot reveal: the model's logits\n"), -1;
    int top = top_token(logits, V);
    class_server_lock(&t->srv);
    int rc = class_room_reveal(&t->room, truth, st.p, top, &err);
    const ClassRound *c = class_room_current(&t->room);
    ClassRoundScore one;
    ClassScore sc;
    int scored = rc == 0 && class_score_current(&t->room, &one) == 0;
    int total = class_score_room(&t->room, &sc);
    if (rc == 0) {
        printf("round %d: the truth was ", t->room.n_rounds);
        print_token(&t->s.tok, truth);
        printf("; %d guess%s; the model gave it p = %.3f (%.2f bits), its top token ", c->n_guesses,
               c->n_guesses == 1 ? "" : "es", st.p, st.surprisal_bits);
        print_token(&t->s.tok, top);
        printf("\n");
        print_tally(t, c);
        if (scored) printf("  class: %d right, %.2f bits\n", one.n_right, one.class_bits);
        if (total == 0 && sc.rounds) print_score(&sc);
    }
    class_server_unlock(&t->srv);
    if (rc) printf("cannot reveal: %s\n", err.text);
    return rc;
}

/* Moves on one token: the truth of the revealed round joins the text. */
static int advance(Teacher *t) {
    ErrorMsg err;
    int truth = round_truth(t);
    if (t->game == CLASS_GAME_MODEL) {
        if (session_step(&t->s, &err)) return printf("cannot go on: %s\n", err.text), -1;
    } else {
        t->ids[t->pos] = truth;
        if (session_set_prompt_ids(&t->s, t->ids, (size_t)t->pos + 1, &err))
            return printf("cannot go on: %s\n", err.text), -1;
    }
    t->ids[t->pos++] = truth;
    return 0;
}

static void cmd_status(Teacher *t) {
    class_server_lock(&t->srv);
    const ClassRound *c = class_room_current(&t->room);
    printf("%d student%s joined (at most %d)%s; round %d %s, %d answered; %ld requests, %ld refused\n",
           t->room.n_students, t->room.n_students == 1 ? "" : "s", t->room.max_students,
           t->room.locked ? ", room locked" : "", t->room.n_rounds,
           t->room.phase == CLASS_PHASE_OPEN ? "open" : t->room.phase == CLASS_PHASE_REVEALED ? "revealed" : "not started",
           c ? c->n_guesses : 0, t->srv.http->n_requests, t->srv.http->n_refused);
    class_server_unlock(&t->srv);
}

/* The class panel as the window draws it, as PNG (provenance) and SVG, and the rounds as
 * CSV and JSON: the teacher's explicit act, the only way anything about the class reaches
 * the disk. */
static void teacher_export(Teacher *t) {
    ClassPanel p;
    ErrorMsg err;
    StrBuf cb = {0}, jb = {0};
    const char *dir = t->export_dir ? t->export_dir : EXPORT_DEFAULT_DIR;
    if (class_panel_init(&p, t->room.max_students, &err) || export_make_dir(dir, &err)) {
        printf("cannot export: %s\n", err.text);
        class_panel_free(&p);
        return;
    }
    class_panel_fill(&p, &t->srv, &t->room, &t->s, t->game, 0, 1, t->srv.url, t->room.code, t->qr.modules,
                     t->qr.size);
    ExportOptions opt = export_options_default();
    opt.dir = dir;
    opt.panel = VIZ_PANEL_CLASS;
    opt.klass = &p.view;
    VizView view = frame_default_view();
    char path[4096], csv[FILE_WRITE_PATH_MAX], json[FILE_WRITE_PATH_MAX];
    for (int f = EXPORT_PNG; f <= EXPORT_SVG; f++) {
        opt.format = (ExportFormat)f;
        if (export_png(&t->s, &view, &opt, path, sizeof path, &err)) printf("cannot export: %s\n", err.text);
        else printf("exported %s\n", path);
    }
    class_server_lock(&t->srv);
    int rc = class_results_csv(&t->room, &cb) || class_results_json(&t->room, &jb);
    class_server_unlock(&t->srv);
    if (rc) printf("cannot export the rounds: out of memory\n");
    else if (class_results_write(&cb, &jb, dir, csv, json, sizeof csv, &err)) printf("cannot export: %s\n", err.text);
    else printf("exported %s and %s\n", csv, json);
    strbuf_free(&cb);
    strbuf_free(&jb);
    class_panel_free(&p);
}

/* Runs the teacher's commands until quit or the end of input. */
static void teacher_loop(Teacher *t) {
    char line[256];
    while (fflush(stdout), fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = 0;
        char *w = line + strspn(line, " \t");
        if (!*w) continue;
        if (!strcmp(w, "quit")) break;
        else if (!strcmp(w, "open")) cmd_open(t);
        else if (!strcmp(w, "reveal")) cmd_reveal(t);
        else if (!strcmp(w, "next")) {
            if (t->room.phase == CLASS_PHASE_OPEN && cmd_reveal(t)) continue;
            if (t->room.phase == CLASS_PHASE_REVEALED && advance(t)) continue;
            cmd_open(t);
        } else if (!strcmp(w, "lock") || !strcmp(w, "unlock")) {
            class_server_lock(&t->srv);
            class_room_lock(&t->room, w[0] == 'l');
            class_server_unlock(&t->srv);
            printf("room %s\n", w[0] == 'l' ? "locked: nobody new may join" : "unlocked");
        } else if (!strcmp(w, "clear")) {
            class_server_lock(&t->srv);
            class_room_clear_names(&t->room);
            class_server_unlock(&t->srv);
            printf("nicknames cleared\n");
        } else if (!strcmp(w, "status")) cmd_status(t);
        else if (!strcmp(w, "export")) teacher_export(t);
        else if (!strcmp(w, "score")) {
            ClassScore sc;
            class_server_lock(&t->srv);
            int rc = class_score_room(&t->room, &sc);
            class_server_unlock(&t->srv);
            if (rc == 0) print_score(&sc);
        } else printf("unknown command '%.40s' (open, reveal, next, lock, unlock, clear, status, score, export, quit)\n", w);
    }
}

static int take_game(void *ctx, const char *flag, const char *v, ErrorMsg *err) {
    ClassGame *g = ctx;
    if (!strcmp(v, "text")) *g = CLASS_GAME_TEXT;
    else if (!strcmp(v, "model")) *g = CLASS_GAME_MODEL;
    else return error_set(err, "%s: '%.40s' is not text or model", flag, v);
    return 0;
}

int cmd_class(int argc, char **argv) {
    CliModelArgs a = cli_model_args_default();
    ErrorMsg err;
    const char *address = NULL, *text_file = NULL;
    long start = CLASS_STORY_START, max_students = CLASS_MAX_STUDENTS, per_addr = CLASS_DEVICES_PER_ADDR;
    Teacher t = {.game = CLASS_GAME_TEXT};
    const CliOpt opts[] = {
        CLI_TEXT_ONCE("--class-address", &address),
        CLI_TEXT_ONCE("--text", &text_file),
        CLI_TEXT_ONCE("--export-dir", &t.export_dir),
        CLI_LONG("--start", &start, 1, 100000, NULL),
        CLI_CALL("--game", take_game, &t.game),
        CLI_LONG("--class-max-students", &max_students, 1, CLASS_MAX_STUDENTS_LIMIT, NULL),
        CLI_LONG("--class-devices-per-address", &per_addr, 1, CLASS_MAX_STUDENTS_LIMIT, NULL),
        CLI_END,
    };
    const CliArgs args = {.model = &a, .groups = CLI_OPT_MODEL | CLI_OPT_SAMPLER, .usage = usage};
    int r = cli_parse_command(argc, argv, opts, &args, &err);
    if (r) return r == CLI_PARSE_HELP ? 0 : cli_fail(CMD, "%s", err.text);
    ClassAddress addr;
    if (address ? class_address_parse(address, &addr, &err) : class_address_default(&addr, &err))
        return cli_fail(CMD, "%s", err.text);

    CliBytes in = {0};
    if (text_file && cli_read_file(text_file, &in, &err)) return cli_fail(CMD, "%s", err.text);
    const uint8_t *text = text_file ? in.data : (const uint8_t *)CLASS_STORY;
    size_t text_len = text_file ? in.len : CLASS_STORY_LEN;
    const char *text_name = text_file ? text_file : "the built-in story";
    int status = 0;
    TokEncoding enc = {0};
    if (cli_model_open(&a, &t.s, 0, GPT2_CAP_DEFAULT, &err)) {
        cli_bytes_free(&in);
        return cli_fail(CMD, "%s", err.text);
    }
    if (tok_encode(&t.s.tok, text, text_len, NULL, &enc, &err)) {
        status = cli_fail(CMD, "%s: %s", text_name, err.text);
        goto done;
    }
    t.n_text = enc.n_ids;
    t.cap = t.s.trace.max_pos;
    if ((size_t)start >= t.n_text || start >= t.cap) {
        status = cli_fail(CMD, "--start %ld: %s has %zu tokens (and the context %d): nothing left to guess", start,
                          text_name, t.n_text, t.cap);
        goto done;
    }
    t.text_ids = enc.ids;
    t.ids = malloc((size_t)t.cap * sizeof *t.ids);
    if (!t.ids) {
        status = cli_fail(CMD, "out of memory");
        goto done;
    }
    memcpy(t.ids, enc.ids, (size_t)start * sizeof *t.ids);
    t.pos = (int)start;
    if (session_set_prompt_ids(&t.s, t.ids, (size_t)t.pos, &err)) {
        status = cli_fail(CMD, "%s", err.text);
        goto done;
    }
    char code[CLASS_CODE_LEN + 1];
    class_random_code(code);
    if (class_room_init(&t.room, &t.s.tok, (size_t)session_vocab(&t.s), code, (int)max_students, &err) ||
        class_server_start(&t.srv, &t.room, &addr, (int)per_addr, &err) || class_qr_encode(&t.qr, t.srv.url, &err)) {
        status = cli_fail(CMD, "%s", err.text);
        goto done;
    }
    fprintf(stderr, "class: %s code %s\n", t.srv.url, code);
    printf("class room open%s: at most %ld students, %ld devices per address; game: guess the %s\n"
           "commands: open, reveal, next, lock, unlock, clear, status, score, export, quit\n",
           addr.any ? " on ALL interfaces (you asked for it)" : "", max_students, per_addr,
           t.game == CLASS_GAME_TEXT ? "text" : "model's pick");
    if (t.game == CLASS_GAME_MODEL) cli_report_seed(a.seed);
    teacher_loop(&t);
    class_server_stop(&t.srv);
    ClassScore sc;
    if (class_score_room(&t.room, &sc) == 0 && sc.rounds) print_score(&sc);
done:
    class_server_stop(&t.srv);
    class_qr_free(&t.qr);
    class_room_free(&t.room);
    free(t.ids);
    tok_encoding_free(&enc);
    session_free(&t.s);
    cli_bytes_free(&in);
    return status;
}
