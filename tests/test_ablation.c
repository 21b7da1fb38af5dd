/* test_ablation.c — knocking parts out (engine/gpt2_ablation.h) against an independent
 * float64 forward (ref_gpt2_f64.h) with the same parts zeroed: head slices of z, whole
 * attention outputs (bias included), MLP outputs; on the reference tiny model (L=2),
 * the bundled model (L=4) and a random model of odd shape (HS = 8), by prefill and by
 * decode steps. Switching off again restores the original logits bit for bit; the SPEC
 * parser is strict; `inferscope next --ablate --json` agrees with the float64 forward
 * (probabilities, the original's, the KL divergence). A figure exported with parts off
 * records them (inferscope:ablate) and reopens with them off, pixels byte-identical. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "check.h"
#include "check_export.h"
#include "check_model.h"
#include "check_run.h"
#include "export.h"
#include "file_read.h"
#include "figure_meta.h"
#include "frame_fill.h"
#include "gpt2_ablation.h"
#include "gpt2_forward.h"
#include "gpt2_model.h"
#include "gpt2_trace.h"
#include "ref_gpt2_f64.h"
#include "session.h"

static const int S30[30] = {7454, 2402, 257, 640, 11, 612, 373, 257, 1310, 2576, 3706, 20037, 13, 1375, 6151,
                            284, 711, 2354, 287, 262, 34488, 13, 1881, 1110, 11, 673, 2497, 257, 1263, 11};

/* A mask built by hand for the reference and through the engine's setter for the engine. */
typedef struct Parts {
    unsigned char head[64 * 64], attn[64], mlp[64];
} Parts;

static void to_mask(const Parts *p, const Gpt2Config *cfg, Gpt2Ablation *ab) {
    ErrorMsg err;
    gpt2_ablation_init(ab, cfg, &err);
    for (int l = 0; l < cfg->n_layer; l++) {
        for (int h = 0; h < cfg->n_head; h++)
            if (p->head[l * cfg->n_head + h]) gpt2_ablation_set(ab, GPT2_ABL_HEAD, l, h, 1, &err);
        if (p->attn[l]) gpt2_ablation_set(ab, GPT2_ABL_ATTN, l, 0, 1, &err);
        if (p->mlp[l]) gpt2_ablation_set(ab, GPT2_ABL_MLP, l, 0, 1, &err);
    }
}

/* max |p - p64| over the whole vocabulary at the last position, and the largest relative
 * error among the 20 most likely tokens. */
static void compare_probs(const char *what, const float *logits, const double *ref_logits, int V) {
    double mx = -INFINITY, mr = -INFINITY, s = 0, sr = 0;
    for (int v = 0; v < V; v++) {
        mx = fmax(mx, logits[v]);
        mr = fmax(mr, ref_logits[v]);
    }
    for (int v = 0; v < V; v++) {
        s += exp(logits[v] - mx);
        sr += exp(ref_logits[v] - mr);
    }
    double max_abs = 0, max_rel = 0;
    for (int v = 0; v < V; v++) {
        double p = exp(logits[v] - mx) / s, q = exp(ref_logits[v] - mr) / sr;
        max_abs = fmax(max_abs, fabs(p - q));
        if (q > 1e-3 || q > 50.0 / V) max_rel = fmax(max_rel, fabs(p - q) / q);
    }
    CHECK(max_abs <= 1e-5 && max_rel <= 1e-4, "%s: probabilities vs float64: max abs %.3g, max rel %.3g", what,
          max_abs, max_rel);
}

