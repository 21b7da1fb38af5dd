/* gpt2_model.c — a HuggingFace GPT-2 directory (config.json + model.safetensors) into
 * a Gpt2Model, and random models of any config for benchmarks/tests.
 * Loading never copies F32 weights: the pointers in Gpt2Weights point straight into
 * the read-only mmap of the file (the 1.5B model is 6 GB; copying would double that).
 * F16/BF16 weights are widened once into one owned buffer. Not the forward pass. */
#include "gpt2_model.h"

#include <math.h>
#include <stdalign.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>

#include "gpt2_config.h"
#include "half.h"
#include "safetensors.h"


/* Weights we own (converted F16/BF16, random) go in 2 MiB-aligned memory marked for
 * transparent huge pages: decode streams every weight once per token, and huge pages
 * cut its TLB misses (measured 18-28% faster decode in make bench). */
static float *alloc_weights(size_t n_floats) {
    const size_t huge = (size_t)2 << 20;
    size_t bytes = n_floats * sizeof(float);
    if (n_floats == 0 || bytes / sizeof(float) != n_floats) return NULL;
    bytes = (bytes + huge - 1) / huge * huge; /* aligned_alloc wants a multiple */
    float *p = aligned_alloc(huge, bytes);
#ifdef MADV_HUGEPAGE
    if (p) madvise(p, bytes, MADV_HUGEPAGE); /* advice only: failure is harmless */
#endif
    return p;
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void gpt2_model_free(Gpt2Model *m) {
    if (m->map) munmap(m->map, m->map_len);
    free(m->owned); /* aligned_alloc memory is released with free */
    free(m->w.layers);
    memset(m, 0, sizeof *m);
}

/* ---- loading ------------------------------------------------------------------ */

/* One weight the model needs: its HF name (without "transformer."), the shape the
 * config implies, and where the float pointer goes. */
typedef struct WeightSlot {
    char name[64];
    int ndim;
    int64_t shape[2];
    const float **dst;
    const SafeTensor *t; /* found in the file */
} WeightSlot;

static void slot_set(WeightSlot *s, const char *name, int64_t d0, int64_t d1, const float **dst) {
    snprintf(s->name, sizeof s->name, "%s", name);
    s->ndim = d1 ? 2 : 1;
    s->shape[0] = d0;
    s->shape[1] = d1;
    s->dst = dst;
    s->t = NULL;
}

/* Checkpoints saved from GPT2LMHeadModel prefix every body tensor with
 * "transformer."; GPT2Model ones do not. Accept both spellings. */
static const SafeTensor *find_weight(const SafeFile *f, const char *name) {
    const SafeTensor *t = safe_find(f, name);
    if (t) return t;
    char pref[96];
    snprintf(pref, sizeof pref, "transformer.%s", name);
    return safe_find(f, pref);
}

static void shape_str(char *buf, size_t n, int ndim, const int64_t *shape) {
    size_t k = (size_t)snprintf(buf, n, "[");
    for (int i = 0; i < ndim && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s%lld", i ? ", " : "", (long long)shape[i]);
    if (k < n) snprintf(buf + k, n - k, "]");
}

/* Builds the list of weights the config calls for. slots must hold 2 + 12L + 3. */
static size_t make_slots(WeightSlot *slots, Gpt2Model *m, int with_lm_head) {
    const Gpt2Config *c = &m->config;
    int64_t C = c->n_embd;
    size_t k = 0;
    slot_set(&slots[k++], "wte.weight", c->vocab_size, C, &m->w.wte);
    slot_set(&slots[k++], "wpe.weight", c->n_positions, C, &m->w.wpe);
    for (int l = 0; l < c->n_layer; l++) {
        Gpt2LayerWeights *lw = &m->w.layers[l];
        char n[64];
#define LAYER_SLOT(suffix, d0, d1, field)                                         \
    do {                                                                          \
        snprintf(n, sizeof n, "h.%d.%s", l, suffix);                              \
        slot_set(&slots[k++], n, d0, d1, &lw->field);                             \
    } while (0)
        LAYER_SLOT("ln_1.weight", C, 0, ln1_w);
        LAYER_SLOT("ln_1.bias", C, 0, ln1_b);
        LAYER_SLOT("attn.c_attn.weight", C, 3 * C, qkv_w);
        LAYER_SLOT("attn.c_attn.bias", 3 * C, 0, qkv_b);
        LAYER_SLOT("attn.c_proj.weight", C, C, attn_proj_w);
        LAYER_SLOT("attn.c_proj.bias", C, 0, attn_proj_b);
        LAYER_SLOT("ln_2.weight", C, 0, ln2_w);
        LAYER_SLOT("ln_2.bias", C, 0, ln2_b);
        LAYER_SLOT("mlp.c_fc.weight", C, 4 * C, fc_w);
        LAYER_SLOT("mlp.c_fc.bias", 4 * C, 0, fc_b);
        LAYER_SLOT("mlp.c_proj.weight", 4 * C, C, fc_proj_w);
        LAYER_SLOT("mlp.c_proj.bias", C, 0, fc_proj_b);
#undef LAYER_SLOT
        /* NOT loaded: h.N.attn.bias (HF's causal-mask buffer, [1,1,NP,NP]) and
         * h.N.attn.masked_bias. They are constants, not parameters; the forward pass
         * applies the causal mask itself. Note the similar name attn.c_attn.bias
         * above, which IS the qkv bias. */
    }
    slot_set(&slots[k++], "ln_f.weight", C, 0, &m->w.lnf_w);
    slot_set(&slots[k++], "ln_f.bias", C, 0, &m->w.lnf_b);
    if (with_lm_head) slot_set(&slots[k++], "lm_head.weight", c->vocab_size, C, &m->w.lm_head);
    return k;
}

/* A tensor of layer >= n_layer means config.json and the weights disagree (e.g. the
 * config of a smaller model next to bigger weights): refuse rather than silently
 * run a truncated network. */
static int check_no_extra_layers(const SafeFile *f, int n_layer, ErrorMsg *err) {
    for (size_t i = 0; i < f->n_tensors; i++) {
        const char *n = f->tensors[i].name;
        if (strncmp(n, "transformer.", 12) == 0) n += 12;
        if (strncmp(n, "h.", 2) != 0) continue;
        char *end, shown[ERROR_QUOTE_CAP];
        long l = strtol(n + 2, &end, 10);
        if (end != n + 2 && *end == '.' && l >= n_layer)
            return error_set(err, "%s: tensor '%s' belongs to layer %ld but config.json says n_layer = %d",
                             f->path, ERROR_QUOTE(shown, f->tensors[i].name), l, n_layer);
    }
    return 0;
}

/* F32 data can be used in place only if it is float-aligned in memory. The mmap is
 * page-aligned, so this depends on the header length and offsets (HF pads the header
 * to 8 bytes, so in practice it always holds). */
static int usable_in_place(const SafeTensor *t) {
    return t->dtype == SAFE_F32 && ((uintptr_t)t->data % alignof(float)) == 0;
}

/* Widens/copies one tensor into dst (numel floats). */
static void convert_tensor(const SafeTensor *t, float *dst) {
    size_t n = safe_numel(t);
    const uint8_t *p = t->data;
    if (t->dtype == SAFE_F32) {
        memcpy(dst, p, n * sizeof(float)); /* unaligned F32: the one case we copy */
    } else if (t->dtype == SAFE_F16) {
        for (size_t i = 0; i < n; i++) dst[i] = half_f16_to_f32((uint16_t)(p[2 * i] | (p[2 * i + 1] << 8)));
    } else { /* SAFE_BF16 */
        for (size_t i = 0; i < n; i++) dst[i] = half_bf16_to_f32((uint16_t)(p[2 * i] | (p[2 * i + 1] << 8)));
    }
}

/* Last path component of dir, trailing slashes ignored ("models/gpt2/" -> "gpt2"). */
static void dir_display_name(char *out, size_t n, const char *dir) {
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/') len--;
    size_t start = len;
    while (start > 0 && dir[start - 1] != '/') start--;
    size_t k = len - start;
    if (k >= n) k = n - 1;
    memcpy(out, dir + start, k);
    out[k] = 0;
}

int gpt2_model_load(Gpt2Model *m, const char *dir, ErrorMsg *err) {
    memset(m, 0, sizeof *m);
    double t0 = now_seconds();
    SafeFile sf = {0};
    WeightSlot *slots = NULL;
    int rc = -1;

    struct stat st;
    if (stat(dir, &st) != 0) {
        error_set(err, "%s: model directory not found", dir);
        goto fail;
    }
    if (!S_ISDIR(st.st_mode)) {
        error_set(err, "%s: not a directory (expected a folder with config.json and model.safetensors)", dir);
        goto fail;
    }
    char path[1200];
    if (strlen(dir) >= sizeof m->dir) {
        error_set(err, "%.200s...: path too long", dir);
        goto fail;
    }
    snprintf(m->dir, sizeof m->dir, "%s", dir);
    dir_display_name(m->name, sizeof m->name, dir);

    snprintf(path, sizeof path, "%s/config.json", dir);
    if (gpt2_config_load(&m->config, path, err) != 0) goto fail;
    const Gpt2Config *c = &m->config;

    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    if (safe_open(&sf, path, err) != 0) goto fail;
    if (check_no_extra_layers(&sf, c->n_layer, err) != 0) goto fail;

    m->w.layers = calloc((size_t)c->n_layer, sizeof *m->w.layers);
    size_t max_slots = 2 + 12 * (size_t)c->n_layer + 3;
    slots = calloc(max_slots, sizeof *slots);
    if (!m->w.layers || !slots) {
        error_set(err, "%s: out of memory", path);
        goto fail;
    }
    /* An explicit lm_head.weight means an untied head (its own V x C matrix);
     * otherwise GPT-2 ties the unembedding to wte, as HF does by default. */
    int has_head = find_weight(&sf, "lm_head.weight") != NULL;
    if (c->untied && !has_head) {
        error_set(err, "%s: config.json says tie_word_embeddings = false, but there is no lm_head.weight", path);
        goto fail;
    }
    size_t n_slots = make_slots(slots, m, has_head);

    /* Pass 1: find every weight and check dtype and shape against the config. */
    size_t owned_floats = 0;
    int dtype_seen = -1, mixed = 0;
    for (size_t i = 0; i < n_slots; i++) {
        WeightSlot *s = &slots[i];
        char shown[ERROR_QUOTE_CAP];
        const SafeTensor *t = find_weight(&sf, s->name);
        if (!t) {
            error_set(err, "%s: missing tensor '%s'", path, s->name);
            goto fail;
        }
        /* wte's row count IS the vocabulary: give the mismatch its own message. */
        if (i == 0 && t->ndim == 2 && t->shape[1] == c->n_embd && t->shape[0] != c->vocab_size) {
            error_set(err, "%s: vocab mismatch: wte.weight has %lld rows but config.json says vocab_size = %d",
                      path, (long long)t->shape[0], c->vocab_size);
            goto fail;
        }
        int ok = t->ndim == s->ndim;
        for (int d = 0; ok && d < s->ndim; d++) ok = t->shape[d] == s->shape[d];
        if (!ok) {
            char got[96], want[64];
            shape_str(got, sizeof got, t->ndim, t->shape);
            shape_str(want, sizeof want, s->ndim, s->shape);
            error_set(err, "%s: tensor '%s' has shape %s, expected %s from config.json", path,
                      ERROR_QUOTE(shown, t->name), got, want);
            goto fail;
        }
        if (t->dtype != SAFE_F32 && t->dtype != SAFE_F16 && t->dtype != SAFE_BF16) {
            error_set(err, "%s: tensor '%s' has dtype %s; weights must be F32, F16 or BF16", path,
                      ERROR_QUOTE(shown, t->name), safe_dtype_name(t->dtype));
            goto fail;
        }
        if (dtype_seen >= 0 && dtype_seen != (int)t->dtype) mixed = 1;
        dtype_seen = (int)t->dtype;
        s->t = t;
        if (!usable_in_place(t)) owned_floats += safe_numel(t);
    }

    /* Pass 2: one buffer for everything that must be converted, then the pointers. */
    if (owned_floats) {
        m->owned = alloc_weights(owned_floats);
        if (!m->owned) {
            error_set(err, "%s: out of memory converting %zu weights to float32", path, owned_floats);
            goto fail;
        }
        m->owned_len = owned_floats;
    }
    size_t used = 0, n_params = 0;
    int any_in_place = 0;
    for (size_t i = 0; i < n_slots; i++) {
        const SafeTensor *t = slots[i].t;
        if (usable_in_place(t)) {
            *slots[i].dst = (const float *)(const void *)t->data;
            any_in_place = 1;
        } else {
            convert_tensor(t, m->owned + used);
            *slots[i].dst = m->owned + used;
            used += safe_numel(t);
        }
        n_params += safe_numel(t);
    }
    m->tied = !has_head;
    if (m->tied) m->w.lm_head = m->w.wte;
    m->n_params = n_params; /* the tied head is not a slot, so counted once */
    snprintf(m->dtype, sizeof m->dtype, "%s", mixed ? "mixed" : safe_dtype_name((SafeDtype)dtype_seen));
    m->file_bytes = sf.map_len;
    /* Keep the mapping only if some weight points into it; an all-F16 model has been
     * fully converted and the file can be released now. */
    if (any_in_place) {
        m->map = sf.map;
        m->map_len = sf.map_len;
        sf.map = NULL;
    }
    m->load_seconds = now_seconds() - t0;
    rc = 0;
fail:
    free(slots);
    safe_close(&sf);
    if (rc != 0) gpt2_model_free(m);
    return rc;
}

/* ---- random models --------------------------------------------------------------- */

/* splitmix64 (Steele, Lea & Flood 2014): a 64-bit counter run through a mixing
 * function. Tiny, fast, statistically good, and identical on every platform, which
 * libc rand() is not. */
static uint64_t splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in (0, 1]: 53 random bits; never 0 so log() below is finite. */
static double uniform01(uint64_t *state) {
    return ((double)(splitmix64(state) >> 11) + 1.0) * (1.0 / 9007199254740992.0);
}

/* Box-Muller: for independent uniforms u1, u2, sqrt(-2 ln u1) * cos(2 pi u2) is a
 * standard normal. (The sin twin is discarded: simpler, and speed is irrelevant.) */
static float normal(uint64_t *state, float std) {
    double u1 = uniform01(state), u2 = uniform01(state);
    return (float)(std * sqrt(-2.0 * log(u1)) * cos(2.0 * 3.14159265358979323846 * u2));
}

static float *fill_normal(float **cursor, size_t n, float std, uint64_t *rng) {
    float *p = *cursor;
    for (size_t i = 0; i < n; i++) p[i] = normal(rng, std);
    *cursor += n;
    return p;
}

static float *fill_const(float **cursor, size_t n, float v) {
    float *p = *cursor;
    for (size_t i = 0; i < n; i++) p[i] = v;
    *cursor += n;
    return p;
}

int gpt2_model_init_random(Gpt2Model *m, const Gpt2Config *cfg, uint64_t seed, ErrorMsg *err) {
    memset(m, 0, sizeof *m);
    double t0 = now_seconds();
    if (gpt2_config_check(cfg, "random model config", err) != 0) return -1;
    m->config = *cfg;
    size_t C = (size_t)cfg->n_embd, L = (size_t)cfg->n_layer;
    size_t V = (size_t)cfg->vocab_size, NP = (size_t)cfg->n_positions;
    /* The config limits keep this product far below SIZE_MAX / 4 on 64-bit. */
    size_t total = gpt2_config_n_params(cfg, 1);
    m->owned = alloc_weights(total);
    m->w.layers = calloc(L, sizeof *m->w.layers);
    if (!m->owned || !m->w.layers) {
        gpt2_model_free(m);
        return error_set(err, "random model: out of memory for %zu parameters", total);
    }
    m->owned_len = total;
    uint64_t rng = seed;
    float *cur = m->owned;
    /* GPT-2 / nanoGPT init: weights N(0, 0.02); the two projections that write into
     * the residual stream (attn.c_proj, mlp.c_proj) get std 0.02/sqrt(2L), so the
     * stream's variance does not grow with depth (2 residual adds per layer).
     * Biases 0, LayerNorm gains 1. */
    const float std = 0.02f, proj_std = (float)(0.02 / sqrt(2.0 * (double)L));
    m->w.wte = fill_normal(&cur, V * C, std, &rng);
    m->w.wpe = fill_normal(&cur, NP * C, std, &rng);
    for (size_t l = 0; l < L; l++) {
        Gpt2LayerWeights *lw = &m->w.layers[l];
        lw->ln1_w = fill_const(&cur, C, 1.0f);
        lw->ln1_b = fill_const(&cur, C, 0.0f);
        lw->qkv_w = fill_normal(&cur, C * 3 * C, std, &rng);
        lw->qkv_b = fill_const(&cur, 3 * C, 0.0f);
        lw->attn_proj_w = fill_normal(&cur, C * C, proj_std, &rng);
        lw->attn_proj_b = fill_const(&cur, C, 0.0f);
        lw->ln2_w = fill_const(&cur, C, 1.0f);
        lw->ln2_b = fill_const(&cur, C, 0.0f);
        lw->fc_w = fill_normal(&cur, C * 4 * C, std, &rng);
        lw->fc_b = fill_const(&cur, 4 * C, 0.0f);
        lw->fc_proj_w = fill_normal(&cur, 4 * C * C, proj_std, &rng);
        lw->fc_proj_b = fill_const(&cur, C, 0.0f);
    }
    m->w.lnf_w = fill_const(&cur, C, 1.0f);
    m->w.lnf_b = fill_const(&cur, C, 0.0f);
    m->w.lm_head = m->w.wte;
    m->tied = 1;
    m->n_params = total;
    snprintf(m->name, sizeof m->name, "random-%llu", (unsigned long long)seed);
    snprintf(m->dtype, sizeof m->dtype, "F32");
    m->load_seconds = now_seconds() - t0;
    return 0;
}
