/* gpt2_trace.c — allocation, truncation and name lookup of the per-position activation
 * store (see gpt2_trace.h for the layout and the names). The numbers inside are written
 * by gpt2_forward.c; nothing here does model math. */
#include "gpt2_trace.h"

#include <math.h>

#include "gpt2_lean.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* ---- carving one allocation ---------------------------------------------------------
 * Every buffer is carved from one mmap'd block at 64-byte (cache line) alignment. The
 * same walk runs twice: once with base == NULL to measure, once to hand out pointers. */
typedef struct Carve {
    char *base;  /* NULL while measuring */
    size_t off;  /* bytes used so far */
} Carve;

static void *carve_bytes(Carve *c, size_t bytes) {
    size_t off = c->off;
    c->off += (bytes + 63) & ~(size_t)63;
    return c->base ? c->base + off : NULL;
}

static float *carve(Carve *c, size_t nfloats) { return carve_bytes(c, nfloats * sizeof(float)); }

/* Hands out every buffer of tr (sized from tr->cfg, max_pos, capture, chunk); returns the bytes. */
static size_t trace_plan(Gpt2Trace *tr, char *base) {
    Carve c = {base, 0};
    const size_t L = (size_t)tr->cfg.n_layer, C = (size_t)tr->cfg.n_embd;
    const size_t V = (size_t)tr->cfg.vocab_size, T = (size_t)tr->max_pos;
    const size_t P = gpt2_tri_row(T); /* T(T+1)/2 */
    const size_t NH = (size_t)tr->cfg.n_head, R = (size_t)tr->chunk;
    const unsigned cap = tr->capture;
    /* `carve` returns NULL while measuring, so the optional pointers stay NULL then */
#define OPT(bit, n) ((cap & (bit)) ? carve(&c, (n)) : NULL)
    const int lean = (cap & GPT2_CAP_LEAN) != 0;
    tr->ids = carve_bytes(&c, T * sizeof(int));
    tr->k = carve(&c, L * T * C);
    tr->v = carve(&c, L * T * C);
    tr->pattern = lean ? NULL : carve(&c, L * NH * P);
    tr->lean = lean ? carve_bytes(&c, sizeof(Gpt2Lean)) : NULL;
    if (lean) {
        /* summaries of every head, GPT2_LEAN_LAYERS layers of full patterns, scratch rows */
        const size_t nb = (T + GPT2_PATTERN_BLOCK - 1) / GPT2_PATTERN_BLOCK;
        float *blk = carve(&c, L * NH * gpt2_tri_row(nb)), *sinkless = carve(&c, L * NH * nb);
        float *layer[GPT2_LEAN_LAYERS];
        for (int s = 0; s < GPT2_LEAN_LAYERS; s++) layer[s] = carve(&c, NH * P);
        float *rows = carve(&c, (size_t)GPT2_LEAN_THREADS * T);
        if (tr->lean) {
            Gpt2Lean *ln = tr->lean;
            memset(ln, 0, sizeof *ln);
            ln->nb = (int)nb;
            ln->blk = blk;
            ln->sinkless = sinkless;
            ln->rows = rows;
            for (int s = 0; s < GPT2_LEAN_LAYERS; s++) {
                ln->layer[s] = layer[s];
                ln->layer_id[s] = -1;
            }
        }
    }
    tr->embed = OPT(GPT2_CAP_EMBED, T * C);
    tr->pos_embed = OPT(GPT2_CAP_EMBED, T * C);
    tr->resid = OPT(GPT2_CAP_RESID, (L + 1) * T * C);
    tr->resid_mid = OPT(GPT2_CAP_RESID_MID, L * T * C);
    tr->ln1 = OPT(GPT2_CAP_LN, L * T * C);
    tr->ln2 = OPT(GPT2_CAP_LN, L * T * C);
    tr->ln_final = OPT(GPT2_CAP_LN, T * C);
    tr->q = (cap & GPT2_CAP_Q) || lean ? carve(&c, L * T * C) : NULL;
    tr->attn_scores = OPT(GPT2_CAP_SCORES, L * NH * P);
    tr->z = OPT(GPT2_CAP_Z, L * T * C);
    tr->attn_out = OPT(GPT2_CAP_ATTN_OUT, L * T * C);
    tr->mlp_out = OPT(GPT2_CAP_MLP_OUT, L * T * C);
    tr->mlp_pre = OPT(GPT2_CAP_MLP, L * T * 4 * C);
    tr->mlp_post = OPT(GPT2_CAP_MLP, L * T * 4 * C);
    tr->logits = carve(&c, ((cap & GPT2_CAP_LOGITS) ? T : GPT2_LOGITS_CACHE) * V);
    /* logits recomputed on demand start from the final residual rows */
    tr->x_final = (cap & GPT2_CAP_LOGITS) ? NULL : tr->resid ? tr->resid + L * T * C : carve(&c, T * C);
#undef OPT
    tr->s_x = carve(&c, R * C);
    tr->s_mid = carve(&c, R * C);
    tr->s_ln = carve(&c, R * C);
    tr->s_qkv = carve(&c, R * 3 * C);
    tr->s_z = carve(&c, R * C);
    tr->s_proj = carve(&c, R * C);
    tr->s_fc = carve(&c, R * 4 * C);
    tr->s_gelu = carve(&c, R * 4 * C);
    return c.off;
}

