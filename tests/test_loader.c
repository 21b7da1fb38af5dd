/* test_loader.c — gpt2_model_load on the reference tiny model (values compared with
 * an independent read through safe_find), on small synthetic checkpoints written here
 * (F32/F16/BF16, "transformer." prefix, mask buffers, untied head, unaligned data)
 * and on one broken variant per failure mode (each must be one line naming the file
 * and the problem, and leave the model zeroed). Also gpt2_model_init_random. */
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "check_model.h"
#include "check_tmp.h"
#include "gpt2_config.h"
#include "gpt2_model.h"
#include "half.h"
#include "safetensors.h"

static char tmpdir[64];

/* ---- the synthetic checkpoint ------------------------------------------------------ */

/* Small but with every dimension distinct: L=2 NH=2 C=8 NP=6 V=11 (odd V on purpose). */
enum { SL = 2, SNH = 2, SC = 8, SNP = 6, SV = 11 };

typedef struct Spec {
    char name[64]; /* without prefix */
    int ndim;
    int64_t shape[4];
    int param; /* 0 for the mask buffers */
} Spec;

/* Deterministic values that are NOT exact in F16/BF16 (so conversion is exercised):
 * tensor k, element i. Magnitudes 0.05..1.1, both signs. */
static float gen_value(int k, size_t i) {
    return (float)(sin(0.37 * (double)i + 1.3 * k) * (0.6 + 0.05 * k) + 0.01 * k);
}

/* The names, in file order, the loader will look for (plus optional extras). */
static size_t make_specs(Spec *s, int mask_buffers, int lm_head) {
    size_t n = 0;
#define SPEC(nm, nd, a, b, p)                                               \
    do {                                                                    \
        snprintf(s[n].name, sizeof s[n].name, "%s", nm);                    \
        s[n].ndim = nd;                                                     \
        s[n].shape[0] = a;                                                  \
        s[n].shape[1] = b;                                                  \
        s[n].param = p;                                                     \
        n++;                                                                \
    } while (0)
    SPEC("wte.weight", 2, SV, SC, 1);
    SPEC("wpe.weight", 2, SNP, SC, 1);
    for (int l = 0; l < SL; l++) {
        char nm[64];
#define LSPEC(suffix, nd, a, b, p)                                          \
    do {                                                                    \
        snprintf(nm, sizeof nm, "h.%d.%s", l, suffix);                      \
        SPEC(nm, nd, a, b, p);                                              \
    } while (0)
        LSPEC("ln_1.weight", 1, SC, 0, 1);
        LSPEC("ln_1.bias", 1, SC, 0, 1);
        if (mask_buffers) {
            /* HF's causal mask buffer [1,1,NP,NP] (stored here as 2-D [NP,NP] with the
             * same bytes: its shape must not matter because it is never read) */
            LSPEC("attn.bias", 2, SNP, SNP, 0);
            LSPEC("attn.masked_bias", 0, 0, 0, 0);
        }
        LSPEC("attn.c_attn.weight", 2, SC, 3 * SC, 1);
        LSPEC("attn.c_attn.bias", 1, 3 * SC, 0, 1);
        LSPEC("attn.c_proj.weight", 2, SC, SC, 1);
        LSPEC("attn.c_proj.bias", 1, SC, 0, 1);
        LSPEC("ln_2.weight", 1, SC, 0, 1);
        LSPEC("ln_2.bias", 1, SC, 0, 1);
        LSPEC("mlp.c_fc.weight", 2, SC, 4 * SC, 1);
        LSPEC("mlp.c_fc.bias", 1, 4 * SC, 0, 1);
        LSPEC("mlp.c_proj.weight", 2, 4 * SC, SC, 1);
        LSPEC("mlp.c_proj.bias", 1, SC, 0, 1);
#undef LSPEC
    }
    SPEC("ln_f.weight", 1, SC, 0, 1);
    SPEC("ln_f.bias", 1, SC, 0, 1);
    if (lm_head) SPEC("lm_head.weight", 2, SV, SC, 1);
#undef SPEC
    return n;
}

