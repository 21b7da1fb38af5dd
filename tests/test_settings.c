/* test_settings.c — the settings table walked row by row: for every sampler setting,
 * the CLI flag (the commands' cli_model_parse and the window's cli_parse_setting), a
 * lesson line, figure provenance and the knob with validation accept and refuse EXACTLY
 * the same texts and values (NaN, infinities, -1, min, max, just outside, empty, junk,
 * the off word), give the same value, and name the real range when they refuse. Also:
 * the strict number parser on its own; a figure without a row's key reads as the
 * default; the knob's reach stays inside the range; the probs title and the status
 * line read as they did before the table for the settings that existed (an independent
 * copy of the old formatting); and the one JSON writer reads back through cJSON. */
#include <cJSON.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli_model.h"
#include "figure_meta.h"
#include "frame_fill.h"
#include "frame.h"
#include "lesson.h"
#include "parse_num.h"
#include "session.h"
#include "settings.h"

/* ---- parse_num ------------------------------------------------------------------- */

static void test_parse_num(void) {
    static const struct { const char *s; NumError want; double v; } reals[] = {
        {"0.95", NUM_OK, 0.95}, {"-1", NUM_OK, -1}, {".5", NUM_OK, 0.5}, {"5.", NUM_OK, 5}, {"2e-3", NUM_OK, 2e-3},
        {"1E2", NUM_OK, 100}, {"1e-400", NUM_OK, 0}, {"007", NUM_OK, 7}, {"", NUM_EMPTY, 0}, {" 1", NUM_SPACE, 0},
        {"\t1", NUM_SPACE, 0}, {"+1", NUM_PLUS, 0}, {"1 ", NUM_JUNK, 0}, {"0.5x", NUM_JUNK, 0}, {"0x10", NUM_JUNK, 0},
        {"abc", NUM_JUNK, 0}, {"-", NUM_JUNK, 0}, {".", NUM_JUNK, 0}, {"1e", NUM_JUNK, 0}, {"1e+", NUM_JUNK, 0},
        {"--1", NUM_JUNK, 0}, {"nan", NUM_NAN, 0}, {"-NaN", NUM_NAN, 0}, {"nan(1)", NUM_JUNK, 0},
        {"inf", NUM_INF, 0}, {"-Infinity", NUM_INF, 0}, {"1e999", NUM_INF, 0}, {"-1e999", NUM_INF, 0},
    };
    for (size_t i = 0; i < sizeof reals / sizeof reals[0]; i++) {
        double v = -12345;
        NumError e = parse_num_real(reals[i].s, &v);
        CHECK(e == reals[i].want, "real '%s': error %d, want %d", reals[i].s, (int)e, (int)reals[i].want);
        if (e == NUM_OK) CHECK(v == reals[i].v, "real '%s' = %.17g, want %.17g", reals[i].s, v, reals[i].v);
        else CHECK(v == -12345, "real '%s': *out untouched on error", reals[i].s);
        CHECK((e == NUM_OK) == (parse_num_problem(e)[0] == 0), "problem phrase of %d", (int)e);
    }
    CHECK(parse_num_real(NULL, &(double){0}) == NUM_EMPTY, "NULL is empty");
    static const struct { const char *s; NumError want; long long v; } ints[] = {
        {"40", NUM_OK, 40}, {"-3", NUM_OK, -3}, {"0", NUM_OK, 0}, {"2.5", NUM_NOT_WHOLE, 0}, {"4e1", NUM_NOT_WHOLE, 0},
        {"40.0", NUM_NOT_WHOLE, 0}, {"99999999999999999999", NUM_TOO_BIG, 0}, {"+4", NUM_PLUS, 0}, {"4 ", NUM_JUNK, 0},
        {"nan", NUM_NAN, 0}, {"inf", NUM_INF, 0}, {"", NUM_EMPTY, 0},
    };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        long long v = -1;
        NumError e = parse_num_int(ints[i].s, &v);
        CHECK(e == ints[i].want && (e != NUM_OK || v == ints[i].v), "int '%s': error %d value %lld", ints[i].s,
              (int)e, v);
    }
    uint64_t u = 0;
    CHECK(parse_num_u64("18446744073709551615", &u) == NUM_OK && u == UINT64_MAX, "u64 max");
    CHECK(parse_num_u64("18446744073709551616", &u) == NUM_TOO_BIG, "u64 max + 1");
    CHECK(parse_num_u64("-5", &u) == NUM_NEGATIVE && parse_num_u64("-0", &u) == NUM_NEGATIVE, "u64 negative");
    CHECK(parse_num_u64("5.0", &u) == NUM_NOT_WHOLE && parse_num_u64(" 5", &u) == NUM_SPACE, "u64 shape");
}