static int config_ok(const Gpt2Config *cfg) {
    return cfg->n_layer > 0 && cfg->n_head > 0 && cfg->n_embd > 0 && cfg->n_positions > 0 &&
           cfg->vocab_size > 0 && cfg->n_embd % cfg->n_head == 0;
}

size_t gpt2_trace_bytes(const Gpt2Config *cfg, int max_pos, unsigned capture) {
    Gpt2Trace t;
    memset(&t, 0, sizeof t);
    t.cfg = *cfg;
    t.max_pos = max_pos;
    t.capture = capture & (GPT2_CAP_ALL | GPT2_CAP_LEAN);
    t.chunk = max_pos < GPT2_TRACE_CHUNK ? max_pos : GPT2_TRACE_CHUNK;
    return trace_plan(&t, NULL);
}

int gpt2_trace_init(Gpt2Trace *tr, const Gpt2Config *cfg, int max_pos, unsigned capture, ErrorMsg *err) {
    memset(tr, 0, sizeof *tr);
    if (!config_ok(cfg))
        return error_set(err, "trace: invalid model config (L=%d NH=%d C=%d)", cfg->n_layer,
                         cfg->n_head, cfg->n_embd);
    if (max_pos < 1 || max_pos > cfg->n_positions)
        return error_set(err, "trace: context of %d positions is outside 1..%d (the model's context)",
                         max_pos, cfg->n_positions);
    tr->cfg = *cfg;
    tr->max_pos = max_pos;
    tr->capture = capture & (GPT2_CAP_ALL | GPT2_CAP_LEAN);
    if (tr->capture & GPT2_CAP_LEAN) tr->capture |= GPT2_CAP_Q;
    tr->chunk = max_pos < GPT2_TRACE_CHUNK ? max_pos : GPT2_TRACE_CHUNK;
    size_t bytes = trace_plan(tr, NULL);
    /* Anonymous mmap: zero-filled and lazily committed, so a 1024-position trace costs
     * RAM only for the positions actually computed. Huge pages cut TLB misses when
     * decode streams through the KV cache. */
    void *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) {
        memset(tr, 0, sizeof *tr);
        return error_set(err, "trace: out of memory reserving %.1f MB for %d positions of a %d-layer model",
                         (double)bytes / 1e6, max_pos, cfg->n_layer);
    }
#ifdef MADV_HUGEPAGE
    (void)madvise(mem, bytes, MADV_HUGEPAGE); /* advisory: failure only costs speed */
#endif
    tr->mem = mem;
    tr->mem_bytes = bytes;
    trace_plan(tr, mem);
