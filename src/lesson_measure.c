/* lesson_measure.c — caption placeholders (see lesson_measure.h). */
#include "lesson_measure.h"

#include <stdio.h>
#include <string.h>

#include "lesson.h"
#include "lesson_expect.h"

/* The published GPT-2 checkpoints (config.json of openai-community/gpt2*):
 * vocabulary 50,257, context 1,024. */
typedef struct Gpt2Size {
    const char *name;
    int n_layer, n_head, n_embd;
} Gpt2Size;
static const Gpt2Size GPT2_SIZES[] = {
    {"124M", 12, 12, 768}, {"355M", 24, 16, 1024}, {"774M", 36, 20, 1280}, {"1558M", 48, 25, 1600},
};
#define N_SIZES (sizeof GPT2_SIZES / sizeof GPT2_SIZES[0])

/* Parameters of a GPT-2 from its shape: wte V*C + wpe NP*C + L*(12C^2 + 13C) + ln_f 2C
 * (per block: qkv 3C^2+3C, proj C^2+C, fc 4C^2+4C, fc_proj 4C^2+C, two LayerNorms 4C). */
static double gpt2_params(int L, int C) {
    double c = C;
    return 50257.0 * c + 1024.0 * c + L * (12.0 * c * c + 13.0 * c) + 2.0 * c;
}

double lesson_flops_per_token(int n_layer, int n_embd, int vocab, int n_keys) {
    double c = n_embd;
    return n_layer * (24.0 * c * c + 4.0 * c * n_keys) + 2.0 * c * vocab;
}

static const char *const NAMES[] = {
    "model", "params", "layers", "heads", "width", "context", "vocab", "weights_mb", "step_ms",
    "flops", "train_flops", "gflops", "gbs", "prev_best", "first_best",
};
#define N_NAMES (sizeof NAMES / sizeof NAMES[0])

static int is_name_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == ':' || (c >= 'A' && c <= 'Z');
}

static const Gpt2Size *size_named(const char *s, size_t n) {
    for (size_t i = 0; i < N_SIZES; i++)
        if (strlen(GPT2_SIZES[i].name) == n && memcmp(GPT2_SIZES[i].name, s, n) == 0) return &GPT2_SIZES[i];
    return NULL;
}

/* Index of the known name s[0..n): 0..N_NAMES-1, 100+i for gpt2:SIZE, 200+i for est:SIZE; -1. */
static int lookup(const char *s, size_t n) {
    for (size_t i = 0; i < N_NAMES; i++)
        if (strlen(NAMES[i]) == n && memcmp(NAMES[i], s, n) == 0) return (int)i;
    if (n > 5 && memcmp(s, "gpt2:", 5) == 0 && size_named(s + 5, n - 5)) return 100 + (int)(size_named(s + 5, n - 5) - GPT2_SIZES);
    if (n > 4 && memcmp(s, "est:", 4) == 0 && size_named(s + 4, n - 4)) return 200 + (int)(size_named(s + 4, n - 4) - GPT2_SIZES);
    return -1;
}

/* Finds the next "{name}" at or after *i: returns 1 with [*a, *b) the braces' span. */
static int next_placeholder(const char *t, size_t len, size_t *i, size_t *a, size_t *b) {
    for (; *i < len; (*i)++) {
        if (t[*i] != '{') continue;
        size_t e = *i + 1;
        while (e < len && is_name_char(t[e])) e++;
        if (e < len && t[e] == '}' && e > *i + 1) {
            *a = *i;
            *b = e + 1;
            *i = e + 1;
            return 1;
        }
    }
    return 0;
}

int lesson_placeholders_check(const char *text, size_t len, char *bad, size_t cap) {
    size_t i = 0, a, b;
    while (next_placeholder(text, len, &i, &a, &b))
        if (lookup(text + a + 1, b - a - 2) < 0) {
            snprintf(bad, cap, "%.*s", (int)(b - a), text + a);
            return -1;
        }
    return 0;
}

int lesson_has_placeholder(const char *text) {
    size_t i = 0, a, b, len = strlen(text);
    return next_placeholder(text, len, &i, &a, &b);
}

