/* lesson.c — parser for `.lesson` files (format: lesson.h, lessons/README.md).
 * One directive per line, `#` starts a comment line. Everything is validated here
 * (numbers, ranges, UTF-8, ask/reveal pairing) so a lesson is never opened half-way;
 * checks that need the model (layer/head counts) happen when it is run. */
#include "lesson.h"

#include <stdint.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file_read.h"
#include "parse_num.h"
#include "sampler_draws.h"
#include "settings.h"
#include "frame.h"
#include "panel_table.h"
#include "utf8.h"
#include "free_all.h"
#include "lesson_parse.h"

void lesson_free(Lesson *l) {
    if (!l) return;
    lesson_replay_free(l);
    for (size_t i = 0; i < l->n_dir; i++) {
        FREE_ALL(l->dir[i].text, l->dir[i].claim, l->dir[i].ids);
    }
    FREE_ALL(l->dir, l->beat_end);
    memset(l, 0, sizeof *l);
}

typedef LessonParser Parser;

static int fail(Parser *p, const char *fmt, const char *a) {
    char msg[440];
    snprintf(msg, sizeof msg, fmt, a);
    return error_set(p->err, "%s:%d: %s", p->path, p->line, msg);
}

static int push_dir(Parser *p, LessonDirective d) {
    if (p->l->n_dir == p->cap_dir) {
        size_t nc = p->cap_dir ? p->cap_dir * 2 : 32;
        LessonDirective *nd = realloc(p->l->dir, nc * sizeof *nd);
        if (!nd) return fail(p, "out of memory%s", "");
        p->l->dir = nd;
        p->cap_dir = nc;
    }
    p->l->dir[p->l->n_dir++] = d;
    return 0;
}

static int end_beat(Parser *p) {
    Lesson *l = p->l;
    /* an empty beat (two pauses in a row, or a pause at the start) adds no slide */
    size_t start = l->n_beats ? l->beat_end[l->n_beats - 1] : 0;
    if (l->n_dir == start) return 0;
    if (l->n_beats == p->cap_beat) {
        size_t nc = p->cap_beat ? p->cap_beat * 2 : 16;
        size_t *nb = realloc(l->beat_end, nc * sizeof *nb);
        if (!nb) return fail(p, "out of memory%s", "");
        l->beat_end = nb;
        p->cap_beat = nc;
    }
    l->beat_end[l->n_beats++] = l->n_dir;
    return 0;
}

/* 1 if the quote at s[q] is escaped: an odd number of backslashes right before it. */
static int quote_escaped(const char *s, size_t q) {
    size_t k = 0;
    while (k < q && s[q - 1 - k] == '\\') k++;
    return k % 2 == 1;
}

/* Decodes TEXT: surrounding double quotes are removed (so spaces at the ends can be
 * kept, e.g. force " time"), and inside quotes \n \t \" \\ are escapes. A text that
 * starts with a quote must close it: `prompt "Once upon` is a mistake, not a prompt
 * with a quote in it. When the quote closes before the end (`caption "Hi" she said`),
 * the text is taken as written, quotes and all. */
static int parse_text(Parser *p, const char *s, size_t n, char **out, size_t *out_len) {
    int quoted = n >= 2 && s[0] == '"' && s[n - 1] == '"' && !quote_escaped(s, n - 1);
    if (!quoted && n >= 1 && s[0] == '"') {
        int closes = 0;
        for (size_t q = 1; q < n && !closes; q++) closes = s[q] == '"' && !quote_escaped(s, q);
        if (!closes) return fail(p, "the text starts with a quote (\") that is never closed%s", "");
    }
    if (quoted) { s++; n -= 2; }
    char *t = malloc(n + 1);
    if (!t) return fail(p, "out of memory%s", "");
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (quoted && s[i] == '\\' && i + 1 < n) {
            char e = s[++i];
            if (e == 'n') t[k++] = '\n';
            else if (e == 't') t[k++] = '\t';
            else if (e == '"' || e == '\\') t[k++] = e;
            else { free(t); return fail(p, "unknown escape \\%s in quoted text (use \\n \\t \\\" \\\\)", (char[]){e, 0}); }
        } else {
            t[k++] = s[i];
        }
    }
    t[k] = 0;
    *out = t;
    *out_len = k;
    return 0;
}

