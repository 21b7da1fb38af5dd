/* settings_format.c — writing sampler settings from the table (settings.h): the probs
 * panel's title line and the status line (the same words, two densities), a row in
 * words for messages, provenance values, JSON and the flags' usage lines. Not reading
 * them (settings.c). */
#include "settings.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIDDOT_SEP " \xC2\xB7 " /* " · " between items */

/* Appends printf output at *len into buf (cap bytes), keeping the total length it
 * needed in *len even once buf is full, like snprintf. */
static void add(char *buf, size_t cap, int *len, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static void add(char *buf, size_t cap, int *len, const char *fmt, ...) {
    size_t off = (size_t)*len < cap ? (size_t)*len : cap;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(cap ? buf + off : NULL, cap - off, fmt, ap);
    va_end(ap);
    if (w > 0) *len += w;
}

/* The fewest significant digits that read back as the same float: 0.8f is "0.8", not
 * "0.800000012" (what %.9g gives) — JSON for people and scripts alike. */
static void shortest_float(float f, char *buf, size_t cap) {
    for (int prec = 1; prec <= 9; prec++) {
        snprintf(buf, cap, "%.*g", prec, (double)f);
        if (strtof(buf, NULL) == f) return;
    }
}

static int is_off(const SettingRow *r, const SamplerSettings *s) {
    return r->kind == SETTING_ORDER ? settings_is_default(r, s) : settings_get(r, s) == r->off;
}

void settings_format_line(const SamplerSettings *s, int greedy, SettingsStyle style, char *buf, size_t cap) {
    if (cap) buf[0] = 0;
    int len = 0;
    if (greedy) {
        add(buf, cap, &len, "greedy (argmax)");
        return;
    }
    size_t n;
    const SettingRow *rows = settings_table(&n);
    for (size_t i = 0; i < n; i++) {
        const SettingRow *r = &rows[i];
        const char *prefix = style == SETTINGS_TITLE ? r->title_prefix : r->status_prefix;
        unsigned always = style == SETTINGS_TITLE ? SETTING_TITLE_ALWAYS : SETTING_STATUS_ALWAYS;
        if (!prefix || r->kind == SETTING_BOOL) continue; /* greedy is the whole line above */
        int off = is_off(r, s);
        if (off && !(r->flags & always)) continue;
        add(buf, cap, &len, "%s%s", len ? MIDDOT_SEP : "", prefix);
        if (r->kind == SETTING_ORDER) {
            char order[96];
            sampler_order_format(s, order, sizeof order);
            add(buf, cap, &len, "%s", order);
        } else if (off && style == SETTINGS_STATUS && r->off_word) {
            add(buf, cap, &len, "%s", r->off_word);
        } else if (r->kind == SETTING_INT) {
            add(buf, cap, &len, "%d", (int)settings_get(r, s));
        } else {
            /* the title as short as the value allows, the status line on fixed columns */
            add(buf, cap, &len, style == SETTINGS_TITLE ? "%g" : "%.2f", settings_get(r, s));
        }
    }
}

void settings_describe(const SettingRow *r, const SamplerSettings *s, char *buf, size_t cap) {
    char v[96];
    if (r->kind == SETTING_ORDER) sampler_order_format(s, v, sizeof v);
    else if (r->kind == SETTING_BOOL) snprintf(v, sizeof v, "%s", settings_get(r, s) ? "on" : "off");
    else if (r->off_word && is_off(r, s)) snprintf(v, sizeof v, "%s", r->off_word);
    else snprintf(v, sizeof v, "%g", settings_get(r, s));
    /* a value the note explains ("0 = greedy") says so: "temperature 0 (= greedy)" */
    size_t vl = strlen(v);
    const char *why = strncmp(r->note, v, vl) == 0 && strncmp(r->note + vl, " = ", 3) == 0 ? r->note + vl + 1 : NULL;
    snprintf(buf, cap, "%s %s%s%s%s", r->word, v, why ? " (" : "", why ? why : "", why ? ")" : "");
}

int settings_figure_value(const SettingRow *r, const SamplerSettings *s, char *buf, size_t cap) {
    switch (r->kind) {
    case SETTING_REAL: return snprintf(buf, cap, "%.9g", settings_get(r, s)); /* round-trips a float */
    case SETTING_INT:
    case SETTING_BOOL: return snprintf(buf, cap, "%d", (int)settings_get(r, s));
    case SETTING_ORDER: return sampler_order_format(s, buf, cap);
    }
    if (cap) buf[0] = 0;
    return 0;
}

int settings_json(const SamplerSettings *s, int greedy, char *buf, size_t cap) {
    if (cap) buf[0] = 0;
    int len = 0;
    size_t n;
    const SettingRow *rows = settings_table(&n);
    add(buf, cap, &len, "{");
    for (size_t i = 0; i < n; i++) {
        const SettingRow *r = &rows[i];
        /* keys are the table's own ASCII identifiers: nothing to escape */
        add(buf, cap, &len, "%s\"%s\": ", i ? ", " : "", r->name);
        char v[96];
        switch (r->kind) {
        case SETTING_REAL:
            shortest_float((float)settings_get(r, s), v, sizeof v);
            add(buf, cap, &len, "%s", v);
            break;
        case SETTING_INT: add(buf, cap, &len, "%d", (int)settings_get(r, s)); break;
        case SETTING_BOOL:
            add(buf, cap, &len, "%s", (r->id == SETTING_GREEDY ? greedy : settings_get(r, s) != 0) ? "true" : "false");
            break;
        case SETTING_ORDER:
            sampler_order_format(s, v, sizeof v); /* stage names: ASCII letters and '_' */
            add(buf, cap, &len, "\"%s\"", v);
            break;
        }
    }
    add(buf, cap, &len, "}");
    return len;
}

int settings_usage(char *buf, size_t cap, int column) {
    if (cap) buf[0] = 0;
    int len = 0;
    size_t n;
    const SettingRow *rows = settings_table(&n);
    for (size_t i = 0; i < n; i++) {
        const SettingRow *r = &rows[i];
        int start = len;
        add(buf, cap, &len, "  %s%s%s", r->flag, r->metavar ? " " : "", r->metavar ? r->metavar : "");
        int used = len - start;
        if (used + 1 > column) add(buf, cap, &len, "\n%*s", column, "");
        else add(buf, cap, &len, "%*s", column - used, "");
        for (const char *h = r->help; *h;) {
            const char *nl = strchr(h, '\n');
            int k = nl ? (int)(nl - h) : (int)strlen(h);
            add(buf, cap, &len, "%.*s\n", k, h);
            if (!nl) break;
            h = nl + 1;
            add(buf, cap, &len, "%*s", column, "");
        }
    }
    return len;
}