/* One mask on one model: prefill and decode against the float64 forward, and a real effect. */
static void check_mask(const Gpt2Model *m, const int *ids, int T, const Parts *p, const char *what) {
    const Gpt2Config *cfg = &m->config;
    Ref64Ablation rab = {p->head, p->attn, p->mlp};
    Ref64 ref, plain;
    if (ref64_forward(m, ids, T, &rab, &ref) || ref64_forward(m, ids, T, NULL, &plain)) {
        CHECK(0, "%s: float64 forward out of memory", what);
        return;
    }
    Gpt2Ablation ab = {0};
    to_mask(p, cfg, &ab);
    Gpt2Trace a = {0}, b = {0};
    ErrorMsg err = {{0}};
    int rc = gpt2_trace_init(&a, cfg, T, GPT2_CAP_DEFAULT, &err);
    if (rc == 0) rc = gpt2_trace_init(&b, cfg, T, 0, &err);
    if (rc == 0) rc = gpt2_trace_set_ablation(&a, &ab, &err) || gpt2_trace_set_ablation(&b, &ab, &err);
    if (rc == 0) rc = gpt2_prefill(m, &a, ids, (size_t)T, &err);
    for (int t = 0; rc == 0 && t < T; t++) rc = gpt2_step(m, &b, ids[t], &err);
    CHECK(rc == 0, "%s: %s", what, err.text);
    if (rc == 0) {
        char name[96];
        snprintf(name, sizeof name, "%s (prefill)", what);
        compare_probs(name, gpt2_trace_logits(&a, T - 1), ref.logits, cfg->vocab_size);
        snprintf(name, sizeof name, "%s (decode)", what);
        compare_probs(name, gpt2_trace_logits(&b, T - 1), ref.logits, cfg->vocab_size);
        double moved = 0;
        for (int v = 0; v < cfg->vocab_size; v++) moved = fmax(moved, fabs(ref.logits[v] - plain.logits[v]));
        CHECK(moved > 1e-3, "%s: the ablation changes the float64 logits (by %.3g) — the test can bite", what, moved);
        /* hook_z / attn_out / mlp_out in the trace are the zeroed values the model used */
        const size_t C = (size_t)cfg->n_embd, HS = C / (size_t)cfg->n_head;
        for (int l = 0; l < cfg->n_layer; l++)
            for (int h = 0; h < cfg->n_head; h++)
                if (p->head[l * cfg->n_head + h] && a.z) {
                    float mz = 0;
                    for (size_t i = 0; i < HS; i++) mz = fmaxf(mz, fabsf(a.z[((size_t)l * T + 3) * C + h * HS + i]));
                    CHECK(mz == 0.0f, "%s: z of head %d.%d is zero", what, l, h);
                }
    }
    gpt2_trace_free(&a);
    gpt2_trace_free(&b);
    gpt2_ablation_free(&ab);
    ref64_free(&ref);
    ref64_free(&plain);
}

static void test_masks(const Gpt2Model *m, const int *ids, int T, const char *model) {
    const int NH = m->config.n_head, L = m->config.n_layer;
    char what[96];
    Parts p;
    memset(&p, 0, sizeof p);
    p.head[0 * NH + 2] = 1; /* one head of the first block */
    snprintf(what, sizeof what, "%s 0.2", model);
    check_mask(m, ids, T, &p, what);
    memset(&p, 0, sizeof p);
    p.attn[L - 1] = 1; /* the last block's whole attention, bias included */
    snprintf(what, sizeof what, "%s %d.attn", model, L - 1);
    check_mask(m, ids, T, &p, what);
    memset(&p, 0, sizeof p);
    p.mlp[0] = 1;
    snprintf(what, sizeof what, "%s 0.mlp", model);
    check_mask(m, ids, T, &p, what);
    memset(&p, 0, sizeof p);
    p.head[0 * NH + 1] = p.head[(L - 1) * NH + NH - 1] = p.mlp[L - 1] = 1; /* several at once */
    snprintf(what, sizeof what, "%s 0.1,%d.%d,%d.mlp", model, L - 1, NH - 1, L - 1);
    check_mask(m, ids, T, &p, what);
}

