/* test_lesson_run.c — replaying lessons on the tiny reference model: going to a beat
 * rebuilds exactly the same state whichever way you get there (PageUp rewinds
 * exactly), per-beat captions/questions, and model-dependent errors with FILE:LINE. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "frame_fill.h"
#include "lesson_run.h"

static char model_dir[512];

static int parse(const char *text, Lesson *l) {
    ErrorMsg err = {{0}};
    int rc = lesson_parse(l, "t.lesson", text, strlen(text), &err);
    CHECK(rc == 0, "parse: %s", err.text);
    return rc;
}

static const char *LESSON =
    "title Test\n"
    "prompt Once upon a time\n"
    "seed 3\n"
    "temperature 0.9\n"
    "caption first beat\n"
    "pause\n"
    "step 5\n"
    "layer 1\n"
    "head 2\n"
    "highlight bar 2\n"
    "caption second beat\n"
    "caption two lines\n"
    "ask What next?\n"
    "reveal\n"
    "caption revealed\n"
    "pause\n"
    "back 2\n"
    "force #13\n"
    "step 2\n"
    "panel attention\n"
    "bpe 3\n";

static void test_replay(void) {
    Session s;
    ErrorMsg err = {{0}};
    if (session_open(&s, model_dir, "assets/tokenizer", 0, GPT2_CAP_DEFAULT, &err)) {
        CHECK(0, "open: %s", err.text);
        return;
    }
    Lesson l;
    if (parse(LESSON, &l)) { session_free(&s); return; }
    CHECK(l.n_beats == 4, "4 beats, got %zu", l.n_beats);
    VizView v = frame_default_view();
    LessonBeatView bv = {0};
    CHECK(lesson_check(&l, &s, &v, &bv, &err) == 0, "check: %s", err.text);
    CHECK(bv.beat == 0 && session_len(&s) == 4 && bv.n_captions == 1 && strcmp(bv.captions[0], "first beat") == 0,
          "beat 1 state");
    CHECK(strcmp(bv.beat_label, "1 / 4") == 0, "label %s", bv.beat_label);

    CHECK(lesson_goto_beat(&l, 1, &s, &v, &bv, &err) == 0, "beat 2: %s", err.text);
    CHECK(session_len(&s) == 9 && v.layer == 1 && v.head == 2 && v.highlight_bar == 2, "beat 2 state");
    CHECK(bv.n_captions == 2 && bv.question && v.hide_probs == 1, "question open, bars hidden");
    int b2[9];
    memcpy(b2, session_ids(&s), sizeof b2);

    CHECK(lesson_goto_beat(&l, 2, &s, &v, &bv, &err) == 0, "beat 3: %s", err.text);
    CHECK(v.hide_probs == 0 && bv.question && strcmp(bv.captions[0], "revealed") == 0, "revealed");
    CHECK(v.highlight_bar == 0, "highlights belong to their beat");

    CHECK(lesson_goto_beat(&l, 3, &s, &v, &bv, &err) == 0, "beat 4: %s", err.text);
    CHECK(session_len(&s) == 10 && session_ids(&s)[7] == 13 && s.n_branches == 2, "forced branch");
    CHECK(v.focus == VIZ_PANEL_ATTENTION && v.selected_token == 3, "panel and bpe");
    CHECK(bv.n_captions == 0 && bv.question == NULL, "no captions in beat 4");

    /* PageUp: back to beat 2 gives exactly the same tokens as going forward did */
    CHECK(lesson_goto_beat(&l, 1, &s, &v, &bv, &err) == 0, "back to beat 2");
    CHECK(session_len(&s) == 9 && memcmp(session_ids(&s), b2, sizeof b2) == 0, "rewinds exactly");
    CHECK(s.n_branches == 1, "rewinding forgets later branches");
    CHECK(lesson_goto_beat(&l, 4, &s, &v, &bv, &err) == -1 && strstr(err.text, "no beat 5"), "beat out of range");
    lesson_free(&l);

    /* model-dependent errors name the file and line */
    struct { const char *text, *want; } bad[] = {
        {"prompt Hi\nlayer 2\n", "t.lesson:2: layer 2 does not exist: the model has 2 layers (0-1)"},
        {"prompt Hi\nhead 4\n", "t.lesson:2: head 4 does not exist: the model has 4 heads per layer (0-3)"},
        {"prompt Hi\nforce \" dragonfly\"\n", "t.lesson:2: force \" dragonfly\" is 2 tokens"},
        {"step 1\nprompt Hi\n", "t.lesson:1: this needs a prompt first"},
        {"prompt Hi\nhighlight token 5\n", "t.lesson:2: highlight token 5: there are only 1 tokens"},
        {"prompt Hi\nstep 200\n", "t.lesson:2: the context is full (128 tokens)"},
        {"prompt Hi\npause\nbpe 4\n", "t.lesson:3: bpe 4: the prompt has only 1 tokens"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (parse(bad[i].text, &l)) continue;
        CHECK(lesson_check(&l, &s, &v, &bv, &err) == -1, "case %zu fails", i);
        CHECK(strstr(err.text, bad[i].want) != NULL, "case %zu: '%s' should contain '%s'", i, err.text, bad[i].want);
        lesson_free(&l);
    }
    session_free(&s);
}

