/* gpt2_config.c — config.json -> Gpt2Config, with every number checked before any
 * shape is computed from it. Reads the file itself (the engine does not use the
 * CLI's helpers) with a size cap, and parses it with cJSON; the whole file must be ONE
 * object with no key twice. Not the weight loader. */
#include "gpt2_config.h"

#include <float.h>
#include <cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file_read.h"
#include "json_whole.h"

/* A GPT-2 config.json is < 1 KB; anything above 1 MB is not one. */
#define CONFIG_MAX_BYTES ((size_t)1 << 20)

/* One integer field: must be a JSON number with an integral value that fits an int. */
static int get_int(const cJSON *root, const char *key, int *out, int *present, const char *path,
                   ErrorMsg *err) {
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(root, key);
    *present = j != NULL && !cJSON_IsNull(j);
    if (!*present) return 0;
    if (!cJSON_IsNumber(j)) return error_set(err, "%s: \"%s\" must be an integer", path, key);
    double v = j->valuedouble;
    if (v != floor(v) || v < -2147483648.0 || v > 2147483647.0)
        return error_set(err, "%s: \"%s\" must be an integer", path, key);
    *out = (int)v;
    return 0;
}

int gpt2_config_check(const Gpt2Config *c, const char *where, ErrorMsg *err) {
    struct {
        const char *key;
        int v, max;
    } f[] = {
        {"n_layer", c->n_layer, GPT2_MAX_LAYERS},       {"n_head", c->n_head, GPT2_MAX_HEADS},
        {"n_embd", c->n_embd, GPT2_MAX_EMBD},           {"n_positions", c->n_positions, GPT2_MAX_POSITIONS},
        {"vocab_size", c->vocab_size, GPT2_MAX_VOCAB},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        if (f[i].v <= 0) return error_set(err, "%s: %s = %d must be positive", where, f[i].key, f[i].v);
        if (f[i].v > f[i].max)
            return error_set(err, "%s: %s = %d is above the supported maximum %d", where, f[i].key,
                             f[i].v, f[i].max);
    }
    /* Multi-head attention splits the C channels into NH heads of HS = C/NH each. */
    if (c->n_embd % c->n_head != 0)
        return error_set(err, "%s: n_embd = %d is not divisible by n_head = %d", where, c->n_embd,
                         c->n_head);
    if (!(c->ln_eps > 0.0f && c->ln_eps < 1.0f))
        return error_set(err, "%s: layer_norm_epsilon = %g must be in (0, 1)", where, (double)c->ln_eps);
    return 0;
}

size_t gpt2_config_n_params(const Gpt2Config *c, int tied) {
    size_t C = (size_t)c->n_embd, L = (size_t)c->n_layer;
    size_t V = (size_t)c->vocab_size, NP = (size_t)c->n_positions;
    /* per block: ln_1 (2C) + c_attn (C*3C + 3C) + attn c_proj (C*C + C) + ln_2 (2C)
     *            + c_fc (C*4C + 4C) + mlp c_proj (4C*C + C) = 12C^2 + 13C */
    size_t block = 12 * C * C + 13 * C;
    size_t n = V * C + NP * C + L * block + 2 * C;
    if (!tied) n += V * C;
    return n;
}

/* cJSON keeps every member of an object, so a key given twice would silently resolve to
 * its first value: refuse it (configs have ~30 keys, so the quadratic scan is nothing). */
static int check_unique_keys(const cJSON *obj, const char *path, ErrorMsg *err) {
    for (const cJSON *a = obj->child; a; a = a->next)
        for (const cJSON *b = a->next; b; b = b->next)
            if (a->string && b->string && strcmp(a->string, b->string) == 0) {
                char shown[ERROR_QUOTE_CAP];
                return error_set(err, "%s: key \"%.60s\" appears twice", path, ERROR_QUOTE(shown, a->string));
            }
    return 0;
}

/* The keys that change the math of a GPT-2 beyond its sizes. Everything else HF writes
 * (architectures, bos/eos_token_id, *_pdrop, summary_*, task_specific_params, use_cache,
 * reorder_and_upcast_attn, torch_dtype, transformers_version, ...) does not change what
 * inference computes and is ignored. */
