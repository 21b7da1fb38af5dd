/* test_session.c — the session state machine on the reference tiny model: prompt,
 * step, back (no forward pass), replay, branch, switch, settings with the same dice,
 * determinism across sessions, and the errors a user can run into. */
#include <string.h>

#include "check.h"
#include "session.h"

static char model_dir[512];

static int open_session(Session *s, int max_pos) {
    ErrorMsg err = {{0}};
    int rc = session_open(s, model_dir, "assets/tokenizer", max_pos, GPT2_CAP_DEFAULT, &err);
    CHECK(rc == 0, "session_open: %s", err.text);
    return rc;
}

static const uint8_t PROMPT[] = "Once upon a time";

static void test_prompt_and_steps(void) {
    Session s, t;
    if (open_session(&s, 0) || open_session(&t, 0)) return;
    ErrorMsg err = {{0}};
    CHECK(session_set_prompt(&s, PROMPT, sizeof PROMPT - 1, &err) == 0, "prompt: %s", err.text);
    const int want[4] = {7454, 2402, 257, 640};
    CHECK(session_len(&s) == 4 && s.n_prompt == 4, "4 prompt tokens");
    CHECK(memcmp(session_ids(&s), want, sizeof want) == 0, "prompt ids");
    CHECK(s.has_next && !s.has_prev, "a pending draw, no previous one");
    CHECK(s.prompt_enc.n_pieces == 4 && s.prompt_enc.n_merges > 0, "prompt pieces and merges recorded");

    session_set_seed(&s, 42);
    for (int i = 0; i < 20; i++) {
        int expect = s.next.chosen.id;
        CHECK(session_step(&s, &err) == 0, "step %d: %s", i, err.text);
        CHECK(session_ids(&s)[session_len(&s) - 1] == expect, "step %d appends the previewed pick", i);
    }
    CHECK(session_len(&s) == 24 && session_step_index(&s) == 20, "20 steps");
    CHECK(s.has_prev && s.prev.chosen.id == session_ids(&s)[23], "prev record explains the newest token");

    /* same seed, another session: the same tokens */
    session_set_seed(&t, 42);
    session_set_prompt(&t, PROMPT, sizeof PROMPT - 1, &err);
    for (int i = 0; i < 20; i++) session_step(&t, &err);
    CHECK(memcmp(session_ids(&s), session_ids(&t), 24 * sizeof(int)) == 0, "same seed, same 24 tokens");

    /* step back: no forward pass, the pending draw is the one that chose the old token */
    int saved[24];
    memcpy(saved, session_ids(&s), sizeof saved);
    int steps_before = s.n_steps;
    CHECK(session_back(&s, 5) == 5 && session_len(&s) == 19, "back 5");
    CHECK(s.n_steps == steps_before, "stepping back runs no forward pass");
    CHECK(s.next.chosen.id == saved[19], "the same dice pick the same token again");
    for (int i = 0; i < 5; i++) session_step(&s, &err);
    CHECK(memcmp(session_ids(&s), saved, sizeof saved) == 0, "replaying gives the same tokens");
    CHECK(s.n_branches == 1, "replay makes no branch");

    /* KV cache after back+step equals the first computation: compare with session t */
    const float *a = gpt2_trace_logits(&s.trace, 23), *b = gpt2_trace_logits(&t.trace, 23);
    float md = 0;
    for (int v = 0; v < s.model.config.vocab_size; v++) {
        float d = a[v] - b[v];
        if (d < 0) d = -d;
        if (d > md) md = d;
    }
    CHECK(md <= 1e-5f, "logits after back+replay equal a fresh run (max diff %g)", md);

    /* a branch: force a different token at position 10 */
    session_back(&s, 14);
    int other = saved[10] == 13 ? 14 : 13;
    CHECK(session_force(&s, other, &err) == 0, "force: %s", err.text);
    CHECK(s.n_branches == 2 && s.cur == 1, "forcing made branch 2");
    CHECK(session_ids(&s)[10] == other && session_len(&s) == 11, "the forced token is appended");
    session_step(&s, &err);
    session_step(&s, &err);
    CHECK(session_switch_branch(&s, 0, &err) == 0, "switch back: %s", err.text);
    CHECK(session_len(&s) == 24 && memcmp(session_ids(&s), saved, sizeof saved) == 0, "branch 1 is intact");
    CHECK(session_switch_branch(&s, 1, &err) == 0 && session_len(&s) == 13 && session_ids(&s)[10] == other,
          "branch 2 is intact");
    CHECK(session_switch_branch(&s, 5, &err) == -1 && strstr(err.text, "no branch 6"), "bad branch: %s", err.text);
    /* the forced token is replayed, not re-sampled */
    session_back(&s, 3);
    session_step(&s, &err);
    CHECK(session_ids(&s)[10] == other && s.n_branches == 2, "forced token replayed");

    /* settings: same logits, same dice; greedy = argmax */
    session_home(&s);
    CHECK(session_len(&s) == 4, "home");
    double u = s.next.u;
    SamplerSettings g = sampler_settings_default();
    g.greedy = 1;
    CHECK(session_set_settings(&s, &g, &err) == 0, "greedy settings");
    CHECK(s.next.chosen.rank == 0, "greedy picks rank 0");
    SamplerSettings hot = sampler_settings_default();
    hot.temperature = 2.0f;
    session_set_settings(&s, &hot, &err);
    CHECK(s.next.u == u, "the dice stay when settings change");
    SamplerSettings bad = sampler_settings_default();
    bad.top_p = 2.0f;
    CHECK(session_set_settings(&s, &bad, &err) == -1 && strstr(err.text, "top_p"), "bad settings: %s", err.text);
    CHECK(s.settings.temperature == 2.0f, "bad settings change nothing");

    /* reroll: new dice, no forward pass */
    steps_before = s.n_steps;
    session_reroll(&s);
    CHECK(s.next.u != u && s.n_steps == steps_before, "reroll changes u only");

    session_free(&s);
    session_free(&t);
}