/* ---- the four readers ------------------------------------------------------------ */

typedef struct Verdict {
    int ok;
    SamplerSettings set;
    char err[600];
} Verdict;

/* The commands' shared options: argv = {flag, text} (or {flag} for a switch). */
static Verdict via_cli(const SettingRow *r, const char *text) {
    Verdict v = {0};
    CliModelArgs a = cli_model_args_default();
    char f[64], t[256];
    snprintf(f, sizeof f, "%s", r->flag);
    snprintf(t, sizeof t, "%s", text);
    char *argv[] = {f, t, NULL};
    int argc = r->kind == SETTING_BOOL ? 1 : 2, i = 0;
    ErrorMsg err = {{0}};
    int rc = cli_model_parse(&a, CLI_OPT_SAMPLER, argc, argv, &i, &err);
    CHECK(rc != 0, "%s is a shared option", r->flag);
    v.ok = rc == 1 && i == argc - 1;
    v.set = a.settings;
    snprintf(v.err, sizeof v.err, "%s", err.text);
    return v;
}

/* The window's flags (app_main.c calls cli_parse_setting for them). */
static Verdict via_window(const SettingRow *r, const char *text) {
    Verdict v = {0};
    v.set = sampler_settings_default();
    char f[64], t[256];
    snprintf(f, sizeof f, "%s", r->flag);
    snprintf(t, sizeof t, "%s", text);
    char *argv[] = {f, t, NULL};
    int argc = r->kind == SETTING_BOOL ? 1 : 2, i = 0;
    ErrorMsg err = {{0}};
    int rc = cli_parse_setting(argc, argv, &i, &v.set, &err);
    v.ok = rc == 1;
    snprintf(v.err, sizeof v.err, "%s", err.text);
    return v;
}

static Verdict via_lesson(const SettingRow *r, const char *text) {
    Verdict v = {0};
    char src[512];
    snprintf(src, sizeof src, "prompt a\n%s %s\n", r->lesson, text);
    Lesson l;
    ErrorMsg err = {{0}};
    v.ok = lesson_parse(&l, "t.lesson", src, strlen(src), &err) == 0;
    v.set = sampler_settings_default();
    if (v.ok) {
        CHECK(l.n_dir == 2 && l.dir[1].op == LOP_SETTING && l.dir[1].kind == (int)r->id, "%s: a setting line",
              r->lesson);
        if (l.n_dir == 2) v.set = l.dir[1].setting;
        lesson_free(&l);
    }
    snprintf(v.err, sizeof v.err, "%s", err.text);
    return v;
}

/* A real figure's provenance (from the 65-token fuzz model) with the row's key set to
 * text (NULL: the key removed). */
static FigureMeta fig_meta;
static Verdict via_figure(const SettingRow *r, const char *text) {
    Verdict v = {0};
    PngTextEntry items[FIGURE_META_MAX + 1];
    size_t n = 0;
    int found = 0;
    for (size_t i = 0; i < fig_meta.n; i++) {
        int mine = strcmp(fig_meta.text[i].keyword, r->figure_key) == 0;
        found |= mine;
        if (mine && !text) continue;
        items[n].keyword = (char *)fig_meta.text[i].keyword;
        items[n].value = mine ? (char *)text : fig_meta.values[i];
        n++;
    }
    if (!found && text) { /* a row written only when not at its default */
        items[n].keyword = (char *)r->figure_key;
        items[n].value = (char *)text;
        n++;
    }
    PngTextChunks t = {.items = items, .count = n, .width = 8, .height = 8};
    FigureState fs = {0};
    ErrorMsg err = {{0}};
    v.ok = figure_meta_parse(&t, "fig.png", &fs, &err) == 0;
    v.set = fs.settings;
    figure_state_free(&fs);
    snprintf(v.err, sizeof v.err, "%s", err.text);
    return v;
}

