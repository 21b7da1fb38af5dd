/* lesson_parse_expect.c — the parser of a lesson's `expect CLAIM` lines (lesson.h
 * LessonExpect; each claim's form is its row in CLAIMS below): the claim's words, then one small
 * parser per kind of claim from the table CLAIMS. Only reads and checks the words;
 * lesson_expect.c measures the claim when the lesson runs. Split from lesson.c, which
 * parses every other directive and calls lesson_parse_expect. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "head_scores.h"
#include "sampler_draws.h"
#include "seq_compare.h"
#include "lesson_parse.h"

typedef LessonParser Parser;

static int fail(Parser *p, const char *fmt, const char *a) { return lesson_parser_fail(p, fmt, a); }

static int parse_text(Parser *p, const char *s, size_t n, char **out, size_t *out_len) {
    return lesson_parser_text(p, s, n, out, out_len);
}

static int parse_long(Parser *p, const char *arg, long lo, long hi, const char *what, long *out) {
    return lesson_parser_long(p, arg, lo, hi, what, out);
}

static int parse_double(Parser *p, const char *arg, double lo, double hi, const char *what, double *out) {
    return lesson_parser_double(p, arg, lo, hi, what, out);
}

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
        while (e < n && !(s[e] == '"' && !lesson_quote_escaped(s, e))) e++;
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

/* ---- one parser per kind of claim: w[0] is the kind, nw words in all ---- */

typedef int (*ClaimParser)(Parser *p, LessonDirective *d, char **w, size_t *wl, int nw);

/* "expect prob takes: prob TEXT OP X": the form of the claim d->kind, from CLAIMS below. */
static int wrong_words(Parser *p, const LessonDirective *d);

/* next TEXT | chosen TEXT | pick TEXT */
static int claim_token(Parser *p, LessonDirective *d, char **w, size_t *wl, int nw) {
    (void)nw;
    return parse_token_arg(p, d, w[1], wl[1]);
}

static int claim_ids(Parser *p, LessonDirective *d, char **w, size_t *wl, int nw) {
    (void)nw;
    return parse_ids(p, d, w[1], wl[1], w[2]);
}

static int claim_top(Parser *p, LessonDirective *d, char **w, size_t *wl, int nw) {
    (void)wl, (void)nw;
    if (parse_long(p, w[1], 1, LESSON_TOP_MAX, "expect top", &d->n) || parse_cmp(p, w[2], &d->cmp)) return -1;
    return parse_double(p, w[3], 0.0, 1.0, "expect top", &d->x);
}

static int claim_token_at(Parser *p, LessonDirective *d, char **w, size_t *wl, int nw) {
    (void)nw;
    if (parse_long(p, w[1], 0, 100000, "expect token position", &d->arg[0])) return -1;
    return parse_token_arg(p, d, w[2], wl[2]);
}

static int claim_prob(Parser *p, LessonDirective *d, char **w, size_t *wl, int nw) {
    (void)nw;
    if (parse_token_arg(p, d, w[1], wl[1]) || parse_cmp(p, w[2], &d->cmp)) return -1;
    return parse_double(p, w[3], 0.0, 1.0, "expect prob", &d->x);
}

static int claim_lens(Parser *p, LessonDirective *d, char **w, size_t *wl, int nw) {
    (void)nw;
    if (parse_token_arg(p, d, w[1], wl[1]) || parse_long(p, w[2], 0, 10000, "expect lens depth", &d->arg[0]) ||
        parse_cmp(p, w[3], &d->cmp))
        return -1;
    return parse_double(p, w[4], 1.0, 1e7, "expect lens rank", &d->x);
}

static int claim_attribution(Parser *p, LessonDirective *d, char **w, size_t *wl, int nw) {
    (void)nw;
    /* the part's name is checked against the model when the claim runs */
    if (wl[1] == 0 || wl[1] >= 32) return fail(p, "expect attribution: '%s' is no part (embed, L0H3, L2.mlp, bias)", w[1]);
    d->text = malloc(wl[1] + 1);
    if (!d->text) return fail(p, "out of memory%s", "");
    memcpy(d->text, w[1], wl[1] + 1);
    d->text_len = wl[1];
    if (parse_cmp(p, w[2], &d->cmp)) return -1;
    return parse_double(p, w[3], -1e6, 1e6, "expect attribution", &d->x);
}

static int claim_tokens(Parser *p, LessonDirective *d, char **w, size_t *wl, int nw) {
    (void)nw;
    if (wl[1] == 0) return fail(p, "expect tokens: the text is empty%s", "");
    d->text = malloc(wl[1] + 1);
    if (!d->text) return fail(p, "out of memory%s", "");
    memcpy(d->text, w[1], wl[1] + 1);
    d->text_len = wl[1];
    if (parse_cmp(p, w[2], &d->cmp)) return -1;
    if (parse_long(p, w[3], 0, 1000000, "expect tokens", &d->n)) return -1;
    d->x = (double)d->n;
    return 0;
}