/* Redo rows: stepping over the same tokens again, or setting the same prompt again,
 * runs no forward pass and leaves exactly (bit for bit) what a session that never
 * stepped back computes; a different token recomputes from there on. */
static void test_redo(void) {
    Session s, t;
    if (open_session(&s, 0) || open_session(&t, 0)) return;
    ErrorMsg err = {{0}};
    session_set_seed(&s, 7);
    session_set_seed(&t, 7);
    session_set_prompt(&s, PROMPT, sizeof PROMPT - 1, &err);
    session_set_prompt(&t, PROMPT, sizeof PROMPT - 1, &err);
    for (int i = 0; i < 30; i++) session_step(&t, &err);
    for (int i = 0; i < 12; i++) session_step(&s, &err);
    session_home(&s);
    int f = s.n_steps;
    long r = s.n_sampler_runs, g = s.threads.n_steps[0] + s.threads.n_steps[1];
    for (int i = 0; i < 12; i++) session_step(&s, &err);
    CHECK(s.n_steps == f, "12 tokens again: %d forward passes", s.n_steps - f);
    /* one run a step: the record that chose the token is the pending record it was */
    CHECK(s.n_sampler_runs - r == 12, "no pick to redo either: only the next records (%ld runs)", s.n_sampler_runs - r);
    CHECK(session_set_prompt(&s, PROMPT, sizeof PROMPT - 1, &err) == 0 && s.n_steps == f && session_len(&s) == 4,
          "the same prompt again: no prefill");
    for (int i = 0; i < 30; i++) session_step(&s, &err);
    CHECK(s.n_steps == f + 18, "only the 18 new tokens were computed (%d)", s.n_steps - f);
    /* the thread governor timed exactly those steps (it counts none with one thread) */
    long timed = s.threads.n_steps[0] + s.threads.n_steps[1] - g;
    CHECK(timed == (s.threads.most > 1 ? 18 : 0), "the thread governor timed %ld steps, want %d (most %d)", timed,
          s.threads.most > 1 ? 18 : 0, s.threads.most);
    CHECK(memcmp(session_ids(&s), session_ids(&t), 34 * sizeof(int)) == 0, "same tokens as the straight run");
    int same = 1;
    for (int p = 0; p < 34; p++)
        same &= memcmp(gpt2_trace_logits(&s.trace, p), gpt2_trace_logits(&t.trace, p),
                       (size_t)s.model.config.vocab_size * sizeof(float)) == 0;
    CHECK(same, "redo rows are bit for bit the straight run's logits");
    CHECK(memcmp(s.next.rows, t.next.rows, (size_t)s.next.n * sizeof s.next.rows[0]) == 0, "the same next record");
    /* another token at position 10: recomputed, and later rows are no longer redo rows */
    session_back(&s, 24);
    int other = session_ids(&t)[10] == 13 ? 14 : 13;
    f = s.n_steps;
    session_force(&s, other, &err);
    CHECK(s.n_steps == f + 1 && s.memo_len == 11, "a different token is computed (memo %d)", s.memo_len);
    session_back(&s, 1);
    session_force(&s, session_ids(&t)[10], &err);
    CHECK(s.n_steps == f + 2, "and the old token again too: its row was overwritten");
    /* a timing probe at position 4 overwrites row 4 (with the likeliest token): the
     * redo rows after it must not be reused */
    session_home(&s);
    int probe_id = s.next.rows[0].id;
    CHECK(session_probe_step_ms(&s, 3) >= 0 && session_len(&s) == 4, "probe leaves 4 tokens on screen");
    CHECK(s.memo_len == 5, "only row 4 (the probe token) is a redo row now: %d", s.memo_len);
    f = s.n_steps;
    session_step(&s, &err);
    session_step(&s, &err);
    CHECK(session_ids(&s)[4] != probe_id || s.n_steps >= f + 1, "steps after a probe are computed");
    CHECK(memcmp(session_ids(&s), session_ids(&t), 6 * sizeof(int)) == 0 &&
              memcmp(gpt2_trace_logits(&s.trace, 5), gpt2_trace_logits(&t.trace, 5),
                     (size_t)s.model.config.vocab_size * sizeof(float)) == 0,
          "and equal the straight run bit for bit");
    /* a prompt that differs: the prefill runs */
    f = s.n_steps;
    const uint8_t other_prompt[] = "Once upon a";
    session_set_prompt(&s, other_prompt, sizeof other_prompt - 1, &err);
    CHECK(s.n_steps == f + 1, "a shorter prompt is prefilled again (rows of a longer prefill differ)");
    /* batch: records computed once at the end, and the same as without a batch */
    session_set_prompt(&t, PROMPT, sizeof PROMPT - 1, &err);
    r = t.n_sampler_runs;
    session_batch_begin(&t);
    SamplerSettings hot = sampler_settings_default();
    hot.temperature = 1.5f;
    session_set_settings(&t, &hot, &err);
    session_set_seed(&t, 99);
    for (int i = 0; i < 5; i++) session_step(&t, &err);
    session_batch_end(&t);
    Session u;
    if (open_session(&u, 0) == 0) {
        session_set_prompt(&u, PROMPT, sizeof PROMPT - 1, &err);
        session_set_settings(&u, &hot, &err);
        session_set_seed(&u, 99);
        for (int i = 0; i < 5; i++) session_step(&u, &err);
        CHECK(memcmp(session_ids(&t), session_ids(&u), 9 * sizeof(int)) == 0 && t.next.u == u.next.u &&
                  memcmp(t.next.rows, u.next.rows, (size_t)t.next.n * sizeof t.next.rows[0]) == 0 &&
                  t.prev.chosen.id == u.prev.chosen.id,
              "a batch gives the same tokens and records");
        /* u's prev is its last next record kept; t's was run again at the batch end */
        CHECK(t.prev.u == u.prev.u && t.prev.n == u.prev.n && t.prev.n_context == u.prev.n_context &&
                  memcmp(&t.prev.chosen, &u.prev.chosen, sizeof t.prev.chosen) == 0 &&
                  memcmp(t.prev.rows, u.prev.rows, (size_t)t.prev.n * sizeof t.prev.rows[0]) == 0 &&
                  t.prev.other_raw == u.prev.other_raw && t.prev.other_final == u.prev.other_final,
              "the kept prev record is bit for bit the one a fresh sampler run gives");
        session_free(&u);
    }
    CHECK(t.n_sampler_runs - r <= 7, "a batch of 5 steps: %ld sampler runs", t.n_sampler_runs - r);
    session_free(&s);
    session_free(&t);
}

