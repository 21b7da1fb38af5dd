/* test_text_marks.c — the Text panel's numbers (src/session/text_marks.c) as frame_fill hands them
 * to viz/: every token's surprisal, p, entropy and rank against a float64 softmax written
 * here over the session's traced logits (within 1e-5), also after stepping back and
 * taking another token (the cache must follow); the seen marks and the header's share /
 * longest run against engine/ngram_index on an independently loaded index; a model
 * without an index and one with a broken index say so; `expect seen` and
 * `expect surprisal` measure the same numbers. Bundled model (stories16m). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "frame_fill.h"
#include "lesson.h"
#include "lesson_expect.h"
#include "ngram_index.h"
#include "text_marks.h"

static const char *const MODEL = "assets/models/stories16m";

static int open_at(Session *s, const char *dir) {
    ErrorMsg err = {{0}};
    int rc = session_open(s, dir, "assets/tokenizer", 0, GPT2_CAP_DEFAULT, &err);
    CHECK(rc == 0, "session_open %s: %s", dir, err.text);
    return rc;
}

/* -log2 p, entropy and rank of token id under logits l[0..V), in double from the definitions. */
static void reference(const float *l, int V, int id, double *bits, double *ent, int *rank) {
    double m = -INFINITY, z = 0, h = 0;
    for (int i = 0; i < V; i++) m = l[i] > m ? l[i] : m;
    for (int i = 0; i < V; i++) z += exp((double)l[i] - m);
    for (int i = 0; i < V; i++) {
        double p = exp((double)l[i] - m) / z;
        if (p > 0) h -= p * log2(p);
    }
    *bits = -log2(exp((double)l[id] - m) / z);
    *ent = h;
    int r = 1;
    for (int i = 0; i < V; i++) r += l[i] > l[id] || (l[i] == l[id] && i < id);
    *rank = r;
}

static void check_stats(const Session *s, VizTextMode mode, const char *what) {
    VizView v = frame_default_view();
    v.text_mode = mode;
    VizFrame f;
    frame_fill(&f, s, &v);
    CHECK(f.tok_stats != NULL, "%s: frame has per-token numbers", what);
    if (!f.tok_stats) return;
    CHECK(f.tok_stats[0].rank == 0, "%s: the first token is not measured", what);
    int bad = 0;
    double worst = 0;
    for (int i = 1; i < f.n_pos; i++) {
        double bits, ent;
        int rank;
        reference(gpt2_trace_logits(&s->trace, i - 1), session_vocab(s), f.ids[i], &bits, &ent, &rank);
        double d = fabs(f.tok_stats[i].surprisal_bits - bits);
        if (d > worst) worst = d;
        if (d > 1e-5 || fabs(f.tok_stats[i].entropy_bits - ent) > 1e-5 || f.tok_stats[i].rank != rank ||
            fabs(f.tok_stats[i].p - exp2(-bits)) > 1e-6 || f.tok_stats[i].id != f.ids[i])
            bad++;
    }
    CHECK(bad == 0, "%s: %d of %d tokens differ from the float64 reference (worst surprisal diff %.3g bits)", what,
          bad, f.n_pos - 1, worst);
}

static void test_surprisal(Session *s) {
    ErrorMsg err = {{0}};
    const char *p = "Once upon a time, there was a little girl named Lily.";
    CHECK(session_set_prompt(s, (const uint8_t *)p, strlen(p), &err) == 0, "prompt: %s", err.text);
    for (int i = 0; i < 12; i++) session_step(s, &err);
    check_stats(s, VIZ_TEXT_SURPRISAL, "prompt + 12 steps");
    VizView v = frame_default_view();
    VizFrame f;
    frame_fill(&f, s, &v);
    CHECK(f.tok_stats == NULL && f.seen == NULL, "plain mode: no marks in the frame");
    /* back 5, another token, 3 more: the cached rows after the change must be redone */
    session_back(s, 5);
    CHECK(session_force(s, 1110 /* " day" */, &err) == 0, "force: %s", err.text);
    for (int i = 0; i < 3; i++) session_step(s, &err);
    check_stats(s, VIZ_TEXT_SEEN, "after back 5, force, 3 steps");
    /* a new, longer prompt (prefilled) */
    const char *q = "One day, a little girl named Lily went to the park with her mom.";
    CHECK(session_set_prompt(s, (const uint8_t *)q, strlen(q), &err) == 0, "prompt 2: %s", err.text);
    check_stats(s, VIZ_TEXT_SURPRISAL, "second prompt");
}

static void test_seen(Session *s) {
    ErrorMsg err = {{0}};
    NgramIndex ix;
    char path[600];
    snprintf(path, sizeof path, "%s/%s", MODEL, NGRAM_INDEX_FILE);
    if (ngram_index_load(&ix, path, &err)) {
        CHECK(0, "%s", err.text);
        return;
    }
    const char *p = "Once upon a time, there was a little girl named Lily.";
    SamplerSettings greedy = sampler_settings_default();
    greedy.greedy = 1;
    CHECK(session_set_settings(s, &greedy, &err) == 0, "greedy: %s", err.text);
    CHECK(session_set_prompt(s, (const uint8_t *)p, strlen(p), &err) == 0, "prompt: %s", err.text);
    VizView v = frame_default_view();
    v.text_mode = VIZ_TEXT_SEEN;
    for (int round = 0; round < 2; round++) {
        VizFrame f;
        frame_fill(&f, s, &v);
        int n = f.n_pos, np = f.n_prompt;
        unsigned char *want = calloc((size_t)n, 1);
        NgramSummary all, gen;
        ngram_mark(&ix, f.ids, (size_t)n, want, &all);
        ngram_mark(&ix, f.ids + (n > np ? np : 0), (size_t)(n > np ? n - np : n), NULL, &gen);
        size_t seen_gen = 0;
        for (int i = n > np ? np : 0; i < n; i++) seen_gen += want[i];
        CHECK(f.seen && memcmp(f.seen, want, (size_t)n) == 0, "round %d: marks equal ngram_mark", round);
        CHECK(f.seen_n == 8 && f.seen_count == (int)seen_gen && f.seen_total == (n > np ? n - np : n) &&
                  f.seen_longest == (int)gen.longest_run,
              "round %d: summary %d/%d longest %d, want %zu/%d longest %zu", round, f.seen_count, f.seen_total,
              f.seen_longest, seen_gen, n > np ? n - np : n, gen.longest_run);
        CHECK(round == 0 || (f.seen_count == 23 && f.seen_total == 40 && f.seen_longest == 13),
              "greedy 40 tokens: 23 of 40 seen, longest 13 (as `novelty --generate 40 --greedy`): %d/%d, %d",
              f.seen_count, f.seen_total, f.seen_longest);
        free(want);
        for (int i = 0; round == 0 && i < 40; i++) session_step(s, &err);
    }
    ngram_index_free(&ix);
}

