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
    test_model_dir();
    return check_summary("test_lesson_run");
}
