/* test_weights_half.c — weight matrices in F16/BF16 (gpt2_model_load_as, --weights,
 * `inferscope convert`): what precision each file runs in by default, that a half model
 * computes exactly the numbers of its float image, how far F16/BF16 rounding of an F32
 * checkpoint moves the logits of the reference model (target: F16 within 2e-2 of F32
 * and of nanoGPT), the same 40-token greedy text on the bundled model in F16 and F32,
 * and that a converted file reloads to the same numbers as converting at load. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "check_tmp.h"
#include "gpt2_forward.h"
#include "gpt2_model.h"
#include "gpt2_save.h"
#include "half.h"
#include "safetensors.h"

static char g_tiny[1200], g_tmp[64];
#define BUNDLED "assets/models/stories16m"

/* tiny_s30's ids and nanoGPT logits (T x V), malloc'd; returns T or 0 */
static size_t ref_s30(int *ids, float **logits) {
    char path[1300];
    snprintf(path, sizeof path, "%s/vectors/tiny_s30.safetensors", check_ref_dir());
    SafeFile f;
    ErrorMsg err;
    *logits = NULL;
    if (safe_open(&f, path, &err)) return 0;
    const SafeTensor *ti = safe_find(&f, "input_ids"), *tl = safe_find(&f, "logits");
    size_t T = ti ? safe_numel(ti) : 0;
    if (T == 0 || T > 64 || !tl) T = 0;
    for (size_t i = 0; i < T; i++) ids[i] = ((const int32_t *)(const void *)ti->data)[i];
    if (T) {
        *logits = malloc(tl->nbytes);
        if (*logits) memcpy(*logits, tl->data, tl->nbytes);
    }
    safe_close(&f);
    return T;
}

/* logits of every position of ids through decode steps (stepwise == true) or one prefill */
static float *run_logits(const Gpt2Model *m, const int *ids, size_t T, int stepwise) {
    Gpt2Trace tr = {0};
    ErrorMsg err = {{0}};
    float *out = NULL;
    int rc = gpt2_trace_init(&tr, &m->config, (int)T, GPT2_CAP_LOGITS, &err);
    if (rc == 0 && !stepwise) rc = gpt2_prefill(m, &tr, ids, T, &err);
    for (size_t t = 0; rc == 0 && stepwise && t < T; t++) rc = gpt2_step(m, &tr, ids[t], &err);
    CHECK(rc == 0, "forward (%s): %s", m->name, err.text);
    size_t n = T * (size_t)m->config.vocab_size;
    if (rc == 0 && (out = malloc(n * sizeof *out))) memcpy(out, tr.logits, n * sizeof *out);
    gpt2_trace_free(&tr);
    return out;
}

static double max_abs_diff(const float *a, const float *b, size_t n) {
    double m = 0;
    for (size_t i = 0; a && b && i < n; i++) {
        double d = fabs((double)a[i] - b[i]);
        if (d > m || d != d) m = d;
    }
    return a && b ? m : INFINITY;
}

/* which precision a file runs in "as stored", and where the weights live */
static void test_as_stored(void) {
    Gpt2Model m;
    ErrorMsg err = {{0}};
    CHECK(gpt2_model_load_as(&m, g_tiny, GPT2_WEIGHTS_AS_STORED, &err) == 0, "tiny: %s", err.text);
    CHECK(m.w.dtype == KERN_F32 && m.owned == NULL && m.owned_h == NULL && m.map, "an F32 file runs F32 in place");
    gpt2_model_free(&m);
    CHECK(gpt2_model_load_as(&m, BUNDLED, GPT2_WEIGHTS_AS_STORED, &err) == 0, "bundled: %s", err.text);
    const uint8_t *lo = m.map, *hi = lo + m.map_len;
    CHECK(m.w.dtype == KERN_F16 && strcmp(m.dtype, "F16") == 0 && strcmp(gpt2_model_weights_name(&m), "F16") == 0,
          "the F16 bundled model runs F16 (%s)", m.dtype);
    CHECK(m.w.wte == NULL && (const uint8_t *)m.w.wte_h >= lo && (const uint8_t *)m.w.layers[0].fc_h < hi &&
              m.owned_h == NULL,
          "its matrices are read in place from the mapping (no copy)");
    CHECK(m.owned && m.owned_len < m.n_params / 50, "only the vectors were widened (%zu of %zu floats)", m.owned_len,
          m.n_params);
    CHECK(gpt2_model_weight_bytes(&m) < m.n_params * 2 + m.n_params / 10, "about 2 bytes per parameter in memory");
    gpt2_model_free(&m);
    CHECK(gpt2_model_load_as(&m, g_tiny, 7, &err) == -1 && strstr(err.text, "precision"), "bad precision: %s",
          err.text);
}

/* F16 weights run the float math of their float image: decode is bit-identical on every
 * kernel table (same accumulation order), prefill equal to within float rounding. */