/* Numbers other than the sampler's settings (those go through the settings table).
 * One range check for whole and real numbers; the refusal quotes the number as written. */
static int parse_ranged(Parser *p, const char *arg, int whole, double lo, double hi, const char *what, double *out) {
    long long n = 0;
    double v = 0;
    if (whole ? parse_num_int(arg, &n) != NUM_OK : parse_num_real(arg, &v) != NUM_OK)
        return fail(p, whole ? "%s needs a whole number" : "%s needs a number", what);
    if (whole) v = (double)n;
    if (v < lo || v > hi) {
        char msg[200];
        snprintf(msg, sizeof msg, whole ? "%s %s is out of range [%.0f, %.0f]" : "%s %s is out of range [%g, %g]", what,
                 arg, lo, hi);
        return fail(p, "%s", msg);
    }
    *out = v;
    return 0;
}

static int parse_long(Parser *p, const char *arg, long lo, long hi, const char *what, long *out) {
    double v = 0;
    if (parse_ranged(p, arg, 1, (double)lo, (double)hi, what, &v)) return -1;
    *out = (long)v;
    return 0;
}

static int parse_double(Parser *p, const char *arg, double lo, double hi, const char *what, double *out) {
    return parse_ranged(p, arg, 0, lo, hi, what, out);
}

/* ---- one parser per kind of line; parse_line finds it in the table OPS ---- */

typedef struct LineArgs {
    const char *word;      /* the directive */
    const char *arg;       /* its argument, alen bytes (spaces at the ends trimmed) */
    size_t alen;
    char abuf[256];        /* the argument as a string (a longer one is refused before the
                            * parser runs, unless its row says OP_ANY_LENGTH) */
    const SettingRow *row; /* LOP_SETTING: the settings table's row */
    int *open_ask;         /* an `ask` waits for its `reveal`; a `class round` (2) for `class reveal` */
} LineArgs;

typedef int (*LineParser)(Parser *p, LineArgs *a, LessonDirective *d);

/* Captions already in the beat being parsed. */
static int beat_captions(const Lesson *l) {
    int n = 0;
    for (size_t i = l->n_beats ? l->beat_end[l->n_beats - 1] : 0; i < l->n_dir; i++) n += l->dir[i].op == LOP_CAPTION;
    return n;
}

/* title | prompt | caption | ask TEXT */
static int line_text(Parser *p, LineArgs *a, LessonDirective *d) {
    if (d->op == LOP_CAPTION && beat_captions(p->l) >= LESSON_MAX_CAPTIONS) {
        char what[160];
        snprintf(what, sizeof what, "beat %zu has more than %d captions, the most a slide and the handout show "
                 "(start a new beat with pause)", p->l->n_beats + 1, LESSON_MAX_CAPTIONS);
        return fail(p, "%s", what);
    }
    if (parse_text(p, a->arg, a->alen, &d->text, &d->text_len)) return -1;
    if (d->text_len == 0) return fail(p, "'%s' text is empty", a->word);
    if (d->op == LOP_ASK) {
        if (*a->open_ask) return fail(p, "'ask' before the previous question was revealed%s", "");
        *a->open_ask = 1;
    }
    return 0;
}

static int line_model(Parser *p, LineArgs *a, LessonDirective *d) {
    const char *suffix = " or-bundled";
    size_t sl = strlen(suffix), alen = a->alen;
    if (alen > sl && memcmp(a->arg + alen - sl, suffix, sl) == 0) { d->flag = 1; alen -= sl; }
    if (parse_text(p, a->arg, alen, &d->text, &d->text_len)) return -1;
    /* "" would be read as the lesson's own folder and reported as ".../lessons//config.json" */
    if (d->text_len == 0) return fail(p, "'model' path is empty (give a model folder, e.g. ../models/gpt2)%s", "");
    return 0;
}

