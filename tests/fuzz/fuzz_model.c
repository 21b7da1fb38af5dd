/* fuzz_model.c — libFuzzer harness for gpt2_model_load (engine/gpt2_model.h): a fixed,
 * tiny config.json (L=1, NH=1, C=2, NP=2, V=3) next to a model.safetensors made of
 * arbitrary bytes, so the fuzzer explores the shape/dtype/tied-head checks and the
 * F16/BF16 conversion. A loaded model must have every weight readable end to end.
 * Not the header parser alone (fuzz_safetensors.c). */
#include "fuzz.h"

#include <sys/stat.h>

#include "gpt2_model.h"

static const char FUZZ_MODEL_CONFIG[] =
    "{\"n_layer\": 1, \"n_head\": 1, \"n_embd\": 2, \"n_positions\": 2, \"vocab_size\": 3,"
    " \"layer_norm_epsilon\": 1e-5}\n";

static char fuzz_model_dir[256];

static void fuzz_model_cleanup(void) {
    char p[300];
    snprintf(p, sizeof p, "%s/config.json", fuzz_model_dir);
    unlink(p);
    snprintf(p, sizeof p, "%s/model.safetensors", fuzz_model_dir);
    unlink(p);
    rmdir(fuzz_model_dir);
}

/* The folder: config.json written once; model.safetensors a symlink to the memfd. */
static void fuzz_model_setup(FuzzFile *file) {
    const char *tmp = getenv("TMPDIR");
    snprintf(fuzz_model_dir, sizeof fuzz_model_dir, "%s/inferscope-fuzz-model-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    FUZZ_ASSERT(mkdtemp(fuzz_model_dir) != NULL, "mkdtemp failed");
    atexit(fuzz_model_cleanup);
    char p[300];
    snprintf(p, sizeof p, "%s/config.json", fuzz_model_dir);
    FILE *fp = fopen(p, "wb");
    FUZZ_ASSERT(fp && fputs(FUZZ_MODEL_CONFIG, fp) >= 0 && fclose(fp) == 0, "write %s", p);
    fuzz_file_set(file, (const uint8_t *)"", 0);
    snprintf(p, sizeof p, "%s/model.safetensors", fuzz_model_dir);
    FUZZ_ASSERT(symlink(file->path, p) == 0, "symlink %s", p);
}

/* Sum of n floats: reads every element, so ASan or a SIGSEGV catches a bad pointer. */
static float fuzz_model_touch(const float *p, size_t n) {
    float s = 0.0f;
    for (size_t i = 0; i < n; i++) s += p[i];
    return s;
}

/* Returns 1 if the model loaded, 0 if refused. */
static int fuzz_model_one(const uint8_t *data, size_t size) {
    static FuzzFile file;
    if (!fuzz_model_dir[0]) fuzz_model_setup(&file);
    fuzz_file_set(&file, data, size);
    Gpt2Model m;
    ErrorMsg err = {{0}};
    if (gpt2_model_load(&m, fuzz_model_dir, &err) != 0) {
        FUZZ_ASSERT_REFUSAL(err.text, fuzz_model_dir);
        FUZZ_ASSERT(m.map == NULL && m.owned == NULL && m.w.layers == NULL, "model not zeroed");
        return 0;
    }
    const size_t C = 2, V = 3, NP = 2;
    const Gpt2LayerWeights *l = &m.w.layers[0];
    float s = fuzz_model_touch(m.w.wte, V * C) + fuzz_model_touch(m.w.wpe, NP * C) +
              fuzz_model_touch(m.w.lm_head, V * C) + fuzz_model_touch(m.w.lnf_w, C) +
              fuzz_model_touch(m.w.lnf_b, C) + fuzz_model_touch(l->ln1_w, C) +
              fuzz_model_touch(l->ln1_b, C) + fuzz_model_touch(l->qkv_w, C * 3 * C) +
              fuzz_model_touch(l->qkv_b, 3 * C) + fuzz_model_touch(l->attn_proj_w, C * C) +
              fuzz_model_touch(l->attn_proj_b, C) + fuzz_model_touch(l->ln2_w, C) +
              fuzz_model_touch(l->ln2_b, C) + fuzz_model_touch(l->fc_w, C * 4 * C) +
              fuzz_model_touch(l->fc_b, 4 * C) + fuzz_model_touch(l->fc_proj_w, 4 * C * C) +
              fuzz_model_touch(l->fc_proj_b, C);
    (void)s;
    /* Parameter count of this config: 3*2 + 2*2 + (12*4 + 13*2) + 2*2 = 88 tied, +6 untied. */
    FUZZ_ASSERT(m.n_params == (m.tied ? 88u : 94u), "n_params %zu (tied %d)", m.n_params, m.tied);
    FUZZ_ASSERT(m.tied == (m.w.lm_head == m.w.wte), "tied flag disagrees with lm_head");
    gpt2_model_free(&m);
    return 1;
}

FUZZ_ENTRY(fuzz_model_one)