static void test_half_is_its_float_image(const int *ids, size_t T) {
    Gpt2Model h, f;
    ErrorMsg err = {{0}};
    if (gpt2_model_load_as(&h, BUNDLED, KERN_F16, &err) || gpt2_model_load_as(&f, BUNDLED, KERN_F32, &err)) {
        CHECK(0, "bundled: %s", err.text);
        return;
    }
    size_t n = T * (size_t)h.config.vocab_size;
    float *a = run_logits(&h, ids, T, 1), *b = run_logits(&f, ids, T, 1);
    CHECK(a && b && memcmp(a, b, n * sizeof *a) == 0, "bundled decode: F16 and its F32 image give identical logits");
    free(a);
    free(b);
    a = run_logits(&h, ids, T, 0);
    b = run_logits(&f, ids, T, 0);
    double d = max_abs_diff(a, b, n);
    CHECK(d <= 1e-4, "bundled prefill: F16 vs its F32 image differ by %.3g", d);
    free(a);
    free(b);
    gpt2_model_free(&h);
    gpt2_model_free(&f);
}

/* Rounding an F32 checkpoint: how far the logits move, against our F32 run and against
 * nanoGPT's reference logits. */
static void test_rounding_error(const int *ids, size_t T, const float *ref) {
    Gpt2Model f, h, b;
    ErrorMsg err = {{0}};
    if (gpt2_model_load_as(&f, g_tiny, KERN_F32, &err) || gpt2_model_load_as(&h, g_tiny, KERN_F16, &err) ||
        gpt2_model_load_as(&b, g_tiny, KERN_BF16, &err)) {
        CHECK(0, "tiny: %s", err.text);
        return;
    }
    CHECK(h.w.dtype == KERN_F16 && h.owned_h && h.owned_h_len > h.n_params * 9 / 10 && h.w.wte == NULL,
          "F32 -> F16 matrices converted once at load into owned memory (%zu of %zu)", h.owned_h_len, h.n_params);
    size_t n = T * (size_t)f.config.vocab_size;
    float *lf = run_logits(&f, ids, T, 1), *lh = run_logits(&h, ids, T, 1), *lb = run_logits(&b, ids, T, 1);
    double dh = max_abs_diff(lh, lf, n), dr = max_abs_diff(lh, ref, n), db = max_abs_diff(lb, lf, n);
    printf("tiny_s30 logits, max |diff|: F16 vs F32 %.3g, F16 vs nanoGPT %.3g, BF16 vs F32 %.3g\n", dh, dr, db);
    CHECK(dh <= 2e-2 && dr <= 2e-2, "F16 logits within 2e-2 of F32 (%.3g) and of the reference (%.3g)", dh, dr);
    /* the rounding is really there (a no-op conversion would pass the line above) */
    CHECK(dh > 1e-5, "F16 rounding changes the logits at all (%.3g)", dh);
    /* BF16 keeps 8 mantissa bits to F16's 11: about 8x the error */
    CHECK(db > dh && db <= 0.2, "BF16 logits within 0.2 of F32 (%.3g) and worse than F16", db);
    /* greedy picks agree wherever the reference top-2 gap is clear */
    size_t agree = 0, clear = 0, V = (size_t)f.config.vocab_size;
    for (size_t t = 0; lf && lh && t < T; t++) {
        size_t a = 0, c = 0;
        for (size_t v = 1; v < V; v++) {
            if (lf[t * V + v] > lf[t * V + a]) a = v;
            if (lh[t * V + v] > lh[t * V + c]) c = v;
        }
        clear++;
        agree += a == c;
    }
    CHECK(agree == clear, "F16 and F32 pick the same greedy token at %zu of %zu positions", agree, clear);
    free(lf);
    free(lh);
    free(lb);

    /* convert: the written file reloads to exactly the numbers of converting at load */
    char out[128];
    snprintf(out, sizeof out, "%s/tiny-f16", g_tmp);
    CHECK(gpt2_model_save(&h, out, &err) == 0, "save: %s", err.text);
    CHECK(gpt2_model_save(&h, out, &err) == -1 && strstr(err.text, "already exists"), "never overwrites: %s",
          err.text);
    Gpt2Model c;
    if (gpt2_model_load_as(&c, out, GPT2_WEIGHTS_AS_STORED, &err) == 0) {
        CHECK(c.w.dtype == KERN_F16 && strcmp(c.dtype, "F16+F32") == 0 && c.owned_h == NULL,
              "the converted file runs F16 as stored, in place (%s)", c.dtype);
        float *x = run_logits(&c, ids, T, 0), *y = run_logits(&h, ids, T, 0);
        CHECK(x && y && memcmp(x, y, n * sizeof *x) == 0, "converted file == converted at load, bit for bit");
        CHECK(c.file_bytes < f.file_bytes * 6 / 10, "the F16 file is about half the F32 one (%zu vs %zu)",
              c.file_bytes, f.file_bytes);
        free(x);
        free(y);
        gpt2_model_free(&c);
    } else {
        CHECK(0, "reload converted: %s", err.text);
    }
    gpt2_model_free(&f);
    gpt2_model_free(&h);
    gpt2_model_free(&b);
}