static int check_semantics(const cJSON *root, Gpt2Config *t, const char *path, ErrorMsg *err) {
    char shown[ERROR_QUOTE_CAP];
    const cJSON *mt = cJSON_GetObjectItemCaseSensitive(root, "model_type");
    if (mt && !cJSON_IsNull(mt) && !(cJSON_IsString(mt) && strcmp(mt->valuestring, "gpt2") == 0))
        return error_set(err, "%s: model_type %s%.40s%s is not a GPT-2 (only \"gpt2\" checkpoints load)", path,
                         cJSON_IsString(mt) ? "\"" : "",
                         cJSON_IsString(mt) ? ERROR_QUOTE(shown, mt->valuestring) : "(not a string)",
                         cJSON_IsString(mt) ? "\"" : "");
    /* GELU: GPT-2's tanh approximation (HF gelu_new, and its twins gelu_pytorch_tanh /
     * gelu_fast, the same formula) or the exact erf GELU (HF "gelu", torch nn.GELU(), what
     * nanoGPT trains with). Anything else is another network. */
    const cJSON *act = cJSON_GetObjectItemCaseSensitive(root, "activation_function");
    t->gelu_exact = 0;
    if (act && !cJSON_IsNull(act)) {
        const char *v = cJSON_IsString(act) ? act->valuestring : "";
        if (strcmp(v, "gelu") == 0)
            t->gelu_exact = 1;
        else if (strcmp(v, "gelu_new") != 0 && strcmp(v, "gelu_pytorch_tanh") != 0 && strcmp(v, "gelu_fast") != 0)
            return error_set(err, "%s: activation_function \"%.40s\" is not supported (GPT-2 uses gelu_new; "
                             "gelu (erf) also works)", path, ERROR_QUOTE(shown, v));
    }
    /* tie_word_embeddings (default true): false promises an lm_head.weight, checked by the
     * weight loader (gpt2_model.c) */
    const cJSON *tie = cJSON_GetObjectItemCaseSensitive(root, "tie_word_embeddings");
    if (tie && !cJSON_IsNull(tie) && !cJSON_IsBool(tie))
        return error_set(err, "%s: \"tie_word_embeddings\" must be true or false", path);
    t->untied = tie && cJSON_IsFalse(tie);
    const cJSON *sc = cJSON_GetObjectItemCaseSensitive(root, "scale_attn_weights");
    if (sc && cJSON_IsFalse(sc))
        return error_set(err, "%s: scale_attn_weights = false is not supported (attention scores are "
                         "divided by sqrt(head size), as in GPT-2)", path);
    const cJSON *il = cJSON_GetObjectItemCaseSensitive(root, "scale_attn_by_inverse_layer_idx");
    if (il && cJSON_IsTrue(il))
        return error_set(err, "%s: scale_attn_by_inverse_layer_idx = true is not supported", path);
    return 0;
}

int gpt2_config_load(Gpt2Config *c, const char *path, ErrorMsg *err) {
    memset(c, 0, sizeof *c);
    uint8_t *raw;
    size_t len = 0;
    if (file_read_all(path, CONFIG_MAX_BYTES, &raw, &len, err) != 0) return -1;
    char *text = (char *)raw;
    cJSON *root = json_parse_whole(text, len, path, err);
    free(text);
    if (!root) return -1;
    int rc = -1, present;
    Gpt2Config t = {0};
    if (!cJSON_IsObject(root)) {
        error_set(err, "%s: not a JSON object", path);
        goto done;
    }
    if (check_unique_keys(root, path, err) || check_semantics(root, &t, path, err)) goto done;
    const char *required[] = {"n_layer", "n_head", "n_embd", "vocab_size"};
    int *dest[] = {&t.n_layer, &t.n_head, &t.n_embd, &t.vocab_size};
    for (size_t i = 0; i < 4; i++) {
        if (get_int(root, required[i], dest[i], &present, path, err) != 0) goto done;
        if (!present) {
            error_set(err, "%s: missing \"%s\"", path, required[i]);
            goto done;
        }
    }
    /* n_positions is the modern name of the context length; very old configs only
     * have n_ctx (and HF keeps both equal). */
    if (get_int(root, "n_positions", &t.n_positions, &present, path, err) != 0) goto done;
    if (!present) {
        if (get_int(root, "n_ctx", &t.n_positions, &present, path, err) != 0) goto done;
        if (!present) {
            error_set(err, "%s: missing \"n_positions\" (and \"n_ctx\")", path);
            goto done;
        }
    }
    /* The MLP width is 4C in every GPT-2; n_inner (null = 4C) could change it, and
     * Gpt2LayerWeights assumes 4C. Say so clearly rather than fail on a shape later. */
    int n_inner;
    if (get_int(root, "n_inner", &n_inner, &present, path, err) != 0) goto done;
    /* 4 * n_embd in long long: n_embd is not range-checked yet and 4 * INT_MAX overflows. */
    if (present && (long long)n_inner != 4LL * t.n_embd) {
        error_set(err, "%s: n_inner = %d is not supported (only 4 * n_embd = %lld)", path, n_inner,
                  4LL * t.n_embd);
        goto done;
    }
    const cJSON *eps = cJSON_GetObjectItemCaseSensitive(root, "layer_norm_epsilon");
    if (eps && !cJSON_IsNumber(eps)) {
        error_set(err, "%s: \"layer_norm_epsilon\" must be a number", path);
        goto done;
    }
    /* checked as written, before float32 rounds 1e-300 to 0 (which would be reported "= 0") */
    double e = eps ? eps->valuedouble : 1e-5;
    if (!(e >= FLT_MIN && e < 1.0)) {
        if (e > 0 && e < FLT_MIN)
            error_set(err, "%s: layer_norm_epsilon = %.6g is below %g, the smallest normal float32 (it would be 0)",
                      path, e, (double)FLT_MIN);
        else
            error_set(err, "%s: layer_norm_epsilon = %.6g must be in (0, 1)", path, e);
        goto done;
    }
    t.ln_eps = (float)e;
    if (gpt2_config_check(&t, path, err) != 0) goto done;
    *c = t;
    rc = 0;
done:
    cJSON_Delete(root);
    return rc;
}
