/* gpt2_save.c — writes a Gpt2Model as a HuggingFace GPT-2 folder (config.json +
 * model.safetensors) that gpt2_model_load, transformers and the safetensors library all
 * read: `inferscope convert` and the benchmark's model files. The big matrices are
 * written in the model's weight dtype, vectors (biases, LayerNorm gains, wpe) as F32 —
 * exactly what the model computes with, so loading the file gives the same numbers as
 * converting at load. Tensors are contiguous (the safetensors spec forbids holes), F32
 * ones first so every tensor is aligned for in-place use. Both files are written through
 * file_write.h (a temporary created new, then linked into place), and existing files are
 * never overwritten. Not a reader. */
#include "gpt2_save.h"

#include <cJSON.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_write.h"

typedef struct OutTensor {
    char name[64];
    const void *data;
    KernDtype dtype;
    int64_t shape[2];
    int ndim;
} OutTensor;

static void out_add(OutTensor *t, size_t *n, const char *name, const void *data, KernDtype dt, int64_t d0,
                    int64_t d1) {
    OutTensor *o = &t[(*n)++];
    snprintf(o->name, sizeof o->name, "%s", name);
    o->data = data;
    o->dtype = dt;
    o->shape[0] = d0;
    o->shape[1] = d1;
    o->ndim = d1 ? 2 : 1;
}

static size_t out_bytes(const OutTensor *o) {
    return (size_t)o->shape[0] * (size_t)(o->ndim == 2 ? o->shape[1] : 1) * kern_dtype_size(o->dtype);
}

/* Every tensor of the model, F32 vectors first, then the matrices. Returns the count. */
static size_t list_tensors(const Gpt2Model *m, OutTensor *t) {
    const Gpt2Config *c = &m->config;
    const Gpt2Weights *w = &m->w;
    const int64_t C = c->n_embd, V = c->vocab_size;
    const KernDtype dt = w->dtype;
    size_t n = 0;
    char name[64];
    out_add(t, &n, "wpe.weight", w->wpe, KERN_F32, c->n_positions, C);
    for (int l = 0; l < c->n_layer; l++) {
        const Gpt2LayerWeights *lw = &w->layers[l];
        const struct { const char *suffix; const float *p; int64_t len; } vec[] = {
            {"ln_1.weight", lw->ln1_w, C}, {"ln_1.bias", lw->ln1_b, C}, {"attn.c_attn.bias", lw->qkv_b, 3 * C},
            {"attn.c_proj.bias", lw->attn_proj_b, C}, {"ln_2.weight", lw->ln2_w, C}, {"ln_2.bias", lw->ln2_b, C},
            {"mlp.c_fc.bias", lw->fc_b, 4 * C}, {"mlp.c_proj.bias", lw->fc_proj_b, C}};
        for (size_t k = 0; k < sizeof vec / sizeof vec[0]; k++) {
            snprintf(name, sizeof name, "h.%d.%s", l, vec[k].suffix);
            out_add(t, &n, name, vec[k].p, KERN_F32, vec[k].len, 0);
        }
    }
    out_add(t, &n, "ln_f.weight", w->lnf_w, KERN_F32, C, 0);
    out_add(t, &n, "ln_f.bias", w->lnf_b, KERN_F32, C, 0);
    out_add(t, &n, "wte.weight", gpt2_mat(w, w->wte, w->wte_h), dt, V, C);
    for (int l = 0; l < c->n_layer; l++) {
        const Gpt2LayerWeights *lw = &w->layers[l];
        const struct { const char *suffix; const void *p; int64_t d0, d1; } mat[] = {
            {"attn.c_attn.weight", gpt2_mat(w, lw->qkv_w, lw->qkv_h), C, 3 * C},
            {"attn.c_proj.weight", gpt2_mat(w, lw->attn_proj_w, lw->attn_proj_h), C, C},
            {"mlp.c_fc.weight", gpt2_mat(w, lw->fc_w, lw->fc_h), C, 4 * C},
            {"mlp.c_proj.weight", gpt2_mat(w, lw->fc_proj_w, lw->fc_proj_h), 4 * C, C}};
        for (size_t k = 0; k < sizeof mat / sizeof mat[0]; k++) {
            snprintf(name, sizeof name, "h.%d.%s", l, mat[k].suffix);
            out_add(t, &n, name, mat[k].p, dt, mat[k].d0, mat[k].d1);
        }
    }
    if (!m->tied) out_add(t, &n, "lm_head.weight", gpt2_mat(w, w->lm_head, w->lm_head_h), dt, V, C);
    return n;
}

/* The safetensors header: JSON padded with spaces to a multiple of 8 (as HF does), so
 * the data (and every F32 tensor, all placed first) starts 8-aligned. */