/* force TEXT | #ID; attribute_vs: a token written as for force, or none */
static int line_token(Parser *p, LineArgs *a, LessonDirective *d) {
    if (d->op == LOP_ATTR_VS && a->alen == 4 && memcmp(a->arg, "none", 4) == 0) {
        d->kind = 1;
        return 0;
    }
    if (a->alen >= 2 && a->arg[0] == '#') {
        d->flag = 1;
        return parse_long(p, a->abuf + 1, 0, 1000000, d->op == LOP_ATTR_VS ? "attribute_vs #id" : "force #id", &d->n);
    }
    return parse_text(p, a->arg, a->alen, &d->text, &d->text_len);
}

static int line_seed(Parser *p, LineArgs *a, LessonDirective *d) {
    ErrorMsg e;
    if (settings_parse_seed("seed", a->abuf, &d->seed, &e)) return fail(p, "%.400s", e.text);
    return 0;
}

static int line_setting(Parser *p, LineArgs *a, LessonDirective *d) {
    /* the value on top of the defaults; lesson_run copies just this row's field */
    ErrorMsg e;
    d->kind = (int)a->row->id;
    d->setting = sampler_settings_default();
    if (settings_parse(a->row, a->row->lesson, a->abuf, &d->setting, &e)) return fail(p, "%.400s", e.text);
    return 0;
}

/* step [N] | back [N] */
static int line_count(Parser *p, LineArgs *a, LessonDirective *d) {
    d->n = 1;
    return a->alen ? parse_long(p, a->abuf, 1, 100000, a->word, &d->n) : 0;
}

/* layer N | head N | bpe N */
static int line_index(Parser *p, LineArgs *a, LessonDirective *d) {
    return parse_long(p, a->abuf, 0, 100000, a->word, &d->n);
}

static int line_query(Parser *p, LineArgs *a, LessonDirective *d) {
    if (strcmp(a->abuf, "all") == 0 || strcmp(a->abuf, "newest") == 0) {
        d->n = -1;
        return 0;
    }
    return parse_long(p, a->abuf, 0, 100000, a->word, &d->n);
}

static int line_heads(Parser *p, LineArgs *a, LessonDirective *d) {
    if (strcmp(a->abuf, "all") == 0) { d->flag = 1; return 0; }
    if (strcmp(a->abuf, "one") == 0) return 0; /* mask 0: the head of `head N` alone */
    unsigned long long m = 0;
    for (const char *q = a->abuf; *q;) {
        char *end = NULL;
        long h = strtol(q, &end, 10);
        if (end == q || h < 0 || h > 63 || (*end && *end != ','))
            return fail(p, "heads takes all, one or a list of heads 0..63 like 0,2,5, not '%s'", a->abuf);
        m |= 1ULL << h;
        q = *end ? end + 1 : end;
    }
    d->arg[0] = (long)(m & 0xffffffffULL);
    d->arg[1] = (long)(m >> 32);
    return 0;
}

static int line_panel(Parser *p, LineArgs *a, LessonDirective *d) {
    d->kind = viz_panel_from_name_n(a->arg, a->alen);
    if (d->kind >= 0) return 0;
    char names[200];
    viz_panel_names(", ", names, sizeof names);
    char m[300];
    snprintf(m, sizeof m, "unknown panel '%.60s' (%s)", a->abuf, names);
    return fail(p, "%s", m);
}

