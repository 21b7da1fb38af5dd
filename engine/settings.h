/* settings.h — the sampler's settings: the struct the chain reads (SamplerSettings) and
 * THE TABLE, one row per setting, that every reader and writer walks: the CLI flags
 * (next, generate, export and the window's), lesson directives, figure provenance, the
 * window's knobs, validation (sampler_settings_validate), the probability panel's
 * title, the status line and JSON. A row holds the setting's names in each of those
 * places, its range, its "off" value and word, its knob step and how it is written, so
 * a value is accepted or refused the same way wherever it is typed, and adding a
 * setting is its field plus one row. Also the stage order as text. No SDL, no I/O.
 * Not the chain (sampler.h) and not what a stage does with its setting.
 *
 * Usage:
 *     SamplerSettings set = sampler_settings_default();
 *     const SettingRow *r = settings_by_flag("--top-p");
 *     if (r && settings_parse(r, r->flag, "0.95", &set, &err)) ...;   // err names the range
 *     char title[128];
 *     settings_format_line(&set, 0, SETTINGS_TITLE, title, sizeof title); // "T=1 · top-p 0.95"
 */
#ifndef SETTINGS_H
#define SETTINGS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* The stages of the chain. 0 ends an order that is shorter than SAMPLER_N_STAGES. */
typedef enum SamplerStage {
    SAMPLER_STAGE_END = 0,
    SAMPLER_STAGE_PENALTIES,
    SAMPLER_STAGE_TEMPERATURE,
    SAMPLER_STAGE_TOP_K,
    SAMPLER_STAGE_TOP_P,
    SAMPLER_STAGE_MIN_P,
    SAMPLER_STAGE_GREEDY /* records only: the argmax of greedy mode, never in an order */
} SamplerStage;
#define SAMPLER_N_STAGES 5 /* stages an order can hold (GREEDY excluded) */

typedef struct SamplerSettings {
    float temperature;        /* > 0 divides the logits; 0 means greedy; 1 = unchanged */
    int top_k;                /* keep the k most likely tokens; 0 = off */
    float top_p;              /* keep the smallest set with probability >= p; 1 = off */
    int greedy;               /* nonzero: penalties then argmax; T, k, p, min-p ignored */
    float min_p;              /* keep p >= min_p * p_max, in [0, 1]; 0 = off */
    float repetition_penalty; /* θ > 0; 1 = off; > 1 discourages context tokens */
    float frequency_penalty;  /* F, subtracted once per occurrence; 0 = off */
    float presence_penalty;   /* P, subtracted once if the token occurs; 0 = off */
    int penalty_window;       /* the last N context tokens count; 0 = all of them */
    /* The stages in the order they run, SAMPLER_STAGE_END-terminated. All zero (as in a
     * struct built with designated initializers) means the default order. A stage that
     * is not in the order does not run, whatever its setting (see
     * sampler_settings_ignored). */
    uint8_t order[SAMPLER_N_STAGES];
} SamplerSettings;

/* ---- The table ------------------------------------------------------------------- */

typedef enum SettingId {
    SETTING_TEMPERATURE,
    SETTING_TOP_K,
    SETTING_TOP_P,
    SETTING_GREEDY,
    SETTING_MIN_P,
    SETTING_REPETITION_PENALTY,
    SETTING_FREQUENCY_PENALTY,
    SETTING_PRESENCE_PENALTY,
    SETTING_PENALTY_WINDOW,
    SETTING_SAMPLERS,
    SETTING_COUNT
} SettingId;

typedef enum SettingKind {
    SETTING_REAL,  /* a float field: any finite number in [min, max] */
    SETTING_INT,   /* an int field: a whole number in [min, max] */
    SETTING_BOOL,  /* an int field, 0 or 1: on | off | 1 | 0 (the CLI flag takes no value) */
    SETTING_ORDER, /* the order field: "penalties,temperature,top_k,top_p,min_p" */
} SettingKind;

