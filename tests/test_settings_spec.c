/* test_settings_spec.c — the SPEC parser of the compare view ("top-p=0.9,T=1.5"): every
 * row of the settings table answers to its word, name, flag and short form (walked from
 * the table, so a row added later is tested with no edit here), values land in the
 * right field and agree with settings_parse of the row's flag, and every bad spec is one
 * line that quotes it. */
#include <string.h>

#include "check.h"
#include "settings_spec.h"

/* A value inside row r's range that is not its default, as text. */
static void some_value(const SettingRow *r, char *buf, size_t cap) {
    if (r->kind == SETTING_BOOL) snprintf(buf, cap, "%s", r->def ? "off" : "on");
    else if (r->kind == SETTING_INT) snprintf(buf, cap, "%d", (int)(r->def == r->min ? r->min + 1 : r->min));
    else snprintf(buf, cap, "%.6g", r->def == r->max ? (r->min + r->max) / 2 : (r->def + r->max) / 2);
}

static void test_every_row(void) {
    size_t n;
    const SettingRow *rows = settings_table(&n);
    ErrorMsg err = {{0}};
    for (size_t i = 0; i < n; i++) {
        const SettingRow *r = &rows[i];
        if (r->kind == SETTING_ORDER) continue; /* checked below */
        char v[64], spec[128];
        some_value(r, v, sizeof v);
        SamplerSettings want = sampler_settings_default();
        CHECK(settings_parse(r, r->flag, v, &want, &err) == 0, "%s %s: %s", r->flag, v, err.text);
        const char *keys[] = {r->word, r->name, r->lesson, r->flag + 2};
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            snprintf(spec, sizeof spec, "%s=%s", keys[k], v);
            SamplerSettings got;
            CHECK(settings_spec_parse(spec, &got, &err) == 0 && settings_equal(&got, &want), "'%s': %s", spec,
                  err.text);
            CHECK(settings_spec_key(keys[k], strlen(keys[k])) == r, "key %s", keys[k]);
        }
    }
}

static void test_aliases(void) {
    ErrorMsg err = {{0}};
    SamplerSettings s;
    CHECK(settings_spec_parse("greedy", &s, &err) == 0 && s.greedy == 1 && s.temperature == 1.0f, "greedy: %s", err.text);
    CHECK(settings_spec_parse("T=0.7", &s, &err) == 0 && s.temperature == 0.7f && !s.greedy, "T=: %s", err.text);
    CHECK(settings_spec_parse("top-k=40", &s, &err) == 0 && s.top_k == 40, "top-k=: %s", err.text);
    CHECK(settings_spec_parse(" top-p = 0.9 , T=1.5 ", &s, &err) == 0 && s.top_p == 0.9f && s.temperature == 1.5f,
          "spaces: %s", err.text);
    CHECK(settings_spec_parse("min-p=0.05", &s, &err) == 0 && s.min_p == 0.05f, "min-p=: %s", err.text);
    CHECK(settings_spec_parse("t=0.5,TOP-K=3", &s, &err) == 0 && s.temperature == 0.5f && s.top_k == 3,
          "case: %s", err.text);
    CHECK(settings_spec_parse("top-k=off", &s, &err) == 0 && s.top_k == 0, "off word: %s", err.text);
    CHECK(settings_spec_parse("greedy=off,temp=2", &s, &err) == 0 && !s.greedy && s.temperature == 2.0f,
          "greedy=off: %s", err.text);
    char keys[256];
    CHECK(settings_spec_keys(keys, sizeof keys) > 0 && strstr(keys, "temperature/T") && strstr(keys, "min-p"),
          "keys: %s", keys);
}

static void test_errors(void) {
    struct { const char *spec, *says; } bad[] = {
        {"", "empty setting"}, {"  ", "empty setting"}, {"top-q=3", "unknown setting 'top-q'"},
        {"=3", "unknown setting"}, {"top-k", "needs a value"}, {"top-k=", "top-k"},
        {"top-k=abc", "not a number"}, {"top-k=2.5", "top-k"}, {"top-p=1.5", "outside [0, 1]"},
        {"T=nan", "T:"}, {"T=inf", "T:"}, {"T=-0.1", "outside"}, {"T=0.7,T=1", "twice"},
        {"T=0.7,,top-k=3", "empty item"}, {"T=0.7,", "empty item"}, {",", "empty item"},
        {"greedy=maybe", "not on or off"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ErrorMsg err = {{0}};
        SamplerSettings s = sampler_settings_default(), before = s;
        s.top_k = 7; before.top_k = 7;
        char quoted[300];
        snprintf(quoted, sizeof quoted, "'%s'", bad[i].spec);
        CHECK(settings_spec_parse(bad[i].spec, &s, &err) == -1 && strstr(err.text, bad[i].says) &&
                  strncmp(err.text, quoted, strlen(quoted)) == 0 && !strchr(err.text, '\n') &&
                  settings_equal(&s, &before),
              "'%s': %s", bad[i].spec, err.text);
    }
    char longspec[SETTINGS_SPEC_MAX + 10];
    memset(longspec, 'x', sizeof longspec - 1);
    longspec[sizeof longspec - 1] = 0;
    ErrorMsg err = {{0}};
    SamplerSettings s;
    CHECK(settings_spec_parse(longspec, &s, &err) == -1 && strstr(err.text, "longer than"), "long: %s", err.text);
}

int main(void) {
    test_every_row();
    test_aliases();
    test_errors();
    return check_summary("test_settings_spec");
}
