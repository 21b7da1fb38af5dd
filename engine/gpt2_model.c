/* gpt2_model.c — a HuggingFace GPT-2 directory (config.json + model.safetensors) into
 * a Gpt2Model, and random models of any config for benchmarks/tests.
 * Loading never copies weights that are already in the precision we run in: the
 * pointers in Gpt2Weights point straight into the read-only mmap of the file (the 1.5B
 * model is 6 GB as F32; copying would double that). Everything else is converted once
 * into owned buffers (F16/BF16 widened to float, or F32 matrices rounded to F16/BF16).
 * A mapped file that shrinks under us would SIGBUS: map_guard.h turns that into one
 * clear line. Not the forward pass. */
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
#include "map_guard.h"
#include "safetensors.h"


/* Weights we own (converted F16/BF16, random) go in 2 MiB-aligned memory marked for
 * transparent huge pages: decode streams every weight once per token, and huge pages
 * cut its TLB misses (measured 18-28% faster decode in make bench). */
static void *alloc_weight_bytes(size_t n, size_t elem) {
    const size_t huge = (size_t)2 << 20;
    size_t bytes = n * elem;
    if (n == 0 || bytes / elem != n) return NULL;
    bytes = (bytes + huge - 1) / huge * huge; /* aligned_alloc wants a multiple */
    void *p = aligned_alloc(huge, bytes);
#ifdef MADV_HUGEPAGE
    if (p) madvise(p, bytes, MADV_HUGEPAGE); /* advice only: failure is harmless */
#endif
    return p;
}

static float *alloc_weights(size_t n_floats) { return alloc_weight_bytes(n_floats, sizeof(float)); }
static uint16_t *alloc_halves(size_t n) { return alloc_weight_bytes(n, sizeof(uint16_t)); }

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void gpt2_model_free(Gpt2Model *m) {
    if (m->map) {
        map_guard_remove(m->map);
        munmap(m->map, m->map_len);
    }
    free(m->owned); /* aligned_alloc memory is released with free */
    free(m->owned_h);
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
    const uint16_t **dst_h; /* for the big matrices: where a 16-bit copy goes (else NULL) */
    const SafeTensor *t; /* found in the file */
} WeightSlot;