#ifdef MADV_NOHUGEPAGE
    /* ...but not the attention patterns: one triangle per head, and a step writes one
     * short row into each, so the first token touched the first 2 MB page of every head:
     * GPT-2 XL's 1,200 heads committed (and the kernel zeroed) 2.4 GB before the first
     * token could be shown (perf: 38 % of the start-up in clear_page), 0.3 GB for 124M.
     * With 4 KB pages a row costs what it writes; nothing reads a pattern per step. */
    if (tr->pattern) {
        const uintptr_t pg = 4096, a = ((uintptr_t)tr->pattern + pg - 1) & ~(pg - 1);
        const uintptr_t e = ((uintptr_t)tr->pattern + (size_t)cfg->n_layer * (size_t)cfg->n_head *
                                                          gpt2_tri_row((size_t)max_pos) * sizeof(float)) & ~(pg - 1);
        if (e > a) (void)madvise((void *)a, e - a, MADV_NOHUGEPAGE);
    }
#endif
    tr->n_pos = 0;
    tr->logits_pos = -1;
    for (int i = 0; i < GPT2_LOGITS_CACHE; i++) tr->logits_tag[i] = -1;
    return 0;
}

void gpt2_trace_free(Gpt2Trace *tr) {
    if (!tr) return;
    gpt2_ablation_free(&tr->ablation);
    if (tr->mem) munmap(tr->mem, tr->mem_bytes);
    memset(tr, 0, sizeof *tr);
}

void gpt2_trace_truncate(Gpt2Trace *tr, int n_pos) {
    if (n_pos < 0) n_pos = 0;
    if (n_pos >= tr->n_pos) return;
    tr->n_pos = n_pos;
    /* cached logits of forgotten positions are stale */
    if (tr->logits_pos >= n_pos) tr->logits_pos = -1;
    for (int i = 0; i < GPT2_LOGITS_CACHE; i++)
        if (tr->logits_tag[i] >= n_pos) tr->logits_tag[i] = -1;
    if (tr->lean) gpt2_lean_truncate(tr, n_pos);
}

int gpt2_trace_set_ablation(Gpt2Trace *tr, const Gpt2Ablation *ab, ErrorMsg *err) {
    if (gpt2_ablation_equal(&tr->ablation, ab)) return 0;
    if (ab && ab->n_off && (ab->n_layer != tr->cfg.n_layer || ab->n_head != tr->cfg.n_head))
        return error_set(err, "ablation: the mask is for %d blocks of %d heads, the model has %d of %d", ab->n_layer,
                         ab->n_head, tr->cfg.n_layer, tr->cfg.n_head);
    Gpt2Ablation copy = {0};
    if (ab && ab->n_off && gpt2_ablation_copy(&copy, ab, err)) return -1;
    gpt2_ablation_free(&tr->ablation);
    tr->ablation = copy;
    gpt2_trace_truncate(tr, 0);
    return 0;
}

int gpt2_trace_regrow(Gpt2Trace *tr, int n_pos) {
    if (!(tr->capture & GPT2_CAP_LOGITS) || n_pos < tr->n_pos || n_pos > tr->max_pos) return -1;
    tr->n_pos = n_pos;
    return 0;
}

const float *gpt2_trace_logits(const Gpt2Trace *tr, int pos) {
    if (!tr->mem || pos < 0 || pos >= tr->n_pos) return NULL;
    const size_t V = (size_t)tr->cfg.vocab_size;
    if (tr->capture & GPT2_CAP_LOGITS) return tr->logits + (size_t)pos * V;
    for (int i = 0; i < GPT2_LOGITS_CACHE; i++)
        if (tr->logits_tag[i] == pos) return tr->logits + (size_t)i * V;
    return NULL;
}

int gpt2_trace_head_blocks(const Gpt2Trace *tr, int layer, int head, Gpt2HeadBlocks *out) {
    memset(out, 0, sizeof *out);
    if (!tr->lean || layer < 0 || layer >= tr->cfg.n_layer || head < 0 || head >= tr->cfg.n_head) return -1;
    const Gpt2Lean *ln = tr->lean;
    size_t hid = (size_t)layer * (size_t)tr->cfg.n_head + (size_t)head;
    out->max = ln->blk + hid * gpt2_tri_row((size_t)ln->nb);
    out->sinkless = ln->sinkless + hid * (size_t)ln->nb;
    out->block = GPT2_PATTERN_BLOCK;
    out->n_blocks = (tr->n_pos + GPT2_PATTERN_BLOCK - 1) / GPT2_PATTERN_BLOCK;
    return 0;
}

