/* gpt2_config.h — reading and checking a GPT-2 config.json (HuggingFace's GPT2Config):
 * the handful of numbers that fix every tensor's shape, and the few keys that change
 * the math (activation_function, tie_word_embeddings, model_type, attention scaling),
 * which are honoured or refused. Not the weights (gpt2_model.h) and not a general HF
 * config reader: keys that do not change inference (pdrops, bos/eos ids, ...) are ignored. */
#ifndef GPT2_CONFIG_H
#define GPT2_CONFIG_H

#include <stddef.h>

#include "error.h"
#include "gpt2_model.h"

/* Sanity limits: far above GPT-2 XL (L=48, NH=25, C=1600, NP=1024, V=50257) yet low
 * enough that products such as V*C or L*12*C*C stay well inside size_t and a corrupt
 * config cannot ask for absurd allocations. */
#define GPT2_MAX_LAYERS 512
#define GPT2_MAX_HEADS 512
#define GPT2_MAX_EMBD 32768
#define GPT2_MAX_POSITIONS 1048576
#define GPT2_MAX_VOCAB 4194304

/* Reads n_layer, n_head, n_embd, n_positions (or n_ctx when absent), vocab_size,
 * layer_norm_epsilon (1e-5 when absent, as in HF), activation_function (gelu_new and its
 * tanh twins, or "gelu" = exact erf) and tie_word_embeddings from a config.json, then
 * gpt2_config_check. The file must be one JSON object (no trailing text, no key twice);
 * model_type other than "gpt2", another activation, scale_attn_weights = false or
 * scale_attn_by_inverse_layer_idx = true are refused. On error returns -1, *c is zeroed
 * and err says "PATH: problem". */
int gpt2_config_load(Gpt2Config *c, const char *config_json_path, ErrorMsg *err);

/* Checks sizes are positive and below the limits above, n_embd % n_head == 0 and
 * 0 < ln_eps < 1. `where` prefixes the message (a path, or "config"). */
int gpt2_config_check(const Gpt2Config *c, const char *where, ErrorMsg *err);

/* Parameter count implied by the config: embeddings, L blocks, final LN, plus V*C
 * again when the head is untied. (The HF attention mask buffers are not parameters.) */
size_t gpt2_config_n_params(const Gpt2Config *c, int tied);

#endif