/* The inside-attention directives: `panel attention-math|attention-lines|heads`, `query N|all`
 * and `heads all|one|LIST` set the view each beat, are rebuilt exactly when paging back, and a
 * bad one names the line. */
static void test_attention_directives(void) {
    Session s;
    ErrorMsg err = {{0}};
    if (session_open(&s, model_dir, "assets/tokenizer", 0, GPT2_CAP_DEFAULT, &err)) {
        CHECK(0, "open: %s", err.text);
        return;
    }
    static const char *TEXT = "prompt Once upon a time there was\n"
                              "panel attention-math\nlayer 1\nhead 2\nquery 3\npause\n"
                              "panel attention-lines\nheads all\nquery all\npause\n"
                              "heads 0,3\nquery 5\npause\n"
                              "heads one\npanel heads\n";
    Lesson l;
    if (parse(TEXT, &l)) { session_free(&s); return; }
    VizView v = frame_default_view();
    LessonBeatView bv = {0};
    CHECK(lesson_check(&l, &s, &v, &bv, &err) == 0, "check: %s", err.text);
    CHECK(v.focus == VIZ_PANEL_ATTN_MATH && v.layer == 1 && v.head == 2 && v.query == 3 && v.lines_heads == 0,
          "beat 1: attention-math L1H2 query 3 (focus %d query %d)", (int)v.focus, v.query);
    CHECK(lesson_goto_beat(&l, 1, &s, &v, &bv, &err) == 0 && v.focus == VIZ_PANEL_ATTN_LINES && v.lines_heads == 0xF &&
              v.query == -1, "beat 2: attention-lines, all 4 heads, every query (heads %llx query %d)", v.lines_heads, v.query);
    CHECK(lesson_goto_beat(&l, 2, &s, &v, &bv, &err) == 0 && v.lines_heads == 0x9 && v.query == 5, "beat 3: heads 0,3, query 5");
    CHECK(lesson_goto_beat(&l, 3, &s, &v, &bv, &err) == 0 && v.focus == VIZ_PANEL_HEADS && v.lines_heads == 0, "beat 4: heads panel, one head");
    CHECK(lesson_goto_beat(&l, 0, &s, &v, &bv, &err) == 0 && v.focus == VIZ_PANEL_ATTN_MATH && v.query == 3 && v.lines_heads == 0,
          "back to beat 1: rebuilt exactly");
    lesson_free(&l);
    struct { const char *text, *want; } bad[] = {
        {"prompt Hi there\nquery 7\n", "t.lesson:2: query 7: there are only 2 tokens"},
        {"prompt Hi\nheads 0,4\n", "t.lesson:2: heads: head 4 does not exist (4 heads per layer, 0..3)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (parse(bad[i].text, &l)) continue;
        CHECK(lesson_check(&l, &s, &v, &bv, &err) == -1 && strstr(err.text, bad[i].want), "case %zu: '%s' should contain '%s'",
              i, err.text, bad[i].want);
        lesson_free(&l);
    }
    ErrorMsg e2 = {{0}};
    CHECK(lesson_parse(&l, "t.lesson", "prompt Hi\nheads some\n", strlen("prompt Hi\nheads some\n"), &e2) == -1 && strstr(e2.text, "t.lesson:2: heads takes all, one or a list"),
          "heads some: %s", e2.text);
    CHECK(lesson_parse(&l, "t.lesson", "prompt Hi\nquery x\n", strlen("prompt Hi\nquery x\n"), &e2) == -1 &&
              strstr(e2.text, "t.lesson:2: query"), "query x: %s", e2.text);
    session_free(&s);
}

/* Everything a beat shows, compared exactly: tokens, branches, dice, the records
 * (bit for bit), the newest logits, the view and the overlay. */
static int same_screen(const Session *a, const VizView *va, const LessonBeatView *ba, const Session *b,
                       const VizView *vb, const LessonBeatView *bb, int k) {
    int ok = 1;
#define SAME(cond, what) do { if (!(cond)) { CHECK(0, "beat %d: %s differs", k + 1, what); ok = 0; } } while (0)
    SAME(session_len(a) == session_len(b) &&
             memcmp(session_ids(a), session_ids(b), (size_t)session_len(a) * sizeof(int)) == 0, "tokens");
    SAME(a->n_branches == b->n_branches && a->cur == b->cur, "branch set");
    for (int i = 0; ok && i < a->n_branches; i++) {
        const SessionBranch *x = &a->branch[i], *y = &b->branch[i];
        SAME(x->len == y->len && memcmp(x->ids, y->ids, (size_t)x->len * sizeof(int)) == 0 &&
                 memcmp(x->salt, y->salt, (size_t)x->len * sizeof(uint32_t)) == 0 &&
                 memcmp(x->forced, y->forced, (size_t)x->len) == 0, "a branch");
    }
    SAME(a->seed == b->seed && a->pending_salt == b->pending_salt &&
             memcmp(&a->settings, &b->settings, sizeof a->settings) == 0, "seed, dice or settings");
    SAME(a->has_next == b->has_next && a->has_prev == b->has_prev, "records present");
    if (ok && a->has_next)
        SAME(a->next.chosen.id == b->next.chosen.id && a->next.u == b->next.u && a->next.n == b->next.n &&
                 memcmp(a->next.rows, b->next.rows, (size_t)a->next.n * sizeof a->next.rows[0]) == 0,
             "next-token record");
    if (ok && a->has_prev)
        SAME(a->prev.chosen.id == b->prev.chosen.id && a->prev.u == b->prev.u &&
                 memcmp(a->prev.rows, b->prev.rows, (size_t)a->prev.n * sizeof a->prev.rows[0]) == 0,
             "previous-token record");
    int n = session_len(a);
    if (ok && n > 0)
        SAME(memcmp(gpt2_trace_logits(&a->trace, n - 1), gpt2_trace_logits(&b->trace, n - 1),
                    (size_t)a->model.config.vocab_size * sizeof(float)) == 0, "newest logits");
    SAME(memcmp(va, vb, sizeof *va) == 0, "view");
    SAME(ba->n_captions == bb->n_captions && (ba->question == NULL) == (bb->question == NULL), "overlay");
    for (int i = 0; ok && i < ba->n_captions; i++) SAME(strcmp(ba->captions[i], bb->captions[i]) == 0, "a caption");
    if (ok && ba->question) SAME(strcmp(ba->question, bb->question) == 0, "question");
#undef SAME
    return ok;
}

static const char *RICH =
    "title Rich\nprompt Once upon a time\nseed 3\ntemperature 0.9\ncaption one\npause\n"
    "step 6\nask What next?\nreveal\ncaption revealed\npause\n"
    "back 3\nforce #13\nstep 2\nhighlight token 2\npause\n"
    "home\nstep 6\npause\n"
    "reroll\nstep 2\nlayer 1\nhead 2\npause\n"
    "prompt The little dog\ntop_k 5\nstep 4\npause\n"
    "greedy on\nstep 3\nseed 9\npause\n"
    "prompt Once upon a time\ngreedy off\ntop_p 0.8\nstep 5\nback 1\nreroll\npause\n"
    "home\nforce #11\nstep 3\npanel attention\nbpe 1\n";

/* issue 22: beats come from snapshots, and whatever order the presenter pages in,
 * each beat is exactly what a replay from the start on a fresh session shows. */
static void test_exact_rewind(void) {
    Session s;
    ErrorMsg err = {{0}};
    if (session_open(&s, model_dir, "assets/tokenizer", 0, GPT2_CAP_DEFAULT, &err)) { CHECK(0, "open: %s", err.text); return; }
    Lesson l;
    if (parse(RICH, &l)) { session_free(&s); return; }
    VizView v = frame_default_view();
    LessonBeatView bv = {0};
    CHECK(lesson_check(&l, &s, &v, &bv, &err) == 0, "check: %s", err.text);
    int n = (int)l.n_beats;
    CHECK(n == 10, "10 beats, got %d", n);
    const int order[] = {8, 0, 5, 9, 2, 7, 1, 3, 6, 4, 4, 8, 7, 0, 2, 9, 1, 6, 3, 5};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        int k = order[i];
        CHECK(lesson_goto_beat(&l, k, &s, &v, &bv, &err) == 0, "goto %d: %s", k + 1, err.text);
        /* the reference: a fresh session and a fresh parse, every beat from the start */
        Session t;
        Lesson m;
        if (session_open(&t, model_dir, "assets/tokenizer", 0, GPT2_CAP_DEFAULT, &err) || parse(RICH, &m)) {
            CHECK(0, "reference open");
            session_free(&t);
            break;
        }
        VizView w = frame_default_view();
        LessonBeatView bw = {0};
        CHECK(lesson_goto_beat(&m, k, &t, &w, &bw, &err) == 0, "reference %d: %s", k + 1, err.text);
        same_screen(&s, &v, &bv, &t, &w, &bw, k);
        lesson_free(&m);
        session_free(&t);
    }
    /* the window's keys may change the session between beats: a beat still rebuilds */
    CHECK(lesson_goto_beat(&l, 3, &s, &v, &bv, &err) == 0, "goto 4");
    int want[64], len = session_len(&s);
    memcpy(want, session_ids(&s), (size_t)len * sizeof(int));
    session_step(&s, &err);
    session_force(&s, 99, &err);
    session_set_seed(&s, 1234);
    CHECK(lesson_goto_beat(&l, 3, &s, &v, &bv, &err) == 0 && session_len(&s) == len &&
              memcmp(session_ids(&s), want, (size_t)len * sizeof(int)) == 0 && s.seed == 3,
          "beat 4 rebuilt after the presenter stepped and forced");
    lesson_free(&l);
    session_free(&s);
}