/* `expect seen` and `expect surprisal` hold exactly where the numbers say, and fail just past them. */
static void test_expect(Session *s) {
    static const char TEXT[] =
        "prompt Once upon a time, there was a little girl named Lily.\n"
        "expect seen >= 0.4\nexpect seen < 0.4\n"
        "expect surprisal 1 < 0.5\nexpect surprisal 1 > 0.5\n"
        "expect surprisal max < 5\nexpect surprisal mean > 5\n"
        "expect surprisal 99 < 1\n"
        "expect seen run >= 1\nexpect seen run > 1000\nexpect seen count >= 1\nexpect seen count < 1\n";
    Lesson l;
    ErrorMsg err = {{0}};
    if (lesson_parse(&l, "t.lesson", TEXT, sizeof TEXT - 1, &err)) {
        CHECK(0, "parse: %s", err.text);
        return;
    }
    const char *p = "Once upon a time, there was a little girl named Lily.";
    session_set_prompt(s, (const uint8_t *)p, strlen(p), &err);
    VizView v = frame_default_view();
    int want[] = {1, 0, 1, 0, 1, 0, -1, 1, 0, 1, 0}, k = 0;
    for (size_t i = 0; i < l.n_dir; i++) {
        if (l.dir[i].op != LOP_EXPECT) continue;
        char m[300];
        int r = lesson_expect_measure(&l.dir[i], s, &v, m, sizeof m, &err);
        CHECK(r == want[k], "%s: %d, want %d (measured %s)", l.dir[i].claim, r, want[k], r < 0 ? err.text : m);
        k++;
    }
    lesson_free(&l);
    static const char BAD[] = "prompt x\nexpect surprisal 0 < 1\n";
    CHECK(lesson_parse(&l, "b.lesson", BAD, sizeof BAD - 1, &err) == -1 && strstr(err.text, "b.lesson:2:"),
          "surprisal at position 0 is refused: %s", err.text);
    static const char BADS[] = "prompt x\nexpect seen run 3\n";
    CHECK(lesson_parse(&l, "b.lesson", BADS, sizeof BADS - 1, &err) == -1 && strstr(err.text, "b.lesson:2:"),
          "seen run without a comparison is refused: %s", err.text);
    static const char BADM[] = "prompt x\ntextmode bright\n";
    CHECK(lesson_parse(&l, "b.lesson", BADM, sizeof BADM - 1, &err) == -1 && strstr(err.text, "textmode"),
          "unknown textmode refused: %s", err.text);
}

static void test_no_index(void) {
    char dir[600];
    snprintf(dir, sizeof dir, "%s/models/tiny", check_ref_dir());
    Session s;
    if (open_at(&s, dir)) return;
    ErrorMsg err = {{0}};
    int ids[3] = {1, 2, 3};
    session_set_prompt_ids(&s, ids, 3, &err);
    VizView v = frame_default_view();
    v.text_mode = VIZ_TEXT_SEEN;
    VizFrame f;
    frame_fill(&f, &s, &v);
    CHECK(f.seen == NULL && f.seen_missing && strcmp(f.seen_missing, "no training-text index for this model") == 0,
          "no index: says so (%s)", f.seen_missing ? f.seen_missing : "NULL");
    CHECK(f.tok_stats != NULL, "no index: surprisal still there");
    session_free(&s);

    /* a broken index beside a copy of the tiny model */
    char tmp[] = "/tmp/inferscope-marks-XXXXXX", cmd[1400];
    if (!mkdtemp(tmp)) return;
    snprintf(cmd, sizeof cmd, "cp %s/config.json %s/model.safetensors %s/ && printf 'ISNGRAM1junk' > %s/%s", dir, dir,
             tmp, tmp, NGRAM_INDEX_FILE);
    CHECK(system(cmd) == 0, "copy the tiny model");
    if (open_at(&s, tmp) == 0) {
        session_set_prompt_ids(&s, ids, 3, &err);
        frame_fill(&f, &s, &v);
        CHECK(f.seen == NULL && f.seen_missing && strstr(f.seen_missing, "training-text index unusable") &&
                  strstr(f.seen_missing, NGRAM_INDEX_FILE),
              "broken index: names it (%s)", f.seen_missing ? f.seen_missing : "NULL");
        session_free(&s);
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    CHECK(system(cmd) == 0, "clean up");
}

int main(void) {
    Session s;
    if (open_at(&s, MODEL) == 0) {
        test_surprisal(&s);
        test_seen(&s);
        test_expect(&s);
        session_free(&s);
    }
    test_no_index();
    return check_summary("test_text_marks");
}