const float *gpt2_trace_layer_patterns(const Gpt2Trace *tr, size_t l) {
    if (!tr->lean) return tr->pattern + l * (size_t)tr->cfg.n_head * gpt2_tri_row((size_t)tr->max_pos);
    return gpt2_lean_layer(tr, (int)l);
}

/* ---- names --------------------------------------------------------------------------- */

/* Per-layer activations in forward order (GPT2_T_RESID_PRE .. GPT2_T_RESID_POST), as the
 * canonical name writes the part after "blocks.{i}.". */
static const char *const layer_names[] = {
    "hook_resid_pre", "ln1.hook_normalized", "attn.hook_q", "attn.hook_k", "attn.hook_v",
    "attn.hook_attn_scores", "attn.hook_pattern", "attn.hook_z", "hook_attn_out",
    "hook_resid_mid", "ln2.hook_normalized", "mlp.hook_pre", "mlp.hook_post",
    "hook_mlp_out", "hook_resid_post",
};
#define N_LAYER_KINDS ((int)(sizeof layer_names / sizeof layer_names[0]))

/* 1 when `s` is `canon` or `canon` with the "hook_" of its last component removed. */
static int name_matches(const char *s, const char *canon) {
    if (strcmp(s, canon) == 0) return 1;
    const char *h = strstr(canon, "hook_");
    if (!h) return 0;
    size_t pre = (size_t)(h - canon);
    return strncmp(s, canon, pre) == 0 && strcmp(s + pre, h + 5) == 0;
}

int gpt2_tensor_is_per_layer(Gpt2Tensor kind) { return kind >= GPT2_T_RESID_PRE && kind <= GPT2_T_RESID_POST; }

int gpt2_tensor_name(Gpt2Tensor kind, int layer, char *buf, size_t cap) {
    if (gpt2_tensor_is_per_layer(kind)) {
        if (layer < 0) return -1;
        snprintf(buf, cap, "blocks.%d.%s", layer, layer_names[kind - GPT2_T_RESID_PRE]);
        return 0;
    }
    const char *name = kind == GPT2_T_EMBED ? "hook_embed" : kind == GPT2_T_POS_EMBED ? "hook_pos_embed"
                     : kind == GPT2_T_LN_FINAL ? "ln_final.hook_normalized" : kind == GPT2_T_LOGITS ? "logits" : NULL;
    if (!name) return -1;
    snprintf(buf, cap, "%s", name);
    return 0;
}

static void view_2d(Gpt2TraceView *v, const float *data, size_t rows, size_t cols) {
    memset(v, 0, sizeof *v);
    v->data = data;
    v->ndim = 2;
    v->shape[0] = rows;
    v->shape[1] = cols;
    v->stride[0] = cols;
    v->stride[1] = 1;
}

/* (NH, T, HS) slice of an (L, NH, max_pos, HS) buffer */
static void view_heads(Gpt2TraceView *v, const Gpt2Trace *tr, const float *layer_base) {
    size_t NH = (size_t)tr->cfg.n_head, HS = (size_t)(tr->cfg.n_embd / tr->cfg.n_head);
    memset(v, 0, sizeof *v);
    v->data = layer_base;
    v->ndim = 3;
    v->shape[0] = NH;
    v->shape[1] = (size_t)tr->n_pos;
    v->shape[2] = HS;
    v->stride[0] = (size_t)tr->max_pos * HS;
    v->stride[1] = HS;
    v->stride[2] = 1;
}

static void view_tri(Gpt2TraceView *v, const Gpt2Trace *tr, const float *layer_base, float fill) {
    memset(v, 0, sizeof *v);
    v->data = layer_base;
    v->ndim = 3;
    v->shape[0] = (size_t)tr->cfg.n_head;
    v->shape[1] = v->shape[2] = (size_t)tr->n_pos;
    v->stride[0] = gpt2_tri_row((size_t)tr->max_pos);
    v->tri = 1;
    v->fill = fill;
}