static char *make_header(const OutTensor *t, size_t n, size_t *len) {
    cJSON *root = cJSON_CreateObject(), *meta = cJSON_CreateObject();
    if (!root || !meta) {
        cJSON_Delete(root);
        cJSON_Delete(meta);
        return NULL;
    }
    cJSON_AddStringToObject(meta, "format", "pt");
    cJSON_AddStringToObject(meta, "written_by", "inferscope");
    cJSON_AddItemToObject(root, "__metadata__", meta);
    size_t off = 0;
    for (size_t i = 0; i < n; i++) {
        cJSON *e = cJSON_CreateObject();
        double shape[2] = {(double)t[i].shape[0], (double)t[i].shape[1]};
        double offs[2] = {(double)off, (double)(off + out_bytes(&t[i]))};
        cJSON_AddStringToObject(e, "dtype", kern_dtype_name(t[i].dtype));
        cJSON_AddItemToObject(e, "shape", cJSON_CreateDoubleArray(shape, t[i].ndim));
        cJSON_AddItemToObject(e, "data_offsets", cJSON_CreateDoubleArray(offs, 2));
        cJSON_AddItemToObject(root, t[i].name, e);
        off += out_bytes(&t[i]);
    }
    char *json = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    if (!json) return NULL;
    size_t k = strlen(json), padded = (k + 7) / 8 * 8;
    char *h = malloc(padded + 1);
    if (h) {
        memcpy(h, json, k);
        memset(h + k, ' ', padded - k);
        h[padded] = 0;
        *len = padded;
    }
    free(json);
    return h;
}

/* Writes `len` bytes at p fully or fails. */
static int write_all(FILE *f, const void *p, size_t len) {
    const uint8_t *b = p;
    while (len) {
        size_t k = len < ((size_t)1 << 24) ? len : ((size_t)1 << 24);
        if (fwrite(b, 1, k, f) != k) return -1;
        b += k;
        len -= k;
    }
    return 0;
}

static int write_config(const Gpt2Model *m, FILE *f) {
    const Gpt2Config *c = &m->config;
    cJSON *root = cJSON_CreateObject();
    if (!root) return -1;
    const char *arch[] = {"GPT2LMHeadModel"};
    cJSON_AddItemToObject(root, "architectures", cJSON_CreateStringArray(arch, 1));
    cJSON_AddStringToObject(root, "model_type", "gpt2");
    cJSON_AddStringToObject(root, "activation_function", "gelu_new");
    cJSON_AddNumberToObject(root, "n_layer", c->n_layer);
    cJSON_AddNumberToObject(root, "n_head", c->n_head);
    cJSON_AddNumberToObject(root, "n_embd", c->n_embd);
    cJSON_AddNumberToObject(root, "n_positions", c->n_positions);
    cJSON_AddNumberToObject(root, "n_ctx", c->n_positions);
    cJSON_AddNumberToObject(root, "vocab_size", c->vocab_size);
    cJSON_AddNumberToObject(root, "layer_norm_epsilon", (double)c->ln_eps);
    cJSON_AddBoolToObject(root, "tie_word_embeddings", m->tied);
    cJSON_AddStringToObject(root, "torch_dtype", m->w.dtype == KERN_F16 ? "float16"
                                                 : m->w.dtype == KERN_BF16 ? "bfloat16" : "float32");
    char *json = cJSON_Print(root);
    cJSON_Delete(root);
    if (!json) return -1;
    int rc = write_all(f, json, strlen(json)) || fputc('\n', f) == EOF ? -1 : 0;
    free(json);
    return rc;
}

/* Writes dir/name through a temporary created new beside it (file_write.h); never
 * replaces a file. */
static int write_new(const char *dir, const char *name, const Gpt2Model *m, const OutTensor *t, size_t n,
                     const char *header, size_t hlen, ErrorMsg *err) {
    char final_path[1200];
    snprintf(final_path, sizeof final_path, "%s/%s", dir, name);
    AtomicFile a;
    if (atomic_file_open(&a, final_path, 0, err)) return -1;
    int bad = 0;
    if (header) {
        uint8_t len8[8];
        for (int i = 0; i < 8; i++) len8[i] = (uint8_t)((uint64_t)hlen >> (8 * i));
        bad |= write_all(a.f, len8, 8) || write_all(a.f, header, hlen);
        for (size_t i = 0; i < n && !bad; i++) bad |= write_all(a.f, t[i].data, out_bytes(&t[i]));
    } else {
        bad |= write_config(m, a.f);
    }
    if (bad && !ferror(a.f)) { /* cJSON ran out of memory; a write error is commit's to report */
        atomic_file_abort(&a);
        return error_set(err, "%s: out of memory", final_path);
    }
    return atomic_file_commit(&a, err);
}

int gpt2_model_save(const Gpt2Model *m, const char *dir, ErrorMsg *err) {
    if (!m->w.layers || !gpt2_mat(&m->w, m->w.wte, m->w.wte_h)) return error_set(err, "%s: no model to write", dir);
    if (strlen(dir) > 1000) return error_set(err, "%.100s...: path too long", dir);
    struct stat st;
    if (stat(dir, &st) != 0 && mkdir(dir, 0777) != 0)
        return error_set(err, "%s: cannot create the folder: %s", dir, strerror(errno));
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) return error_set(err, "%s: not a folder", dir);
    /* both names must be free before anything is written: never half a model folder */
    static const char *const names[] = {"model.safetensors", "config.json"};
    for (int i = 0; i < 2; i++) {
        char p[1200];
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        if (file_write_check(p, 0, err)) return -1;
    }
    size_t cap = 3 + 12 * (size_t)m->config.n_layer + 2;
    OutTensor *t = calloc(cap, sizeof *t);
    if (!t) return error_set(err, "%s: out of memory", dir);
    size_t n = list_tensors(m, t), hlen = 0;
    char *header = make_header(t, n, &hlen);
    int rc = header ? 0 : error_set(err, "%s: out of memory for the safetensors header", dir);
    if (rc == 0) rc = write_new(dir, "model.safetensors", m, t, n, header, hlen, err);
    if (rc == 0) rc = write_new(dir, "config.json", m, NULL, 0, NULL, 0, err);
    free(header);
    free(t);
    return rc;
}
