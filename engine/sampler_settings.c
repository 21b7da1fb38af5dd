/* sampler_settings.c — the sampler's settings: defaults, validation, which stages do
 * something, and the order as text ("penalties,temperature,top_k,top_p,min_p"). Not the
 * chain itself (sampler.c) and not the CLI flags or their ranges for users (the app's
 * settings table): only what the math needs to be well defined. */
#include "sampler.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* HF transformers' order: the repetition penalty is a logits processor that runs
 * before the warpers, which generate() adds as temperature, top-k, top-p, min-p
 * (generation/utils.py, _get_logits_processor). */
static const uint8_t DEFAULT_ORDER[SAMPLER_N_STAGES] = {
    SAMPLER_STAGE_PENALTIES, SAMPLER_STAGE_TEMPERATURE, SAMPLER_STAGE_TOP_K,
    SAMPLER_STAGE_TOP_P, SAMPLER_STAGE_MIN_P};

SamplerSettings sampler_settings_default(void) {
    SamplerSettings s = {.temperature = 1.0f, .top_k = 0, .top_p = 1.0f, .greedy = 0,
                         .min_p = 0.0f, .repetition_penalty = 1.0f,
                         .frequency_penalty = 0.0f, .presence_penalty = 0.0f,
                         .penalty_window = 0};
    memcpy(s.order, DEFAULT_ORDER, sizeof s.order);
    return s;
}

const char *sampler_stage_name(SamplerStage stage) {
    switch (stage) {
    case SAMPLER_STAGE_PENALTIES: return "penalties";
    case SAMPLER_STAGE_TEMPERATURE: return "temperature";
    case SAMPLER_STAGE_TOP_K: return "top_k";
    case SAMPLER_STAGE_TOP_P: return "top_p";
    case SAMPLER_STAGE_MIN_P: return "min_p";
    case SAMPLER_STAGE_GREEDY: return "greedy";
    case SAMPLER_STAGE_END: break;
    }
    return "?";
}

static int order_is_empty(const uint8_t *order) {
    for (int i = 0; i < SAMPLER_N_STAGES; i++)
        if (order[i] != SAMPLER_STAGE_END) return 0;
    return 1;
}

int sampler_settings_order(const SamplerSettings *set, uint8_t out[SAMPLER_N_STAGES]) {
    const uint8_t *src = order_is_empty(set->order) ? DEFAULT_ORDER : set->order;
    int n = 0;
    for (int i = 0; i < SAMPLER_N_STAGES; i++) {
        out[i] = src[i];
        if (src[i] != SAMPLER_STAGE_END && n == i) n++;
    }
    return n;
}

int sampler_stage_active(const SamplerSettings *set, SamplerStage stage) {
    switch (stage) {
    case SAMPLER_STAGE_PENALTIES:
        return set->repetition_penalty != 1.0f || set->frequency_penalty != 0.0f ||
               set->presence_penalty != 0.0f;
    case SAMPLER_STAGE_TEMPERATURE: return set->temperature != 1.0f;
    case SAMPLER_STAGE_TOP_K: return set->top_k > 0;
    case SAMPLER_STAGE_TOP_P: return set->top_p < 1.0f;
    case SAMPLER_STAGE_MIN_P: return set->min_p > 0.0f;
    case SAMPLER_STAGE_GREEDY: return 1;
    case SAMPLER_STAGE_END: break;
    }
    return 0;
}

unsigned sampler_settings_ignored(const SamplerSettings *set) {
    uint8_t order[SAMPLER_N_STAGES];
    int n = sampler_settings_order(set, order);
    unsigned in_order = 0, ignored = 0;
    for (int i = 0; i < n; i++) in_order |= 1u << order[i];
    for (int st = SAMPLER_STAGE_PENALTIES; st <= SAMPLER_STAGE_MIN_P; st++)
        if (sampler_stage_active(set, (SamplerStage)st) && !(in_order & (1u << st)))
            ignored |= 1u << st;
    /* T = 0 is greedy, wherever temperature sits */
    if (set->temperature == 0.0f) ignored &= ~(1u << SAMPLER_STAGE_TEMPERATURE);
    return ignored;
}

static int validate_order(const uint8_t *order, ErrorMsg *err) {
    unsigned seen = 0;
    int ended = 0;
    for (int i = 0; i < SAMPLER_N_STAGES; i++) {
        unsigned st = order[i];
        if (st == SAMPLER_STAGE_END) {
            ended = 1;
            continue;
        }
        if (st > SAMPLER_STAGE_MIN_P)
            return error_set(err, "sampler: order[%d] = %u is not a stage", i, st);
        if (ended)
            return error_set(err, "sampler: order[%d] = %s comes after the end of the order", i,
                             sampler_stage_name((SamplerStage)st));
        if (seen & (1u << st))
            return error_set(err, "sampler: stage %s appears twice in the order",
                             sampler_stage_name((SamplerStage)st));
        seen |= 1u << st;
    }
    return 0;
}

