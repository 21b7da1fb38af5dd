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
#include "settings.h"
#include "frame.h"
#include "head_scores.h"
#include "panel_table.h"
#include "utf8.h"
#include "free_all.h"

void lesson_free(Lesson *l) {
    if (!l) return;
    lesson_replay_free(l);
    for (size_t i = 0; i < l->n_dir; i++) {
        FREE_ALL(l->dir[i].text, l->dir[i].claim, l->dir[i].ids);
    }
    FREE_ALL(l->dir, l->beat_end);
    memset(l, 0, sizeof *l);
}

typedef struct Parser {
    const char *path;
    int line;
    ErrorMsg *err;
    Lesson *l;
    size_t cap_dir, cap_beat;
} Parser;

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

/* ---- expect CLAIM (lesson.h LessonExpect; checked by lesson_expect.c) ---- */

static void skip_spaces(const char *s, size_t n, size_t *i) {
    while (*i < n && (s[*i] == ' ' || s[*i] == '\t')) (*i)++;
}

/* The next argument of s[*i..n): a quoted text (escapes decoded; the quote must
 * close) or a run of non-space bytes. 0 with *out malloc'd, 1 at the end, -1 error. */
static int next_arg(Parser *p, const char *s, size_t n, size_t *i, char **out, size_t *out_len) {
    skip_spaces(s, n, i);
    if (*i >= n) return 1;
    size_t a = *i, e = a;
    if (s[a] == '"') {
        e = a + 1;
        while (e < n && !(s[e] == '"' && !quote_escaped(s, e))) e++;
        if (e >= n) return fail(p, "the text starts with a quote (\") that is never closed%s", "");
        e++;
    } else {
        while (e < n && s[e] != ' ' && s[e] != '\t') e++;
    }
    *i = e;
    return parse_text(p, s + a, e - a, out, out_len) ? -1 : 0;
}

static const char *const CMP_NAMES[] = {">=", "<=", ">", "<", "="};

static int parse_cmp(Parser *p, const char *w, int *cmp) {
    for (int c = 0; c < 5; c++)
        if (strcmp(w, CMP_NAMES[c]) == 0) { *cmp = c; return 0; }
    if (strcmp(w, "==") == 0) { *cmp = LCMP_EQ; return 0; }
    return fail(p, "expect: '%s' is not a comparison (>=, <=, >, <, =)", w);
}

/* Reads the words of an expect claim into w[0..*nw) (malloc'd each). */
static int split_claim(Parser *p, const char *s, size_t n, char **w, size_t *wl, int max, int *nw) {
    size_t i = 0;
    *nw = 0;
    for (;;) {
        char *t;
        size_t tl;
        int r = next_arg(p, s, n, &i, &t, &tl);
        if (r < 0) return -1;
        if (r > 0) return 0;
        if (*nw == max) { free(t); return fail(p, "expect: too many words in the claim%s", ""); }
        w[*nw] = t;
        wl[(*nw)++] = tl;
    }
}

/* "#640" -> by id; else TEXT (the token's exact bytes). */
static int parse_token_arg(Parser *p, LessonDirective *d, char *w, size_t wl) {
    if (wl >= 2 && w[0] == '#' && w[1] >= '0' && w[1] <= '9') {
        d->flag = 1;
        return parse_long(p, w + 1, 0, 1000000, "expect #id", &d->n);
    }
    if (wl == 0) return fail(p, "expect: the token text is empty%s", "");
    d->text = malloc(wl + 1);
    if (!d->text) return fail(p, "out of memory%s", "");
    memcpy(d->text, w, wl + 1);
    d->text_len = wl;
    return 0;
}