static void fmt_count(double n, char *out, size_t cap) {
    if (n >= 1e9) snprintf(out, cap, "%.2f B", n / 1e9);
    else if (n >= 1e8) snprintf(out, cap, "%.0f M", n / 1e6);
    else if (n >= 1e6) snprintf(out, cap, "%.1f M", n / 1e6);
    else snprintf(out, cap, "%.0f", n);
}

static void best_head(const Session *s, int form, char *out, size_t cap) {
    const Gpt2Config *c = &s->model.config;
    int bl = 0, bh = 0;
    double best = -1;
    for (int l = 0; l < c->n_layer; l++)
        for (int h = 0; h < c->n_head; h++) {
            double x = lesson_attention_mean(s, l, h, form);
            if (x > best) { best = x; bl = l; bh = h; }
        }
    snprintf(out, cap, "L%dH%d (%.2f)", bl, bh, best);
}

static void value(int k, const Session *s, char *out, size_t cap) {
    const Gpt2Config *c = &s->model.config;
    double ms = session_step_ms(s);
    int keys = session_len(s) > 0 ? session_len(s) : 1;
    double flops = lesson_flops_per_token(c->n_layer, c->n_embd, c->vocab_size, keys);
    double bytes = 4.0 * (double)s->model.n_params; /* float32 in memory, read once per token */
    if (k >= 200) {
        const Gpt2Size *g = &GPT2_SIZES[k - 200];
        if (ms < 0) snprintf(out, cap, "(not measured yet)");
        else if (g->n_layer == c->n_layer && g->n_embd == c->n_embd && g->n_head == c->n_head)
            snprintf(out, cap, "%.1f ms (measured)", ms);
        else snprintf(out, cap, "~%.0f ms (estimate)", ms * 4.0 * gpt2_params(g->n_layer, g->n_embd) / bytes);
        return;
    }
    if (k >= 100) {
        const Gpt2Size *g = &GPT2_SIZES[k - 100];
        char p[32];
        fmt_count(gpt2_params(g->n_layer, g->n_embd), p, sizeof p);
        snprintf(out, cap, "%d layers \xC3\x97 %d heads, %s parameters", g->n_layer, g->n_head, p);
        return;
    }
    switch (k) {
    case 0: snprintf(out, cap, "%s", s->model.name); break;
    case 1: fmt_count((double)s->model.n_params, out, cap); break;
    case 2: snprintf(out, cap, "%d", c->n_layer); break;
    case 3: snprintf(out, cap, "%d", c->n_head); break;
    case 4: snprintf(out, cap, "%d", c->n_embd); break;
    case 5: snprintf(out, cap, "%d", c->n_positions); break;
    case 6: snprintf(out, cap, "%d", c->vocab_size); break;
    case 7: snprintf(out, cap, "%.0f MB", bytes / 1e6); break;
    case 8:
        if (ms < 0) snprintf(out, cap, "(not measured yet)");
        else snprintf(out, cap, "%.1f ms", ms);
        break;
    case 9: fmt_count(flops, out, cap); break;
    case 10: fmt_count(3.0 * flops, out, cap); break;
    case 11: snprintf(out, cap, ms > 0 ? "%.1f" : "?", flops / (ms * 1e6)); break;
    case 12: snprintf(out, cap, ms > 0 ? "%.1f" : "?", bytes / (ms * 1e6)); break;
    case 13: best_head(s, LATT_PREV, out, cap); break;
    case 14: best_head(s, LATT_FIRST, out, cap); break;
    default: snprintf(out, cap, "?"); break;
    }
}

void lesson_caption_expand(const char *text, const Session *s, char *out, size_t cap) {
    size_t len = strlen(text), i = 0, a, b, from = 0, k = 0;
    out[0] = 0;
    while (next_placeholder(text, len, &i, &a, &b)) {
        char v[128];
        int idx = lookup(text + a + 1, b - a - 2);
        if (idx < 0) snprintf(v, sizeof v, "%.*s", (int)(b - a), text + a);
        else value(idx, s, v, sizeof v);
        k += (size_t)snprintf(out + k, k < cap ? cap - k : 0, "%.*s%s", (int)(a - from), text + from, v);
        if (k >= cap) return;
        from = b;
    }
    snprintf(out + k, cap - k, "%s", text + from);
}
