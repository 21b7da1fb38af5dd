/* test_lesson_expect.c — `expect` claims on the tiny reference model: every kind of
 * claim passes when true and fails when false, with "FILE:LINE: expect failed: CLAIM
 * (measured: M)". The true values are computed here independently from the trace
 * (argmax of the logits, a float64 softmax, the attention rows), not by the code
 * under test. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "frame_fill.h"
#include "head_scores.h"
#include "lesson_expect.h"
#include "lesson_run.h"

static char model_dir[512];
static Session S;

/* Runs the lesson text; returns 0 if it passed, -1 (message in err) if not. */
static int run(const char *text, ErrorMsg *err) {
    Lesson l;
    if (lesson_parse(&l, "x.lesson", text, strlen(text), err)) return -2;
    VizView v = frame_default_view();
    LessonBeatView bv = {0};
    int rc = lesson_check(&l, &S, &v, &bv, err);
    lesson_free(&l);
    return rc;
}

static void pass(const char *text) {
    ErrorMsg err = {{0}};
    int rc = run(text, &err);
    CHECK(rc == 0, "should pass:\n%s\n-> %s", text, err.text);
}

/* Must fail at line `line` with "expect failed: CLAIM (measured: ...WANT...)". */
static void fails(const char *text, int line, const char *claim, const char *want) {
    ErrorMsg err = {{0}};
    int rc = run(text, &err);
    char head[300];
    snprintf(head, sizeof head, "x.lesson:%d: expect failed: %s (measured: ", line, claim);
    CHECK(rc == -1 && strncmp(err.text, head, strlen(head)) == 0 && strstr(err.text, want) &&
              err.text[strlen(err.text) - 1] == ')',
          "should fail as '%s...%s...)', got '%s'", head, want, err.text);
}

/* A numeric claim LHS (e.g. "prob #13") about value v on "prompt Once upon a time":
 * passes within 1e-6 relative on both sides, and fails 1 % above v, showing v. */
static void pass_and_fail_near(const char *lhs, double v, const char *want_fmt) {
    char t[512], claim[128], want[96];
    snprintf(t, sizeof t, "prompt Once upon a time\nexpect %s >= %.9e\nexpect %s <= %.9e\n", lhs, v * (1 - 1e-6), lhs,
             v * (1 + 1e-6));
    pass(t);
    snprintf(claim, sizeof claim, "%s > %.9e", lhs, v * 1.01);
    snprintf(t, sizeof t, "prompt Once upon a time\nexpect %s\n", claim);
    snprintf(want, sizeof want, want_fmt, v);
    fails(t, 2, claim, want);
}

/* The state after "prompt Once upon a time / seed 5": independent measurements. */
static int argmax_id(void) {
    const float *lg = gpt2_trace_logits(&S.trace, session_len(&S) - 1);
    int best = 0;
    for (int v = 1; v < S.model.config.vocab_size; v++)
        if (lg[v] > lg[best]) best = v;
    return best;
}

static double softmax_p(int id, double T) {
    const float *lg = gpt2_trace_logits(&S.trace, session_len(&S) - 1);
    double mx = -INFINITY, sum = 0;
    for (int v = 0; v < S.model.config.vocab_size; v++) mx = fmax(mx, lg[v]);
    for (int v = 0; v < S.model.config.vocab_size; v++) sum += exp((lg[v] - mx) / T);
    return exp((lg[id] - mx) / T) / sum;
}

static void prompt_state(void) {
    ErrorMsg err;
    Lesson l;
    const char *t = "prompt Once upon a time\nseed 5\n";
    lesson_parse(&l, "p.lesson", t, strlen(t), &err);
    VizView v = frame_default_view();
    LessonBeatView bv = {0};
    lesson_check(&l, &S, &v, &bv, &err);
    lesson_free(&l);
}