static int line_highlight(Parser *p, LineArgs *a, LessonDirective *d) {
    char *abuf = a->abuf;
    if (strcmp(abuf, "none") == 0) { d->kind = LHL_NONE; return 0; }
    char *sp = strchr(abuf, ' ');
    if (!sp) return fail(p, "highlight takes: none | panel NAME | token N | bar N%s", "");
    *sp = 0;
    const char *rest = sp + 1;
    while (*rest == ' ') rest++;
    if (strcmp(abuf, "panel") == 0) {
        d->kind = LHL_PANEL;
        d->panel = viz_panel_from_name(rest);
        if (d->panel < 0) return fail(p, "unknown panel '%s'", rest);
        return 0;
    }
    if (strcmp(abuf, "token") == 0) {
        d->kind = LHL_TOKEN;
        return parse_long(p, rest, 0, 100000, "highlight token", &d->n);
    }
    if (strcmp(abuf, "bar") == 0) {
        d->kind = LHL_BAR;
        return parse_long(p, rest, 1, 100, "highlight bar", &d->n);
    }
    return fail(p, "highlight takes: none | panel NAME | token N | bar N, not '%s'", abuf);
}

static int line_reveal(Parser *p, LineArgs *a, LessonDirective *d) {
    (void)d;
    if (*a->open_ask != 1) return fail(p, "'reveal' without a question ('ask') before it%s", "");
    *a->open_ask = 0;
    return end_beat(p); /* reveal starts a new beat */
}

/* class round | reveal | text | model: a round is a question for the class (the bars
 * hidden until its reveal, which starts a new beat, as ask / reveal do) */
static int line_class(Parser *p, LineArgs *a, LessonDirective *d) {
    static const char *const WORDS[] = {"round", "reveal", "text", "model"};
    d->kind = -1;
    for (int i = 0; i < 4; i++)
        if (strcmp(a->abuf, WORDS[i]) == 0) d->kind = i;
    if (d->kind < 0) return fail(p, "class takes round, reveal, text or model, not '%s'", a->abuf);
    if (d->kind == LCLASS_ROUND) {
        if (*a->open_ask) return fail(p, "'class round' before the open question was revealed%s", "");
        *a->open_ask = 2;
    }
    if (d->kind == LCLASS_REVEAL) {
        if (*a->open_ask != 2) return fail(p, "'class reveal' without a 'class round' before it%s", "");
        *a->open_ask = 0;
        return end_beat(p); /* the answer is a new beat */
    }
    return 0;
}

static int line_axis(Parser *p, LineArgs *a, LessonDirective *d) {
    VizProbAxis ax;
    float mx;
    if (viz_axis_parse(a->abuf, &ax, &mx)) return fail(p, "axis takes auto, log or linear N (N percent, e.g. 100), not '%s'", a->abuf);
    d->kind = (int)ax;
    d->x = mx;
    return 0;
}

static int line_textmode(Parser *p, LineArgs *a, LessonDirective *d) {
    d->kind = viz_text_mode_from_name(a->abuf);
    if (d->kind < 0) return fail(p, "textmode takes plain, surprisal or seen, not '%s'", a->abuf);
    return 0;
}

static int line_expect(Parser *p, LineArgs *a, LessonDirective *d) { return lesson_parse_expect(p, a->arg, a->alen, d); }

static int line_draws(Parser *p, LineArgs *a, LessonDirective *d) {
    return parse_long(p, a->abuf, 0, SAMPLER_MAX_DRAWS, a->word, &d->n);
}

/* ablate SPEC,... and compare SPEC SPEC ...: kept as written, checked when the beat
 * runs (gpt2_ablation_parse, settings_spec_parse name the bad part) */
static int line_ablate(Parser *p, LineArgs *a, LessonDirective *d) {
    d->text = malloc(a->alen + 1);
    if (!d->text) return fail(p, "out of memory%s", "");
    memcpy(d->text, a->abuf, a->alen + 1);
    d->text_len = a->alen;
    return 0;
}

typedef struct OpName {
    const char *name;
    LessonOp op;
    int arg;          /* 0 none, 1 optional, 2 required */
    LineParser parse; /* NULL: nothing to read */
    int any_length;   /* OP_ANY_LENGTH: the parser reads a->arg (text of any length);
                       * OP_SHORT: a->abuf, and a longer argument is refused by its length */
} OpName;
enum { OP_SHORT = 0, OP_ANY_LENGTH = 1 };