/* ids TEXT 7454,2402,257,640: the list, comma-separated, no spaces. */
static int parse_ids(Parser *p, LessonDirective *d, const char *text, size_t tl, const char *list) {
    if (tl == 0) return fail(p, "expect ids: the text is empty%s", "");
    size_t cap = 1;
    for (const char *c = list; *c; c++) cap += *c == ',';
    d->ids = malloc(cap * sizeof *d->ids);
    d->text = malloc(tl + 1);
    if (!d->ids || !d->text) return fail(p, "out of memory%s", "");
    memcpy(d->text, text, tl + 1);
    d->text_len = tl;
    const char *c = list;
    for (;;) {
        char num[16];
        size_t n = strcspn(c, ",");
        if (n == 0 || n >= sizeof num) return fail(p, "expect ids: '%s' is not a list like 7454,2402,257", list);
        memcpy(num, c, n);
        num[n] = 0;
        long v;
        if (parse_long(p, num, 0, 1000000, "expect ids: an id", &v)) return -1;
        d->ids[d->n_ids++] = (int)v;
        if (!c[n]) return 0;
        c += n + 1;
    }
}

static const char EXPECT_FORMS[] =
    "next TEXT | prob TEXT OP X | pick TEXT | chosen TEXT | text TEXT | token POS TEXT | "
    "tokens TEXT OP N | ids TEXT A,B,C | kept OP N | top N OP X | repeats [OP] N | seen [run|count] OP X | "
    "surprisal POS|max|mean OP X | lens TEXT DEPTH OP RANK | attribution PART OP X | "
    "draws TEXT OP N | chi2 [p] OP X | penalty TEXT OP X | compare K repeated2|repeated3|distinct2|surprisal|diverge OP X | "
    "attention L H QUERY KEY OP X | attention L H prev|first OP X | attention L H prev|first strongest | "
    "head L.H best PATTERN | head L.H PATTERN OP X";

