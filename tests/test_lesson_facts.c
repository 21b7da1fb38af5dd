/* test_lesson_facts.c — live numbers in lesson captions ({step_ms}, {params},
 * {gpt2 SIZE} ...) on the tiny reference model: the published GPT-2 shapes and a FLOP
 * count worked out by hand, formatting and cutting, a timing probe that leaves the
 * session exactly as it was, one measurement shared by all captions of a slide, a GPT-2
 * size downloaded beside the running model timed by its own short decode (and a folder
 * of that name holding another shape not), and unknown placeholders reported with
 * FILE:LINE. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "gpt2_save.h"
#include "lesson_facts.h"

static char model_dir[512];

/* Live numbers: the published GPT-2 counts, and a timing probe that leaves no trace. */
static void test_facts(Session *s) {
    Gpt2Config g;
    CHECK(lesson_facts_gpt2_shape("124M", 4, &g) == 0 && g.n_layer == 12 && g.n_head == 12 && g.n_embd == 768,
          "124M shape");
    /* 12*(24*768^2 + 4*768) + 2*768*50257, worked out by hand */
    CHECK(lesson_facts_flops(&g, 0) == 247100928.0, "FLOPs of GPT-2 124M at position 0: %.0f", lesson_facts_flops(&g, 0));
    CHECK(lesson_facts_gpt2_shape("1558M", 5, &g) == 3 && g.n_layer == 48 && g.n_embd == 1600, "1558M shape");
    CHECK(lesson_facts_gpt2_shape("2B", 2, &g) == -1, "unknown size");

    ErrorMsg err;
    if (session_set_prompt(s, (const uint8_t *)"Once upon a time", 16, &err)) { CHECK(0, "%s", err.text); return; }
    SamplerRecord before = s->next;
    int n = session_len(s);
    char out[320], msg[200];
    CHECK(lesson_facts_format("{model}: {layers} layers x {heads} heads, {{braces}, {step_ms}", s, NULL, out, sizeof out, msg,
                              sizeof msg) == 0, "format: %s", msg);
    CHECK(strncmp(out, "tiny: 2 layers x 4 heads, {braces}, ", 36) == 0 && strstr(out, " ms"), "formatted: '%s'", out);
    CHECK(session_len(s) == n && memcmp(&before, &s->next, sizeof before) == 0, "the probe changes nothing shown");
    CHECK(lesson_facts_format("{gpt2 124M}", s, NULL, out, sizeof out, msg, sizeof msg) == 0 &&
          strstr(out, "GPT-2 124M: 12 layers \xC3\x97 12 heads, 124 M parameters, 247 MFLOP per token") &&
          strstr(out, "(estimate)"), "a size that is not running is an estimate: '%s'", out);
    /* a step after the probe gives the same token as a step without one */
    ErrorMsg e2;
    int want_id = s->next.chosen.id;
    CHECK(session_step(s, &e2) == 0 && session_ids(s)[n] == want_id, "step after the probe");
    /* cut short: never half a character */
    CHECK(lesson_facts_format("{gpt2 124M}", s, NULL, out, 14, msg, sizeof msg) == 0 && strcmp(out, "GPT-2 124M: 1") == 0,
          "cut: '%s'", out);
    CHECK(lesson_facts_format("\xC3\x97\xC3\x97", s, NULL, out, 4, msg, sizeof msg) == 0 && strcmp(out, "\xC3\x97") == 0,
          "cut between characters");
}