static void test_next_prob_kept(void) {
    prompt_state();
    int top = argmax_id();
    int other = top == 13 ? 14 : 13;
    double p13 = softmax_p(13, 1.0);
    char t[512], claim[128], want[64];
    snprintf(t, sizeof t, "prompt Once upon a time\nseed 5\nexpect next #%d\n", top);
    pass(t);
    snprintf(t, sizeof t, "prompt Once upon a time\nseed 5\nexpect next #%d\n", other);
    snprintf(claim, sizeof claim, "next #%d", other);
    snprintf(want, sizeof want, "(id %d)", top);
    fails(t, 3, claim, want);
    /* by text: the token whose bytes are exactly TEXT */
    size_t bl = 0;
    const uint8_t *b = tok_token_bytes(&S.tok, top, &bl);
    char q[64];
    snprintf(q, sizeof q, "%.*s", (int)bl, (const char *)b);
    snprintf(t, sizeof t, "prompt Once upon a time\nexpect next \"%s\"\n", q);
    pass(t);

    /* prob: p_final at T = 1 is the softmax; with top_k 1 it is 1 for the top token */
    pass_and_fail_near("prob #13", p13, "%.6g for \".\" (id 13)");
    snprintf(t, sizeof t, "prompt Once upon a time\ntop_k 1\nexpect prob #%d = 1\nexpect prob #13 = 0\n", top);
    pass(t);
    /* temperature 2: p_final = softmax(logits / 2), also for a token far down the list */
    double p2 = softmax_p(50000, 2.0);
    snprintf(t, sizeof t, "prompt Once upon a time\ntemperature 2\nexpect prob #50000 > %.12f\nexpect prob #50000 < %.12f\n",
             p2 * (1 - 1e-6), p2 * (1 + 1e-6));
    pass(t);
    /* top-p: the kept count matches an independent count of the smallest set >= p */
    snprintf(t, sizeof t, "prompt Once upon a time\ntop_k 7\nexpect kept = 7\nexpect kept < 8\n");
    pass(t);
    fails("prompt Once upon a time\ntop_k 7\nexpect kept > 7\n", 3, "kept > 7", "7 tokens");
    char kt[128];
    snprintf(kt, sizeof kt, "prompt Once upon a time\nexpect kept = %d\n", S.model.config.vocab_size);
    pass(kt);
    pass("prompt Once upon a time\ngreedy on\nexpect kept = 1\n");
}

static void test_chosen_text_token_repeats(void) {
    pass("prompt Once upon a time\nforce #13\nexpect chosen #13\nexpect token 4 #13\nexpect token 0 Once\n");
    fails("prompt Once upon a time\nforce #13\nexpect chosen #14\n", 3, "chosen #14", "(id 13)");
    fails("prompt Once upon a time\nexpect token 3 \" upon\"\n", 2, "token 3 \" upon\"", "\" time\" (id 640)");
    pass("prompt Once upon a time\nforce \" and\"\nforce \" then\"\nexpect text \" and then\"\n");
    fails("prompt Once upon a time\nforce \" and\"\nexpect text \" or\"\n", 3, "text \" or\"", "\" and\"");
    /* 13 14 13 14 13: the longest run that occurs twice is "13 14 13" (overlapping) */
    const char *rep = "prompt Once upon a time\nforce #13\nforce #14\nforce #13\nforce #14\nforce #13\n";
    char t[512];
    snprintf(t, sizeof t, "%sexpect repeats 3\n", rep);
    pass(t);
    snprintf(t, sizeof t, "%sexpect repeats 4\n", rep);
    fails(t, 7, "repeats 4", "is 3 tokens");
    /* the prompt itself does not count: only the generated text */
    fails("prompt Once Once Once Once\nforce #13\nexpect repeats 1\n", 3, "repeats 1", "is 0 tokens");
    /* tokens: the GPT-2 tokenizer's count, no model needed */
    pass("expect tokens \"Once upon a time\" = 4\nprompt x\nexpect tokens \" hippopotamus\" >= 2\n");
    fails("prompt x\nexpect tokens \" hippopotamus\" = 1\n", 2, "tokens \" hippopotamus\" = 1",
          "3 tokens: \" hipp\"=18568 \"opot\"=43372 \"amus\"=25509");
}