static size_t spec_numel(const Spec *s) {
    size_t n = 1;
    for (int d = 0; d < s->ndim; d++) n *= (size_t)s->shape[d];
    return n;
}

/* How to write (and how to break) one synthetic checkpoint. Zero = the good default. */
typedef struct Build {
    const char *dtype;       /* "F32" (NULL), "F16", "BF16", "I32" */
    const char *prefix;      /* NULL or "transformer." */
    int mask_buffers;        /* add h.N.attn.bias / attn.masked_bias */
    int lm_head;             /* add lm_head.weight (untied) */
    const char *skip;        /* leave this tensor out */
    const char *grow;        /* write this tensor with its first dimension + 1 */
    int config_vocab;        /* vocab_size in config.json (0 = SV) */
    int config_layers;       /* n_layer in config.json (0 = SL) */
    const char *find, *repl; /* replace the first `find` in the header JSON */
    const char *config_text; /* config.json verbatim instead of the generated one */
    int misalign;            /* header length = 8k + 1: every tensor unaligned */
    uint64_t len_field;      /* overrides the header length field */
    long truncate_by;        /* cut this many bytes off the end */
    int no_config, no_model, empty_model;
} Build;

static int case_no;

/* Writes DIR/config.json + DIR/model.safetensors for b; returns DIR (static). */
static const char *build_model(const Build *b) {
    static char dir[128];
    snprintf(dir, sizeof dir, "%s/m%02d", tmpdir, ++case_no);
    mkdir(dir, 0755);
    char path[256];
    if (!b->no_config) {
        snprintf(path, sizeof path, "%s/config.json", dir);
        FILE *f = fopen(path, "w");
        if (b->config_text)
            fputs(b->config_text, f);
        else
            fprintf(f,
                    "{\"activation_function\": \"gelu_new\", \"layer_norm_epsilon\": 1e-05,\n"
                    " \"n_ctx\": %d, \"n_embd\": %d, \"n_head\": %d, \"n_inner\": null,\n"
                    " \"n_layer\": %d, \"n_positions\": %d, \"vocab_size\": %d}\n",
                    SNP, SC, SNH, b->config_layers ? b->config_layers : SL, SNP,
                    b->config_vocab ? b->config_vocab : SV);
        fclose(f);
    }
    if (b->no_model) return dir;
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    FILE *f = fopen(path, "wb");
    if (b->empty_model) {
        fclose(f);
        return dir;
    }
    const char *dtype = b->dtype ? b->dtype : "F32";
    size_t esize = strcmp(dtype, "F16") == 0 || strcmp(dtype, "BF16") == 0 ? 2 : 4;
    Spec specs[64];
    size_t n = make_specs(specs, b->mask_buffers, b->lm_head);
    static char header[16384];
    size_t hl = (size_t)snprintf(header, sizeof header, "{\"__metadata__\":{\"format\":\"pt\"}");
    size_t off = 0;
    for (size_t k = 0; k < n; k++) {
        Spec s = specs[k];
        if (b->skip && strcmp(s.name, b->skip) == 0) continue;
        if (b->grow && strcmp(s.name, b->grow) == 0) s.shape[0]++;
        size_t bytes = spec_numel(&s) * esize;
        char shape[64];
        if (s.ndim == 2)
            snprintf(shape, sizeof shape, "[%lld,%lld]", (long long)s.shape[0], (long long)s.shape[1]);
        else if (s.ndim == 1)
            snprintf(shape, sizeof shape, "[%lld]", (long long)s.shape[0]);
        else
            snprintf(shape, sizeof shape, "[]");
        hl += (size_t)snprintf(header + hl, sizeof header - hl,
                               ",\"%s%s\":{\"dtype\":\"%s\",\"shape\":%s,\"data_offsets\":[%zu,%zu]}",
                               b->prefix ? b->prefix : "", s.name, dtype, shape, off, off + bytes);
        off += bytes;
    }
    hl += (size_t)snprintf(header + hl, sizeof header - hl, "}");
    if (b->find) {
        char *at = strstr(header, b->find);
        if (!at) {
            fprintf(stderr, "test bug: '%s' not in header\n", b->find);
            exit(1);
        }
        static char patched[16384];
        snprintf(patched, sizeof patched, "%.*s%s%s", (int)(at - header), header, b->repl,
                 at + strlen(b->find));
        snprintf(header, sizeof header, "%s", patched);
        hl = strlen(header);
    }
    /* pad with spaces to a multiple of 8, as HF does (or to 8k+1 to misalign) */
    while (hl % 8 != (b->misalign ? 1u : 0u)) header[hl++] = ' ';
    header[hl] = 0;
    uint64_t len = b->len_field ? b->len_field : hl;
    for (int i = 0; i < 8; i++) fputc((int)((len >> (8 * i)) & 0xFF), f);
    fwrite(header, 1, hl, f);
    for (size_t k = 0; k < n; k++) {
        Spec s = specs[k];
        if (b->skip && strcmp(s.name, b->skip) == 0) continue;
        if (b->grow && strcmp(s.name, b->grow) == 0) s.shape[0]++;
        for (size_t i = 0; i < spec_numel(&s); i++) {
            float v = gen_value((int)k, i);
            if (esize == 2) {
                uint16_t h = strcmp(dtype, "F16") == 0 ? half_f32_to_f16(v) : half_f32_to_bf16(v);
                fputc(h & 0xFF, f);
                fputc(h >> 8, f);
            } else if (strcmp(dtype, "I32") == 0) {
                int32_t x = (int32_t)(v * 100);
                fwrite(&x, 4, 1, f);
            } else {
                fwrite(&v, 4, 1, f);
            }
        }
    }
    long size = ftell(f);
    fclose(f);
    if (b->truncate_by && truncate(path, size - b->truncate_by) != 0) perror("truncate");
    return dir;
}