/* Off again == never on, bit for bit, at every position; the same mask keeps positions. */
static void test_restore(const Gpt2Model *m) {
    const Gpt2Config *cfg = &m->config;
    const size_t V = (size_t)cfg->vocab_size, T = 30;
    Gpt2Trace tr = {0};
    Gpt2Ablation ab = {0};
    ErrorMsg err = {{0}};
    float *orig = malloc(T * V * sizeof *orig);
    if (!orig || gpt2_trace_init(&tr, cfg, (int)T, GPT2_CAP_DEFAULT, &err) ||
        gpt2_ablation_parse(&ab, cfg, "0.1,1.mlp", &err) || gpt2_prefill(m, &tr, S30, T, &err)) {
        CHECK(0, "restore setup: %s", err.text);
        goto done;
    }
    memcpy(orig, tr.logits, T * V * sizeof *orig);
    CHECK(gpt2_trace_set_ablation(&tr, &ab, &err) == 0 && tr.n_pos == 0, "a new mask forgets the positions");
    gpt2_prefill(m, &tr, S30, T, &err);
    CHECK(memcmp(orig, tr.logits, T * V * sizeof *orig) != 0, "ablated logits differ");
    CHECK(gpt2_trace_set_ablation(&tr, &ab, &err) == 0 && tr.n_pos == (int)T, "the same mask keeps the positions");
    Gpt2Ablation none = {0};
    CHECK(gpt2_trace_set_ablation(&tr, &none, &err) == 0 && tr.n_pos == 0, "switching off forgets the positions");
    gpt2_prefill(m, &tr, S30, T, &err);
    CHECK(memcmp(orig, tr.logits, T * V * sizeof *orig) == 0, "switched off again: bitwise the original logits");
    gpt2_ablation_clear(&ab);
    CHECK(gpt2_trace_set_ablation(&tr, &ab, &err) == 0 && tr.n_pos == (int)T, "a cleared mask equals no mask");
    Gpt2Ablation other = {0};
    Gpt2Config big = *cfg;
    big.n_head = cfg->n_head * 2;
    gpt2_ablation_parse(&other, &big, "0.5", &err);
    CHECK(gpt2_trace_set_ablation(&tr, &other, &err) == -1 && tr.n_pos == (int)T, "a mask of another model refused");
    gpt2_ablation_free(&other);
done:
    free(orig);
    gpt2_ablation_free(&ab);
    gpt2_trace_free(&tr);
}

/* Bytes [0, n) of two optional arrays are equal (both NULL counts as equal). */
static int same_bytes(const float *a, const float *b, size_t n) {
    return (!a && !b) || (a && b && memcmp(a, b, n * sizeof *a) == 0);
}

/* Ablating nothing is the plain forward bit for bit (a sized mask with nothing set, and one
 * set then cleared), every captured activation included; and a mask changes nothing
 * upstream of the part it switches off: with block L-1's MLP off, everything up to
 * resid_mid of block L-1 and all of block L-1's attention equal the plain run's bytes. */
static void test_nothing_is_plain(const Gpt2Model *m) {
    const Gpt2Config *cfg = &m->config;
    const int T = 30, L = cfg->n_layer;
    const size_t C = (size_t)cfg->n_embd, V = (size_t)cfg->vocab_size, TC = (size_t)T * C;
    Gpt2Trace plain = {0}, empty = {0}, late = {0};
    Gpt2Ablation none = {0}, cleared = {0}, last_mlp = {0};
    ErrorMsg err = {{0}};
    int rc = gpt2_trace_init(&plain, cfg, T, GPT2_CAP_ALL, &err) ||
             gpt2_trace_init(&empty, cfg, T, GPT2_CAP_ALL, &err) ||
             gpt2_trace_init(&late, cfg, T, GPT2_CAP_ALL, &err) || gpt2_ablation_init(&none, cfg, &err) ||
             gpt2_ablation_parse(&cleared, cfg, "0.0,1.mlp", &err);
    char spec[32];
    snprintf(spec, sizeof spec, "%d.mlp", L - 1);
    if (rc == 0) rc = gpt2_ablation_parse(&last_mlp, cfg, spec, &err);
    if (rc == 0) {
        gpt2_ablation_clear(&cleared);
        rc = gpt2_trace_set_ablation(&empty, &cleared, &err) || gpt2_trace_set_ablation(&late, &last_mlp, &err) ||
             gpt2_prefill(m, &plain, S30, (size_t)T, &err) || gpt2_prefill(m, &empty, S30, (size_t)T, &err) ||
             gpt2_prefill(m, &late, S30, (size_t)T, &err);
    }
    CHECK(rc == 0, "nothing-ablated setup: %s", err.text);
    if (rc == 0) {
        const size_t LTC = (size_t)L * TC;
        /* every (L, T, C) capture is stored with stride max_pos == T here */
        int same = same_bytes(plain.logits, empty.logits, (size_t)T * V) &&
                   same_bytes(plain.resid, empty.resid, LTC + TC) &&
                   same_bytes(plain.resid_mid, empty.resid_mid, LTC) && same_bytes(plain.z, empty.z, LTC) &&
                   same_bytes(plain.attn_out, empty.attn_out, LTC) && same_bytes(plain.mlp_out, empty.mlp_out, LTC) &&
                   same_bytes(plain.mlp_post, empty.mlp_post, 4 * LTC) && same_bytes(plain.ln_final, empty.ln_final, TC);
        CHECK(same && plain.logits && plain.z && plain.mlp_post, "a cleared mask: logits, resid, z, attn_out, mlp_out, "
              "mlp_post, ln_final bitwise the plain forward's");
        const size_t before = (size_t)(L - 1) * TC; /* blocks 0 .. L-2, whole */
        CHECK(same_bytes(plain.resid, late.resid, before + TC) &&
                  same_bytes(plain.resid_mid, late.resid_mid, before + TC) &&
                  same_bytes(plain.attn_out, late.attn_out, before + TC) &&
                  same_bytes(plain.mlp_post, late.mlp_post, 4 * (before + TC)),
              "%s: everything before block %d's MLP output is bitwise the plain run's (its MLP still computed)", spec,
              L - 1);
        float worst = 0;
        for (size_t i = 0; i < TC; i++) worst = fmaxf(worst, fabsf(late.mlp_out[before + i]));
        CHECK(worst == 0.0f && memcmp(late.resid + before + TC, late.resid_mid + before, TC * sizeof(float)) == 0,
              "%s: mlp_out is zero and resid_post == resid_mid exactly", spec);
        CHECK(memcmp(plain.logits, late.logits, (size_t)T * V * sizeof(float)) != 0, "%s: the logits do change", spec);
    }
    gpt2_ablation_free(&none);
    gpt2_ablation_free(&cleared);
    gpt2_ablation_free(&last_mlp);
    gpt2_trace_free(&plain);
    gpt2_trace_free(&empty);
    gpt2_trace_free(&late);
}

