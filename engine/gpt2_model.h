/* gpt2_model.h — a GPT-2 checkpoint in memory: the config (blueprint) and the
 * weights (float32 pointers with their shapes). Loaded from a HuggingFace directory
 * (model.safetensors + config.json) or built with random weights for benchmarks.
 * Not the forward pass (gpt2_forward.h) and not the activations (the trace).
 *
 * Shapes use llm.c letters: L layers, NH heads, C channels (n_embd), HS = C/NH,
 * NP = n_positions (max context), V = vocab size.
 * Linear layers use HuggingFace's Conv1D layout: W is (in, out) row-major and
 * y = x @ W + b, exactly as stored in the files (no transpose at load). */
#ifndef GPT2_MODEL_H
#define GPT2_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

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
} Gpt2LayerWeights;

typedef struct Gpt2Weights {
    const float *wte;               /* (V, C) token embedding */
    const float *wpe;               /* (NP, C) position embedding */
    Gpt2LayerWeights *layers;       /* (L) owned by the Gpt2Model */
    const float *lnf_w, *lnf_b;     /* (C) final LayerNorm */
    const float *lm_head;           /* (V, C) unembedding: == wte when tied */
} Gpt2Weights;

typedef struct Gpt2Model {
    Gpt2Config config;
    Gpt2Weights w;
    char dir[1024];          /* directory it was loaded from ("" for random models) */
    char name[128];          /* display name: the directory's last component */
    char dtype[8];           /* "F32", "F16", "BF16" as stored in the file */
    int tied;                /* 1 when lm_head is wte */
    size_t n_params;         /* parameter count (tied head counted once) */
    size_t file_bytes;       /* size of model.safetensors */
    double load_seconds;     /* wall time of gpt2_model_load */
    /* storage (private): F32 tensors point into the read-only mmap; F16/BF16 are
     * converted once into `owned`. */
    void *map;               /* mmap of model.safetensors, or NULL */
    size_t map_len;
    float *owned;            /* converted or random weights, or NULL */
    size_t owned_len;        /* floats in owned */
} Gpt2Model;

/* Loads DIR/config.json + DIR/model.safetensors. On error returns -1, *m is left
 * zeroed (nothing to free) and err names the file and the problem. */
int gpt2_model_load(Gpt2Model *m, const char *dir, ErrorMsg *err);

/* Builds a model with the given config and N(0, 0.02) weights (LN gains 1) from a
 * seeded generator, all in owned memory. For benchmarks and tests. */
int gpt2_model_init_random(Gpt2Model *m, const Gpt2Config *cfg, uint64_t seed, ErrorMsg *err);

/* Releases everything; safe on a zeroed or half-built model; leaves it zeroed. */
void gpt2_model_free(Gpt2Model *m);

#endif