/* A new directive is one row here (and a line parser above if it has an argument). */
static const OpName OPS[] = {
    {"title", LOP_TITLE, 2, line_text, OP_ANY_LENGTH},
    {"model", LOP_MODEL, 2, line_model, OP_ANY_LENGTH},
    {"prompt", LOP_PROMPT, 2, line_text, OP_ANY_LENGTH},
    {"seed", LOP_SEED, 2, line_seed, OP_SHORT},
    {"step", LOP_STEP, 1, line_count, OP_SHORT},
    {"back", LOP_BACK, 1, line_count, OP_SHORT},
    {"home", LOP_HOME, 0, NULL, OP_SHORT},
    {"force", LOP_FORCE, 2, line_token, OP_ANY_LENGTH},
    {"reroll", LOP_REROLL, 0, NULL, OP_SHORT},
    {"draws", LOP_DRAWS, 2, line_draws, OP_SHORT},
    {"compare", LOP_COMPARE, 2, line_ablate, OP_SHORT},
    {"layer", LOP_LAYER, 2, line_index, OP_SHORT},
    {"head", LOP_HEAD, 2, line_index, OP_SHORT},
    {"panel", LOP_PANEL, 2, line_panel, OP_SHORT},
    {"caption", LOP_CAPTION, 2, line_text, OP_ANY_LENGTH},
    {"highlight", LOP_HIGHLIGHT, 2, line_highlight, OP_SHORT},
    {"bpe", LOP_BPE, 2, line_index, OP_SHORT},
    {"ask", LOP_ASK, 2, line_text, OP_ANY_LENGTH},
    {"reveal", LOP_REVEAL, 0, line_reveal, OP_SHORT},
    {"pause", LOP_PAUSE, 0, NULL, OP_SHORT},
    {"axis", LOP_AXIS, 2, line_axis, OP_SHORT},
    {"textmode", LOP_TEXTMODE, 2, line_textmode, OP_SHORT},
    {"expect", LOP_EXPECT, 2, line_expect, OP_ANY_LENGTH},
    {"ablate", LOP_ABLATE, 2, line_ablate, OP_SHORT},
    {"query", LOP_QUERY, 2, line_query, OP_SHORT},
    {"heads", LOP_HEADS, 2, line_heads, OP_SHORT},
    {"attribute_vs", LOP_ATTR_VS, 2, line_token, OP_ANY_LENGTH},
    {"class", LOP_CLASS, 2, line_class, OP_SHORT},
};

static int parse_line(Parser *p, const char *s, size_t n, int *open_ask) {
    /* directive word */
    size_t w = 0;
    while (w < n && s[w] != ' ' && s[w] != '\t') w++;
    char word[32];
    if (w >= sizeof word) return fail(p, "unknown directive (too long)%s", "");
    memcpy(word, s, w);
    word[w] = 0;
    const OpName *op = NULL;
    static const OpName SETTING_OP = {"", LOP_SETTING, 2, line_setting, OP_SHORT}; /* a settings-table row's word */
    LineArgs a = {.word = word, .row = settings_by_lesson(word), .open_ask = open_ask};
    if (a.row) op = &SETTING_OP;
    for (size_t i = 0; i < sizeof OPS / sizeof OPS[0]; i++)
        if (strcmp(OPS[i].name, word) == 0) op = &OPS[i];
    if (!op) return fail(p, "unknown directive '%s' (see lessons/README.md)", word);
    size_t at = w;
    while (at < n && (s[at] == ' ' || s[at] == '\t')) at++;
    a.alen = n - at;
    a.arg = s + at;
    if (op->arg == 2 && a.alen == 0) return fail(p, "'%s' needs an argument", word);
    if (op->arg == 0 && a.alen != 0) return fail(p, "'%s' takes no argument", word);
    /* silently cut or emptied, a long list would read as another one ("heads" as "one") */
    if (a.alen >= sizeof a.abuf && !op->any_length) {
        char what[96];
        snprintf(what, sizeof what, "'%s' takes at most %zu bytes, not %zu", word, sizeof a.abuf - 1, a.alen);
        return fail(p, "%s", what);
    }
    if (a.alen < sizeof a.abuf) memcpy(a.abuf, a.arg, a.alen);

    LessonDirective d = {.op = op->op, .line = p->line};
    if (op->parse && op->parse(p, &a, &d)) { free(d.text); free(d.claim); free(d.ids); return -1; }
    if (op->op == LOP_PAUSE) return end_beat(p);
    if (push_dir(p, d)) { free(d.text); free(d.claim); free(d.ids); return -1; }
    return 0;
}

