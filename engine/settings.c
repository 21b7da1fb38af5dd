/* settings.c — the table of sampler settings (see settings.h): the rows, lookups, the
 * one parser of a setting's text, range checks, the knob's steps, defaults and
 * validation, and the stage order as text. How settings are written (titles, status,
 * JSON, provenance, usage) is settings_format.c; what they do in the chain, sampler.c. */
#include "settings.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "parse_num.h"

/* HF transformers' order: the repetition penalty is a logits processor that runs
 * before the warpers, which generate() adds as temperature, top-k, top-p, min-p
 * (generation/utils.py, _get_logits_processor). */
static const uint8_t DEFAULT_ORDER[SAMPLER_N_STAGES] = {
    SAMPLER_STAGE_PENALTIES, SAMPLER_STAGE_TEMPERATURE, SAMPLER_STAGE_TOP_K,
    SAMPLER_STAGE_TOP_P, SAMPLER_STAGE_MIN_P};

/* ---- The rows ---------------------------------------------------------------------- */

/* Roughly logarithmic, so a few presses go from "only the best token" to "almost
 * everything" (GPT-2 has 50257 tokens); 0 is "off". */
static const int TOP_K_LADDER[] = {0, 1, 2, 3, 5, 10, 20, 40, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000};
#define N_TOP_K_LADDER ((int)(sizeof TOP_K_LADDER / sizeof TOP_K_LADDER[0]))
/* The penalty window in powers of two up to GPT-2's context; 0 = the whole context. */
static const int WINDOW_LADDER[] = {0, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
#define N_WINDOW_LADDER ((int)(sizeof WINDOW_LADDER / sizeof WINDOW_LADDER[0]))

/* Ranges: what a user may ask for anywhere. Temperature up to 100 (beyond that the
 * distribution is flat to many digits; the knob reaches 5), top-k up to a million (more
 * than any vocabulary here), top-p is a probability. */
static const SettingRow ROWS[SETTING_COUNT] = {
    {.id = SETTING_TEMPERATURE, .kind = SETTING_REAL, .offset = offsetof(SamplerSettings, temperature),
     .name = "temperature", .flag = "--temperature", .lesson = "temperature",
     .figure_key = "inferscope:temperature", .word = "temperature", .metavar = "T",
     .help = "divide the logits by T > 0 (default 1; 0 = greedy)", .min = 0, .max = 100, .def = 1,
     .off = 1, .off_word = NULL, .note = "0 = greedy", .knob_step = 0.1, .knob_min = 0, .knob_max = 5,
     .title_prefix = "T=", .status_prefix = "T ",
     .flags = SETTING_FIGURE_ALWAYS | SETTING_TITLE_ALWAYS | SETTING_STATUS_ALWAYS},
    {.id = SETTING_TOP_K, .kind = SETTING_INT, .offset = offsetof(SamplerSettings, top_k), .name = "top_k",
     .flag = "--top-k", .lesson = "top_k", .figure_key = "inferscope:top_k", .word = "top-k", .metavar = "K",
     .help = "keep only the K most likely tokens (default 0 = off)", .min = 0, .max = 1000000, .def = 0,
     .off = 0, .off_word = "off", .note = "0 = off", .knob_step = 0, .knob_min = 0, .knob_max = 50000,
     .knob_ladder = TOP_K_LADDER, .n_ladder = N_TOP_K_LADDER, .title_prefix = "top-k ",
     .status_prefix = "top-k ", .flags = SETTING_FIGURE_ALWAYS | SETTING_STATUS_ALWAYS},
    {.id = SETTING_TOP_P, .kind = SETTING_REAL, .offset = offsetof(SamplerSettings, top_p), .name = "top_p",
     .flag = "--top-p", .lesson = "top_p", .figure_key = "inferscope:top_p", .word = "top-p", .metavar = "P",
     .help = "keep the smallest set with cumulative probability >= P (default 1 = off)", .min = 0, .max = 1,
     .def = 1, .off = 1, .off_word = "off", .note = "1 = off", .knob_step = 0.05, .knob_min = 0.05,
     .knob_max = 1, .title_prefix = "top-p ", .status_prefix = "top-p ",
     .flags = SETTING_FIGURE_ALWAYS | SETTING_STATUS_ALWAYS},
    {.id = SETTING_GREEDY, .kind = SETTING_BOOL, .offset = offsetof(SamplerSettings, greedy), .name = "greedy",
     .flag = "--greedy", .lesson = "greedy", .figure_key = "inferscope:greedy", .word = "greedy",
     .metavar = NULL, .help = "always take the most likely token (the other settings are ignored)", .min = 0,
     .max = 1, .def = 0, .off = 0, .off_word = "off", .note = "on or off", .knob_step = 1, .knob_min = 0,
     .knob_max = 1, .flags = SETTING_FIGURE_ALWAYS},
    {.id = SETTING_MIN_P, .kind = SETTING_REAL, .offset = offsetof(SamplerSettings, min_p), .name = "min_p",
     .flag = "--min-p", .lesson = "min_p", .figure_key = "inferscope:min_p", .word = "min-p", .metavar = "M",
     .help = "keep the tokens with p >= M times the top token's p (default 0 = off)", .min = 0, .max = 1,
     .def = 0, .off = 0, .off_word = "off", .note = "0 = off", .knob_step = 0.01, .knob_min = 0, .knob_max = 0.5,
     .title_prefix = "min-p ", .status_prefix = "min-p "},
    /* θ > 0 (θ = 0 would divide by zero, θ < 0 flip signs); CTRL used 1.2, HF allows any
     * θ > 0: [0.1, 10] covers "encourage repeats tenfold" to "forbid them" */
    {.id = SETTING_REPETITION_PENALTY, .kind = SETTING_REAL,
     .offset = offsetof(SamplerSettings, repetition_penalty), .name = "repetition_penalty",
     .flag = "--repetition-penalty", .lesson = "repetition_penalty",
     .figure_key = "inferscope:repetition_penalty", .word = "repetition penalty", .metavar = "R",
     .help = "a context token's logit / R if > 0, * R if < 0 (CTRL/HF; default 1 = off)", .min = 0.1,
     .max = 10, .def = 1, .off = 1, .off_word = "off", .note = "1 = off", .knob_step = 0.05, .knob_min = 0.5,
     .knob_max = 3, .title_prefix = "rep ", .status_prefix = "rep "},
    /* OpenAI documents both in [-2, 2]; negative values encourage repeats */
    {.id = SETTING_FREQUENCY_PENALTY, .kind = SETTING_REAL,
     .offset = offsetof(SamplerSettings, frequency_penalty), .name = "frequency_penalty",
     .flag = "--frequency-penalty", .lesson = "frequency_penalty",
     .figure_key = "inferscope:frequency_penalty", .word = "frequency penalty", .metavar = "F",
     .help = "subtract F per occurrence in the context (OpenAI; default 0 = off)", .min = -2, .max = 2,
     .def = 0, .off = 0, .off_word = "off", .note = "0 = off", .knob_step = 0.1, .knob_min = -2, .knob_max = 2,
     .title_prefix = "freq ", .status_prefix = "freq "},
    {.id = SETTING_PRESENCE_PENALTY, .kind = SETTING_REAL,
     .offset = offsetof(SamplerSettings, presence_penalty), .name = "presence_penalty",
     .flag = "--presence-penalty", .lesson = "presence_penalty",
     .figure_key = "inferscope:presence_penalty", .word = "presence penalty", .metavar = "P",
     .help = "subtract P once from every token in the context (OpenAI; default 0 = off)", .min = -2,
     .max = 2, .def = 0, .off = 0, .off_word = "off", .note = "0 = off", .knob_step = 0.1, .knob_min = -2,
     .knob_max = 2, .title_prefix = "pres ", .status_prefix = "pres "},
    {.id = SETTING_PENALTY_WINDOW, .kind = SETTING_INT, .offset = offsetof(SamplerSettings, penalty_window),
     .name = "penalty_window", .flag = "--penalty-window", .lesson = "penalty_window",
     .figure_key = "inferscope:penalty_window", .word = "penalty window", .metavar = "N",
     .help = "the penalties count the last N context tokens (default 0 = all)", .min = 0, .max = 1000000,
     .def = 0, .off = 0, .off_word = "all", .note = "0 = all", .knob_step = 0, .knob_min = 0, .knob_max = 1024,
     .knob_ladder = WINDOW_LADDER, .n_ladder = N_WINDOW_LADDER, .title_prefix = "window ",
     .status_prefix = "window "},
    /* the order: the probs panel draws it as its stage labels, so not in its title */
    {.id = SETTING_SAMPLERS, .kind = SETTING_ORDER, .offset = offsetof(SamplerSettings, order),
     .name = "samplers", .flag = "--samplers", .lesson = "samplers", .figure_key = "inferscope:samplers",
     .word = "sampler order", .metavar = "LIST",
     .help = "the stages in the order they run, from penalties,temperature,top_k,top_p,min_p\n"
             "(default: that order, Hugging Face's; llama.cpp's puts temperature last)",
     .note = "penalties, temperature, top_k, top_p, min_p", .status_prefix = "order "},
};

const SettingRow *settings_table(size_t *n) {
    *n = SETTING_COUNT;
    return ROWS;
}

const SettingRow *settings_row(SettingId id) {
    return (int)id >= 0 && id < SETTING_COUNT ? &ROWS[id] : NULL;
}

/* The row whose string at byte offset `field` of SettingRow equals s. */
static const SettingRow *find(size_t field, const char *s) {
    if (!s) return NULL;
    for (int i = 0; i < SETTING_COUNT; i++) {
        const char *v = *(const char *const *)((const char *)&ROWS[i] + field);
        if (v && strcmp(v, s) == 0) return &ROWS[i];
    }
    return NULL;
}

const SettingRow *settings_by_flag(const char *flag) { return find(offsetof(SettingRow, flag), flag); }
const SettingRow *settings_by_lesson(const char *word) { return find(offsetof(SettingRow, lesson), word); }
const SettingRow *settings_by_figure_key(const char *key) { return find(offsetof(SettingRow, figure_key), key); }

/* ---- Values ------------------------------------------------------------------------ */

static float *real_field(const SettingRow *r, SamplerSettings *s) {
    return (float *)(void *)((char *)s + r->offset);
}
static int *int_field(const SettingRow *r, SamplerSettings *s) { return (int *)(void *)((char *)s + r->offset); }

double settings_get(const SettingRow *r, const SamplerSettings *s) {
    const char *at = (const char *)s + r->offset;
    float f;
    int i;
    switch (r->kind) {
    case SETTING_REAL: memcpy(&f, at, sizeof f); return (double)f;
    case SETTING_INT: memcpy(&i, at, sizeof i); return (double)i;
    case SETTING_BOOL: memcpy(&i, at, sizeof i); return i ? 1.0 : 0.0;
    case SETTING_ORDER: break;
    }
    return NAN;
}

void settings_copy(const SettingRow *r, SamplerSettings *dst, const SamplerSettings *src) {
    size_t size = r->kind == SETTING_REAL ? sizeof(float) : r->kind == SETTING_ORDER ? sizeof src->order : sizeof(int);
    memcpy((char *)dst + r->offset, (const char *)src + r->offset, size);
}

int settings_equal(const SamplerSettings *a, const SamplerSettings *b) {
    for (int i = 0; i < SETTING_COUNT; i++) {
        const SettingRow *r = &ROWS[i];
        if (r->kind == SETTING_ORDER) {
            uint8_t x[SAMPLER_N_STAGES], y[SAMPLER_N_STAGES];
            sampler_settings_order(a, x);
            sampler_settings_order(b, y);
            if (memcmp(x, y, sizeof x) != 0) return 0;
        } else if (settings_get(r, a) != settings_get(r, b)) {
            return 0;
        }
    }
    return 1;
}

int settings_is_default(const SettingRow *r, const SamplerSettings *s) {
    if (r->kind == SETTING_ORDER) {
        uint8_t run[SAMPLER_N_STAGES];
        sampler_settings_order(s, run);
        return memcmp(run, DEFAULT_ORDER, sizeof run) == 0;
    }
    return settings_get(r, s) == r->def;
}

/* "[0, 1] (1 = off)": the range as messages give it. */
static void range_text(const SettingRow *r, char *buf, size_t cap) {
    if (r->kind == SETTING_INT)
        snprintf(buf, cap, "[%.0f, %.0f] (%s)", r->min, r->max, r->note);
    else
        snprintf(buf, cap, "[%g, %g] (%s)", r->min, r->max, r->note);
}

/* Stores v (already a number of the row's kind) after the range check; 0 or -1 with
 * *outside set. */
static int store(const SettingRow *r, double v, SamplerSettings *s, int *outside) {
    *outside = !(v >= r->min && v <= r->max); /* NaN is outside too */
    if (*outside) return -1;
    if (r->kind == SETTING_REAL) *real_field(r, s) = (float)v;
    else *int_field(r, s) = (int)v;
    return 0;
}

int settings_set(const SettingRow *r, const char *who, double v, SamplerSettings *s, ErrorMsg *err) {
    char range[96];
    range_text(r, range, sizeof range);
    if (r->kind == SETTING_ORDER) return error_set(err, "%s: not a number setting", who);
    if (!isfinite(v)) return error_set(err, "%s %g is not a finite number: give one in %s", who, v, range);
    if (r->kind != SETTING_REAL && v != floor(v))
        return error_set(err, "%s %g is not a whole number: give one in %s", who, v, range);
    int outside;
    if (store(r, v, s, &outside)) return error_set(err, "%s %g is outside %s", who, v, range);
    return 0;
}

int settings_parse_seed(const char *who, const char *text, uint64_t *seed, ErrorMsg *err) {
    NumError ne = parse_num_u64(text, seed);
    if (ne == NUM_OK) return 0;
    return error_set(err, "%s: '%.40s' %s: give a whole number in [0, 2^64 - 1]", who, text, parse_num_problem(ne));
}

int settings_parse(const SettingRow *r, const char *who, const char *text, SamplerSettings *set,
                   ErrorMsg *err) {
    char q[ERROR_QUOTE_CAP], range[96];
    ERROR_QUOTE(q, text);
    range_text(r, range, sizeof range);
    if (r->kind == SETTING_ORDER) {
        ErrorMsg e;
        if (sampler_order_parse(text, set, &e) == 0) return 0;
        /* "sampler order: unknown stage 'x' (...)" -> "--samplers: unknown stage 'x' (...)" */
        const char *msg = strncmp(e.text, "sampler order", 13) == 0 ? e.text + 13 : e.text;
        return error_set(err, "%s%s%s", who, *msg == ':' || *msg == ' ' ? "" : ": ", msg);
    }
    if (r->kind == SETTING_BOOL) {
        int v = -1;
        if (text && (strcmp(text, "on") == 0 || strcmp(text, "1") == 0)) v = 1;
        if (text && (strcmp(text, "off") == 0 || strcmp(text, "0") == 0)) v = 0;
        if (v < 0) return error_set(err, "%s: '%s' is not on or off (or 1 or 0)", who, q);
        *int_field(r, set) = v;
        return 0;
    }
    double v;
    NumError e;
    if (r->off_word && text && strcmp(text, r->off_word) == 0) {
        v = r->off;
        e = NUM_OK;
    } else if (r->kind == SETTING_INT) {
        long long x = 0;
        e = parse_num_int(text, &x);
        v = (double)x;
    } else {
        e = parse_num_real(text, &v);
    }
    if (e != NUM_OK)
        return error_set(err, "%s: '%s' %s: give %s in %s", who, q, parse_num_problem(e),
                         r->kind == SETTING_INT ? "a whole number" : "a number", range);
    int outside;
    if (store(r, v, set, &outside)) return error_set(err, "%s: '%s' is outside %s", who, q, range);
    return 0;
}

double settings_knob_next(const SettingRow *r, double v, int dir) {
    if (dir == 0) return v;
    if (r->knob_ladder) {
        const int *L = r->knob_ladder, n = r->n_ladder;
        if (dir > 0) {
            for (int i = 0; i < n; i++)
                if (L[i] > v) return L[i];
            return v; /* at or beyond the top */
        }
        for (int i = n - 1; i >= 0; i--)
            if (L[i] < v) return L[i];
        return L[0];
    }
    /* on a grid of 1/k (k = 10 for steps of 0.1): (round(v k) + dir) / k is the nearest
     * double to the decimal value, so repeated presses never drift */
    double k = round(1.0 / r->knob_step);
    double next = (round(v * k) + (dir > 0 ? 1 : -1)) / k;
    /* a value set beyond the knob's reach (--temperature 20) steps back towards it but
     * never further out */
    double lo = v < r->knob_min ? v : r->knob_min, hi = v > r->knob_max ? v : r->knob_max;
    next = next < lo ? lo : next > hi ? hi : next;
    /* the field is a float: an end that is v once rounded to one is no step at all */
    return r->kind == SETTING_REAL && (float)next == (float)v ? v : next;
}

/* ---- The struct as a whole --------------------------------------------------------- */

SamplerSettings sampler_settings_default(void) {
    SamplerSettings s = {0};
    for (int i = 0; i < SETTING_COUNT; i++) {
        const SettingRow *r = &ROWS[i];
        if (r->kind == SETTING_REAL) *real_field(r, &s) = (float)r->def;
        else if (r->kind != SETTING_ORDER) *int_field(r, &s) = (int)r->def;
    }
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
    for (int i = 0; i < SETTING_COUNT; i++) {
        const SettingRow *r = &ROWS[i];
        if (r->kind == SETTING_ORDER) continue; /* validate_order below */
        if (r->kind == SETTING_BOOL) continue; /* any int is a truth value */
        char who[64];
        snprintf(who, sizeof who, "sampler: %s", r->name);
        SamplerSettings scratch = *s;
        if (settings_set(r, who, settings_get(r, s), &scratch, err)) return -1;
    }
    return validate_order(s->order, err);
}

/* ---- The order as text ------------------------------------------------------------- */

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
            return error_set(err, "sampler order: an empty entry in '%.80s' (stages: %s)", text,
                             STAGE_LIST);
        SamplerStage st = stage_by_name(p + a, b - a);
        if (st == SAMPLER_STAGE_END)
            return error_set(err, "sampler order: unknown stage '%.*s' (stages: %s)",
                             (int)(b - a > 40 ? 40 : b - a), p + a, STAGE_LIST);
        for (int i = 0; i < n; i++)
            if (order[i] == st)
                return error_set(err, "sampler order: %s appears twice in '%.80s'",
                                 sampler_stage_name(st), text);
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