static void slot_set(WeightSlot *s, const char *name, int64_t d0, int64_t d1, const float **dst) {
    snprintf(s->name, sizeof s->name, "%s", name);
    s->ndim = d1 ? 2 : 1;
    s->shape[0] = d0;
    s->shape[1] = d1;
    s->dst = dst;
    s->dst_h = NULL;
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

/* The kernel dtype of a file dtype (only F32/F16/BF16 get this far). */
static KernDtype kdtype_of(SafeDtype d) {
    return d == SAFE_F16 ? KERN_F16 : d == SAFE_BF16 ? KERN_BF16 : KERN_F32;
}

/* Gives the big matrices their 16-bit twin pointer (the rest stay float-only). Found by
 * the float pointer each slot fills, so the table of slots needs no second column. */
static void mark_matrices(WeightSlot *slots, size_t n, Gpt2Model *m) {
    for (size_t i = 0; i < n; i++) {
        const float **d = slots[i].dst;
        if (d == &m->w.wte) slots[i].dst_h = &m->w.wte_h;
        if (d == &m->w.lm_head) slots[i].dst_h = &m->w.lm_head_h;
        for (int l = 0; l < m->config.n_layer; l++) {
            Gpt2LayerWeights *lw = &m->w.layers[l];
            if (d == &lw->qkv_w) slots[i].dst_h = &lw->qkv_h;
            if (d == &lw->attn_proj_w) slots[i].dst_h = &lw->attn_proj_h;
            if (d == &lw->fc_w) slots[i].dst_h = &lw->fc_h;
            if (d == &lw->fc_proj_w) slots[i].dst_h = &lw->fc_proj_h;
        }
    }
}

/* The dtype slot s runs in: the model's for the big matrices, float for the rest. */
static KernDtype slot_dtype(const WeightSlot *s, KernDtype target) { return s->dst_h ? target : KERN_F32; }

/* A tensor is used in place when it already has the dtype it runs in and is aligned for
 * it. The mmap is page-aligned, so alignment depends on the header length and offsets
 * (HF pads the header to 8 bytes, so in practice it always holds). */
static int usable_in_place(const SafeTensor *t, KernDtype want) {
    return kdtype_of(t->dtype) == want && ((uintptr_t)t->data % kern_dtype_size(want)) == 0;
}

/* n elements of file dtype dt at p (any alignment) as floats. */
static void load_floats(float *dst, const uint8_t *p, SafeDtype dt, size_t n) {
    size_t es = safe_dtype_size(dt);
    if ((uintptr_t)p % es == 0) {
        kern_widen(dst, p, kdtype_of(dt), n); /* the vectorised path */
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if (dt == SAFE_F32) {
            memcpy(&dst[i], p + 4 * i, sizeof(float));
        } else {
            uint16_t h = (uint16_t)(p[2 * i] | (p[2 * i + 1] << 8));
            dst[i] = dt == SAFE_F16 ? half_f16_to_f32(h) : half_bf16_to_f32(h);
        }
    }
}

/* Converts one tensor into dst (numel elements of dtype want): widening is exact,
 * narrowing F32 -> F16/BF16 rounds to nearest even (half.h). Blocks of 4096 elements
 * are spread over the OpenMP threads (a 1.5B model is 1.5 G elements); an unmapped file
 * is read block by block (safe_read), so the file's bytes are never all in memory.
 * Returns 0, or -1 with err (a read error). */
static int convert_tensor(const SafeFile *sf, const SafeTensor *t, void *dst, KernDtype want, ErrorMsg *err) {
    enum { BLK = 4096 };
    const size_t n = safe_numel(t), es = safe_dtype_size(t->dtype);
    const long nb = (long)((n + BLK - 1) / BLK);
    int failed = 0;
#pragma omp parallel for schedule(static)
    for (long b = 0; b < nb; b++) {
        float tmp[BLK];
        uint8_t raw[BLK * sizeof(float)];
        size_t i0 = (size_t)b * BLK, k = n - i0 < BLK ? n - i0 : BLK;
        const uint8_t *src = t->data ? t->data + i0 * es : raw;
        if (!t->data) {
            ErrorMsg e;
            if (safe_read(sf, t, i0 * es, raw, k * es, &e) != 0) {
#pragma omp critical(convert_error)
                if (!failed) {
                    failed = 1;
                    *err = e;
                }
                continue;
            }
        }
        float *out = want == KERN_F32 ? (float *)dst + i0 : tmp;
        load_floats(out, src, t->dtype, k);
        uint16_t *h = want == KERN_F32 ? NULL : (uint16_t *)dst + i0;
        for (size_t i = 0; h && i < k; i++)
            h[i] = want == KERN_F16 ? half_f32_to_f16(tmp[i]) : half_f32_to_bf16(tmp[i]);
    }
    return failed ? -1 : 0;
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
    return gpt2_model_load_as(m, dir, KERN_F32, err);
}

/* The dtypes pass 1 found: over all weights, over the big matrices and over the rest. */
typedef struct SlotDtypes {
    int all, mixed;           /* a SafeDtype, or -1; 1 when the weights differ */
    int mat, mat_mixed;       /* the matrices that have a 16-bit twin (mark_matrices) */
    int vec, vec_mixed;       /* everything else: biases, norms, position embeddings */
} SlotDtypes;

static void note_dtype(int *seen, int *mixed, SafeDtype d) {
    if (*seen >= 0 && *seen != (int)d) *mixed = 1;
    *seen = (int)d;
}

/* Pass 1: finds every slot's tensor in the file and checks its dtype and shape against
 * the config, noting the dtypes seen. path names the file in errors. */
static int find_slot_tensors(WeightSlot *slots, size_t n_slots, const SafeFile *sf, const Gpt2Config *c,
                             const char *path, SlotDtypes *dt, ErrorMsg *err) {
    *dt = (SlotDtypes){-1, 0, -1, 0, -1, 0};
    for (size_t i = 0; i < n_slots; i++) {
        WeightSlot *s = &slots[i];
        char shown[ERROR_QUOTE_CAP];
        const SafeTensor *t = find_weight(sf, s->name);
        if (!t) return error_set(err, "%s: missing tensor '%s'", path, s->name);
        /* wte's row count IS the vocabulary: give the mismatch its own message. */
        if (i == 0 && t->ndim == 2 && t->shape[1] == c->n_embd && t->shape[0] != c->vocab_size)
            return error_set(err, "%s: vocab mismatch: wte.weight has %lld rows but config.json says vocab_size = %d",
                             path, (long long)t->shape[0], c->vocab_size);
        int ok = t->ndim == s->ndim;
        for (int d = 0; ok && d < s->ndim; d++) ok = t->shape[d] == s->shape[d];
        if (!ok) {
            char got[96], want[64];
            shape_str(got, sizeof got, t->ndim, t->shape);
            shape_str(want, sizeof want, s->ndim, s->shape);
            return error_set(err, "%s: tensor '%s' has shape %s, expected %s from config.json", path,
                             ERROR_QUOTE(shown, t->name), got, want);
        }
        if (t->dtype != SAFE_F32 && t->dtype != SAFE_F16 && t->dtype != SAFE_BF16)
            return error_set(err, "%s: tensor '%s' has dtype %s; weights must be F32, F16 or BF16", path,
                             ERROR_QUOTE(shown, t->name), safe_dtype_name(t->dtype));
        note_dtype(&dt->all, &dt->mixed, t->dtype);
        if (s->dst_h) note_dtype(&dt->mat, &dt->mat_mixed, t->dtype);
        else note_dtype(&dt->vec, &dt->vec_mixed, t->dtype);
        s->t = t;
    }
    return 0;
}

/* Pass 2: points every weight into the file where it can be used in place, else
 * converts it into one owned buffer per element size. copy_all: convert even what
 * could stay in the file. Returns -1 (err) when a buffer cannot be had. */
static int place_weights(Gpt2Model *m, const SafeFile *sf, const WeightSlot *slots, size_t n_slots,
                         KernDtype target, int copy_all, const char *path, int *any_in_place, ErrorMsg *err) {
    size_t owned_floats = 0, owned_halves = 0;
    for (size_t i = 0; i < n_slots; i++) {
        KernDtype want = slot_dtype(&slots[i], target);
        if (!copy_all && usable_in_place(slots[i].t, want)) continue;
        if (want == KERN_F32) owned_floats += safe_numel(slots[i].t);
        else owned_halves += safe_numel(slots[i].t);
    }
    if (owned_floats) {
        m->owned = alloc_weights(owned_floats);
        if (!m->owned)
            return error_set(err, "%s: out of memory converting %zu weights to float32", path, owned_floats);
        m->owned_len = owned_floats;
    }
    if (owned_halves) {
        m->owned_h = alloc_halves(owned_halves);
        if (!m->owned_h)
            return error_set(err, "%s: out of memory converting %zu weights to %s", path, owned_halves,
                             kern_dtype_name(target));
        m->owned_h_len = owned_halves;
    }
    size_t used = 0, used_h = 0, n_params = 0;
    *any_in_place = 0;
    for (size_t i = 0; i < n_slots; i++) {
        const WeightSlot *s = &slots[i];
        const SafeTensor *t = s->t;
        KernDtype want = slot_dtype(s, target);
        if (!copy_all && usable_in_place(t, want)) {
            if (want == KERN_F32) *s->dst = (const float *)(const void *)t->data;
            else *s->dst_h = (const uint16_t *)(const void *)t->data;
            *any_in_place = 1;
        } else if (want == KERN_F32) {
            if (convert_tensor(sf, t, m->owned + used, want, err) != 0) return -1;
            *s->dst = m->owned + used;
            used += safe_numel(t);
        } else {
            if (convert_tensor(sf, t, m->owned_h + used_h, want, err) != 0) return -1;
            *s->dst_h = m->owned_h + used_h;
            used_h += safe_numel(t);
        }
        n_params += safe_numel(t);
    }
    m->n_params = n_params; /* the tied head is not a slot, so counted once */
    return 0;
}

/* m->dtype as `info` prints it: "F32", "F16+F32" (matrices + vectors, as convert
 * writes), or "mixed". */
static void describe_dtype(Gpt2Model *m, const SlotDtypes *dt) {
    if (!dt->mixed)
        snprintf(m->dtype, sizeof m->dtype, "%s", safe_dtype_name((SafeDtype)dt->all));
    else if (!dt->mat_mixed && !dt->vec_mixed)
        snprintf(m->dtype, sizeof m->dtype, "%s+%s", safe_dtype_name((SafeDtype)dt->mat),
                 safe_dtype_name((SafeDtype)dt->vec));
    else
        snprintf(m->dtype, sizeof m->dtype, "mixed");
}

/* Checks dir is a folder, records its path and display name and reads config.json. */
static int open_model_dir(Gpt2Model *m, const char *dir, ErrorMsg *err) {
    struct stat st;
    if (stat(dir, &st) != 0) return error_set(err, "%s: model directory not found", dir);
    if (!S_ISDIR(st.st_mode))
        return error_set(err, "%s: not a directory (expected a folder with config.json and model.safetensors)", dir);
    if (strlen(dir) >= sizeof m->dir) return error_set(err, "%.200s...: path too long", dir);
    snprintf(m->dir, sizeof m->dir, "%s", dir);
    dir_display_name(m->name, sizeof m->name, dir);
    char path[1200];
    snprintf(path, sizeof path, "%s/config.json", dir);
    return gpt2_config_load(&m->config, path, err);
}

int gpt2_model_load_as(Gpt2Model *m, const char *dir, int weights, ErrorMsg *err) {
    memset(m, 0, sizeof *m);
    double t0 = now_seconds();
    SafeFile sf = {0};
    WeightSlot *slots = NULL;
    int rc = -1;
    char path[1200];
    if (open_model_dir(m, dir, err) != 0) goto fail;
    const Gpt2Config *c = &m->config;

    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    /* the header only: whether the file is mapped depends on what it holds (below) */
    if (safe_open_header(&sf, path, err) != 0) goto fail;
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
    mark_matrices(slots, n_slots, m);
    if (weights != GPT2_WEIGHTS_AS_STORED && (weights < 0 || weights >= KERN_DTYPE_COUNT)) {
        error_set(err, "%s: unknown weight precision %d", dir, weights);
        goto fail;
    }
    SlotDtypes dt;
    if (find_slot_tensors(slots, n_slots, &sf, c, path, &dt, err) != 0) goto fail;
    /* "as stored": the matrices' dtype when they share one (an F16 file, or ours with F16
     * matrices and F32 vectors), float32 when they are mixed */
    KernDtype target = weights == GPT2_WEIGHTS_AS_STORED ? (dt.mat_mixed ? KERN_F32 : kdtype_of((SafeDtype)dt.mat))
                                                         : (KernDtype)weights;
    /* When the matrices are converted anyway, copy the vectors too (0.3% of the bytes):
     * then nothing points into the file, it is unmapped, and a file changed later
     * cannot touch this model. */
    const int copy_all = dt.mat_mixed || kdtype_of((SafeDtype)dt.mat) != target;
    /* Weights used in place need the mapping. Converted ones are read block by block
     * instead: an F32 file loaded as F16 never has its 4-byte image in memory beside the
     * 2-byte one (on WebAssembly an mmap is a copy in the heap: 124M would peak at
     * 498 + 249 MB, and 355M at 2.1 GB, past the browser's 2 GB heap). */
    if (!copy_all && safe_map(&sf, err) != 0) goto fail;
    int any_in_place = 0;
    if (place_weights(m, &sf, slots, n_slots, target, copy_all, path, &any_in_place, err) != 0) goto fail;
    m->w.dtype = target;
    m->tied = !has_head;
    if (m->tied) {
        m->w.lm_head = m->w.wte;
        m->w.lm_head_h = m->w.wte_h;
    }
    describe_dtype(m, &dt);
    m->file_bytes = sf.map_len;
    /* Keep the mapping only if some weight points into it; an all-F16 model has been
     * fully converted and the file can be released now. */
    if (any_in_place) {
        m->map = sf.map;
        m->map_len = sf.map_len;
        sf.map = NULL;
        map_guard_add(m->map, m->map_len, path);
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

/* The same normals as fill_normal, rounded to 16 bits: a half model built from seed s
 * is exactly the rounding of the float model built from s. */
static uint16_t *fill_normal_h(uint16_t **cursor, size_t n, float std, uint64_t *rng, KernDtype dt) {
    uint16_t *p = *cursor;
    for (size_t i = 0; i < n; i++) {
        float v = normal(rng, std);
        p[i] = dt == KERN_F16 ? half_f32_to_f16(v) : half_f32_to_bf16(v);
    }
    *cursor += n;
    return p;
}

static float *fill_const(float **cursor, size_t n, float v) {
    float *p = *cursor;
    for (size_t i = 0; i < n; i++) p[i] = v;
    *cursor += n;
    return p;
}

/* Where the random weights go: floats from `cur`, the big matrices from `hc` when the
 * model is F16/BF16, all from one normal stream in one order whatever the dtype. */
typedef struct RandomFill {
    float *cur;
    uint16_t *hc;
    uint64_t rng;
    KernDtype dtype;
} RandomFill;

static void fill_matrix(RandomFill *f, size_t n, float std, const float **w, const uint16_t **h) {
    if (f->dtype == KERN_F32)
        *w = fill_normal(&f->cur, n, std, &f->rng);
    else
        *h = fill_normal_h(&f->hc, n, std, &f->rng, f->dtype);
}

int gpt2_model_init_random_as(Gpt2Model *m, const Gpt2Config *cfg, uint64_t seed, KernDtype dtype, ErrorMsg *err) {
    memset(m, 0, sizeof *m);
    double t0 = now_seconds();
    if (gpt2_config_check(cfg, "random model config", err) != 0) return -1;
    m->config = *cfg;
    size_t C = (size_t)cfg->n_embd, L = (size_t)cfg->n_layer;
    size_t V = (size_t)cfg->vocab_size, NP = (size_t)cfg->n_positions;
    /* The config limits keep this product far below SIZE_MAX / 4 on 64-bit. */
    size_t total = gpt2_config_n_params(cfg, 1);
    /* F16/BF16: wte + per layer 3C^2 + C^2 + 4C^2 + 4C^2 in 16 bits, the rest in floats */
    size_t halves = dtype == KERN_F32 ? 0 : V * C + L * 12 * C * C;
    m->owned_h = halves ? alloc_halves(halves) : NULL;
    m->owned = alloc_weights(total - halves);
    m->w.layers = calloc(L, sizeof *m->w.layers);
    if (!m->owned || (halves && !m->owned_h) || !m->w.layers) {
        gpt2_model_free(m);
        return error_set(err, "random model: out of memory for %zu parameters", total);
    }
    m->owned_len = total - halves;
    m->owned_h_len = halves;
    RandomFill f = {m->owned, m->owned_h, seed, dtype};
    /* GPT-2 / nanoGPT init: weights N(0, 0.02); the two projections that write into
     * the residual stream (attn.c_proj, mlp.c_proj) get std 0.02/sqrt(2L), so the
     * stream's variance does not grow with depth (2 residual adds per layer).
     * Biases 0, LayerNorm gains 1. A half model from seed s is the rounding of the
     * float model from s (same draws, same order). */
    const float std = 0.02f, proj_std = (float)(0.02 / sqrt(2.0 * (double)L));
    fill_matrix(&f, V * C, std, &m->w.wte, &m->w.wte_h);
    m->w.wpe = fill_normal(&f.cur, NP * C, std, &f.rng);
    for (size_t l = 0; l < L; l++) {
        Gpt2LayerWeights *lw = &m->w.layers[l];
        lw->ln1_w = fill_const(&f.cur, C, 1.0f);
        lw->ln1_b = fill_const(&f.cur, C, 0.0f);
        fill_matrix(&f, C * 3 * C, std, &lw->qkv_w, &lw->qkv_h);
        lw->qkv_b = fill_const(&f.cur, 3 * C, 0.0f);
        fill_matrix(&f, C * C, proj_std, &lw->attn_proj_w, &lw->attn_proj_h);
        lw->attn_proj_b = fill_const(&f.cur, C, 0.0f);
        lw->ln2_w = fill_const(&f.cur, C, 1.0f);
        lw->ln2_b = fill_const(&f.cur, C, 0.0f);
        fill_matrix(&f, C * 4 * C, std, &lw->fc_w, &lw->fc_h);
        lw->fc_b = fill_const(&f.cur, 4 * C, 0.0f);
        fill_matrix(&f, 4 * C * C, proj_std, &lw->fc_proj_w, &lw->fc_proj_h);
        lw->fc_proj_b = fill_const(&f.cur, C, 0.0f);
    }
    m->w.lnf_w = fill_const(&f.cur, C, 1.0f);
    m->w.lnf_b = fill_const(&f.cur, C, 0.0f);
    m->w.lm_head = m->w.wte;
    m->w.lm_head_h = m->w.wte_h;
    m->w.dtype = dtype;
    m->tied = 1;
    m->n_params = total;
    snprintf(m->name, sizeof m->name, "random-%llu", (unsigned long long)seed);
    snprintf(m->dtype, sizeof m->dtype, "%s", kern_dtype_name(dtype));
    m->load_seconds = now_seconds() - t0;
    return 0;
}

int gpt2_model_init_random(Gpt2Model *m, const Gpt2Config *cfg, uint64_t seed, ErrorMsg *err) {
    return gpt2_model_init_random_as(m, cfg, seed, KERN_F32, err);
}

size_t gpt2_model_weight_bytes(const Gpt2Model *m) {
    return m->owned_len * sizeof(float) + m->owned_h_len * sizeof(uint16_t) +
           (m->map ? m->map_len : 0);
}