/* issue 22: a 200-beat lesson of `step 100` / `home` used to replay every earlier
 * beat (20,000 forward passes to open, more on every PageDown). Now opening runs each
 * line once and each token once; a beat is reached with no forward pass at all. */
static void test_long_lessons(void) {
    Session s;
    ErrorMsg err = {{0}};
    if (session_open(&s, model_dir, "assets/tokenizer", 0, GPT2_CAP_DEFAULT, &err)) { CHECK(0, "open: %s", err.text); return; }
    size_t cap = 64 + 200 * 24;
    char *text = malloc(cap);
    if (!text) { session_free(&s); return; }
    size_t len = (size_t)snprintf(text, cap, "prompt Once upon a time\nseed 4\ntemperature 0.9\n");
    for (int i = 0; i < 200; i++) len += (size_t)snprintf(text + len, cap - len, "step 100\nhome\npause\n");
    Lesson l;
    ErrorMsg perr = {{0}};
    CHECK(lesson_parse(&l, "long.lesson", text, len, &perr) == 0 && l.n_beats == 200, "200 beats: %s", perr.text);
    VizView v = frame_default_view();
    LessonBeatView bv = {0};
    int f0 = s.n_steps;
    long r0 = s.n_sampler_runs;
    CHECK(lesson_check(&l, &s, &v, &bv, &err) == 0, "check: %s", err.text);
    LessonReplayStats st = lesson_replay_stats(&l);
    CHECK(st.directives_applied == (long)l.n_dir, "each line ran once: %ld of %zu", st.directives_applied, l.n_dir);
    CHECK(s.n_steps - f0 <= 101, "opening ran %d forward passes (1 prompt + 100 tokens)", s.n_steps - f0);
    CHECK(s.n_sampler_runs - r0 <= 110, "opening ran the sampler %ld times (100 picks + records)", s.n_sampler_runs - r0);
    CHECK(st.branch_copies <= 3, "unchanged branches are shared: %ld copies", st.branch_copies);
    for (int k = 199; k >= 0; k -= 37) {
        int f = s.n_steps;
        long r = s.n_sampler_runs, d = lesson_replay_stats(&l).directives_applied;
        CHECK(lesson_goto_beat(&l, k, &s, &v, &bv, &err) == 0, "beat %d: %s", k + 1, err.text);
        CHECK(s.n_steps == f && lesson_replay_stats(&l).directives_applied == d && s.n_sampler_runs - r <= 2,
              "beat %d: %d forward passes, %ld lines, %ld sampler runs", k + 1, s.n_steps - f,
              lesson_replay_stats(&l).directives_applied - d, s.n_sampler_runs - r);
    }
    lesson_free(&l);

    /* 3,000 beats (the file that took 16.6 s to open): one line each beat, run once */
    free(text);
    cap = 64 + 3000 * 20;
    text = malloc(cap);
    if (!text) { session_free(&s); return; }
    len = (size_t)snprintf(text, cap, "prompt Once upon a time\n");
    for (int i = 0; i < 3000; i++) len += (size_t)snprintf(text + len, cap - len, "step 5\nback 5\npause\n");
    CHECK(lesson_parse(&l, "long.lesson", text, len, &perr) == 0 && l.n_beats == 3000, "3000 beats: %s", perr.text);
    f0 = s.n_steps;
    r0 = s.n_sampler_runs;
    CHECK(lesson_check(&l, &s, &v, &bv, &err) == 0, "check: %s", err.text);
    CHECK(lesson_replay_stats(&l).directives_applied == (long)l.n_dir, "each line ran once");
    CHECK(s.n_steps - f0 <= 6, "3000 beats: %d forward passes", s.n_steps - f0);
    CHECK(s.n_sampler_runs - r0 <= 15, "3000 beats: %ld sampler runs", s.n_sampler_runs - r0);
    CHECK(lesson_goto_beat(&l, 2999, &s, &v, &bv, &err) == 0 && session_len(&s) == 4, "last beat");
    lesson_free(&l);
    free(text);
    session_free(&s);
}