static int claim_kept(Parser *p, LessonDirective *d, char **w, size_t *wl, int nw) {
    (void)wl, (void)nw;
    if (parse_cmp(p, w[1], &d->cmp) || parse_long(p, w[2], 0, 10000000, "expect kept", &d->n)) return -1;
    d->x = (double)d->n;
    return 0;
}

/* repeats N (= repeats >= N) | repeats OP N */
static int claim_repeats(Parser *p, LessonDirective *d, char **w, size_t *wl, int nw) {
    (void)wl;
    if (nw == 2) {
        d->cmp = LCMP_GE;
        if (parse_long(p, w[1], 1, 100000, "expect repeats", &d->n)) return -1;
    } else if (nw == 3) {
        if (parse_cmp(p, w[1], &d->cmp) || parse_long(p, w[2], 0, 100000, "expect repeats", &d->n)) return -1;
    } else {
        return wrong_words(p, d);
    }
    d->x = (double)d->n;
    return 0;
}

/* attention L H QUERY KEY OP X | attention L H prev|first OP X | attention L H prev|first strongest */
static int claim_attention(Parser *p, LessonDirective *d, char **w, size_t *wl, int nw) {
    (void)wl;
    int agg = nw >= 4 && (strcmp(w[3], "prev") == 0 || strcmp(w[3], "first") == 0);
    int strongest = agg && nw == 5 && strcmp(w[4], "strongest") == 0;
    if (!(agg && (nw == 6 || strongest)) && !(!agg && nw == 7)) return wrong_words(p, d);
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

/* seen OP X (the share) | seen run OP N (longest run) | seen count OP N */
static int claim_seen(Parser *p, LessonDirective *d, char **w, size_t *wl, int nw) {
    (void)wl;
    if (nw == 3) {
        d->arg[0] = LSEEN_SHARE;
        if (parse_cmp(p, w[1], &d->cmp)) return -1;
        return parse_double(p, w[2], 0.0, 1.0, "expect seen", &d->x);
    }
    if (nw != 4 || (strcmp(w[1], "run") != 0 && strcmp(w[1], "count") != 0))
        return wrong_words(p, d);
    d->arg[0] = strcmp(w[1], "run") == 0 ? LSEEN_RUN : LSEEN_COUNT;
    if (parse_cmp(p, w[2], &d->cmp) || parse_long(p, w[3], 0, 1000000, "expect seen run/count", &d->n)) return -1;
    d->x = (double)d->n;
    return 0;
}

static int claim_surprisal(Parser *p, LessonDirective *d, char **w, size_t *wl, int nw) {
    (void)wl, (void)nw;
    if (strcmp(w[1], "max") == 0) d->arg[0] = LSUR_MAX;
    else if (strcmp(w[1], "mean") == 0) d->arg[0] = LSUR_MEAN;
    else if (parse_long(p, w[1], 1, 100000, "expect surprisal position (1 or more, or max or mean)", &d->arg[0])) return -1;
    if (parse_cmp(p, w[2], &d->cmp)) return -1;
    return parse_double(p, w[3], 0.0, 1000.0, "expect surprisal (bits)", &d->x);
}

/* head L.H best PATTERN | head L.H PATTERN OP X */
static int claim_head(Parser *p, LessonDirective *d, char **w, size_t *wl, int nw) {
    (void)wl;
    if (!(nw == 4 && strcmp(w[2], "best") == 0) && nw != 5) return wrong_words(p, d);
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

/* draws TEXT OP N: how often TEXT came up in the rolls of `draws N` */
static int claim_draws(Parser *p, LessonDirective *d, char **w, size_t *wl, int nw) {
    (void)nw;
    if (parse_token_arg(p, d, w[1], wl[1]) || parse_cmp(p, w[2], &d->cmp)) return -1;
    if (parse_long(p, w[3], 0, SAMPLER_MAX_DRAWS, "expect draws", &d->n)) return -1;
    d->x = (double)d->n;
    return 0;
}

/* compare K METRIC OP X: column K (1-based) of `compare` */
static int claim_compare(Parser *p, LessonDirective *d, char **w, size_t *wl, int nw) {
    (void)wl, (void)nw;
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

/* penalty TEXT OP X: the logit change the penalties gave TEXT */
static int claim_penalty(Parser *p, LessonDirective *d, char **w, size_t *wl, int nw) {
    (void)nw;
    if (parse_token_arg(p, d, w[1], wl[1]) || parse_cmp(p, w[2], &d->cmp)) return -1;
    return parse_double(p, w[3], -1e6, 1e6, "expect penalty", &d->x);
}

/* chi2 OP X | chi2 p OP X (arg[0] = 1: the p-value) */
static int claim_chi2(Parser *p, LessonDirective *d, char **w, size_t *wl, int nw) {
    (void)wl;
    if (nw == 4 && strcmp(w[1], "p") == 0) {
        d->arg[0] = 1;
        return parse_cmp(p, w[2], &d->cmp) || parse_double(p, w[3], 0.0, 1.0, "expect chi2 p", &d->x);
    }
    if (nw != 3) return wrong_words(p, d);
    return parse_cmp(p, w[1], &d->cmp) || parse_double(p, w[2], 0.0, 1e12, "expect chi2", &d->x);
}

/* Indexed by LessonExpect: a new claim is its form and its parser. The form is what the
 * author writes and what a refusal quotes; its first word names the claim, and its word
 * count is checked here unless it offers alternatives (" | " or "[optional]"), which
 * the parser then tells apart. */
static const struct {
    const char *form;
    ClaimParser parse; /* NULL: parsed by the caller (text: the rest of the line) */
} CLAIMS[] = {
    [LEXP_NEXT] = {"next TEXT", claim_token},
    [LEXP_PROB] = {"prob TEXT OP X", claim_prob},
    [LEXP_CHOSEN] = {"chosen TEXT", claim_token},
    [LEXP_TEXT] = {"text TEXT", NULL},
    [LEXP_TOKENS] = {"tokens TEXT OP N", claim_tokens},
    [LEXP_KEPT] = {"kept OP N", claim_kept},
    [LEXP_REPEATS] = {"repeats [OP] N", claim_repeats},
    [LEXP_ATTENTION] = {"attention L H QUERY KEY OP X | attention L H prev|first OP X | "
                        "attention L H prev|first strongest", claim_attention},
    [LEXP_TOKEN] = {"token POS TEXT", claim_token_at},
    [LEXP_IDS] = {"ids TEXT A,B,C", claim_ids},
    [LEXP_PICK] = {"pick TEXT", claim_token},
    [LEXP_TOP] = {"top N OP X", claim_top},
    [LEXP_SEEN] = {"seen [run|count] OP X", claim_seen},
    [LEXP_SURPRISAL] = {"surprisal POS|max|mean OP X", claim_surprisal},
    [LEXP_LENS] = {"lens TEXT DEPTH OP RANK", claim_lens},
    [LEXP_ATTRIBUTION] = {"attribution PART OP X", claim_attribution},
    [LEXP_HEAD] = {"head L.H best PATTERN | head L.H PATTERN OP X", claim_head},
    [LEXP_DRAWS] = {"draws TEXT OP N", claim_draws},
    [LEXP_CHI2] = {"chi2 [p] OP X", claim_chi2},
    [LEXP_PENALTY] = {"penalty TEXT OP X", claim_penalty},
    [LEXP_COMPARE] = {"compare K repeated2|repeated3|distinct2|surprisal|diverge OP X", claim_compare},
};
enum { N_CLAIMS = (int)(sizeof CLAIMS / sizeof CLAIMS[0]) };
_Static_assert(N_CLAIMS == (int)LEXP_COUNT, "every LessonExpect has a row in CLAIMS");

static size_t claim_name_len(const char *form) { return strcspn(form, " "); }

/* The words a claim takes, or -1 when its form has alternatives. */
static int claim_words(const char *form) {
    if (strstr(form, " | ") || strchr(form, '[')) return -1;
    int n = 0;
    for (const char *c = form; *c; c += strspn(c, " ")) {
        n++;
        c += strcspn(c, " ");
    }
    return n;
}

static int wrong_words(Parser *p, const LessonDirective *d) {
    char msg[320];
    const char *form = CLAIMS[d->kind].form;
    snprintf(msg, sizeof msg, "expect %.*s takes: %s", (int)claim_name_len(form), form, form);
    return fail(p, "%s", msg);
}

static int unknown_claim(Parser *p, const char *word) {
    char msg[400];
    size_t n = (size_t)snprintf(msg, sizeof msg, "expect: unknown claim '%.40s' (", word);
    for (int i = 0; i < N_CLAIMS && n < sizeof msg; i++)
        n += (size_t)snprintf(msg + n, sizeof msg - n, "%s%.*s", i ? ", " : "", (int)claim_name_len(CLAIMS[i].form),
                              CLAIMS[i].form);
    if (n < sizeof msg) snprintf(msg + n, sizeof msg - n, ")");
    return fail(p, "%s", msg);
}

static int parse_expect_words(Parser *p, LessonDirective *d, char **w, size_t *wl, int nw) {
    int k = -1;
    for (int i = 0; i < N_CLAIMS && k < 0; i++) {
        size_t n = claim_name_len(CLAIMS[i].form);
        if (wl[0] == n && memcmp(w[0], CLAIMS[i].form, n) == 0) k = i;
    }
    if (k < 0) return unknown_claim(p, w[0]);
    d->kind = k;
    int words = claim_words(CLAIMS[k].form);
    if (words > 0 && nw != words) return wrong_words(p, d);
    return CLAIMS[k].parse ? CLAIMS[k].parse(p, d, w, wl, nw) : 0;
}

int lesson_parse_expect(Parser *p, const char *arg, size_t alen, LessonDirective *d) {
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