/* The loaded pointer for spec name `nm` (unprefixed), or NULL if not a weight. */
static const float *loaded_ptr(const Gpt2Model *m, const char *nm) {
    if (strcmp(nm, "wte.weight") == 0) return m->w.wte;
    if (strcmp(nm, "wpe.weight") == 0) return m->w.wpe;
    if (strcmp(nm, "ln_f.weight") == 0) return m->w.lnf_w;
    if (strcmp(nm, "ln_f.bias") == 0) return m->w.lnf_b;
    if (strcmp(nm, "lm_head.weight") == 0) return m->w.lm_head;
    int l;
    char rest[48];
    if (sscanf(nm, "h.%d.%47s", &l, rest) != 2 || l < 0 || l >= m->config.n_layer) return NULL;
    const Gpt2LayerWeights *w = &m->w.layers[l];
    struct {
        const char *s;
        const float *p;
    } map[] = {
        {"ln_1.weight", w->ln1_w},         {"ln_1.bias", w->ln1_b},
        {"attn.c_attn.weight", w->qkv_w},  {"attn.c_attn.bias", w->qkv_b},
        {"attn.c_proj.weight", w->attn_proj_w}, {"attn.c_proj.bias", w->attn_proj_b},
        {"ln_2.weight", w->ln2_w},         {"ln_2.bias", w->ln2_b},
        {"mlp.c_fc.weight", w->fc_w},      {"mlp.c_fc.bias", w->fc_b},
        {"mlp.c_proj.weight", w->fc_proj_w}, {"mlp.c_proj.bias", w->fc_proj_b},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(rest, map[i].s) == 0) return map[i].p;
    return NULL;
}

/* Every weight of a synthetic model equals what was written, within `rtol` (0 for F32,
 * 2^-11 for F16 and 2^-8 for BF16: half an ulp of a 10- or 7-bit mantissa). */