/* The same 40 greedy tokens on the bundled model in F16 and F32, through the decode
 * path the window uses (prefill of the prompt, then one step per token). */
static int greedy_run(const Gpt2Model *m, int *ids, int n_prompt, int n_new) {
    Gpt2Trace tr = {0};
    ErrorMsg err = {{0}};
    int rc = gpt2_trace_init(&tr, &m->config, n_prompt + n_new, GPT2_CAP_LOGITS, &err);
    if (rc == 0) rc = gpt2_prefill(m, &tr, ids, (size_t)n_prompt, &err);
    const size_t V = (size_t)m->config.vocab_size;
    for (int i = 0; rc == 0 && i < n_new; i++) {
        const float *l = gpt2_trace_logits(&tr, n_prompt + i - 1);
        size_t best = 0;
        for (size_t v = 1; v < V; v++)
            if (l[v] > l[best]) best = v;
        ids[n_prompt + i] = (int)best;
        rc = gpt2_step(m, &tr, (int)best, &err);
    }
    CHECK(rc == 0, "greedy %s: %s", m->name, err.text);
    gpt2_trace_free(&tr);
    return rc;
}

static void test_greedy_text(void) {
    Gpt2Model h, f;
    ErrorMsg err = {{0}};
    if (gpt2_model_load_as(&h, BUNDLED, GPT2_WEIGHTS_AS_STORED, &err) ||
        gpt2_model_load_as(&f, BUNDLED, KERN_F32, &err)) {
        CHECK(0, "bundled: %s", err.text);
        return;
    }
    CHECK(h.w.dtype == KERN_F16 && f.w.dtype == KERN_F32, "one F16, one F32 model");
    int a[44] = {7454, 2402, 257, 640}, b[44] = {7454, 2402, 257, 640}; /* "Once upon a time" */
    int rc = greedy_run(&h, a, 4, 40) | greedy_run(&f, b, 4, 40);
    CHECK(rc == 0 && memcmp(a, b, sizeof a) == 0, "the same 40-token greedy continuation in F16 and F32");
    int distinct = 0;
    for (int i = 5; i < 44; i++) distinct += a[i] != a[i - 1];
    CHECK(distinct > 10, "and it is text, not one token repeated (%d changes)", distinct);
    gpt2_model_free(&h);
    gpt2_model_free(&f);
}

/* a random half model is the rounding of the float one built from the same seed */
static void test_random_half(void) {
    const Gpt2Config cfg = {.n_layer = 2, .n_head = 2, .n_embd = 64, .n_positions = 32, .vocab_size = 97,
                            .ln_eps = 1e-5f};
    Gpt2Model f, h;
    ErrorMsg err = {{0}};
    if (gpt2_model_init_random(&f, &cfg, 3, &err) || gpt2_model_init_random_as(&h, &cfg, 3, KERN_BF16, &err)) {
        CHECK(0, "random: %s", err.text);
        return;
    }
    size_t bad = 0, C = 64;
    for (size_t i = 0; i < 97 * C; i++) bad += h.w.wte_h[i] != half_f32_to_bf16(f.w.wte[i]);
    for (size_t i = 0; i < 4 * C * C; i++) bad += h.w.layers[1].fc_proj_h[i] != half_f32_to_bf16(f.w.layers[1].fc_proj_w[i]);
    CHECK(bad == 0 && h.w.wpe[5] == f.w.wpe[5] && h.w.lnf_w[3] == 1.0f, "BF16 random = rounded F32 random (%zu off)",
          bad);
    CHECK(h.n_params == f.n_params && h.owned_h_len * 2 + h.owned_len * 4 < f.owned_len * 4 * 6 / 10,
          "and about half the bytes");
    gpt2_model_free(&f);
    gpt2_model_free(&h);
}

int main(void) {
    snprintf(g_tiny, sizeof g_tiny, "%s/models/tiny", check_ref_dir());
    if (check_tmpdir_make(g_tmp, sizeof g_tmp, "test_weights_half")) return 1;
    int ids[64];
    float *ref = NULL;
    size_t T = ref_s30(ids, &ref);
    CHECK(T == 30 && ref, "tiny_s30 reference (%zu ids)", T);
    test_as_stored();
    if (T) {
        test_half_is_its_float_image(ids, T);
        test_rounding_error(ids, T, ref);
    }
    test_greedy_text();
    test_random_half();
    free(ref);
    check_tmpdir_remove(g_tmp);
    return check_summary("test_weights_half");
}