/* pick = the pending draw's token: recomputed here from u and a float64 softmax */
static void test_pick_top_ids_repeats(void) {
    prompt_state();
    const float *lg = gpt2_trace_logits(&S.trace, session_len(&S) - 1);
    int V = S.model.config.vocab_size;
    double u = session_dice(5, session_len(&S), 0), mx = -INFINITY, z = 0, c = 0;
    for (int v = 0; v < V; v++) mx = fmax(mx, lg[v]);
    for (int v = 0; v < V; v++) z += exp(lg[v] - mx);
    /* walk the tokens in the sampler's order (logit descending, then id ascending: the
     * strict > keeps the lower id first), one selection pass per rank */
    static int order[60000];
    for (int v = 0; v < V; v++) order[v] = v;
    int pick = -1;
    double top3 = 0;
    for (int r = 0; r < V && (pick < 0 || r < 3); r++) {
        int best = -1;
        for (int v = 0; v < V; v++) {
            if (order[v] < 0) continue;
            if (best < 0 || lg[v] > lg[best]) best = v;
        }
        order[best] = -1;
        double p = exp(lg[best] - mx) / z;
        if (r < 3) top3 += p;
        if (pick < 0 && u < c + p) pick = best;
        c += p;
        if (r > 200 && pick < 0) break; /* u is almost never this far out; then skip the check */
    }
    char t[512], claim[96], want[64];
    if (pick >= 0) {
        snprintf(t, sizeof t, "prompt Once upon a time\nseed 5\nexpect pick #%d\n", pick);
        pass(t);
        snprintf(t, sizeof t, "prompt Once upon a time\nseed 5\nexpect pick #%d\n", pick == 13 ? 14 : 13);
        snprintf(claim, sizeof claim, "pick #%d", pick == 13 ? 14 : 13);
        snprintf(want, sizeof want, "(id %d)", pick);
        fails(t, 3, claim, want);
    }
    pass_and_fail_near("top 3", top3, "%.6g");
    pass("prompt Once upon a time\ntop_k 2\nexpect top 2 = 1\n");
    /* '=' forgives float rounding (1e-9), not a difference a caption could show */
    fails("prompt Once upon a time\ntop_k 2\nexpect top 2 = 0.999999\n", 3, "top 2 = 0.999999", "1");
    /* ids: the real GPT-2 ids of the text, no model needed */
    pass("expect ids \"Once upon a time\" 7454,2402,257,640\nprompt x\nexpect ids \"| 9 in\" 91,860,287\n");
    fails("prompt x\nexpect ids \"Once upon a time\" 91,860,287\n", 2, "ids \"Once upon a time\" 91,860,287",
          "7454,2402,257,640");
    fails("prompt x\nexpect ids \"Once upon a\" 7454,2402,257,640\n", 2, "ids \"Once upon a\" 7454,2402,257,640",
          "7454,2402,257)");
    /* repeats OP N: 13 14 13 14 13 repeats a run of 3 */
    const char *rep = "prompt Once upon a time\nforce #13\nforce #14\nforce #13\nforce #14\nforce #13\n";
    snprintf(t, sizeof t, "%sexpect repeats = 3\nexpect repeats <= 3\nexpect repeats > 2\n", rep);
    pass(t);
    snprintf(t, sizeof t, "%sexpect repeats < 3\n", rep);
    fails(t, 7, "repeats < 3", "is 3 tokens");
    pass("prompt Once upon a time\nforce #13\nforce #14\nexpect repeats <= 0\n");
}

