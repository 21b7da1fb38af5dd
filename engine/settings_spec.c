/* settings_spec.c — "top-p=0.9,T=1.5" -> SamplerSettings (see settings_spec.h). Walks
 * the settings table for keys and hands every value to settings_parse, so it holds no
 * list of settings of its own. */
#include "settings_spec.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* 1 if key[0..n) equals the C string s, ignoring case; s NULL never matches. */
static int same_word(const char *key, size_t n, const char *s) {
    if (!s || strlen(s) != n || n == 0) return 0;
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)key[i]) != tolower((unsigned char)s[i])) return 0;
    return 1;
}

/* A title or status prefix without its trailing '=' or spaces: "T=" -> "T", "top-k " ->
 * "top-k". Writes into buf; "" when there is none. */
static const char *short_form(const char *prefix, char *buf, size_t cap) {
    size_t n = prefix ? strlen(prefix) : 0;
    while (n > 0 && (prefix[n - 1] == '=' || prefix[n - 1] == ' ')) n--;
    if (n >= cap) n = 0;
    if (n) memcpy(buf, prefix, n);
    buf[n] = 0;
    return buf;
}

const SettingRow *settings_spec_key(const char *key, size_t n) {
    size_t nrows;
    const SettingRow *rows = settings_table(&nrows);
    for (size_t i = 0; i < nrows; i++) {
        const SettingRow *r = &rows[i];
        char t[32], s[32];
        const char *flag = r->flag && strncmp(r->flag, "--", 2) == 0 ? r->flag + 2 : r->flag;
        if (same_word(key, n, r->name) || same_word(key, n, r->lesson) || same_word(key, n, r->word) ||
            same_word(key, n, flag) || same_word(key, n, short_form(r->title_prefix, t, sizeof t)) ||
            same_word(key, n, short_form(r->status_prefix, s, sizeof s)))
            return r;
        /* "temp" for temperature, as the sampler order accepts it */
        if (r->kind == SETTING_REAL && same_word(key, n, "temp") && strcmp(r->name, "temperature") == 0) return r;
    }
    return NULL;
}

int settings_spec_keys(char *buf, size_t cap) {
    size_t nrows;
    const SettingRow *rows = settings_table(&nrows);
    int k = 0;
    if (cap) buf[0] = 0;
    for (size_t i = 0; i < nrows; i++) {
        const SettingRow *r = &rows[i];
        char t[32];
        const char *alias = short_form(r->title_prefix, t, sizeof t);
        int with = *alias && strcmp(alias, r->word) != 0;
        int w = snprintf(buf ? buf + (k < (int)cap ? k : (int)cap) : NULL, k < (int)cap ? cap - (size_t)k : 0,
                         "%s%s%s%s", i ? ", " : "", r->word, with ? "/" : "", with ? alias : "");
        if (w > 0) k += w;
    }
    return k;
}

/* Trims spaces from both ends of s[*a..*b). */
static void trim(const char *s, size_t *a, size_t *b) {
    while (*a < *b && isspace((unsigned char)s[*a])) (*a)++;
    while (*b > *a && isspace((unsigned char)s[*b - 1])) (*b)--;
}

int settings_spec_parse(const char *spec, SamplerSettings *out, ErrorMsg *err) {
    char q[ERROR_QUOTE_CAP], keys[256];
    ERROR_QUOTE(q, spec);
    settings_spec_keys(keys, sizeof keys);
    if (!spec) return error_set(err, "no setting given");
    size_t len = strlen(spec);
    if (len > SETTINGS_SPEC_MAX)
        return error_set(err, "'%s': longer than %d bytes", q, SETTINGS_SPEC_MAX);
    size_t a0 = 0, b0 = len;
    trim(spec, &a0, &b0);
    if (a0 == b0)
        return error_set(err, "'%s': empty setting: give e.g. greedy, T=0.7, top-k=40 or top-p=0.9,T=1.5", q);

    SamplerSettings set = sampler_settings_default();
    unsigned long long seen = 0; /* bit per row id: a key twice is an error */
    size_t at = 0;
    while (at <= len) {
        size_t end = at;
        while (end < len && spec[end] != ',') end++;
        size_t a = at, b = end;
        trim(spec, &a, &b);
        at = end + 1;
        if (a == b) return error_set(err, "'%s': an empty item between commas (write KEY=VALUE, ...)", q);
        const char *eq = memchr(spec + a, '=', b - a);
        size_t kb = eq ? (size_t)(eq - spec) : b, ka = a;
        trim(spec, &ka, &kb);
        const SettingRow *r = settings_spec_key(spec + ka, kb - ka);
        char key[64];
        snprintf(key, sizeof key, "%.*s", (int)(kb - ka < 60 ? kb - ka : 60), spec + ka);
        char kq[ERROR_QUOTE_CAP];
        ERROR_QUOTE(kq, key);
        if (!r) return error_set(err, "'%s': unknown setting '%s' (known: %s)", q, kq, keys);
        if ((unsigned)r->id < 64 && (seen & (1ull << r->id)))
            return error_set(err, "'%s': %s is given twice", q, r->word);
        if ((unsigned)r->id < 64) seen |= 1ull << r->id;
        char value[SETTINGS_SPEC_MAX + 1];
        if (!eq) {
            if (r->kind != SETTING_BOOL)
                return error_set(err, "'%s': %s needs a value: %s=%s", q, r->word, key, r->metavar ? r->metavar : "V");
            snprintf(value, sizeof value, "on");
        } else {
            size_t va = (size_t)(eq - spec) + 1, vb = b;
            trim(spec, &va, &vb);
            /* an order's stages are comma-separated too: the items after it that are no
             * KEY=VALUE and no on/off word belong to it ("samplers=top_k,temperature") */
            if (r->kind == SETTING_ORDER)
                while (at <= len) {
                    size_t e2 = at;
                    while (e2 < len && spec[e2] != ',') e2++;
                    size_t c = at, d = e2;
                    trim(spec, &c, &d);
                    const SettingRow *o = settings_spec_key(spec + c, d - c);
                    if (c == d || memchr(spec + c, '=', d - c) || (o && o->kind == SETTING_BOOL)) break;
                    vb = d;
                    at = e2 + 1;
                }
            snprintf(value, sizeof value, "%.*s", (int)(vb - va), spec + va);
        }
        ErrorMsg e;
        if (settings_parse(r, key, value, &set, &e)) return error_set(err, "'%s': %s", q, e.text);
    }
    ErrorMsg e;
    if (sampler_settings_validate(&set, &e)) return error_set(err, "'%s': %s", q, e.text);
    *out = set;
    return 0;
}