/* The placeholders of a whole lesson are checked after parsing, naming the line. */
static void test_check(void) {
    Lesson l;
    ErrorMsg err = {{0}};
    const char *good = "prompt Hi\ncaption {params} {{literal} {gpt2 774M}\n";
    CHECK(lesson_parse(&l, "t.lesson", good, strlen(good), &err) == 0 && lesson_facts_check(&l, &err) == 0,
          "good placeholders: %s", err.text);
    lesson_free(&l);
    const char *bad[][2] = {
        {"prompt Hi\ncaption ok\ncaption {stepms}\n", "t.lesson:3: unknown placeholder '{stepms}'"},
        {"prompt Hi\ncaption {gpt2 2B}\n", "t.lesson:2: unknown placeholder '{gpt2 2B}'"},
        {"prompt Hi\ncaption {gpt2}\n", "t.lesson:2: unknown placeholder '{gpt2}'"},
        {"prompt Hi\ncaption {params 124M}\n", "t.lesson:2: unknown placeholder"},
        {"prompt Hi\ncaption {params\n", "t.lesson:2: unknown placeholder '{params'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(lesson_parse(&l, "t.lesson", bad[i][0], strlen(bad[i][0]), &err) == 0, "parse %zu", i);
        CHECK(lesson_facts_check(&l, &err) == -1 && strstr(err.text, bad[i][1]), "case %zu: '%s'", i, err.text);
        lesson_free(&l);
    }
}

/* All captions of one slide share one timing: the {step_ms} of two lines agree, and the
 * fallback note comes first. */
static void test_captions(Session *s) {
    LessonBeatView bv = {0};
    snprintf(bv.note, sizeof bv.note, "note");
    bv.captions[0] = "a {step_ms}";
    bv.captions[1] = "plain";
    bv.captions[2] = "b {step_ms}";
    bv.n_captions = 3;
    LessonCaptions lc;
    char msg[200];
    CHECK(lesson_facts_captions(&bv, s, NULL, &lc, msg, sizeof msg) == 0, "captions: %s", msg);
    CHECK(lc.facts.measured == 1, "the slide was timed once");
    CHECK(lc.n == 4 && strcmp(lc.line[0], "note") == 0 && lc.line[2] == bv.captions[1], "lines: %d", lc.n);
    CHECK(lc.n == 4 && strcmp(lc.line[1] + 2, lc.line[3] + 2) == 0, "one timing per slide: '%s' vs '%s'", lc.line[1],
          lc.line[3]);
    /* shared across slides: a second slide reuses the first one's timing exactly */
    LessonFacts run = {.step_ms = -1.0};
    CHECK(lesson_facts_captions(&bv, s, &run, &lc, msg, sizeof msg) == 0 && run.measured == 1, "shared: %s", msg);
    char first[64];
    snprintf(first, sizeof first, "%s", lc.line[1]);
    run.step_ms = 123.0; /* a value no probe measures: proves the second slide does not re-time */
    CHECK(lesson_facts_captions(&bv, s, &run, &lc, msg, sizeof msg) == 0 && strcmp(lc.line[1], "a 123 ms") == 0,
          "second slide reuses the timing: '%s' (first '%s')", lc.line[1], first);
    bv.captions[1] = "{nope}";
    CHECK(lesson_facts_captions(&bv, s, NULL, &lc, msg, sizeof msg) == -1 && strstr(msg, "{nope}"), "bad one: %s", msg);
}

/* {gpt2 SIZE} for a downloaded size is timed on that model, not estimated. In a folder
 * of its own (the working directory moves there, so models/ is the test's): the session
 * runs the tiny model from run/tiny; models/gpt2-124M holds a random 124M-shaped F16 model
 * (250 MB, written here), found from the working directory as `make gpt2 SIZE=124M` puts
 * it, and then beside the running model (run/gpt2-124M, from run/ where there is no
 * models/); run/gpt2-355M holds the tiny model (another shape: still an estimate);
 * gpt2-774M is nowhere (an estimate). */
static void test_size_folders(void) {
    char root[] = "/tmp/test_lesson_facts_XXXXXX", tiny[PATH_MAX], cwd[PATH_MAX], p[8][700];
    if (!getcwd(cwd, sizeof cwd) || !mkdtemp(root) || !realpath(model_dir, tiny)) {
        CHECK(0, "getcwd / mkdtemp / realpath %s", model_dir);
        return;
    }
    const char *rel[8] = {"run", "models", "run/tiny", "models/gpt2-124M", "run/gpt2-355M", "run/gpt2-124M",
                          "models/gpt2-124M/model.safetensors", "models/gpt2-124M/config.json"};
    for (int i = 0; i < 8; i++) snprintf(p[i], sizeof p[i], "%s/%s", root, rel[i]);
    Gpt2Config g124;
    lesson_facts_gpt2_shape("124M", 4, &g124);
    Gpt2Model m;
    ErrorMsg err = {{0}};
    int made = mkdir(p[0], 0700) == 0 && mkdir(p[1], 0700) == 0 && symlink(tiny, p[2]) == 0 &&
               symlink(tiny, p[4]) == 0 && gpt2_model_init_random_as(&m, &g124, 5, KERN_F16, &err) == 0;
    if (made) {
        made = gpt2_model_save(&m, p[3], &err) == 0;
        gpt2_model_free(&m);
    }
    CHECK(made, "the model folders: %s", err.text);
    Session s;
    if (made && session_open(&s, p[2], "assets/tokenizer", 0, GPT2_CAP_DEFAULT, &err) == 0) {
        CHECK(session_set_prompt(&s, (const uint8_t *)"Once upon a time", 16, &err) == 0, "prompt: %s", err.text);
        /* the timing itself: the folder's own model, only when it has the shape asked for */
        CHECK(session_probe_folder_ms(tiny, &g124, 3) == -1.0, "the tiny model does not time as 124M");
        CHECK(session_probe_folder_ms(tiny, &s.model.config, 3) > 0.0, "the tiny model times as itself");
        CHECK(session_probe_folder_ms(root, &g124, 3) == -1.0 && session_probe_folder_ms(p[3], &g124, 0) == -1.0,
              "no model in the folder, or no probes: -1");
        const char *want = " per token here (measured: a short decode of gpt2-124M)";
        char out[320], msg[200];
        LessonFacts f = {.step_ms = -1.0};
        CHECK(chdir(root) == 0 && lesson_facts_format("{gpt2 124M}", &s, &f, out, sizeof out, msg, sizeof msg) == 0 &&
                  strstr(out, "GPT-2 124M: 12 layers \xC3\x97 12 heads, 124 M parameters, 247 MFLOP per token: ") &&
                  strstr(out, want) && !strstr(out, "estimate"),
              "a size in models/ is measured: '%s'", out);
        CHECK(f.size_state[0] == 1 && f.size_ms[0] > 0.0, "its timing is kept: %d %g", f.size_state[0], f.size_ms[0]);
        CHECK(lesson_facts_format("{gpt2 355M}|{gpt2 774M}", &s, &f, out, sizeof out, msg, sizeof msg) == 0 &&
                  strstr(out, "GPT-2 355M") && strstr(out, "(estimate)|GPT-2 774M") &&
                  strstr(strstr(out, "|"), "(estimate)") && !strstr(out, "measured"),
              "another shape in gpt2-355M, and no gpt2-774M: estimates: '%s'", out);
        CHECK(f.size_state[1] == -1 && f.size_state[2] == -1, "looked for once: %d %d", f.size_state[1],
              f.size_state[2]);
        f.size_ms[0] = 4321.0; /* a value no decode measures: the slide reuses its timing */
        CHECK(lesson_facts_format("{gpt2 124M}", &s, &f, out, sizeof out, msg, sizeof msg) == 0 &&
                  strstr(out, ": 4.32 s per token here (measured: a short decode of gpt2-124M)"),
              "one timing per slide: '%s'", out);
        LessonFacts g = {.step_ms = -1.0}; /* beside the running model, from where models/ is not */
        CHECK(symlink(p[3], p[5]) == 0 && chdir(p[0]) == 0 &&
                  lesson_facts_format("{gpt2 124M}", &s, &g, out, sizeof out, msg, sizeof msg) == 0 &&
                  strstr(out, want) && g.size_state[0] == 1,
              "a size beside the running model is measured: '%s'", out);
        CHECK(chdir(cwd) == 0, "back to %s", cwd);
        session_free(&s);
    } else if (made) {
        CHECK(0, "open %s: %s", p[2], err.text);
    }
    for (int i = 7; i >= 2; i--) unlink(p[i]);
    for (int i = 3; i >= 0; i -= 2) rmdir(p[i]);
    rmdir(p[0]);
    CHECK(rmdir(root) == 0, "the test's folder %s is left empty", root);
}

int main(void) {
    snprintf(model_dir, sizeof model_dir, "%s/models/tiny", check_ref_dir());
    test_check();
    Session s;
    ErrorMsg err = {{0}};
    if (session_open(&s, model_dir, "assets/tokenizer", 0, GPT2_CAP_DEFAULT, &err)) {
        CHECK(0, "open: %s", err.text);
        return check_summary("test_lesson_facts");
    }
    test_facts(&s);
    test_captions(&s);
    session_free(&s);
    test_size_folders();
    return check_summary("test_lesson_facts");
}