static void test_attention(void) {
    prompt_state();
    int T = session_len(&S), L = S.model.config.n_layer, H = S.model.config.n_head;
    float pat[16 * 16];
    /* independent: the full square from the trace, mean of pat[i][i-1] over rows 1..T-1 */
    double best = -1;
    int bl = 0, bh = 0;
    double m01 = 0;
    for (int l = 0; l < L; l++)
        for (int h = 0; h < H; h++) {
            gpt2_trace_copy_pattern(&S.trace, l, h, pat);
            double m = 0;
            for (int i = 1; i < T; i++) m += pat[i * T + i - 1];
            m /= T - 1;
            if (l == 0 && h == 1) m01 = m;
            if (m > best) { best = m; bl = l; bh = h; }
        }
    gpt2_trace_copy_pattern(&S.trace, 1, 2, pat);
    double w = pat[3 * T + 1];
    char t[512], claim[128], want[64];
    snprintf(t, sizeof t, "prompt Once upon a time\nexpect attention 1 2 3 1 >= %.7f\nexpect attention 1 2 3 1 <= %.7f\n"
             "expect attention 0 1 prev >= %.7f\nexpect attention %d %d prev strongest\n",
             w - 1e-6, w + 1e-6, m01 - 1e-6, bl, bh);
    pass(t);
    snprintf(t, sizeof t, "prompt Once upon a time\nexpect attention 1 2 3 1 > %.7f\n", w + 1e-3);
    snprintf(claim, sizeof claim, "attention 1 2 3 1 > %.7f", w + 1e-3);
    snprintf(want, sizeof want, "%.4f", w);
    fails(t, 2, claim, want);
    int ol = bl == 0 ? 1 : 0;
    snprintf(t, sizeof t, "prompt Once upon a time\nexpect attention %d %d prev strongest\n", ol, bh);
    snprintf(claim, sizeof claim, "attention %d %d prev strongest", ol, bh);
    snprintf(want, sizeof want, "the strongest is L%dH%d %.4f", bl, bh, best);
    fails(t, 2, claim, want);
    /* the causal mask: a later key has weight exactly 0 */
    pass("prompt Once upon a time\nexpect attention 0 0 1 3 = 0\nexpect attention 0 0 0 0 = 1\n");
    fails("prompt Once upon a time\nexpect attention 0 0 1 3 > 0\n", 2, "attention 0 0 1 3 > 0", "0.0000");
}

/* `expect head L.H best PATTERN | L.H PATTERN OP X`: the previous-token score of every head
 * computed here from a second session's trace of the fixed probe's text (mean of pattern[i][i-1]
 * over rows 1..n-1, float64), not by head_scores_run: the best head passes, another fails
 * naming the best, a threshold passes just under the score and fails just above. */