static void check_synthetic_values(const Gpt2Model *m, const Build *b, double rtol, const char *what) {
    Spec specs[64];
    size_t n = make_specs(specs, b->mask_buffers, b->lm_head);
    size_t expect_params = 0, bad = 0, checked = 0;
    double worst = 0;
    for (size_t k = 0; k < n; k++) {
        if (!specs[k].param) {
            CHECK(loaded_ptr(m, specs[k].name) == NULL, "%s: buffer %s not loaded", what, specs[k].name);
            continue;
        }
        expect_params += spec_numel(&specs[k]);
        const float *p = loaded_ptr(m, specs[k].name);
        CHECK(p != NULL, "%s: %s loaded", what, specs[k].name);
        if (!p) continue;
        for (size_t i = 0; i < spec_numel(&specs[k]); i++) {
            double want = gen_value((int)k, i), got = p[i];
            double e = fabs(got - want);
            worst = fmax(worst, e / fabs(want));
            if (e > rtol * fabs(want)) {
                if (bad++ < 3)
                    fprintf(stderr, "%s: %s[%zu] = %.9g, want %.9g\n", what, specs[k].name, i, got, want);
            }
            checked++;
        }
    }
    CHECK(bad == 0, "%s: %zu of %zu values off (worst rel err %.3g, tol %.3g)", what, bad, checked,
          worst, rtol);
    if (rtol > 0) CHECK(worst > 0, "%s: conversion actually rounded (worst %.3g)", what, worst);
    CHECK(m->n_params == expect_params, "%s: n_params %zu, want %zu", what, m->n_params, expect_params);
    CHECK(m->config.n_layer == SL && m->config.n_head == SNH && m->config.n_embd == SC &&
              m->config.n_positions == SNP && m->config.vocab_size == SV,
          "%s: config", what);
}

/* ---- tests --------------------------------------------------------------------------- */