/* The name is formatted only here, on the error path: lookups by kind never format. */
static int not_captured(ErrorMsg *err, Gpt2Tensor kind, int layer, const char *bit) {
    char name[64];
    if (!err) return -1;
    gpt2_tensor_name(kind, layer, name, sizeof name);
    return error_set(err, "trace: %s was not captured (capture mask lacks GPT2_CAP_%s)", name, bit);
}

int gpt2_trace_get(const Gpt2Trace *tr, Gpt2Tensor kind, int layer, Gpt2TraceView *v, ErrorMsg *err) {
    if (!tr->mem) return error_set(err, "trace: the trace is not initialised");
    const size_t T = (size_t)tr->max_pos, C = (size_t)tr->cfg.n_embd, n = (size_t)tr->n_pos;
    if (gpt2_tensor_is_per_layer(kind) && (layer < 0 || layer >= tr->cfg.n_layer))
        return error_set(err, "trace: layer %d out of range 0..%d", layer, tr->cfg.n_layer - 1);
    const size_t l = (size_t)(layer > 0 ? layer : 0), NH = (size_t)tr->cfg.n_head, P = gpt2_tri_row(T);
    const float *p = NULL;
    size_t rows = n, cols = C;
    const char *bit = NULL;
    switch (kind) {
    case GPT2_T_EMBED: p = tr->embed; bit = "EMBED"; break;
    case GPT2_T_POS_EMBED: p = tr->pos_embed; bit = "EMBED"; break;
    case GPT2_T_RESID_PRE: p = tr->resid ? tr->resid + l * T * C : NULL; bit = "RESID"; break;
    case GPT2_T_RESID_POST: p = tr->resid ? tr->resid + (l + 1) * T * C : NULL; bit = "RESID"; break;
    case GPT2_T_RESID_MID: p = tr->resid_mid ? tr->resid_mid + l * T * C : NULL; bit = "RESID_MID"; break;
    case GPT2_T_LN1: p = tr->ln1 ? tr->ln1 + l * T * C : NULL; bit = "LN"; break;
    case GPT2_T_LN2: p = tr->ln2 ? tr->ln2 + l * T * C : NULL; bit = "LN"; break;
    case GPT2_T_Z: p = tr->z ? tr->z + l * T * C : NULL; bit = "Z"; break;
    case GPT2_T_ATTN_OUT: p = tr->attn_out ? tr->attn_out + l * T * C : NULL; bit = "ATTN_OUT"; break;
    case GPT2_T_MLP_OUT: p = tr->mlp_out ? tr->mlp_out + l * T * C : NULL; bit = "MLP_OUT"; break;
    case GPT2_T_MLP_PRE: p = tr->mlp_pre ? tr->mlp_pre + l * T * 4 * C : NULL; cols = 4 * C; bit = "MLP"; break;
    case GPT2_T_MLP_POST: p = tr->mlp_post ? tr->mlp_post + l * T * 4 * C : NULL; cols = 4 * C; bit = "MLP"; break;
    case GPT2_T_LN_FINAL: p = tr->ln_final; bit = "LN"; break;
    case GPT2_T_Q:
        if (!tr->q) return not_captured(err, kind, layer, "Q");
        view_heads(v, tr, tr->q + l * T * C);
        return 0;
    case GPT2_T_K: view_heads(v, tr, tr->k + l * T * C); return 0;
    case GPT2_T_V: view_heads(v, tr, tr->v + l * T * C); return 0;
    case GPT2_T_PATTERN: view_tri(v, tr, gpt2_trace_layer_patterns(tr, l), 0.0f); return 0;
    case GPT2_T_ATTN_SCORES:
        if (!tr->attn_scores) return not_captured(err, kind, layer, "SCORES");
        view_tri(v, tr, tr->attn_scores + l * NH * P, -INFINITY);
        return 0;
    case GPT2_T_LOGITS:
        cols = (size_t)tr->cfg.vocab_size;
        if (tr->capture & GPT2_CAP_LOGITS) {
            p = tr->logits;
        } else {
            p = gpt2_trace_logits(tr, tr->logits_pos);
            if (!p) return error_set(err, "trace: logits: no position computed yet");
            rows = 1;
        }
        break;
    default: return error_set(err, "trace: unknown tensor kind %d", (int)kind);
    }
    if (!p) return not_captured(err, kind, layer, bit ? bit : "?");
    view_2d(v, p, rows, cols);
    return 0;
}