static void test_model_dir(void) {
    Lesson l;
    char dir[512], note[256];
    if (parse("model /nonexistent/gpt2-124M or-bundled\nprompt Hi\n", &l)) return;
    lesson_model_dir(&l, "assets/models/x", dir, sizeof dir, note, sizeof note);
    CHECK(strcmp(dir, "assets/models/x") == 0 && strstr(note, "make gpt2"), "fallback: %s / %s", dir, note);
    lesson_free(&l);
    if (parse("model /somewhere\nprompt Hi\n", &l)) return;
    lesson_model_dir(&l, "assets/models/x", dir, sizeof dir, note, sizeof note);
    CHECK(strcmp(dir, "/somewhere") == 0 && note[0] == 0, "explicit path: %s", dir);
    lesson_free(&l);

    /* issue 22: a relative model path is relative to the LESSON's folder, whatever the
     * current directory: a lesson in T/lessons naming ../models/m finds T/models/m */
    char root[] = "/tmp/lesson-model-XXXXXX";
    if (!mkdtemp(root)) { CHECK(0, "mkdtemp"); return; }
    char p[256], lesson_path[256];
    snprintf(p, sizeof p, "%s/lessons", root);
    mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/models", root);
    mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/models/m", root);
    mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/models/m/model.safetensors", root);
    FILE *f = fopen(p, "w");
    if (f) fclose(f);
    snprintf(lesson_path, sizeof lesson_path, "%s/lessons/x.lesson", root);
    const char *text = "model ../models/m or-bundled\nprompt Hi\n";
    ErrorMsg err = {{0}};
    CHECK(lesson_parse(&l, lesson_path, text, strlen(text), &err) == 0, "parse: %s", err.text);
    lesson_model_dir(&l, "assets/models/x", dir, sizeof dir, note, sizeof note);
    char want[300];
    snprintf(want, sizeof want, "%s/lessons/../models/m", root);
    CHECK(strcmp(dir, want) == 0 && note[0] == 0, "found beside the lesson: '%s' note '%s'", dir, note);
    lesson_free(&l);
    /* the same lesson given by a relative path: still relative to its folder */
    CHECK(lesson_parse(&l, "lessons/x.lesson", text, strlen(text), &err) == 0, "parse");
    lesson_model_dir(&l, "assets/models/x", dir, sizeof dir, note, sizeof note);
    CHECK(strcmp(dir, "assets/models/x") == 0 && strstr(note, "../models/m is not downloaded"),
          "lessons/../models/m is missing here, so the fallback: '%s'", note);
    lesson_free(&l);
    /* a lesson with no folder part: relative to the current directory */
    const char *two = "model /nonexistent or-bundled\nmodel bundled\nprompt Hi\n";
    CHECK(lesson_parse(&l, "x.lesson", two, strlen(two), &err) == 0, "parse");
    lesson_model_dir(&l, "assets/models/x", dir, sizeof dir, note, sizeof note);
    CHECK(strcmp(dir, "assets/models/x") == 0 && note[0] == 0, "a later 'model bundled' clears the fallback note");
    lesson_free(&l);
    remove(p);
    snprintf(p, sizeof p, "%s/models/m", root); rmdir(p);
    snprintf(p, sizeof p, "%s/models", root); rmdir(p);
    snprintf(p, sizeof p, "%s/lessons", root); rmdir(p);
    rmdir(root);
}

int main(void) {
    snprintf(model_dir, sizeof model_dir, "%s/models/tiny", check_ref_dir());
    test_replay();
    test_attention_directives();
    test_exact_rewind();
    test_long_lessons();
    test_model_dir();
    return check_summary("test_lesson_run");
}