static void test_reference_tiny(void) {
    char dir[512], path[600];
    Gpt2Model m;
    ErrorMsg err;
    int rc = check_load_tiny(&m, dir, sizeof dir);
    if (rc) return;
    const Gpt2Config *c = &m.config;
    CHECK(c->n_layer == 2 && c->n_head == 4 && c->n_embd == 64 && c->n_positions == 128 &&
              c->vocab_size == 50257,
          "tiny config L=%d NH=%d C=%d NP=%d V=%d", c->n_layer, c->n_head, c->n_embd,
          c->n_positions, c->vocab_size);
    CHECK(c->ln_eps == 1e-5f, "ln_eps %g", (double)c->ln_eps);
    CHECK(strcmp(m.name, "tiny") == 0, "name '%s'", m.name);
    CHECK(strcmp(m.dtype, "F32") == 0, "dtype %s", m.dtype);
    CHECK(m.tied == 1 && m.w.lm_head == m.w.wte, "tied head");
    CHECK(m.file_bytes == 13301240, "file_bytes %zu", m.file_bytes);
    CHECK(m.load_seconds > 0 && m.load_seconds < 5, "load_seconds %g", m.load_seconds);
    /* F32 must not be copied: no owned buffer, weights inside the mapping */
    CHECK(m.owned == NULL && m.map != NULL, "F32 used in place (owned %p)", (void *)m.owned);
    const uint8_t *lo = m.map, *hi = lo + m.map_len;
    CHECK((const uint8_t *)m.w.wte > lo && (const uint8_t *)(m.w.wte + 50257 * 64) <= hi, "wte in map");

    /* Independent read: parameter count = sum of the file's tensor sizes (all 28 are
     * parameters; tied, no lm_head), and values through safe_find. */
    SafeFile sf;
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    rc = safe_open(&sf, path, &err);
    CHECK(rc == 0, "safe_open: %s", rc ? err.text : "");
    if (rc == 0) {
        size_t total = 0;
        for (size_t i = 0; i < sf.n_tensors; i++) total += safe_numel(&sf.tensors[i]);
        CHECK(m.n_params == total, "n_params %zu == file total %zu", m.n_params, total);
        /* by hand: V*C + NP*C + L*(12C^2 + 13C) + 2C = 3216448 + 8192 + 99968 + 128 */
        CHECK(m.n_params == 3324736u, "n_params %zu == 3324736", m.n_params);
        CHECK(gpt2_config_n_params(c, 1) == 3324736u && gpt2_config_n_params(c, 0) == 3324736u + 50257u * 64u,
              "gpt2_config_n_params");
        struct {
            const char *name;
            const float *p;
            size_t idx;
        } probes[] = {
            {"wte.weight", m.w.wte, 0},
            {"wte.weight", m.w.wte, 50256u * 64u + 63u}, /* last row, last column */
            {"wpe.weight", m.w.wpe, 127u * 64u + 5u},
            {"h.0.attn.c_attn.weight", m.w.layers[0].qkv_w, 64u * 192u - 1u},
            {"h.0.attn.c_attn.bias", m.w.layers[0].qkv_b, 130},
            {"h.1.ln_1.weight", m.w.layers[1].ln1_w, 7},
            {"h.1.mlp.c_proj.weight", m.w.layers[1].fc_proj_w, 256u * 64u - 2u},
            {"h.1.mlp.c_fc.bias", m.w.layers[1].fc_b, 255},
            {"ln_f.bias", m.w.lnf_b, 0},
        };
        for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
            const SafeTensor *t = safe_find(&sf, probes[i].name);
            CHECK(t != NULL, "%s in file", probes[i].name);
            if (!t) continue;
            float want;
            memcpy(&want, t->data + 4 * probes[i].idx, 4);
            CHECK(probes[i].p[probes[i].idx] == want && want != 0.0f, "%s[%zu] = %g, file %g",
                  probes[i].name, probes[i].idx, (double)probes[i].p[probes[i].idx], (double)want);
        }
        /* README §4.1: LN gains were perturbed by 3*N(0,1), so they are far from 1 */
        float g = m.w.layers[0].ln1_w[0];
        CHECK(fabsf(g - 1.0f) > 1e-3f, "ln_1 gain perturbed (%g)", (double)g);
        safe_close(&sf);
    }
    gpt2_model_free(&m);
    CHECK(m.map == NULL && m.w.layers == NULL && m.n_params == 0, "free leaves the model zeroed");
    gpt2_model_free(&m); /* twice is harmless */

    /* trailing slash: the name is still the last component */
    snprintf(path, sizeof path, "%s/", dir);
    rc = gpt2_model_load(&m, path, &err);
    CHECK(rc == 0 && strcmp(m.name, "tiny") == 0, "name with trailing slash '%s'", rc ? err.text : m.name);
    if (rc == 0) gpt2_model_free(&m);
}

/* Loads a synthetic model that must load, checks all its values, frees it. */
static void good_case(const Build *b, double rtol, const char *what, const char *want_dtype) {
    const char *dir = build_model(b);
    Gpt2Model m;
    ErrorMsg err;
    int rc = gpt2_model_load(&m, dir, &err);
    CHECK(rc == 0, "%s: loads: %s", what, rc ? err.text : "");
    if (rc) return;
    check_synthetic_values(&m, b, rtol, what);
    CHECK(strcmp(m.dtype, want_dtype) == 0, "%s: dtype %s", what, m.dtype);
    CHECK(m.tied == !b->lm_head, "%s: tied = %d", what, m.tied);
    if (b->lm_head)
        CHECK(m.w.lm_head != m.w.wte, "%s: separate head", what);
    else
        CHECK(m.w.lm_head == m.w.wte, "%s: head is wte", what);
    if (b->dtype && strcmp(b->dtype, "F32") != 0) {
        /* everything converted: one owned buffer of exactly n_params floats, and the
         * file mapping already released */
        CHECK(m.owned != NULL && m.owned_len == m.n_params && m.map == NULL,
              "%s: converted into one buffer (owned_len %zu, map %p)", what, m.owned_len, m.map);
    } else if (b->misalign) {
        CHECK(m.owned != NULL && m.owned_len == m.n_params, "%s: unaligned tensors copied", what);
    } else {
        CHECK(m.owned == NULL && m.map != NULL, "%s: F32 in place", what);
    }
    gpt2_model_free(&m);
}