/* SettingRow.flags */
enum {
    /* Written to every figure (the rows figure format 1 started with). Other rows are
     * written only when not at their default, so a figure that does not use them is
     * byte-identical to one made before they existed; a reader takes a missing key as
     * the row's default. */
    SETTING_FIGURE_ALWAYS = 1u << 0,
    SETTING_TITLE_ALWAYS = 1u << 1,  /* in the probs title even at its off value ("T=1") */
    SETTING_STATUS_ALWAYS = 1u << 2, /* on the status line even when off ("top-k off") */
};

typedef struct SettingRow {
    SettingId id;
    SettingKind kind;
    size_t offset;          /* offsetof(SamplerSettings, field): a float for REAL, an int
                               for INT and BOOL, the order array for ORDER */
    const char *name;       /* the JSON key and sampler messages' name: "top_p" */
    const char *flag;       /* CLI flag: "--top-p" */
    const char *lesson;     /* lesson directive: "top_p" */
    const char *figure_key; /* figure provenance key: "inferscope:top_p" */
    const char *word;       /* what people call it in messages: "top-p" */
    const char *metavar;    /* the value in usage lines: "P" */
    const char *help;       /* usage text after the flag; '\n' continues on the next line */
    double min, max;        /* accepted values, both ends included */
    double def;             /* default (for ORDER: unused, the default order) */
    double off;             /* the value at which it changes nothing */
    const char *off_word;   /* a word readers accept for `off` ("off"), or NULL */
    const char *note;       /* after the range in messages: "1 = off" */
    double knob_step;       /* ↑/↓ move on this grid (0: on knob_ladder) ... */
    double knob_min, knob_max; /* ... within this part of [min, max] */
    const int *knob_ladder; /* ascending values ↑/↓ walk instead of a grid (top-k) */
    int n_ladder;
    const char *title_prefix;  /* before the value in the probs title: "T=", "top-k " */
    const char *status_prefix; /* on the status line: "T ", "top-k " */
    unsigned flags;         /* SETTING_FIGURE_ALWAYS | ... */
} SettingRow;

/* The rows in table order (the order titles, JSON and provenance list them). */
const SettingRow *settings_table(size_t *n);
const SettingRow *settings_row(SettingId id);
/* The row with that CLI flag / lesson word / figure key, or NULL. */
const SettingRow *settings_by_flag(const char *flag);
const SettingRow *settings_by_lesson(const char *word);
const SettingRow *settings_by_figure_key(const char *key);

/* Parses text as row r's value into set (nothing else in set changes; set unchanged on
 * error). `who` names where the text came from ("--top-p", "top_p",
 * "inferscope:top_p"). The number syntax is parse_num.h's; the off word is accepted for
 * rows that have one; BOOL takes on/off/1/0; ORDER is sampler_order_parse. Errors name
 * who, the text and the real range: "--top-p: '1.5' is outside [0, 1] (1 = off)". */
int settings_parse(const SettingRow *r, const char *who, const char *text, SamplerSettings *set,
                   ErrorMsg *err);

/* The seed of the dice is no sampler setting (it is not in SamplerSettings), but it is
 * typed in the same places: --seed of the commands and the window, a lesson's `seed`.
 * One range for all of them, every 64-bit value: "--seed: '-1' is not a whole number
 * >= 0: give a whole number in [0, 2^64 - 1]". */
int settings_parse_seed(const char *who, const char *text, uint64_t *seed, ErrorMsg *err);

/* The numeric value of row r in set (BOOL: 0 or 1); NAN for ORDER. */
double settings_get(const SettingRow *r, const SamplerSettings *s);
/* Sets a numeric row after the range check settings_parse makes (same message, with
 * the value written %g). -1 for ORDER rows. */
int settings_set(const SettingRow *r, const char *who, double v, SamplerSettings *s, ErrorMsg *err);
/* Copies row r's field from src to dst. */
void settings_copy(const SettingRow *r, SamplerSettings *dst, const SamplerSettings *src);
/* 1 if a and b agree on every row (the order as it runs: all zero = the default). */
int settings_equal(const SamplerSettings *a, const SamplerSettings *b);
/* 1 if row r's value in s is its default (ORDER: the default order runs). */
int settings_is_default(const SettingRow *r, const SamplerSettings *s);

