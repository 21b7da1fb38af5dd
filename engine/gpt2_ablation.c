/* gpt2_ablation.c — the ablation mask (see gpt2_ablation.h): sizing, strict SPEC
 * parsing with messages that give the model's real ranges, the canonical form. */
#include "gpt2_ablation.h"

#include <stdio.h>
#include <stdlib.h>

int gpt2_ablation_init(Gpt2Ablation *ab, const Gpt2Config *cfg, ErrorMsg *err) {
    memset(ab, 0, sizeof *ab);
    if (cfg->n_layer <= 0 || cfg->n_head <= 0) return error_set(err, "ablation: invalid model config");
    size_t n = (size_t)cfg->n_layer * ((size_t)cfg->n_head + 2);
    ab->off = calloc(n, 1);
    if (!ab->off) return error_set(err, "ablation: out of memory");
    ab->n_layer = cfg->n_layer;
    ab->n_head = cfg->n_head;
    return 0;
}

void gpt2_ablation_free(Gpt2Ablation *ab) {
    if (!ab) return;
    free(ab->off);
    memset(ab, 0, sizeof *ab);
}

void gpt2_ablation_clear(Gpt2Ablation *ab) {
    if (ab->off) memset(ab->off, 0, (size_t)ab->n_layer * ((size_t)ab->n_head + 2));
    ab->n_off = 0;
}

int gpt2_ablation_set(Gpt2Ablation *ab, Gpt2AblationKind kind, int layer, int head, int on, ErrorMsg *err) {
    if (!ab->off) return error_set(err, "ablation: the mask is not sized for a model");
    if (layer < 0 || layer >= ab->n_layer)
        return error_set(err, "block %d does not exist (blocks 0..%d)", layer, ab->n_layer - 1);
    if (kind == GPT2_ABL_HEAD && (head < 0 || head >= ab->n_head))
        return error_set(err, "head %d does not exist (heads 0..%d in each block)", head, ab->n_head - 1);
    size_t i = (size_t)layer * ((size_t)ab->n_head + 2) +
               (kind == GPT2_ABL_HEAD ? (size_t)head : (size_t)ab->n_head + (kind == GPT2_ABL_MLP));
    int was = ab->off[i] != 0;
    ab->off[i] = on ? 1 : 0;
    ab->n_off += (on != 0) - was;
    return 0;
}

/* A decimal number of at most 6 digits at *p (advanced); -1 when there is none. */
static long parse_index(const char **p) {
    const char *s = *p;
    long v = 0;
    int n = 0;
    while (*s >= '0' && *s <= '9') {
        if (++n > 6) return -1;
        v = v * 10 + (*s++ - '0');
    }
    if (n == 0) return -1;
    *p = s;
    return v;
}

/* One part "L.H" / "L.attn" / "L.mlp" of length len at s. */
static int parse_part(Gpt2Ablation *ab, const char *s, size_t len, ErrorMsg *err) {
    char part[64];
    snprintf(part, sizeof part, "%.*s", (int)(len < 40 ? len : 40), s);
    const char *usage = "expected BLOCK.HEAD, BLOCK.attn or BLOCK.mlp, e.g. 0.3, 1.attn, 2.mlp";
    if (len == 0) return error_set(err, "--ablate: an empty part in the list (%s)", usage);
    if (len >= 40) return error_set(err, "--ablate: '%s...' is not a part (%s)", part, usage);
    const char *p = part;
    long layer = parse_index(&p);
    if (layer < 0 || *p != '.') return error_set(err, "--ablate: '%s' is not a part (%s)", part, usage);
    p++;
    Gpt2AblationKind kind;
    long head = 0;
    if (strcmp(p, "attn") == 0) kind = GPT2_ABL_ATTN;
    else if (strcmp(p, "mlp") == 0) kind = GPT2_ABL_MLP;
    else {
        kind = GPT2_ABL_HEAD;
        head = parse_index(&p);
        if (head < 0 || *p) return error_set(err, "--ablate: '%s' is not a part (%s)", part, usage);
    }
    if (layer >= ab->n_layer)
        return error_set(err, "--ablate: '%s': block %ld does not exist (this model has blocks 0..%d)", part, layer,
                         ab->n_layer - 1);
    if (kind == GPT2_ABL_HEAD && head >= ab->n_head)
        return error_set(err, "--ablate: '%s': head %ld does not exist (this model has heads 0..%d per block)", part,
                         head, ab->n_head - 1);
    if (gpt2_ablation_is_off(ab, kind, (int)layer, (int)head))
        return error_set(err, "--ablate: '%s' is listed twice", part);
    return gpt2_ablation_set(ab, kind, (int)layer, (int)head, 1, err);
}

int gpt2_ablation_parse(Gpt2Ablation *ab, const Gpt2Config *cfg, const char *spec, ErrorMsg *err) {
    gpt2_ablation_free(ab);
    if (gpt2_ablation_init(ab, cfg, err)) return -1;
    if (!spec || !*spec) return error_set(err, "--ablate: no parts given (e.g. 0.3, 1.attn, 2.mlp)");
    for (const char *s = spec;;) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        if (parse_part(ab, s, len, err)) {
            gpt2_ablation_clear(ab);
            return -1;
        }
        if (!comma) break;
        s = comma + 1;
    }
    return 0;
}

size_t gpt2_ablation_format(const Gpt2Ablation *ab, char *buf, size_t cap) {
    size_t len = 0;
    if (cap) buf[0] = 0;
    for (int l = 0; ab->n_off && l < ab->n_layer; l++)
        for (int k = 0; k < ab->n_head + 2; k++) {
            Gpt2AblationKind kind = k < ab->n_head ? GPT2_ABL_HEAD : k == ab->n_head ? GPT2_ABL_ATTN : GPT2_ABL_MLP;
            if (!gpt2_ablation_is_off(ab, kind, l, k)) continue;
            char part[32];
            if (kind == GPT2_ABL_HEAD) snprintf(part, sizeof part, "%s%d.%d", len ? "," : "", l, k);
            else snprintf(part, sizeof part, "%s%d.%s", len ? "," : "", l, kind == GPT2_ABL_ATTN ? "attn" : "mlp");
            if (len < cap) snprintf(buf + len, cap - len, "%s", part); /* a cut part ends the output */
            len += strlen(part);
        }
    return len;
}

int gpt2_ablation_equal(const Gpt2Ablation *a, const Gpt2Ablation *b) {
    int ea = !a || a->n_off == 0, eb = !b || b->n_off == 0;
    if (ea || eb) return ea && eb;
    if (a->n_layer != b->n_layer || a->n_head != b->n_head) return 0;
    return memcmp(a->off, b->off, (size_t)a->n_layer * ((size_t)a->n_head + 2)) == 0;
}

int gpt2_ablation_copy(Gpt2Ablation *dst, const Gpt2Ablation *src, ErrorMsg *err) {
    if (dst == src) return 0;
    gpt2_ablation_free(dst);
    if (!src || !src->off) return 0;
    size_t n = (size_t)src->n_layer * ((size_t)src->n_head + 2);
    dst->off = malloc(n);
    if (!dst->off) return error_set(err, "ablation: out of memory");
    memcpy(dst->off, src->off, n);
    dst->n_layer = src->n_layer;
    dst->n_head = src->n_head;
    dst->n_off = src->n_off;
    return 0;
}