int sampler_settings_validate(const SamplerSettings *s, ErrorMsg *err) {
    if (!s) return error_set(err, "sampler: no settings given");
    if (!isfinite(s->temperature))
        return error_set(err, "sampler: temperature %g is not a finite number",
                         (double)s->temperature);
    if (s->temperature < 0.0f)
        return error_set(err, "sampler: temperature %g is negative (0 means greedy)",
                         (double)s->temperature);
    if (s->top_k < 0)
        return error_set(err, "sampler: top_k %d is negative (0 turns top-k off)", s->top_k);
    /* !(p >= 0 && p <= 1) also catches NaN, for which every comparison is false */
    if (!(s->top_p >= 0.0f && s->top_p <= 1.0f))
        return error_set(err, "sampler: top_p %g is outside [0, 1] (1 turns top-p off)",
                         (double)s->top_p);
    if (!(s->min_p >= 0.0f && s->min_p <= 1.0f))
        return error_set(err, "sampler: min_p %g is outside [0, 1] (0 turns min-p off)",
                         (double)s->min_p);
    /* θ = 0 would divide by zero, θ < 0 flips signs; HF requires "strictly positive" */
    if (!(s->repetition_penalty > 0.0f) || !isfinite(s->repetition_penalty))
        return error_set(err, "sampler: repetition_penalty %g must be a finite number > 0 "
                         "(1 turns it off)", (double)s->repetition_penalty);
    if (!isfinite(s->frequency_penalty))
        return error_set(err, "sampler: frequency_penalty %g is not a finite number",
                         (double)s->frequency_penalty);
    if (!isfinite(s->presence_penalty))
        return error_set(err, "sampler: presence_penalty %g is not a finite number",
                         (double)s->presence_penalty);
    if (s->penalty_window < 0)
        return error_set(err, "sampler: penalty_window %d is negative (0 means the whole "
                         "context)", s->penalty_window);
    return validate_order(s->order, err);
}

/* ---- The order as text --------------------------------------------------------- */

static const char *const STAGE_LIST = "penalties, temperature, top_k, top_p, min_p";

/* The stage named by text[0..len) ('-' may stand for '_'; "temp" = temperature), or
 * SAMPLER_STAGE_END if none. */
static SamplerStage stage_by_name(const char *text, size_t len) {
    char name[16];
    if (len == 0 || len >= sizeof name) return SAMPLER_STAGE_END;
    for (size_t i = 0; i < len; i++) name[i] = text[i] == '-' ? '_' : text[i];
    name[len] = 0;
    if (strcmp(name, "temp") == 0) return SAMPLER_STAGE_TEMPERATURE;
    for (int st = SAMPLER_STAGE_PENALTIES; st <= SAMPLER_STAGE_MIN_P; st++)
        if (strcmp(name, sampler_stage_name((SamplerStage)st)) == 0) return (SamplerStage)st;
    return SAMPLER_STAGE_END;
}

int sampler_order_parse(const char *text, SamplerSettings *set, ErrorMsg *err) {
    if (!text || !set) return error_set(err, "sampler order: nothing given");
    uint8_t order[SAMPLER_N_STAGES] = {0};
    int n = 0;
    const char *p = text;
    while (*p == ' ') p++;
    if (*p == 0)
        return error_set(err, "sampler order: empty; list stages from: %s", STAGE_LIST);
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        size_t a = 0, b = len;
        while (a < b && p[a] == ' ') a++;
        while (b > a && p[b - 1] == ' ') b--;
        if (a == b)
            return error_set(err, "sampler order '%s': an empty entry (stages: %s)", text,
                             STAGE_LIST);
        SamplerStage st = stage_by_name(p + a, b - a);
        if (st == SAMPLER_STAGE_END)
            return error_set(err, "sampler order: unknown stage '%.*s' (stages: %s)",
                             (int)(b - a), p + a, STAGE_LIST);
        for (int i = 0; i < n; i++)
            if (order[i] == st)
                return error_set(err, "sampler order '%s': %s appears twice", text,
                                 sampler_stage_name(st));
        order[n++] = (uint8_t)st; /* n < SAMPLER_N_STAGES: 5 distinct names at most */
        if (!end) break;
        p = end + 1;
    }
    memcpy(set->order, order, sizeof order);
    return 0;
}

int sampler_order_format(const SamplerSettings *set, char *buf, size_t cap) {
    uint8_t order[SAMPLER_N_STAGES];
    int n = sampler_settings_order(set, order), len = 0;
    if (cap) buf[0] = 0;
    for (int i = 0; i < n; i++) {
        size_t off = (size_t)len < cap ? (size_t)len : cap;
        int w = snprintf(cap ? buf + off : NULL, cap - off, "%s%s", i ? "," : "",
                         sampler_stage_name((SamplerStage)order[i]));
        if (w < 0) return -1;
        len += w;
    }
    return len;
}