static void test_errors(void) {
    Session s;
    if (open_session(&s, 8)) return;
    ErrorMsg err = {{0}};
    CHECK(session_set_prompt(&s, (const uint8_t *)"", 0, &err) == -1 && strstr(err.text, "empty"), "empty: %s", err.text);
    CHECK(session_set_prompt(&s, (const uint8_t *)"caf\xff", 4, &err) == -1 && strstr(err.text, "invalid UTF-8 at byte 3"),
          "utf8: %s", err.text);
    const uint8_t longp[] = "one two three four five six seven eight nine";
    CHECK(session_set_prompt(&s, longp, sizeof longp - 1, &err) == -1 && strstr(err.text, "exceeds the context of 8"),
          "too long: %s", err.text);
    CHECK(session_step(&s, &err) == -1 && strstr(err.text, "no prompt"), "step without prompt: %s", err.text);
    CHECK(session_set_prompt(&s, PROMPT, sizeof PROMPT - 1, &err) == 0, "prompt fits");
    for (int i = 0; i < 4; i++) session_step(&s, &err);
    CHECK(session_len(&s) == 8, "filled the context");
    CHECK(session_step(&s, &err) == -1 && strstr(err.text, "context is full"), "full: %s", err.text);
    CHECK(!s.has_next, "no pending draw when full");
    CHECK(session_force(&s, 50257, &err) == -1 && strstr(err.text, "50257"), "force out of vocab: %s", err.text);
    const int ids[2] = {1, 70000};
    CHECK(session_set_prompt_ids(&s, ids, 2, &err) == -1 && strstr(err.text, "70000"), "bad ids: %s", err.text);
    CHECK(session_len(&s) == 8, "a failed prompt leaves the session as it was");
    session_free(&s);

    Session z;
    CHECK(session_open(&z, "/nonexistent/model", "assets/tokenizer", 0, 0, &err) == -1 &&
              strstr(err.text, "/nonexistent/model"),
          "missing model: %s", err.text);
    session_free(&z);
}

int main(void) {
    snprintf(model_dir, sizeof model_dir, "%s/models/tiny", check_ref_dir());
    test_prompt_and_steps();
    test_redo();
    test_errors();
    return check_summary("test_session");
}