int lesson_parse(Lesson *out, const char *path, const char *text, size_t len, ErrorMsg *err) {
    memset(out, 0, sizeof *out);
    snprintf(out->path, sizeof out->path, "%s", path);
    Parser p = {.path = path, .err = err, .l = out};
    int open_ask = 0, have_prompt = 0;
    /* a byte-order mark (Windows editors write one) is not part of the first line */
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
        text += 3;
        len -= 3;
    }
    size_t bad = len; /* offset of the first invalid UTF-8 byte, len if none */
    utf8_validate((const uint8_t *)text, len, &bad);
    size_t i = 0;
    while (i < len) {
        size_t e = i;
        while (e < len && text[e] != '\n') e++;
        p.line++;
        if (bad >= i && bad < e + (e < len)) {
            char msg[64];
            snprintf(msg, sizeof msg, "invalid UTF-8 at byte %zu of the line", bad - i + 1);
            fail(&p, "%s", msg);
            goto fail;
        }
        if (memchr(text + i, 0, e - i)) { fail(&p, "NUL byte in the line%s", ""); goto fail; }
        size_t s = i, t = e;
        while (s < t && (text[s] == ' ' || text[s] == '\t')) s++;
        while (t > s && (text[t - 1] == ' ' || text[t - 1] == '\t' || text[t - 1] == '\r')) t--;
        if (s < t && text[s] != '#') {
            if (parse_line(&p, text + s, t - s, &open_ask)) goto fail;
            if (out->n_dir && out->dir[out->n_dir - 1].op == LOP_PROMPT) have_prompt = 1;
            if (out->n_dir && out->dir[out->n_dir - 1].op == LOP_TITLE) out->title = out->dir[out->n_dir - 1].text;
        }
        i = e + 1;
    }
    if (open_ask) {
        p.line++;
        fail(&p, open_ask == 2 ? "the file ends with a class round that is never revealed ('class reveal' missing)%s"
                               : "the file ends with a question that is never revealed ('reveal' missing)%s", "");
        goto fail;
    }
    if (!have_prompt) { error_set(err, "%s: the lesson has no 'prompt' line", path); goto fail; }
    if (end_beat(&p)) goto fail;
    return 0;
fail:
    lesson_free(out);
    return -1;
}

int lesson_load(Lesson *out, const char *path, ErrorMsg *err) {
    memset(out, 0, sizeof *out);
    /* a FIFO or a device in place of the lesson is refused at once (file_read.h);
     * lessons are small: refuse anything absurd instead of reading it all */
    uint8_t *buf = NULL;
    size_t n = 0;
    if (file_read_all(path, LESSON_MAX_BYTES, &buf, &n, err)) return -1;
    int rc = lesson_parse(out, path, (const char *)buf, n, err);
    free(buf);
    return rc;
}

/* ---- the helpers lesson_parse_expect.c shares (lesson_parse.h) ---- */

int lesson_parser_fail(LessonParser *p, const char *fmt, const char *a) { return fail(p, fmt, a); }
int lesson_quote_escaped(const char *s, size_t q) { return quote_escaped(s, q); }

int lesson_parser_text(LessonParser *p, const char *s, size_t n, char **out, size_t *out_len) {
    return parse_text(p, s, n, out, out_len);
}

int lesson_parser_long(LessonParser *p, const char *arg, long lo, long hi, const char *what, long *out) {
    return parse_long(p, arg, lo, hi, what, out);
}

int lesson_parser_double(LessonParser *p, const char *arg, double lo, double hi, const char *what, double *out) {
    return parse_double(p, arg, lo, hi, what, out);
}