static int parse_expect_words(Parser *p, LessonDirective *d, char **w, size_t *wl, int nw) {
    static const char *const KINDS[] = {"next", "prob", "chosen", "text", "tokens", "kept",
                                        "repeats", "attention", "token", "ids", "pick", "top",
                                        "seen", "surprisal", "lens", "attribution", "head", "draws", "chi2", "penalty",
                                        "compare"};
    /* words including the kind; -1: checked below */
    static const int ARGS[] = {2, 4, 2, -1, 4, 3, -1, -1, 3, 3, 2, 4, -1, 4, 5, 4, -1, 4, -1, 4, 5};
    int k = -1;
    for (int i = 0; i < (int)(sizeof KINDS / sizeof KINDS[0]); i++)
        if (strcmp(w[0], KINDS[i]) == 0) k = i;
    if (k < 0) return fail(p, "expect: unknown claim '%s' (next, prob, pick, chosen, text, token, tokens, ids, kept, top, repeats, attention, seen, surprisal, lens, attribution, head, draws, chi2, penalty, compare)", w[0]);
    d->kind = k;
    if (ARGS[k] > 0 && nw != ARGS[k]) return fail(p, "expect takes: %s", EXPECT_FORMS);
    switch ((LessonExpect)k) {
    case LEXP_NEXT: case LEXP_CHOSEN: case LEXP_PICK: return parse_token_arg(p, d, w[1], wl[1]);
    case LEXP_IDS: return parse_ids(p, d, w[1], wl[1], w[2]);
    case LEXP_TOP:
        if (parse_long(p, w[1], 1, LESSON_TOP_MAX, "expect top", &d->n) || parse_cmp(p, w[2], &d->cmp)) return -1;
        return parse_double(p, w[3], 0.0, 1.0, "expect top", &d->x);
    case LEXP_TOKEN:
        if (parse_long(p, w[1], 0, 100000, "expect token position", &d->arg[0])) return -1;
        return parse_token_arg(p, d, w[2], wl[2]);
    case LEXP_PROB:
        if (parse_token_arg(p, d, w[1], wl[1]) || parse_cmp(p, w[2], &d->cmp)) return -1;
        return parse_double(p, w[3], 0.0, 1.0, "expect prob", &d->x);
    case LEXP_LENS:
        if (parse_token_arg(p, d, w[1], wl[1]) || parse_long(p, w[2], 0, 10000, "expect lens depth", &d->arg[0]) ||
            parse_cmp(p, w[3], &d->cmp))
            return -1;
        return parse_double(p, w[4], 1.0, 1e7, "expect lens rank", &d->x);
    case LEXP_ATTRIBUTION:
        /* the part's name is checked against the model when the claim runs */
        if (wl[1] == 0 || wl[1] >= 32) return fail(p, "expect attribution: '%s' is no part (embed, L0H3, L2.mlp, bias)", w[1]);
        d->text = malloc(wl[1] + 1);
        if (!d->text) return fail(p, "out of memory%s", "");
        memcpy(d->text, w[1], wl[1] + 1);
        d->text_len = wl[1];
        if (parse_cmp(p, w[2], &d->cmp)) return -1;
        return parse_double(p, w[3], -1e6, 1e6, "expect attribution", &d->x);
    case LEXP_TOKENS:
        if (wl[1] == 0) return fail(p, "expect tokens: the text is empty%s", "");
        d->text = malloc(wl[1] + 1);
        if (!d->text) return fail(p, "out of memory%s", "");
        memcpy(d->text, w[1], wl[1] + 1);
        d->text_len = wl[1];
        if (parse_cmp(p, w[2], &d->cmp)) return -1;
        if (parse_long(p, w[3], 0, 1000000, "expect tokens", &d->n)) return -1;
        d->x = (double)d->n;
        return 0;
    case LEXP_DRAWS:
        if (parse_token_arg(p, d, w[1], wl[1]) || parse_cmp(p, w[2], &d->cmp)) return -1;
        if (parse_long(p, w[3], 0, SAMPLER_MAX_DRAWS, "expect draws", &d->n)) return -1;
        d->x = (double)d->n;
        return 0;
    case LEXP_COMPARE: {
        static const char *const METRICS[] = {"repeated2", "repeated3", "distinct2", "surprisal", "diverge"};
        d->arg[1] = -1;
        for (int i = 0; i < 5; i++)
            if (strcmp(w[2], METRICS[i]) == 0) d->arg[1] = i;
        if (d->arg[1] < 0)
            return fail(p, "expect compare: '%s' is not repeated2, repeated3, distinct2, surprisal or diverge", w[2]);
        if (parse_long(p, w[1], 1, SEQ_COMPARE_MAX_COLS, "expect compare column", &d->arg[0]) || parse_cmp(p, w[3], &d->cmp))
            return -1;
        return parse_double(p, w[4], -1.0, 1e6, "expect compare", &d->x);
    }
    case LEXP_PENALTY:
        if (parse_token_arg(p, d, w[1], wl[1]) || parse_cmp(p, w[2], &d->cmp)) return -1;
        return parse_double(p, w[3], -1e6, 1e6, "expect penalty", &d->x);
    case LEXP_CHI2: /* chi2 OP X | chi2 p OP X (arg[0] = 1: the p-value) */
        if (nw == 4 && strcmp(w[1], "p") == 0) {
            d->arg[0] = 1;
            return parse_cmp(p, w[2], &d->cmp) || parse_double(p, w[3], 0.0, 1.0, "expect chi2 p", &d->x);
        }
        if (nw != 3) return fail(p, "expect takes: %s", EXPECT_FORMS);
        return parse_cmp(p, w[1], &d->cmp) || parse_double(p, w[2], 0.0, 1e12, "expect chi2", &d->x);
    case LEXP_KEPT:
        if (parse_cmp(p, w[1], &d->cmp) || parse_long(p, w[2], 0, 10000000, "expect kept", &d->n)) return -1;
        d->x = (double)d->n;
        return 0;
    case LEXP_REPEATS: /* repeats N (= repeats >= N) | repeats OP N */
        if (nw == 2) {
            d->cmp = LCMP_GE;
            if (parse_long(p, w[1], 1, 100000, "expect repeats", &d->n)) return -1;
        } else if (nw == 3) {
            if (parse_cmp(p, w[1], &d->cmp) || parse_long(p, w[2], 0, 100000, "expect repeats", &d->n)) return -1;
        } else {
            return fail(p, "expect takes: %s", EXPECT_FORMS);
        }
        d->x = (double)d->n;
        return 0;
    case LEXP_ATTENTION: {
        int agg = nw >= 4 && (strcmp(w[3], "prev") == 0 || strcmp(w[3], "first") == 0);
        int strongest = agg && nw == 5 && strcmp(w[4], "strongest") == 0;
        if (!(agg && (nw == 6 || strongest)) && !(!agg && nw == 7)) return fail(p, "expect takes: %s", EXPECT_FORMS);
        if (parse_long(p, w[1], 0, 100000, "expect attention layer", &d->arg[0]) ||
            parse_long(p, w[2], 0, 100000, "expect attention head", &d->arg[1]))
            return -1;
        if (agg) {
            d->arg[2] = strcmp(w[3], "prev") == 0 ? LATT_PREV : LATT_FIRST;
            if (strongest) { d->cmp = LCMP_STRONGEST; return 0; }
            if (parse_cmp(p, w[4], &d->cmp)) return -1;
            return parse_double(p, w[5], 0.0, 1.0, "expect attention", &d->x);
        }
        if (parse_long(p, w[3], 0, 100000, "expect attention query", &d->arg[2]) ||
            parse_long(p, w[4], 0, 100000, "expect attention key", &d->arg[3]) || parse_cmp(p, w[5], &d->cmp))
            return -1;
        return parse_double(p, w[6], 0.0, 1.0, "expect attention", &d->x);
    }
    case LEXP_SEEN: /* seen OP X (the share) | seen run OP N (longest run) | seen count OP N */
        if (nw == 3) {
            d->arg[0] = LSEEN_SHARE;
            if (parse_cmp(p, w[1], &d->cmp)) return -1;
            return parse_double(p, w[2], 0.0, 1.0, "expect seen", &d->x);
        }
        if (nw != 4 || (strcmp(w[1], "run") != 0 && strcmp(w[1], "count") != 0))
            return fail(p, "expect takes: %s", EXPECT_FORMS);
        d->arg[0] = strcmp(w[1], "run") == 0 ? LSEEN_RUN : LSEEN_COUNT;
        if (parse_cmp(p, w[2], &d->cmp) || parse_long(p, w[3], 0, 1000000, "expect seen run/count", &d->n)) return -1;
        d->x = (double)d->n;
        return 0;
    case LEXP_SURPRISAL:
        if (strcmp(w[1], "max") == 0) d->arg[0] = LSUR_MAX;
        else if (strcmp(w[1], "mean") == 0) d->arg[0] = LSUR_MEAN;
        else if (parse_long(p, w[1], 1, 100000, "expect surprisal position (1 or more, or max or mean)", &d->arg[0])) return -1;
        if (parse_cmp(p, w[2], &d->cmp)) return -1;
        return parse_double(p, w[3], 0.0, 1000.0, "expect surprisal (bits)", &d->x);
    case LEXP_HEAD: { /* head L.H best PATTERN | head L.H PATTERN OP X */
        if (!(nw == 4 && strcmp(w[2], "best") == 0) && nw != 5) return fail(p, "expect takes: %s", EXPECT_FORMS);
        char *dot = strchr(w[1], '.');
        if (!dot) return fail(p, "expect head: '%s' is not a head like 2.2 (layer.head, from 0)", w[1]);
        *dot = 0;
        if (parse_long(p, w[1], 0, 100000, "expect head layer", &d->arg[0]) ||
            parse_long(p, dot + 1, 0, 100000, "expect head head", &d->arg[1]))
            return -1;
        int best = strcmp(w[2], "best") == 0;
        const char *pat = best ? w[3] : w[2];
        d->arg[2] = -1;
        for (int k = 0; k < HEAD_PATTERN_COUNT; k++)
            if (strcmp(pat, HEAD_PATTERNS[k].key) == 0) d->arg[2] = k;
        if (d->arg[2] < 0)
            return fail(p, "expect head: unknown pattern '%s' (previous_token, first_token, induction, duplicate_token, local)", pat);
        if (best) {
            d->cmp = LCMP_STRONGEST;
            return 0;
        }
        if (parse_cmp(p, w[3], &d->cmp)) return -1;
        return parse_double(p, w[4], 0.0, 1.0, "expect head score", &d->x);
    }
    case LEXP_TEXT: break; /* parsed by the caller: the rest of the line */
    }
    return 0;
}