/* Opens a session on model_dir with S30[0..10) as the prompt, seed 7 and the parts in spec off
 * (NULL: none) before the prompt runs, then n steps. */
static int ablated_session(Session *s, const char *model_dir, const char *spec, int n, ErrorMsg *err) {
    if (session_open(s, model_dir, "assets/tokenizer", 0, GPT2_CAP_DEFAULT, err)) return -1;
    Gpt2Ablation ab = {0};
    session_set_seed(s, 7);
    int rc = spec ? gpt2_ablation_parse(&ab, &s->model.config, spec, err) || session_set_ablation(s, &ab, err) : 0;
    if (rc == 0) rc = session_set_prompt_ids(s, S30, 10, err);
    for (int i = 0; rc == 0 && i < n; i++) rc = session_step(s, err);
    gpt2_ablation_free(&ab);
    return rc;
}

/* 1 when a and b show the same tokens and the same newest logits, bit for bit. */
static int same_screen(const Session *a, const Session *b) {
    const int n = session_len(a);
    const size_t V = (size_t)a->model.config.vocab_size;
    const float *la = gpt2_trace_logits(&a->trace, n - 1), *lb = gpt2_trace_logits(&b->trace, n - 1);
    return n == session_len(b) && memcmp(session_ids(a), session_ids(b), (size_t)n * sizeof(int)) == 0 && la && lb &&
           memcmp(la, lb, V * sizeof(float)) == 0;
}

/* The redo memory (rows kept past n_pos, remembered picks) never outlives the mask it was
 * computed under: step, back, switch parts off, step again == a session that had them off
 * from the start (same tokens, same logits bitwise); and back to the whole model, stepping
 * back and forth == a session that never ablated anything. On the bundled (trained)
 * model with 0.attn,2.mlp off, which changes the picks (tiny's near-uniform draws may not). */