static int same_value(const SettingRow *r, const SamplerSettings *a, const SamplerSettings *b) {
    if (r->kind == SETTING_ORDER) {
        uint8_t x[SAMPLER_N_STAGES], y[SAMPLER_N_STAGES];
        sampler_settings_order(a, x);
        sampler_settings_order(b, y);
        return memcmp(x, y, sizeof x) == 0;
    }
    return settings_get(r, a) == settings_get(r, b);
}

/* "[0, 1]" as the messages write the row's range. */
static void range_of(const SettingRow *r, char *buf, size_t cap) {
    if (r->kind == SETTING_INT) snprintf(buf, cap, "[%.0f, %.0f]", r->min, r->max);
    else snprintf(buf, cap, "[%g, %g]", r->min, r->max);
}

/* One text through every reader: the same verdict, the same value, and messages that
 * name the reader's own name for the setting (and the range, for numbers). Returns the
 * common verdict. */
static int walk_text(const SettingRow *r, const char *text) {
    Verdict cli = via_cli(r, text), win = via_window(r, text), fig = via_figure(r, text);
    /* a lesson line is words split at white space: " 0.5" is the word "0.5" there, so
     * texts with white space at an end are not a lesson's to read */
    size_t tl = strlen(text);
    int lesson_can = tl > 0 && text[0] != ' ' && text[0] != '\t' && text[tl - 1] != ' ';
    Verdict les = lesson_can ? via_lesson(r, text) : fig;
    if (r->kind == SETTING_BOOL) {
        /* the CLI switch takes no value: --greedy alone is "on" */
        CHECK(cli.ok && win.ok && settings_get(r, &cli.set) == 1 && settings_get(r, &win.set) == 1,
              "%s alone switches it on", r->flag);
        CHECK(les.ok == fig.ok, "%s '%s': lesson %d figure %d ('%s' / '%s')", r->name, text, les.ok, fig.ok,
              les.err, fig.err);
        if (les.ok && fig.ok) CHECK(same_value(r, &les.set, &fig.set), "%s '%s': same value", r->name, text);
        return fig.ok;
    }
    CHECK(cli.ok == win.ok && cli.ok == les.ok && cli.ok == fig.ok,
          "%s '%s': cli %d window %d lesson %d figure %d (%s | %s | %s | %s)", r->name, text, cli.ok, win.ok,
          les.ok, fig.ok, cli.err, win.err, les.err, fig.err);
    if (cli.ok && win.ok && les.ok && fig.ok) {
        CHECK(same_value(r, &cli.set, &win.set) && same_value(r, &cli.set, &les.set) &&
                  same_value(r, &cli.set, &fig.set),
              "%s '%s': every reader the same value", r->name, text);
        return 1;
    }
    if (!cli.ok && !win.ok && !fig.ok) {
        char range[64], fkey[96];
        range_of(r, range, sizeof range);
        snprintf(fkey, sizeof fkey, "fig.png: %s: ", r->figure_key);
        int numeric = r->kind != SETTING_ORDER;
        CHECK(strncmp(cli.err, r->flag, strlen(r->flag)) == 0 && (!numeric || strstr(cli.err, range)),
              "CLI message names %s and %s: '%s'", r->flag, range, cli.err);
        CHECK(strcmp(cli.err, win.err) == 0, "window = CLI message: '%s' / '%s'", win.err, cli.err);
        CHECK(strncmp(fig.err, fkey, strlen(fkey)) == 0 && (!numeric || strstr(fig.err, range)),
              "figure message names %s and %s: '%s'", r->figure_key, range, fig.err);
        if (lesson_can && tl > 0) {
            char lkey[96];
            snprintf(lkey, sizeof lkey, "t.lesson:2: %s: ", r->lesson);
            CHECK(strncmp(les.err, lkey, strlen(lkey)) == 0 && (!numeric || strstr(les.err, range)),
                  "lesson message names %s and %s: '%s'", r->lesson, range, les.err);
        }
    }
    return 0;
}

/* The knob and validation on a number: settings_set (the knob's way in) and
 * sampler_settings_validate agree with the text readers on the number written out. */