static int parse_expect(Parser *p, const char *arg, size_t alen, LessonDirective *d) {
    d->claim = malloc(alen + 1);
    if (!d->claim) return fail(p, "out of memory%s", "");
    memcpy(d->claim, arg, alen);
    d->claim[alen] = 0;
    /* `expect text TEXT`: the rest of the line is one text, as for caption */
    if (alen > 5 && memcmp(arg, "text", 4) == 0 && (arg[4] == ' ' || arg[4] == '\t')) {
        size_t i = 4;
        skip_spaces(arg, alen, &i);
        d->kind = LEXP_TEXT;
        return parse_text(p, arg + i, alen - i, &d->text, &d->text_len);
    }
    enum { MAXW = 8 };
    char *w[MAXW];
    size_t wl[MAXW];
    int nw = 0;
    int rc = split_claim(p, arg, alen, w, wl, MAXW, &nw);
    if (rc == 0 && nw == 0) rc = fail(p, "'expect' needs a claim%s", "");
    if (rc == 0) rc = parse_expect_words(p, d, w, wl, nw);
    for (int i = 0; i < nw; i++) free(w[i]);
    return rc;
}

typedef struct OpName {
    const char *name;
    LessonOp op;
    int arg; /* 0 none, 1 optional, 2 required */
} OpName;