#define SPEC "0.attn,2.mlp"
static void test_memo_and_mask(const char *model_dir) {
    Session s = {0}, ref = {0}, plain = {0};
    ErrorMsg err = {{0}};
    Gpt2Ablation ab = {0}, none = {0};
    int rc = ablated_session(&s, model_dir, NULL, 5, &err) || ablated_session(&ref, model_dir, SPEC, 5, &err) ||
             ablated_session(&plain, model_dir, NULL, 5, &err);
    CHECK(rc == 0, "memo sessions: %s", err.text);
    if (rc == 0) {
        session_back(&s, 5); /* rows 10..14 and their picks stay remembered for the whole model */
        rc = gpt2_ablation_parse(&ab, &s.model.config, SPEC, &err) || session_set_ablation(&s, &ab, &err);
        for (int i = 0; rc == 0 && i < 5; i++) rc = session_step(&s, &err);
        CHECK(memcmp(session_ids(&ref) + 10, session_ids(&plain) + 10, 5 * sizeof(int)) != 0,
              "%s changes the picks (the test can bite)", SPEC);
        CHECK(rc == 0 && same_screen(&s, &ref), "back 5, " SPEC " off, 5 steps == " SPEC " off from the start "
              "(tokens %d %d ... vs %d %d ...)", session_ids(&s)[10], session_ids(&s)[11], session_ids(&ref)[10],
              session_ids(&ref)[11]);
        rc = session_set_ablation(&s, &none, &err);
        session_back(&s, 5);
        for (int i = 0; rc == 0 && i < 5; i++) rc = session_step(&s, &err);
        /* the same dice on the whole model's logits again: the never-ablated session's picks */
        CHECK(rc == 0 && same_screen(&s, &plain), "switched off, back 5, 5 steps == the never-ablated session, "
              "tokens and logits bitwise");
    }
    gpt2_ablation_free(&ab);
    session_free(&s);
    session_free(&ref);
    session_free(&plain);
}
#undef SPEC

/* Exports s's probability panel into dir, reads the provenance back, applies it to t and
 * re-exports t: both files must be the same bytes. Returns 0 when all went through. */
static int figure_round_trip(Session *s, Session *t, const char *dir, FigureState *fs, const char *what) {
    ExportOptions o = check_export_opts(dir, VIZ_PANEL_PROBS, 640, 400);
    VizView v = frame_default_view(), v2;
    char p1[512], p2[512];
    ErrorMsg err = {{0}};
    int rc = export_png(s, &v, &o, p1, sizeof p1, &err) || figure_meta_read(p1, fs, &err) ||
             figure_state_apply(fs, t, &v2, &err);
    ExportOptions o2 = o;
    if (rc == 0) check_options_from_figure(&o2, fs);
    if (rc == 0) rc = export_png(t, &v2, &o2, p2, sizeof p2, &err);
    CHECK(rc == 0, "%s: export, read, apply, re-export: %s", what, err.text);
    if (rc) return -1;
    size_t n1 = 0, n2 = 0;
    uint8_t *b1 = NULL, *b2 = NULL;
    ErrorMsg e2 = {{0}};
    int got_both = file_read_all(p1, (size_t)64 << 20, &b1, &n1, &e2) == 0 &&
               file_read_all(p2, (size_t)64 << 20, &b2, &n2, &e2) == 0;
    CHECK(got_both, "%s: read back: %s", what, e2.text);
    CHECK(got_both && n1 == n2 && memcmp(b1, b2, n1) == 0, "%s: the reopened figure re-exports byte-identically", what);
    free(b1);
    free(b2);
    unlink(p1);
    unlink(p2);
    return 0;
}

/* A figure of the model with parts switched off says which (inferscope:ablate) and
 * reopens with exactly those off, numbers bitwise; one of the whole model has no such key
 * and reopens with everything on, even in a session that had parts off. */