static void walk_value(const SettingRow *r, double x) {
    SamplerSettings k = sampler_settings_default();
    ErrorMsg e;
    int knob_ok = settings_set(r, r->word, x, &k, &e) == 0;
    /* the field set directly, as a struct from anywhere would hold it */
    SamplerSettings direct = sampler_settings_default();
    if (r->kind == SETTING_REAL) {
        float f = (float)x;
        memcpy((char *)&direct + r->offset, &f, sizeof f);
    } else {
        int iv = isfinite(x) && fabs(x) < 2e9 ? (int)x : -1;
        if (iv != x) return; /* not representable in the int field: nothing to compare */
        memcpy((char *)&direct + r->offset, &iv, sizeof iv);
    }
    int valid = sampler_settings_validate(&direct, &e) == 0;
    char text[64];
    snprintf(text, sizeof text, "%.17g", x);
    if (!isfinite(x)) snprintf(text, sizeof text, "%s", isnan(x) ? "nan" : x > 0 ? "inf" : "-inf");
    int texts_ok = walk_text(r, text);
    /* a float field holds (float)x: the range check of the text is on x itself, the
     * struct's on the float, which may round onto an end; compare where they agree */
    int rounds = r->kind == SETTING_REAL && isfinite(x) && (double)(float)x != x &&
                 (((float)x == (float)r->min) || ((float)x == (float)r->max));
    CHECK(knob_ok == texts_ok, "%s %s: knob %d, texts %d", r->name, text, knob_ok, texts_ok);
    if (!rounds) CHECK(valid == texts_ok, "%s %s: validate %d, texts %d (%s)", r->name, text, valid, texts_ok, e.text);
    if (!valid && !rounds) CHECK(strstr(e.text, r->name) != NULL, "validate names %s: '%s'", r->name, e.text);
}

static void test_table_walk(void) {
    size_t n;
    const SettingRow *rows = settings_table(&n);
    CHECK(n == SETTING_COUNT && n >= 4, "%zu rows", n);
    static const char *const junk[] = {"", " 0.5", "0.5 ", "+1", "0.5x", "abc", "0x10", "1e", "--1", "nan", "NaN",
                                       "-nan", "inf", "-inf", "Infinity", "1e999", "-1", "2.5", "off", "on", "OFF",
                                       "1", "0", "default", "0,5"};
    for (size_t i = 0; i < n; i++) {
        const SettingRow *r = &rows[i];
        CHECK(r->id == (SettingId)i && settings_row(r->id) == r, "row %zu is its id", i);
        CHECK(settings_by_flag(r->flag) == r && settings_by_lesson(r->lesson) == r &&
                  settings_by_figure_key(r->figure_key) == r,
              "%s: found by flag, lesson word and figure key", r->name);
        CHECK(strncmp(r->flag, "--", 2) == 0 && strncmp(r->figure_key, "inferscope:", 11) == 0 &&
                  strcmp(r->figure_key + 11, r->name) == 0,
              "%s: names", r->name);
        int accepted = 0;
        for (size_t j = 0; j < sizeof junk / sizeof junk[0]; j++) accepted += walk_text(r, junk[j]);
        if (r->kind == SETTING_BOOL) {
            CHECK(accepted == 4, "%s: on, off, 1, 0 and nothing else: got %d", r->name, accepted);
            continue;
        }
        if (r->kind == SETTING_ORDER) continue; /* its texts: test_order_row */
        /* the numbers around the range */
        double span = r->max - r->min, eps = r->kind == SETTING_INT ? 1 : fmax(1e-6, span * 1e-6);
        const double values[] = {r->min, r->max, r->def, r->off, r->min + span / 2, r->min - eps, r->max + eps,
                                 -1, r->max * 10 + 1, NAN, INFINITY, -INFINITY, 1e300, -1e300};
        for (size_t j = 0; j < sizeof values / sizeof values[0]; j++) walk_value(r, values[j]);
        /* the off word only where the row has one; it means the off value */
        Verdict off = via_cli(r, "off");
        CHECK(off.ok == (r->off_word && strcmp(r->off_word, "off") == 0), "%s off: %d", r->name, off.ok);
        if (off.ok) CHECK(settings_get(r, &off.set) == r->off, "%s off = %g", r->name, r->off);
        /* a figure without the key: the default (rows added later do not refuse old figures) */
        Verdict missing = via_figure(r, NULL);
        CHECK(missing.ok && settings_get(r, &missing.set) == r->def, "%s: a figure without %s reads %g (%s)",
              r->name, r->figure_key, r->def, missing.err);
    }
}