static void test_synthetic_good(void) {
    good_case(&(Build){0}, 0.0, "F32", "F32");
    good_case(&(Build){.dtype = "F16"}, ldexp(1.0, -11), "F16", "F16");
    good_case(&(Build){.dtype = "BF16"}, ldexp(1.0, -8), "BF16", "BF16");
    good_case(&(Build){.prefix = "transformer."}, 0.0, "transformer. prefix", "F32");
    good_case(&(Build){.mask_buffers = 1}, 0.0, "mask buffers ignored", "F32");
    good_case(&(Build){.mask_buffers = 1, .prefix = "transformer.", .dtype = "BF16"}, ldexp(1.0, -8),
              "prefix + buffers + BF16", "BF16");
    good_case(&(Build){.lm_head = 1}, 0.0, "lm_head present -> untied", "F32");
    good_case(&(Build){.misalign = 1}, 0.0, "unaligned F32 copied", "F32");
    /* n_ctx alone (very old configs) gives the context length */
    char cfg[256];
    snprintf(cfg, sizeof cfg,
             "{\"n_ctx\": %d, \"n_embd\": %d, \"n_head\": %d, \"n_layer\": %d, \"vocab_size\": %d}",
             SNP, SC, SNH, SL, SV);
    good_case(&(Build){.config_text = cfg}, 0.0, "n_ctx fallback, default eps", "F32");
}

/* A broken model directory: load must fail with a message naming `file_part` and
 * containing `phrase`, and leave the model zeroed. */
static void bad_case(const Build *b, const char *file_part, const char *phrase, const char *what) {
    const char *dir = build_model(b);
    Gpt2Model m;
    memset(&m, 0xAB, sizeof m); /* garbage in: load must zero it */
    ErrorMsg err = {{0}};
    int rc = gpt2_model_load(&m, dir, &err);
    CHECK(rc == -1, "%s: rejected", what);
    if (getenv("TEST_VERBOSE")) printf("  %-32s %s\n", what, err.text);
    char want_file[300];
    snprintf(want_file, sizeof want_file, "%s/%s", dir, file_part);
    CHECK(strstr(err.text, want_file) != NULL, "%s: names %s: %s", what, want_file, err.text);
    CHECK(strstr(err.text, phrase) != NULL, "%s: says '%s': %s", what, phrase, err.text);
    CHECK(strchr(err.text, '\n') == NULL, "%s: one line", what);
    Gpt2Model zero;
    memset(&zero, 0, sizeof zero);
    CHECK(memcmp(&m, &zero, sizeof m) == 0, "%s: model left zeroed", what);
    if (rc == 0) gpt2_model_free(&m);
}