/* Parses a name into (kind, layer): 0, or -1 with err. */
static int parse_name(const Gpt2Trace *tr, const char *name, Gpt2Tensor *kind, int *layer, ErrorMsg *err) {
    *layer = -1;
    if (strncmp(name, "blocks.", 7) == 0) {
        /* the layer exactly as the canonical names write it: decimal digits, no sign, space
         * or leading zero ("blocks.00", "blocks.+1", "blocks. 1" would name files oddly) */
        const char *s = name + 7, *end = s;
        long l = 0;
        while (*end >= '0' && *end <= '9' && end - s < 9) l = l * 10 + (*end++ - '0');
        if (end == s || *end != '.' || (end - s > 1 && s[0] == '0'))
            return error_set(err, "trace: %s: expected blocks.<layer>.<hook> with the layer in plain digits", name);
        if (l < 0 || l >= tr->cfg.n_layer)
            return error_set(err, "trace: %s: layer %ld out of range 0..%d", name, l, tr->cfg.n_layer - 1);
        for (int k = 0; k < N_LAYER_KINDS; k++)
            if (name_matches(end + 1, layer_names[k])) {
                *kind = (Gpt2Tensor)(GPT2_T_RESID_PRE + k);
                *layer = (int)l;
                return 0;
            }
        return error_set(err, "trace: %s: unknown activation '%s'", name, end + 1);
    }
    if (name_matches(name, "hook_embed")) *kind = GPT2_T_EMBED;
    else if (name_matches(name, "hook_pos_embed")) *kind = GPT2_T_POS_EMBED;
    else if (name_matches(name, "ln_final.hook_normalized")) *kind = GPT2_T_LN_FINAL;
    else if (strcmp(name, "logits") == 0) *kind = GPT2_T_LOGITS;
    else return error_set(err, "trace: unknown activation name '%s'", name);
    return 0;
}

int gpt2_trace_find(const Gpt2Trace *tr, const char *name, Gpt2TraceView *view, ErrorMsg *err) {
    if (!tr->mem) return error_set(err, "trace: %s: the trace is not initialised", name);
    Gpt2Tensor kind = GPT2_T_COUNT;
    int layer = -1;
    if (parse_name(tr, name, &kind, &layer, err)) return -1;
    return gpt2_trace_get(tr, kind, layer, view, err);
}

int gpt2_trace_name(const Gpt2Trace *tr, size_t idx, char *buf, size_t bufsize) {
    size_t L = (size_t)tr->cfg.n_layer, K = (size_t)N_LAYER_KINDS;
    if (idx < 2) return gpt2_tensor_name(idx == 0 ? GPT2_T_EMBED : GPT2_T_POS_EMBED, -1, buf, bufsize);
    idx -= 2;
    if (idx < L * K) return gpt2_tensor_name((Gpt2Tensor)(GPT2_T_RESID_PRE + idx % K), (int)(idx / K), buf, bufsize);
    idx -= L * K;
    if (idx < 2) return gpt2_tensor_name(idx == 0 ? GPT2_T_LN_FINAL : GPT2_T_LOGITS, -1, buf, bufsize);
    return -1;
}

void gpt2_trace_copy_pattern(const Gpt2Trace *tr, int layer, int head, float *dst) {
    const size_t n = (size_t)tr->n_pos;
    const float *base = gpt2_trace_layer_patterns(tr, (size_t)layer) + (size_t)head * gpt2_tri_row((size_t)tr->max_pos);
    for (size_t t = 0; t < n; t++) {
        memcpy(dst + t * n, base + gpt2_tri_row(t), (t + 1) * sizeof *dst);
        /* the causal mask: query t never sees keys after t — explicit zeros */
        for (size_t s = t + 1; s < n; s++) dst[t * n + s] = 0.0f;
    }
}