static void test_head_claims(void) {
    ErrorMsg err = {{0}};
    HeadProbe probe = {0};
    Session P;
    memset(&P, 0, sizeof P);
    int rc = head_probe_build(&probe, &S.tok, S.model.config.n_positions, &err);
    if (rc == 0) rc = session_open(&P, model_dir, "assets/tokenizer", 0, GPT2_CAP_DEFAULT, &err);
    if (rc == 0) rc = session_set_prompt_ids(&P, probe.text_ids, (size_t)probe.n_text, &err);
    CHECK(rc == 0, "probe session: %s", err.text);
    if (rc) {
        head_probe_free(&probe);
        session_free(&P);
        return;
    }
    const int T = probe.n_text, L = S.model.config.n_layer, H = S.model.config.n_head;
    static float pat[128 * 128];
    double best = -1, score[64] = {0};
    int bl = 0, bh = 0;
    for (int l = 0; l < L; l++)
        for (int h = 0; h < H; h++) {
            gpt2_trace_copy_pattern(&P.trace, l, h, pat);
            double m = 0;
            for (int i = 1; i < T; i++) m += pat[i * T + i - 1];
            m /= T - 1;
            score[l * H + h] = m;
            if (m > best) best = m, bl = l, bh = h;
        }
    char t[512], claim[128], want[96];
    snprintf(t, sizeof t, "prompt Hi\nexpect head %d.%d best previous_token\nexpect head %d.%d previous_token >= %.6f\n"
             "expect head %d.%d previous_token <= %.6f\n", bl, bh, bl, bh, best - 1e-5, bl, bh, best + 1e-5);
    pass(t);
    int ol = bl, oh = (bh + 1) % H;
    snprintf(t, sizeof t, "prompt Hi\nexpect head %d.%d best previous_token\n", ol, oh);
    snprintf(claim, sizeof claim, "head %d.%d best previous_token", ol, oh);
    snprintf(want, sizeof want, "of L%dH%d %.3f; the best is L%dH%d %.3f", ol, oh, score[ol * H + oh], bl, bh, best);
    fails(t, 2, claim, want);
    snprintf(t, sizeof t, "prompt Hi\nexpect head %d.%d previous_token > %.6f\n", ol, oh, score[ol * H + oh] + 1e-3);
    snprintf(claim, sizeof claim, "head %d.%d previous_token > %.6f", ol, oh, score[ol * H + oh] + 1e-3);
    snprintf(want, sizeof want, "previous_token of L%dH%d %.3f", ol, oh, score[ol * H + oh]);
    fails(t, 2, claim, want);
    /* a head the model lacks, a pattern that does not exist */
    CHECK(run("prompt Hi\nexpect head 0.9 best local\n", &err) == -1 && strstr(err.text, "x.lesson:2: expect head 0.9 best local: head 9 does not exist"),
          "head 9: %s", err.text);
    CHECK(run("prompt Hi\nexpect head 0.1 best sinky\n", &err) == -2 && strstr(err.text, "x.lesson:2:") &&
              strstr(err.text, "unknown pattern 'sinky'"), "bad pattern: %s", err.text);
    CHECK(run("prompt Hi\nexpect head 01 best local\n", &err) == -2 && strstr(err.text, "layer.head"), "no dot: %s", err.text);
    head_probe_free(&probe);
    session_free(&P);
}

/* Claims that cannot be measured are errors naming the line (not silent passes). */
static void test_unmeasurable(void) {
    struct { const char *text, *want; } bad[] = {
        {"prompt Hi\nexpect attention 5 0 prev >= 0\n", "x.lesson:2: expect attention 5 0 prev >= 0: layer 5 does not exist"},
        {"prompt Hi\nexpect attention 0 9 0 0 = 1\n", "x.lesson:2: expect attention 0 9 0 0 = 1: head 9 does not exist"},
        {"prompt Hi\nexpect attention 0 0 3 0 = 1\n", "there are only 1 tokens"},
        {"prompt Hi\nexpect attention 0 0 prev >= 0\n", "needs at least 2 tokens"},
        {"prompt Hi\nexpect chosen #13\n", "x.lesson:2: expect chosen #13: no token has been generated"},
        {"prompt Hi\nexpect next \" dragonfly\"\n", "no single token is exactly \" dragonfly\""},
        {"prompt Hi\nexpect next #60000\n", "the vocabulary has only"},
        {"prompt Hi\nexpect prob \" zzqzz\" > 0\n", "x.lesson:2: expect prob \" zzqzz\" > 0: no single token is exactly"},
        {"expect next #13\nprompt Hi\n", "x.lesson:1: this needs a prompt first"},
        {"prompt Hi\nstep 127\nexpect next #13\n", "no next-token distribution (the context is full)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ErrorMsg err = {{0}};
        CHECK(run(bad[i].text, &err) == -1 && strstr(err.text, bad[i].want), "case %zu: '%s' should contain '%s'",
              i, err.text, bad[i].want);
    }
}

int main(void) {
    snprintf(model_dir, sizeof model_dir, "%s/models/tiny", check_ref_dir());
    ErrorMsg err = {{0}};
    if (session_open(&S, model_dir, "assets/tokenizer", 0, GPT2_CAP_DEFAULT, &err)) {
        CHECK(0, "open: %s", err.text);
        return check_summary("test_lesson_expect");
    }
    test_next_prob_kept();
    test_chosen_text_token_repeats();
    test_pick_top_ids_repeats();
    test_attention();
    test_unmeasurable();
    test_head_claims();
    session_free(&S);
    return check_summary("test_lesson_expect");
}