static void test_synthetic_bad(void) {
    Gpt2Model m;
    ErrorMsg err;
    char p[256];
    /* missing directory / a file instead of a directory */
    snprintf(p, sizeof p, "%s/no_such_dir", tmpdir);
    CHECK(gpt2_model_load(&m, p, &err) == -1 && strstr(err.text, p) && strstr(err.text, "not found"),
          "missing dir: %s", err.text);
    const char *dir = build_model(&(Build){0});
    snprintf(p, sizeof p, "%s/config.json", dir);
    CHECK(gpt2_model_load(&m, p, &err) == -1 && strstr(err.text, p) && strstr(err.text, "not a directory"),
          "file as dir: %s", err.text);

    bad_case(&(Build){.no_config = 1}, "config.json", "cannot open", "missing config.json");
    bad_case(&(Build){.no_model = 1}, "model.safetensors", "cannot open", "missing model.safetensors");
    bad_case(&(Build){.empty_model = 1}, "model.safetensors", "empty file", "empty model file");
    bad_case(&(Build){.len_field = 1000000}, "model.safetensors", "exceeds", "header length > file");
    bad_case(&(Build){.len_field = 10000000000ull}, "model.safetensors", "exceeds", "10 GB header");
    bad_case(&(Build){.truncate_by = 4}, "model.safetensors", "out of range", "truncated data");
    bad_case(&(Build){.find = "[352,544]", .repl = "[100352,100544]"}, "model.safetensors",
             "out of range", "offsets out of range");
    bad_case(&(Build){.find = "[352,544]", .repl = "[300,492]"}, "model.safetensors", "overlap",
             "overlapping tensors");
    bad_case(&(Build){.find = "\"F32\"", .repl = "\"F33\""}, "model.safetensors", "unknown dtype 'F33'",
             "unknown dtype");
    bad_case(&(Build){.find = "[6,8]", .repl = "[6,9]"}, "model.safetensors", "span",
             "shape x dtype != offsets span");
    bad_case(&(Build){.find = "{", .repl = "<"}, "model.safetensors", "not valid JSON", "non-JSON header");
    bad_case(&(Build){.skip = "h.1.mlp.c_fc.bias"}, "model.safetensors",
             "missing tensor 'h.1.mlp.c_fc.bias'", "missing tensor");
    bad_case(&(Build){.skip = "ln_f.weight", .prefix = "transformer."}, "model.safetensors",
             "missing tensor 'ln_f.weight'", "missing tensor (prefixed file)");
    bad_case(&(Build){.grow = "h.0.attn.c_attn.weight"}, "model.safetensors",
             "'h.0.attn.c_attn.weight' has shape [9, 24], expected [8, 24]", "wrong shape");
    bad_case(&(Build){.grow = "wpe.weight"}, "model.safetensors", "'wpe.weight' has shape [7, 8], expected [6, 8]",
             "wpe rows != n_positions");
    bad_case(&(Build){.config_vocab = 12}, "model.safetensors", "vocab mismatch", "config/vocab mismatch");
    bad_case(&(Build){.config_layers = 1}, "model.safetensors", "n_layer = 1", "more layers than config");
    bad_case(&(Build){.config_layers = 3}, "model.safetensors", "missing tensor 'h.2.", "fewer layers than config");
    bad_case(&(Build){.dtype = "I32"}, "model.safetensors", "must be F32, F16 or BF16", "integer weights");
    bad_case(&(Build){.config_text = "{\"n_layer\": 2, oops"}, "config.json", "not valid JSON", "non-JSON config");
    bad_case(&(Build){.config_text = "[2, 2, 8]"}, "config.json", "not a JSON object", "config not an object");
    bad_case(&(Build){.config_text = "{\"n_layer\": 2, \"n_head\": 3, \"n_embd\": 8, \"n_positions\": 6, "
                                     "\"vocab_size\": 11}"},
             "config.json", "not divisible by n_head", "n_embd % n_head");
    bad_case(&(Build){.config_text = "{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 8, \"vocab_size\": 11}"},
             "config.json", "missing \"n_positions\"", "no context length");
    bad_case(&(Build){.config_text = "{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 8, \"n_positions\": 6}"},
             "config.json", "missing \"vocab_size\"", "no vocab_size");
    bad_case(&(Build){.config_text = "{\"n_layer\": 0, \"n_head\": 2, \"n_embd\": 8, \"n_positions\": 6, "
                                     "\"vocab_size\": 11}"},
             "config.json", "must be positive", "zero layers");
    bad_case(&(Build){.config_text = "{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 8, \"n_positions\": 6, "
                                     "\"vocab_size\": 99999999}"},
             "config.json", "above the supported maximum", "absurd vocab");
    bad_case(&(Build){.config_text = "{\"n_layer\": \"2\", \"n_head\": 2, \"n_embd\": 8, \"n_positions\": 6, "
                                     "\"vocab_size\": 11}"},
             "config.json", "\"n_layer\" must be an integer", "string n_layer");
    bad_case(&(Build){.config_text = "{\"n_layer\": 2.5, \"n_head\": 2, \"n_embd\": 8, \"n_positions\": 6, "
                                     "\"vocab_size\": 11}"},
             "config.json", "\"n_layer\" must be an integer", "fractional n_layer");
    bad_case(&(Build){.config_text = "{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 8, \"n_positions\": 6, "
                                     "\"vocab_size\": 11, \"n_inner\": 64}"},
             "config.json", "n_inner = 64 is not supported", "n_inner != 4C");
    bad_case(&(Build){.config_text = "{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 8, \"n_positions\": 6, "
                                     "\"vocab_size\": 11, \"layer_norm_epsilon\": -1}"},
             "config.json", "layer_norm_epsilon", "negative eps");
}