/* The order row through every reader: stage lists accepted as the same order, and every
 * refusal (empty, an empty entry, an unknown or repeated stage) names the reader's name
 * for the setting and the stage. */
static void test_order_row(void) {
    const SettingRow *r = settings_row(SETTING_SAMPLERS);
    CHECK(r && r->kind == SETTING_ORDER && strcmp(r->flag, "--samplers") == 0, "the order row");
    if (!r) return;
    static const struct { const char *text; uint8_t want[SAMPLER_N_STAGES]; } good[] = {
        {"penalties,temperature,top_k,top_p,min_p", {1, 2, 3, 4, 5}},
        {"top_k,top_p,min_p,temperature", {3, 4, 5, 2, 0}}, /* llama.cpp's: temperature last */
        {"min_p", {5, 0, 0, 0, 0}},
        {"top-k,temp", {3, 2, 0, 0, 0}},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        CHECK(walk_text(r, good[i].text), "'%s' accepted by every reader", good[i].text);
        Verdict v = via_cli(r, good[i].text);
        uint8_t run[SAMPLER_N_STAGES];
        sampler_settings_order(&v.set, run);
        CHECK(memcmp(run, good[i].want, sizeof run) == 0, "'%s': the order %d,%d,%d,%d,%d", good[i].text, run[0],
              run[1], run[2], run[3], run[4]);
        char back[96];
        sampler_order_format(&v.set, back, sizeof back);
        Verdict again = via_figure(r, back);
        CHECK(again.ok && same_value(r, &v.set, &again.set), "'%s' round-trips as '%s'", good[i].text, back);
    }
    static const struct { const char *text, *names; } bad[] = {
        {"", "empty"}, {"top_k,,top_p", "empty entry"}, {"top_k,bogus", "'bogus'"},
        {"top_p,top_p", "top_p appears twice"}, {"greedy", "'greedy'"}, {",", "empty entry"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(!walk_text(r, bad[i].text), "'%s' refused", bad[i].text);
        Verdict v = via_cli(r, bad[i].text);
        CHECK(strncmp(v.err, "--samplers", 10) == 0 && strstr(v.err, bad[i].names) && !strchr(v.err, '\n'),
              "'%s': one line naming --samplers and %s: '%s'", bad[i].text, bad[i].names, v.err);
    }
    /* the default order is not written to figures, any other is */
    SamplerSettings s = sampler_settings_default();
    CHECK(settings_is_default(r, &s), "the default order is the default");
    s.order[0] = SAMPLER_STAGE_TOP_K;
    s.order[1] = SAMPLER_STAGE_TEMPERATURE;
    CHECK(!settings_is_default(r, &s), "another order is not");
}

/* The knob walks its whole reach both ways: every value it stops at is accepted by every
 * reader when written as provenance writes it, and reads back as itself. */
static void test_knob_reach(void) {
    size_t n;
    const SettingRow *rows = settings_table(&n);
    for (size_t i = 0; i < n; i++) {
        const SettingRow *r = &rows[i];
        if (r->kind != SETTING_REAL && r->kind != SETTING_INT) continue;
        CHECK(r->knob_min >= r->min && r->knob_max <= r->max, "%s: knob reach inside the range", r->name);
        for (int dir = 1; dir >= -1; dir -= 2) {
            SamplerSettings s = sampler_settings_default();
            ErrorMsg e;
            CHECK(settings_set(r, r->word, dir > 0 ? r->knob_min : r->knob_max, &s, &e) == 0, "%s start", r->name);
            int steps = 0, stuck = 0;
            while (steps < 10000) {
                double v = settings_get(r, &s), next = settings_knob_next(r, v, dir);
                if (next == v) {
                    stuck = 1;
                    break;
                }
                if (settings_set(r, r->word, next, &s, &e)) {
                    CHECK(0, "%s: knob stepped to %g, refused: %s", r->name, next, e.text);
                    break;
                }
                char text[64];
                settings_figure_value(r, &s, text, sizeof text);
                if (!walk_text(r, text)) CHECK(0, "%s: the knob's value '%s' is refused", r->name, text);
                steps++;
            }
            double end = settings_get(r, &s);
            CHECK(stuck && (dir > 0 ? end == (double)(float)r->knob_max : end == (double)(float)r->knob_min) &&
                      steps > 0,
                  "%s: the knob %s ends at %g after %d steps", r->name, dir > 0 ? "up" : "down", end, steps);
        }
    }
    /* the grid never drifts: 1.0 up twice, down twice is 1.0 exactly; beyond the reach
     * it steps back towards it, never further out */
    const SettingRow *T = settings_row(SETTING_TEMPERATURE);
    double t = settings_knob_next(T, settings_knob_next(T, 1.0, 1), 1);
    CHECK((float)t == 1.2f, "T 1.0 up twice = %.17g", t);
    CHECK((float)settings_knob_next(T, settings_knob_next(T, (float)t, -1), -1) == 1.0f, "and back");
    CHECK(settings_knob_next(T, 20.0, 1) == 20.0 && fabs(settings_knob_next(T, 20.0, -1) - 19.9) < 1e-12,
          "T 20 (beyond the knob): up stays, down 19.9");
    CHECK(settings_knob_next(settings_row(SETTING_TOP_K), 40, 1) == 100, "top-k ladder 40 -> 100");
}

/* ---- writing ---------------------------------------------------------------------- */

/* The probs title and the status line exactly as before the table (viz/panel_probs_layout.c
 * and viz/panel_status.c had their own formatting), written again here as the reference. */
static void old_title(const SamplerSettings *s, int greedy, char *buf, size_t cap) {
    if (greedy) {
        snprintf(buf, cap, "greedy (argmax)");
        return;
    }
    int n = snprintf(buf, cap, "T=%g", (double)s->temperature);
    if (s->top_k > 0) n += snprintf(buf + n, cap - (size_t)n, " \xC2\xB7 top-k %d", s->top_k);
    if (s->top_p < 1.0f) snprintf(buf + n, cap - (size_t)n, " \xC2\xB7 top-p %g", (double)s->top_p);
}

static void old_status(const SamplerSettings *s, int greedy, char *buf, size_t cap) {
    if (greedy) {
        snprintf(buf, cap, "greedy (argmax)");
        return;
    }
    char k[32], p[32];
    if (s->top_k > 0) snprintf(k, sizeof k, "top-k %d", s->top_k);
    else snprintf(k, sizeof k, "top-k off");
    if (s->top_p < 1.0f) snprintf(p, sizeof p, "top-p %.2f", (double)s->top_p);
    else snprintf(p, sizeof p, "top-p off");
    snprintf(buf, cap, "T %.2f \xC2\xB7 %s \xC2\xB7 %s", (double)s->temperature, k, p);
}

static void test_lines_as_before(void) {
    static const struct { float t; int k; float p; int g; } cases[] = {
        {1, 0, 1, 0}, {0.8f, 40, 0.95f, 0}, {0.7f, 0, 0.9f, 0}, {1.5f, 7, 1, 0}, {0, 0, 1, 0}, {2.25f, 50000, 0.05f, 0},
        {1, 0, 1, 1}, {100, 1000000, 0, 0}, {0.1f, 1, 0.333f, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        SamplerSettings s = sampler_settings_default();
        s.temperature = cases[i].t;
        s.top_k = cases[i].k;
        s.top_p = cases[i].p;
        s.greedy = cases[i].g;
        int greedy = s.greedy || s.temperature == 0.0f; /* as the record's flag */
        char a[256], b[256];
        old_title(&s, greedy, a, sizeof a);
        settings_format_line(&s, greedy, SETTINGS_TITLE, b, sizeof b);
        CHECK(strcmp(a, b) == 0, "title '%s', was '%s'", b, a);
        old_status(&s, greedy, a, sizeof a);
        settings_format_line(&s, greedy, SETTINGS_STATUS, b, sizeof b);
        CHECK(strcmp(a, b) == 0, "status '%s', was '%s'", b, a);
    }
    char tiny[8];
    SamplerSettings s = sampler_settings_default();
    settings_format_line(&s, 0, SETTINGS_STATUS, tiny, sizeof tiny);
    CHECK(strlen(tiny) == 7, "a small buffer is cut and terminated: '%s'", tiny);
    char d[64];
    settings_describe(settings_row(SETTING_TEMPERATURE), &(SamplerSettings){.temperature = 0}, d, sizeof d);
    CHECK(strcmp(d, "temperature 0 (= greedy)") == 0, "describe: '%s'", d);
    settings_describe(settings_row(SETTING_TOP_K), &s, d, sizeof d);
    CHECK(strcmp(d, "top-k off") == 0, "describe: '%s'", d);
    s.top_p = 0.95f;
    settings_describe(settings_row(SETTING_TOP_P), &s, d, sizeof d);
    CHECK(strcmp(d, "top-p 0.95") == 0, "describe: '%s'", d);
}

/* The JSON writer: valid JSON with every row, floats that read back as the same float. */
static void test_json(void) {
    SamplerSettings s = sampler_settings_default();
    s.temperature = 0.7f;
    s.top_k = 40;
    s.top_p = 0.95f;
    char buf[1024];
    int len = settings_json(&s, 0, buf, sizeof buf);
    CHECK(len > 0 && (size_t)len == strlen(buf), "length %d", len);
    CHECK(strncmp(buf, "{\"temperature\": 0.7, \"top_k\": 40, \"top_p\": 0.95, \"greedy\": false", 63) == 0,
          "the legacy keys first, shortest floats: %s", buf);
    cJSON *j = cJSON_Parse(buf);
    CHECK(j != NULL, "valid JSON: %s", buf);
    size_t n;
    const SettingRow *rows = settings_table(&n);
    for (size_t i = 0; j && i < n; i++) {
        const cJSON *it = cJSON_GetObjectItemCaseSensitive(j, rows[i].name);
        CHECK(it != NULL, "JSON has %s", rows[i].name);
        if (!it) continue;
        if (rows[i].kind == SETTING_BOOL) CHECK(cJSON_IsBool(it), "%s is a bool", rows[i].name);
        else if (rows[i].kind == SETTING_ORDER) CHECK(cJSON_IsString(it), "%s is a string", rows[i].name);
        else CHECK(cJSON_IsNumber(it) && (float)it->valuedouble == (float)settings_get(&rows[i], &s),
                   "%s reads back as %g", rows[i].name, settings_get(&rows[i], &s));
    }
    cJSON_Delete(j);
    CHECK(settings_json(&s, 1, buf, sizeof buf) > 0 && strstr(buf, "\"greedy\": true"), "greedy as run: %s", buf);
    char small[10];
    CHECK(settings_json(&s, 0, small, sizeof small) == len && strlen(small) == 9, "cut like snprintf");
}

/* Every row's flag is in the commands' and the window's usage. */
static void test_usage(void) {
    const char *u = CLI_MODEL_USAGE_SAMPLER;
    char w[4096];
    settings_usage(w, sizeof w, 23);
    size_t n;
    const SettingRow *rows = settings_table(&n);
    for (size_t i = 0; i < n; i++) {
        char want[64];
        snprintf(want, sizeof want, "  %s%s%s", rows[i].flag, rows[i].metavar ? " " : "", rows[i].metavar ? rows[i].metavar : "");
        CHECK(strstr(u, want) && strstr(w, want), "usage has '%s'", want);
    }
    CHECK(strstr(u, "  --temperature T   divide the logits") != NULL, "CLI column 20: %s", u);
    CHECK(strstr(u, "  --seed S ") != NULL, "--seed after the rows");
}

int main(void) {
    test_parse_num();
    Session s;
    ErrorMsg err = {{0}};
    if (session_open(&s, "tests/fuzz/model-c65", "assets/tokenizer", 0, GPT2_CAP_DEFAULT, &err)) {
        CHECK(0, "open the 65-token model: %s", err.text);
        return check_summary("test_settings");
    }
    int ids[] = {1, 2, 3};
    CHECK(session_set_prompt_ids(&s, ids, 3, &err) == 0, "prompt: %s", err.text);
    VizView v = frame_default_view();
    FigureMetaInput in = {.panel = VIZ_PANEL_PROBS, .width = 8, .height = 8, .scale = 1, .ui_scale = 1,
                          .theme = THEME_LIGHT};
    CHECK(figure_meta_build(&fig_meta, &s, &v, &in, &err) == 0, "build: %s", err.text);
    test_table_walk();
    test_order_row();
    test_knob_reach();
    test_lines_as_before();
    test_json();
    test_usage();
    figure_meta_free(&fig_meta);
    session_free(&s);
    return check_summary("test_settings");
}