static void test_figure(const char *model_dir) {
    setenv("SDL_VIDEODRIVER", "dummy", 1);
    setenv("SDL_RENDER_DRIVER", "software", 1);
    char dir[] = "/tmp/inferscope-test-ablation-XXXXXX";
    Session s, t;
    ErrorMsg err = {{0}};
    Gpt2Ablation ab = {0}, none = {0};
    FigureState fs = {0};
    if (!mkdtemp(dir)) {
        CHECK(0, "mkdtemp");
        return;
    }
    int rc = session_open(&s, model_dir, "assets/tokenizer", 0, GPT2_CAP_DEFAULT, &err);
    if (rc == 0 && session_open(&t, model_dir, "assets/tokenizer", 0, GPT2_CAP_DEFAULT, &err)) {
        session_free(&s);
        rc = -1;
    }
    CHECK(rc == 0, "figure sessions: %s", err.text);
    if (rc) goto out;
    const size_t V = (size_t)s.model.config.vocab_size;
    session_set_seed(&s, 7);
    rc = session_set_prompt_ids(&s, S30, 10, &err) || session_step(&s, &err) || session_step(&s, &err) ||
         gpt2_ablation_parse(&ab, &s.model.config, "1.mlp,0.1", &err) || session_set_ablation(&s, &ab, &err);
    CHECK(rc == 0, "figure state: %s", err.text);
    if (rc == 0 && figure_round_trip(&s, &t, dir, &fs, "ablated") == 0) {
        CHECK(strcmp(fs.ablate, "0.1,1.mlp") == 0, "provenance inferscope:ablate = '%s' (canonical 0.1,1.mlp)",
              fs.ablate);
        /* s ran its 12 tokens again as one prefill when the mask changed, t replays prompt +
         * 2 decode steps: the same math in another summation order, so float-close */
        const float *ls = gpt2_trace_logits(&s.trace, 11), *lt = gpt2_trace_logits(&t.trace, 11);
        double worst = ls && lt ? 0.0 : INFINITY;
        for (size_t i = 0; ls && lt && i < V; i++) worst = fmax(worst, fabs((double)ls[i] - lt[i]));
        CHECK(gpt2_ablation_equal(&t.trace.ablation, &ab) && worst <= 1e-4,
              "reopened: the same parts off, logits within 1e-4 (%.3g)", worst);
        FigureState bad = fs;
        snprintf(bad.ablate, sizeof bad.ablate, "5.mlp");
        VizView v;
        CHECK(figure_state_apply(&bad, &t, &v, &err) == -1 && strstr(err.text, "inferscope:ablate") &&
                  strstr(err.text, "block 5"), "a block the model lacks is refused, naming the key: %s", err.text);
        figure_state_free(&fs);
        CHECK(session_set_ablation(&s, &none, &err) == 0, "switch off: %s", err.text);
        if (figure_round_trip(&s, &t, dir, &fs, "whole model") == 0) {
            CHECK(fs.ablate[0] == 0 && t.trace.ablation.n_off == 0, "no inferscope:ablate; reopened with nothing off");
            CHECK(memcmp(gpt2_trace_logits(&t.trace, 11), gpt2_trace_logits(&s.trace, 11), V * sizeof(float)) == 0,
                  "reopened whole model: logits bitwise");
        }
    }
    figure_state_free(&fs);
    gpt2_ablation_free(&ab);
    session_free(&s);
    session_free(&t);
out:
    rmdir(dir);
}

/* The session runs the tokens on screen again, and back. */
static void test_session(const char *model_dir) {
    Session s;
    ErrorMsg err = {{0}};
    if (session_open(&s, model_dir, "assets/tokenizer", 0, GPT2_CAP_DEFAULT, &err)) {
        CHECK(0, "session_open: %s", err.text);
        return;
    }
    session_set_seed(&s, 7);
    session_set_prompt_ids(&s, S30, 10, &err);
    for (int i = 0; i < 5; i++) session_step(&s, &err);
    const size_t V = (size_t)s.model.config.vocab_size;
    int ids[15];
    memcpy(ids, session_ids(&s), sizeof ids);
    float *orig = malloc(V * sizeof *orig);
    memcpy(orig, gpt2_trace_logits(&s.trace, 14), V * sizeof *orig);
    SamplerRecord before = s.next;
    Gpt2Ablation ab = {0};
    gpt2_ablation_parse(&ab, &s.model.config, "1.attn", &err);
    CHECK(session_set_ablation(&s, &ab, &err) == 0, "session_set_ablation: %s", err.text);
    CHECK(session_len(&s) == 15 && memcmp(ids, session_ids(&s), sizeof ids) == 0, "the same 15 tokens on screen");
    CHECK(memcmp(orig, gpt2_trace_logits(&s.trace, 14), V * sizeof *orig) != 0, "ablated distribution shown");
    CHECK(s.next.u == before.u, "the pending draw keeps its dice");
    Gpt2Ablation none = {0};
    session_set_ablation(&s, &none, &err);
    CHECK(memcmp(orig, gpt2_trace_logits(&s.trace, 14), V * sizeof *orig) == 0 && s.next.chosen.id == before.chosen.id,
          "switched back: the original numbers bit for bit");
    free(orig);
    gpt2_ablation_free(&ab);
    session_free(&s);
}

