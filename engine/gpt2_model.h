/* gpt2_model.h — a GPT-2 checkpoint in memory: the config (blueprint) and the
 * weights (float32 pointers with their shapes). Loaded from a HuggingFace directory
 * (model.safetensors + config.json) or built with random weights for benchmarks.
 * Not the forward pass (gpt2_forward.h) and not the activations (the trace).
 *
 * Shapes use llm.c letters: L layers, NH heads, C channels (n_embd), HS = C/NH,
 * NP = n_positions (max context), V = vocab size.
 * Linear layers use HuggingFace's Conv1D layout: W is (in, out) row-major and
 * y = x @ W + b, exactly as stored in the files (no transpose at load).
 *
 * Precision: the big matrices (wte/lm_head, c_attn, attn c_proj, c_fc, mlp c_proj: 99%
 * of the bytes) are kept in ONE weight dtype, w.dtype: F32 (the float pointers) or
 * F16/BF16 (the *_h pointers, 16-bit patterns; the float ones are then NULL). The
 * kernels widen them in registers and do float32 math, so decode reads half the bytes.
 * Vectors (LayerNorm gains, biases) and wpe are always float (0.3% of the bytes). */
#ifndef GPT2_MODEL_H
#define GPT2_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "half.h"
#include "kernels.h"

typedef struct Gpt2Config {
    int n_layer;       /* L */
    int n_head;        /* NH */
    int n_embd;        /* C */
    int n_positions;   /* NP: the context limit; longer prompts are refused */
    int vocab_size;    /* V (50257 for every GPT-2) */
    float ln_eps;      /* layer_norm_epsilon (1e-5 for GPT-2) */
    int gelu_exact;    /* 1: activation_function "gelu" (erf, nanoGPT); 0: GPT-2's tanh gelu_new */
    int untied;        /* 1: config.json says tie_word_embeddings = false (lm_head.weight required) */
} Gpt2Config;

typedef struct Gpt2LayerWeights {
    const float *ln1_w, *ln1_b;     /* (C) ln_1 gain, bias */
    const float *qkv_w;             /* (C, 3C) attn.c_attn: cols [0,C)=q [C,2C)=k [2C,3C)=v */
    const float *qkv_b;             /* (3C) */
    const float *attn_proj_w;       /* (C, C) attn.c_proj */
    const float *attn_proj_b;       /* (C) */
    const float *ln2_w, *ln2_b;     /* (C) ln_2 gain, bias */
    const float *fc_w;              /* (C, 4C) mlp.c_fc */
    const float *fc_b;              /* (4C) */
    const float *fc_proj_w;         /* (4C, C) mlp.c_proj */
    const float *fc_proj_b;         /* (C) */
    /* the same four matrices when w.dtype is F16/BF16 (else NULL) */
    const uint16_t *qkv_h, *attn_proj_h, *fc_h, *fc_proj_h;
} Gpt2LayerWeights;

typedef struct Gpt2Weights {
    const float *wte;               /* (V, C) token embedding */
    const float *wpe;               /* (NP, C) position embedding */
    Gpt2LayerWeights *layers;       /* (L) owned by the Gpt2Model */
    const float *lnf_w, *lnf_b;     /* (C) final LayerNorm */
    const float *lm_head;           /* (V, C) unembedding: == wte when tied */
    KernDtype dtype;                /* of the matrices: F32 (float pointers) or F16/BF16 (*_h) */
    const uint16_t *wte_h, *lm_head_h; /* (V, C) when dtype is F16/BF16 (else NULL) */
} Gpt2Weights;

/* A matrix as the kernels take it: the float or the 16-bit pointer, by w->dtype. */
static inline const void *gpt2_mat(const Gpt2Weights *w, const float *f32, const uint16_t *h) {
    return w->dtype == KERN_F32 ? (const void *)f32 : (const void *)h;
}

/* Element i of such a matrix as a float (exact: widening is lossless), for the few
 * per-element recomputations outside the kernels (attn_explain, logit_attribution). */
static inline float gpt2_mat_at(const Gpt2Weights *w, const float *f32, const uint16_t *h, size_t i) {
    if (w->dtype == KERN_F32) return f32[i];
    return w->dtype == KERN_F16 ? half_f16_to_f32(h[i]) : half_bf16_to_f32(h[i]);
}

/* What precision to run in: the weights' own dtype (half files stay half, F32 stays
 * F32), or one of KernDtype (converted once at load). */
#define GPT2_WEIGHTS_AS_STORED (-1)

typedef struct Gpt2Model {
    Gpt2Config config;
    Gpt2Weights w;
    char dir[1024];          /* directory it was loaded from ("" for random models) */
    char name[128];          /* display name: the directory's last component */
    char dtype[16];          /* as stored in the file: "F32", "F16", "BF16", "F16+F32" (matrices+vectors), "mixed" */
    int tied;                /* 1 when lm_head is wte */
    size_t n_params;         /* parameter count (tied head counted once) */
    size_t file_bytes;       /* size of model.safetensors */
    double load_seconds;     /* wall time of gpt2_model_load */
    /* storage (private): tensors already in the dtype we run in point into the
     * read-only mmap; everything else is converted once into `owned` (floats) or
     * `owned_h` (16-bit matrices). */
    void *map;               /* mmap of model.safetensors, or NULL */
    size_t map_len;
    float *owned;            /* converted or random weights, or NULL */
    size_t owned_len;        /* floats in owned */
    uint16_t *owned_h;       /* converted or random 16-bit matrices, or NULL */
    size_t owned_h_len;      /* elements in owned_h */
} Gpt2Model;

/* Loads DIR/config.json + DIR/model.safetensors with every weight as float32 (F16/BF16
 * files are widened at load): gpt2_model_load_as(m, dir, KERN_F32, err). */
int gpt2_model_load(Gpt2Model *m, const char *dir, ErrorMsg *err);

/* Loads with the matrices in `weights` (GPT2_WEIGHTS_AS_STORED or a KernDtype; a file of
 * mixed dtypes "as stored" runs in F32). F32 -> F16/BF16 rounds to nearest even, once.
 * On error returns -1, *m is left zeroed (nothing to free) and err names the file and
 * the problem. */
int gpt2_model_load_as(Gpt2Model *m, const char *dir, int weights, ErrorMsg *err);

/* Builds a model with the given config and N(0, 0.02) weights (LN gains 1) from a
 * seeded generator, all in owned memory. For benchmarks and tests. */
int gpt2_model_init_random(Gpt2Model *m, const Gpt2Config *cfg, uint64_t seed, ErrorMsg *err);
/* The same random numbers with the matrices rounded to dtype (built directly in 16 bits:
 * a 1.5B-shaped F16 model needs 3.1 GB, never the 6.2 GB of its F32 image). */
int gpt2_model_init_random_as(Gpt2Model *m, const Gpt2Config *cfg, uint64_t seed, KernDtype dtype, ErrorMsg *err);

/* "F16" / "F32" / "BF16": the precision the matrices run in (w.dtype). */
static inline const char *gpt2_model_weights_name(const Gpt2Model *m) { return kern_dtype_name(m->w.dtype); }

/* Bytes of weights the model keeps (mapped or owned), what decode streams per token. */
size_t gpt2_model_weight_bytes(const Gpt2Model *m);

/* Releases everything; safe on a zeroed or half-built model; leaves it zeroed. */
void gpt2_model_free(Gpt2Model *m);

#endif