/* The knob: the value one notch up (dir > 0) or down (dir < 0) from v on the row's grid
 * (v snapped to it first, so repeated presses never drift) or ladder, clamped to
 * [knob_min, knob_max]; a value already beyond an end in that direction stays. */
double settings_knob_next(const SettingRow *r, double v, int dir);

/* ---- Writing settings ---------------------------------------------------------------- */

typedef enum SettingsStyle {
    SETTINGS_TITLE,  /* the probs panel: "T=0.8 · top-k 40 · top-p 0.95" (off omitted) */
    SETTINGS_STATUS, /* the status line: "T 0.80 · top-k 40 · top-p off" */
} SettingsStyle;

/* The settings as one line of that style; greedy (settings.greedy or T = 0, as the
 * record's `greedy`) reads "greedy (argmax)". Always NUL-terminated. */
void settings_format_line(const SamplerSettings *s, int greedy, SettingsStyle style, char *buf,
                          size_t cap);

/* One row's value in words for a message: "top-k 40", "top-k off", "temperature 0.8". */
void settings_describe(const SettingRow *r, const SamplerSettings *s, char *buf, size_t cap);

/* Row r's value as figure provenance writes it: floats "%.9g" (round-trips a float),
 * ints "%d", BOOL "0"/"1", ORDER the stage list. Returns the length, like snprintf. */
int settings_figure_value(const SettingRow *r, const SamplerSettings *s, char *buf, size_t cap);

/* The settings as one JSON object, {"temperature": 0.8, "top_k": 40, ...} with every row
 * in table order: floats in the fewest digits that read back as the same float, BOOL
 * true/false (greedy is the `greedy` argument: settings.greedy or T = 0), ORDER a string.
 * Returns the length it needed, like snprintf. */
int settings_json(const SamplerSettings *s, int greedy, char *buf, size_t cap);

/* The usage lines of every row's flag, "  --top-p P  help...", the help starting at
 * `column` (continuation lines indented to it). Returns the length, like snprintf. */
int settings_usage(char *buf, size_t cap, int column);

/* ---- The settings struct as a whole ---------------------------------------------------- */

/* Every row at its default: T=1, no cuts, no penalties, sampling, default order written
 * out explicitly. */
SamplerSettings sampler_settings_default(void);

/* Checks one settings struct: every row's value in the table's range (the same limits
 * every reader applies; errors name the setting and its value, e.g. "sampler: top_p 1.5
 * is outside [0, 1] (1 = off)"); NaN and infinities are errors; so are an unknown stage
 * id, a stage twice, and a stage after the END marker. */
int sampler_settings_validate(const SamplerSettings *s, ErrorMsg *err);

/* The order that runs: set->order, or the default order when it is all zero. Writes
 * SAMPLER_N_STAGES entries (END-padded) and returns how many stages run. */
int sampler_settings_order(const SamplerSettings *set, uint8_t out[SAMPLER_N_STAGES]);

/* The stage's name as the order string spells it ("penalties", "temperature", "top_k",
 * "top_p", "min_p", "greedy"); "?" for anything else. */
const char *sampler_stage_name(SamplerStage stage);

/* Parses "penalties,temperature,top_k,top_p,min_p" (any subset, each at most once;
 * spaces around names are ignored; '-' may stand for '_', "temp" for temperature)
 * into set->order. Errors (empty text, empty entry, unknown name, a name twice) name
 * the entry and list the stages; set is unchanged on error. */
int sampler_order_parse(const char *text, SamplerSettings *set, ErrorMsg *err);

/* Writes the running order as "penalties,temperature,..." into buf (always
 * NUL-terminated). Returns the length it needed, like snprintf. */
int sampler_order_format(const SamplerSettings *set, char *buf, size_t cap);

#endif