static const OpName OPS[] = {
    {"title", LOP_TITLE, 2},     {"model", LOP_MODEL, 2},   {"prompt", LOP_PROMPT, 2},
    {"seed", LOP_SEED, 2},
    {"step", LOP_STEP, 1},       {"back", LOP_BACK, 1},     {"home", LOP_HOME, 0},
    {"force", LOP_FORCE, 2},     {"reroll", LOP_REROLL, 0}, {"draws", LOP_DRAWS, 2}, {"compare", LOP_COMPARE, 2}, {"layer", LOP_LAYER, 2},
    {"head", LOP_HEAD, 2},       {"panel", LOP_PANEL, 2},   {"caption", LOP_CAPTION, 2},
    {"highlight", LOP_HIGHLIGHT, 2}, {"bpe", LOP_BPE, 2},   {"ask", LOP_ASK, 2},
    {"reveal", LOP_REVEAL, 0},   {"pause", LOP_PAUSE, 0},   {"axis", LOP_AXIS, 2},
    {"textmode", LOP_TEXTMODE, 2}, {"expect", LOP_EXPECT, 2},
    {"ablate", LOP_ABLATE, 2},   {"query", LOP_QUERY, 2},   {"heads", LOP_HEADS, 2},
    {"attribute_vs", LOP_ATTR_VS, 2},
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
    static const OpName SETTING_OP = {"", LOP_SETTING, 2}; /* a settings-table row's word */
    const SettingRow *row = settings_by_lesson(word);
    if (row) op = &SETTING_OP;
    for (size_t i = 0; i < sizeof OPS / sizeof OPS[0]; i++)
        if (strcmp(OPS[i].name, word) == 0) op = &OPS[i];
    if (!op) return fail(p, "unknown directive '%s' (see lessons/README.md)", word);
    size_t a = w;
    while (a < n && (s[a] == ' ' || s[a] == '\t')) a++;
    size_t alen = n - a;
    const char *arg = s + a;
    if (op->arg == 2 && alen == 0) return fail(p, "'%s' needs an argument", word);
    if (op->arg == 0 && alen != 0) return fail(p, "'%s' takes no argument", word);
    char abuf[256] = {0};
    if (alen < sizeof abuf) memcpy(abuf, arg, alen);

    LessonDirective d = {.op = op->op, .line = p->line};
    int rc = 0;
    switch (op->op) {
    case LOP_TITLE: case LOP_PROMPT: case LOP_CAPTION: case LOP_ASK:
        rc = parse_text(p, arg, alen, &d.text, &d.text_len);
        if (!rc && d.text_len == 0) { free(d.text); return fail(p, "'%s' text is empty", word); }
        if (!rc && op->op == LOP_ASK) {
            if (*open_ask) { free(d.text); return fail(p, "'ask' before the previous question was revealed%s", ""); }
            *open_ask = 1;
        }
        break;
    case LOP_MODEL: {
        const char *suffix = " or-bundled";
        size_t sl = strlen(suffix);
        if (alen > sl && memcmp(arg + alen - sl, suffix, sl) == 0) { d.flag = 1; alen -= sl; }
        rc = parse_text(p, arg, alen, &d.text, &d.text_len);
        break;
    }
    case LOP_ATTR_VS: case LOP_FORCE: /* attribute_vs: a token written as for force, or none */
        if (op->op == LOP_ATTR_VS && alen == 4 && memcmp(arg, "none", 4) == 0) {
            d.kind = 1;
        } else if (alen >= 2 && arg[0] == '#') {
            d.flag = 1;
            rc = parse_long(p, abuf + 1, 0, 1000000, op->op == LOP_ATTR_VS ? "attribute_vs #id" : "force #id", &d.n);
        } else {
            rc = parse_text(p, arg, alen, &d.text, &d.text_len);
        }
        break;
    case LOP_SEED: {
        uint64_t v = 0;
        if (parse_num_u64(abuf, &v) != NUM_OK) return fail(p, "seed needs a whole number >= 0%s", "");
        d.n = (long)(v & 0x7fffffffffffffffULL);
        break;
    }
    case LOP_SETTING: {
        /* the value on top of the defaults; lesson_run copies just this row's field */
        ErrorMsg e;
        d.kind = (int)row->id;
        d.setting = sampler_settings_default();
        if (alen >= sizeof abuf) return fail(p, "%s: the value is too long", word);
        if (settings_parse(row, row->lesson, abuf, &d.setting, &e)) return fail(p, "%.400s", e.text);
        break;
    }
    case LOP_STEP: case LOP_BACK:
        d.n = 1;
        if (alen) rc = parse_long(p, abuf, 1, 100000, word, &d.n);
        break;
    case LOP_LAYER: case LOP_HEAD: case LOP_BPE:
        rc = parse_long(p, abuf, 0, 100000, word, &d.n);
        break;
    case LOP_QUERY:
        if (strcmp(abuf, "all") == 0 || strcmp(abuf, "newest") == 0) d.n = -1;
        else rc = parse_long(p, abuf, 0, 100000, word, &d.n);
        break;
    case LOP_HEADS: {
        if (strcmp(abuf, "all") == 0) { d.flag = 1; break; }
        if (strcmp(abuf, "one") == 0) break; /* mask 0: the head of `head N` alone */
        unsigned long long m = 0;
        for (const char *q = abuf; *q;) {
            char *end = NULL;
            long h = strtol(q, &end, 10);
            if (end == q || h < 0 || h > 63 || (*end && *end != ','))
                return fail(p, "heads takes all, one or a list of heads 0..63 like 0,2,5, not '%s'", abuf);
            m |= 1ULL << h;
            q = *end ? end + 1 : end;
        }
        d.arg[0] = (long)(m & 0xffffffffULL);
        d.arg[1] = (long)(m >> 32);
        break;
    }
    case LOP_DRAWS:
        rc = parse_long(p, abuf, 0, SAMPLER_MAX_DRAWS, word, &d.n);
        break;
    case LOP_PANEL:
        d.kind = viz_panel_from_name_n(arg, alen);
        if (d.kind < 0) {
            char names[200];
            viz_panel_names(", ", names, sizeof names);
            char m[300];
            snprintf(m, sizeof m, "unknown panel '%.60s' (%s)", abuf, names);
            return fail(p, "%s", m);
        }
        break;
    case LOP_HIGHLIGHT: {
        if (strcmp(abuf, "none") == 0) { d.kind = LHL_NONE; break; }
        char *sp = strchr(abuf, ' ');
        if (!sp) return fail(p, "highlight takes: none | panel NAME | token N | bar N%s", "");
        *sp = 0;
        const char *rest = sp + 1;
        while (*rest == ' ') rest++;
        if (strcmp(abuf, "panel") == 0) {
            d.kind = LHL_PANEL;
            d.panel = viz_panel_from_name(rest);
            if (d.panel < 0) return fail(p, "unknown panel '%s'", rest);
        } else if (strcmp(abuf, "token") == 0) {
            d.kind = LHL_TOKEN;
            rc = parse_long(p, rest, 0, 100000, "highlight token", &d.n);
        } else if (strcmp(abuf, "bar") == 0) {
            d.kind = LHL_BAR;
            rc = parse_long(p, rest, 1, 100, "highlight bar", &d.n);
        } else {
            return fail(p, "highlight takes: none | panel NAME | token N | bar N, not '%s'", abuf);
        }
        break;
    }
    case LOP_REVEAL:
        if (!*open_ask) return fail(p, "'reveal' without a question ('ask') before it%s", "");
        *open_ask = 0;
        if (end_beat(p)) return -1; /* reveal starts a new beat */
        break;
    case LOP_AXIS: {
        VizProbAxis a;
        float mx;
        if (viz_axis_parse(abuf, &a, &mx)) return fail(p, "axis takes auto, log or linear N (N percent, e.g. 100), not '%s'", abuf);
        d.kind = (int)a;
        d.x = mx;
        break;
    }
    case LOP_TEXTMODE:
        d.kind = viz_text_mode_from_name(abuf);
        if (d.kind < 0) return fail(p, "textmode takes plain, surprisal or seen, not '%s'", abuf);
        break;
    case LOP_EXPECT: rc = parse_expect(p, arg, alen, &d); break;
    case LOP_COMPARE:
        /* the specs are checked when the beat runs (settings_spec_parse names the bad one) */
    case LOP_ABLATE:
        /* the parts are checked against the model when the beat runs (gpt2_ablation_parse) */
        if (alen >= sizeof abuf) return fail(p, "ablate: the list is too long%s", "");
        d.text = malloc(alen + 1);
        if (!d.text) return fail(p, "out of memory%s", "");
        memcpy(d.text, abuf, alen + 1);
        d.text_len = alen;
        break;
    case LOP_HOME: case LOP_REROLL: case LOP_PAUSE: break;
    }
    if (rc) { free(d.text); free(d.claim); free(d.ids); return -1; }
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
    if (open_ask) { p.line++; fail(&p, "the file ends with a question that is never revealed ('reveal' missing)%s", ""); goto fail; }
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
    if (file_read_all(path, (size_t)1 << 20, &buf, &n, err)) return -1;
    int rc = lesson_parse(out, path, (const char *)buf, n, err);
    free(buf);
    return rc;
}