static void test_parse(const Gpt2Config *cfg) {
    Gpt2Ablation ab = {0};
    ErrorMsg err = {{0}};
    char buf[128];
    CHECK(gpt2_ablation_parse(&ab, cfg, "1.attn,0.3,0.mlp,1.0", &err) == 0, "valid list: %s", err.text);
    gpt2_ablation_format(&ab, buf, sizeof buf);
    CHECK(strcmp(buf, "0.3,0.mlp,1.0,1.attn") == 0 && ab.n_off == 4, "canonical form '%s'", buf);
    CHECK(gpt2_ablation_format(&ab, buf, 6) == strlen("0.3,0.mlp,1.0,1.attn") && strcmp(buf, "0.3,0") == 0,
          "format truncates cleanly: '%s'", buf);
    CHECK(gpt2_ablation_is_off(&ab, GPT2_ABL_HEAD, 0, 3) && !gpt2_ablation_is_off(&ab, GPT2_ABL_HEAD, 0, 2) &&
              gpt2_ablation_is_off(&ab, GPT2_ABL_MLP, 0, 0) && !gpt2_ablation_is_off(&ab, GPT2_ABL_ATTN, 0, 0),
          "is_off");
    static const struct {
        const char *spec, *says;
    } bad[] = {{"2.0", "blocks 0..1"}, {"0.4", "heads 0..3"}, {"", "no parts"}, {"0.", "'0.'"}, {".1", "'.1'"},
               {"0.x", "'0.x'"}, {"0.attn,0.attn", "twice"}, {"0.1,", "empty part"}, {" 0.1", "' 0.1'"},
               {"0.1 ", "'0.1 '"}, {"-1.0", "'-1.0'"}, {"0.+1", "'0.+1'"}, {"1234567.0", "'1234567.0'"},
               {"0.ATTN", "'0.ATTN'"}, {"0.1,,1.2", "empty part"}, {"3.mlp", "blocks 0..1"}, {"0", "'0'"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err.text[0] = 0;
        int rc = gpt2_ablation_parse(&ab, cfg, bad[i].spec, &err);
        CHECK(rc == -1 && strstr(err.text, bad[i].says) && !strchr(err.text, '\n') && ab.n_off == 0,
              "'%s' refused naming %s: got '%s'", bad[i].spec, bad[i].says, err.text);
    }
    gpt2_ablation_free(&ab);
    gpt2_ablation_free(&ab); /* safe twice */
}

/* ---- the CLI: `next --ablate --json` against the float64 forward ---------------------- */

static char g_bin[1024];

static void test_cli_next(const Gpt2Model *m, const char *model_dir) {
    const int T = 30, V = m->config.vocab_size;
    Parts p;
    memset(&p, 0, sizeof p);
    p.head[0 * m->config.n_head + 2] = p.mlp[1] = 1;
    Ref64Ablation rab = {p.head, p.attn, p.mlp};
    Ref64 ref, plain;
    if (ref64_forward(m, S30, T, &rab, &ref) || ref64_forward(m, S30, T, NULL, &plain)) return;
    char cmd[4096], ids[512];
    size_t len = 0;
    for (int i = 0; i < T; i++) len += (size_t)snprintf(ids + len, sizeof ids - len, i ? ",%d" : "%d", S30[i]);
    snprintf(cmd, sizeof cmd, "%s next --model %s --ids %s --greedy --top 12 --json --ablate 1.mlp,0.2", g_bin,
             model_dir, ids);
    int st = -1;
    char *out = check_run(cmd, &st);
    cJSON *j = out ? cJSON_Parse(out) : NULL;
    CHECK(st == 0 && j, "next --ablate --json ran and printed JSON (status %d)", st);
    if (j) {
        const cJSON *rows = cJSON_GetObjectItem(j, "rows"), *abl = cJSON_GetObjectItem(j, "ablate");
        CHECK(cJSON_IsString(abl) && strcmp(abl->valuestring, "0.2,1.mlp") == 0, "ablate is the canonical list");
        int n = 0;
        for (const cJSON *r = rows ? rows->child : NULL; r; r = r->next, n++) {
            int id = cJSON_GetObjectItem(r, "id")->valueint;
            double pa = cJSON_GetObjectItem(r, "p_raw")->valuedouble, po = cJSON_GetObjectItem(r, "p_orig")->valuedouble;
            double qa = ref64_prob(ref.logits, V, id, 0, NULL, NULL), qo = ref64_prob(plain.logits, V, id, 0, NULL, NULL);
            CHECK(fabs(pa - qa) <= 1e-5 && fabs(pa - qa) <= 1e-4 * qa, "row %d: ablated p %.9g vs float64 %.9g", n, pa, qa);
            CHECK(fabs(po - qo) <= 1e-5 && fabs(po - qo) <= 1e-4 * qo, "row %d: p_orig %.9g vs float64 %.9g", n, po, qo);
        }
        CHECK(n == 12, "12 rows (%d)", n);
        double kl = 0, mr = -INFINITY, mo = -INFINITY, sr = 0, so = 0;
        for (int v = 0; v < V; v++) mr = fmax(mr, ref.logits[v]), mo = fmax(mo, plain.logits[v]);
        for (int v = 0; v < V; v++) sr += exp(ref.logits[v] - mr), so += exp(plain.logits[v] - mo);
        for (int v = 0; v < V; v++) {
            double lp = plain.logits[v] - mo - log(so), lq = ref.logits[v] - mr - log(sr);
            kl += exp(lp) * (lp - lq);
        }
        const cJSON *k = cJSON_GetObjectItem(j, "kl_original_to_ablated");
        CHECK(cJSON_IsNumber(k) && fabs(k->valuedouble - kl) <= 1e-7 + 1e-3 * kl && kl > 0,
              "KL %.9g vs float64 %.9g", k ? k->valuedouble : -1, kl);
    }
    cJSON_Delete(j);
    free(out);
    /* a bad spec: exit 2, one line naming the part and the model's real range */
    snprintf(cmd, sizeof cmd, "%s next --model %s --ids 1,2 --ablate 0.1,7.mlp 2>&1", g_bin, model_dir);
    out = check_run(cmd, &st);
    CHECK(out && WEXITSTATUS(st) == 2 && strstr(out, "'7.mlp'") && strstr(out, "blocks 0..1") &&
              strchr(out, '\n') == out + strlen(out) - 1,
          "bad --ablate: exit %d, '%s'", WEXITSTATUS(st), out ? out : "");
    free(out);
    ref64_free(&ref);
    ref64_free(&plain);
}

int main(void) {
    ErrorMsg err = {{0}};
    char model_dir[600];
    check_cli_bin(g_bin, sizeof g_bin);
    Gpt2Model m;
    int rc = check_load_tiny(&m, model_dir, sizeof model_dir);
    if (rc == 0) {
        test_parse(&m.config);
        test_masks(&m, S30, 30, "tiny");
        test_restore(&m);
        test_nothing_is_plain(&m);
        test_session(model_dir);
        test_figure(model_dir);
        test_cli_next(&m, model_dir);
    }
    gpt2_model_free(&m);

    /* the bundled model (L=4, NH=4, C=256) */
    rc = gpt2_model_load(&m, "assets/models/stories16m", &err);
    CHECK(rc == 0, "load bundled: %s", err.text);
    if (rc == 0) test_masks(&m, S30, 12, "bundled");
    if (rc == 0) test_memo_and_mask("assets/models/stories16m");
    gpt2_model_free(&m);

    /* a random model of another shape: L=3, NH=6, HS=8 (not GPT-2's 64: the generic kernels) */
    const Gpt2Config odd = {.n_layer = 3, .n_head = 6, .n_embd = 48, .n_positions = 32, .vocab_size = 300,
                            .ln_eps = 1e-5f};
    rc = gpt2_model_init_random(&m, &odd, 11, &err);
    CHECK(rc == 0, "random model: %s", err.text);
    if (rc == 0) {
        int ids[20];
        for (int i = 0; i < 20; i++) ids[i] = (i * 37 + 5) % odd.vocab_size;
        test_masks(&m, ids, 20, "random L3 NH6");
    }
    gpt2_model_free(&m);
    return check_summary("test_ablation");
}