static void test_random(void) {
    Gpt2Config cfg = {.n_layer = 3, .n_head = 4, .n_embd = 32, .n_positions = 16, .vocab_size = 500,
                      .ln_eps = 1e-5f};
    Gpt2Model a, b, d;
    ErrorMsg err;
    CHECK(gpt2_model_init_random(&a, &cfg, 42, &err) == 0, "random init: %s", err.text);
    CHECK(gpt2_model_init_random(&b, &cfg, 42, &err) == 0, "random init again");
    CHECK(gpt2_model_init_random(&d, &cfg, 43, &err) == 0, "random init other seed");
    size_t C = 32, L = 3, V = 500, NP = 16;
    size_t want = V * C + NP * C + L * (2 * C + C * 3 * C + 3 * C + C * C + C + 2 * C + C * 4 * C + 4 * C +
                                        4 * C * C + C) + 2 * C;
    CHECK(a.n_params == want && a.owned_len == want, "random n_params %zu want %zu", a.n_params, want);
    CHECK(a.tied && a.w.lm_head == a.w.wte && a.map == NULL, "random: tied, no file");
    CHECK(memcmp(a.owned, b.owned, want * sizeof(float)) == 0, "same seed, same weights");
    CHECK(memcmp(a.owned, d.owned, V * C * sizeof(float)) != 0, "other seed, other weights");
    /* statistics of N(0, s): mean ~ 0 (se = s/sqrt(n)), std ~ s (se ~ s/sqrt(2n)) */
    double sum = 0, sq = 0;
    size_t n = V * C;
    for (size_t i = 0; i < n; i++) {
        sum += a.w.wte[i];
        sq += (double)a.w.wte[i] * a.w.wte[i];
    }
    double mean = sum / (double)n, sd = sqrt(sq / (double)n - mean * mean);
    CHECK(fabs(mean) < 5 * 0.02 / sqrt((double)n), "wte mean %g", mean);
    CHECK(fabs(sd - 0.02) < 0.02 * 0.03, "wte std %g ~ 0.02", sd);
    sq = 0;
    n = 4 * C * C;
    for (size_t i = 0; i < n; i++) sq += (double)a.w.layers[2].fc_proj_w[i] * a.w.layers[2].fc_proj_w[i];
    double proj_sd = sqrt(sq / (double)n);
    CHECK(fabs(proj_sd - 0.02 / sqrt(6.0)) < 0.1 * 0.02 / sqrt(6.0), "mlp c_proj std %g ~ 0.02/sqrt(2L)", proj_sd);
    CHECK(a.w.layers[1].ln2_w[5] == 1.0f && a.w.layers[1].ln2_b[5] == 0.0f && a.w.lnf_w[31] == 1.0f &&
              a.w.layers[0].qkv_b[95] == 0.0f,
          "LN gains 1, biases 0");
    CHECK(a.w.lnf_b + C == a.owned + a.owned_len, "one buffer, fully used");
    gpt2_model_free(&a);
    gpt2_model_free(&b);
    gpt2_model_free(&d);
    Gpt2Config bad = cfg;
    bad.n_head = 5;
    CHECK(gpt2_model_init_random(&a, &bad, 1, &err) == -1 && strstr(err.text, "not divisible"),
          "random: bad config rejected: %s", err.text);
    CHECK(a.owned == NULL && a.w.layers == NULL, "random: zeroed on error");
}

int main(void) {
    if (check_tmpdir_make(tmpdir, sizeof tmpdir, "test_loader")) return 1;
    test_reference_tiny();
    test_synthetic_good();
    test_synthetic_bad();
    test_random();
    check_tmpdir_remove(tmpdir);
    return check_summary("test_loader");
}
