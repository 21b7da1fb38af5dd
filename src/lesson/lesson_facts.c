/* lesson_facts.c — live numbers in captions (see lesson_facts.h). The only model work
 * is timing: the probe (session_probe_step_ms), a few steps past the end of the trace,
 * then forgotten, which leaves every row the slide shows untouched; and, for a GPT-2
 * size downloaded beside the running model, a short decode of that model in its own
 * trace, freed again. */
#include "lesson_facts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpt2_config.h"
#include "gpt2_forward.h"
#include "utf8.h"

/* The published shapes (Radford et al. 2019, Table 2; the HF config.json files). */
static const struct { const char *size, *label; int n_layer, n_head, n_embd; } GPT2_SIZES[] = {
    {"124M", "GPT-2 124M", 12, 12, 768},
    {"355M", "GPT-2 355M", 24, 16, 1024},
    {"774M", "GPT-2 774M", 36, 20, 1280},
    {"1558M", "GPT-2 1.5B", 48, 25, 1600},
};
#define N_SIZES (sizeof GPT2_SIZES / sizeof GPT2_SIZES[0])
_Static_assert(N_SIZES == LESSON_FACTS_SIZES, "LessonFacts keeps one timing per GPT-2 size");

/* Placeholders, with 1 if they take a SIZE argument. */
static const struct { const char *name; int arg; } NAMES[] = {
    {"model", 0}, {"params", 0}, {"layers", 0},      {"heads", 0},     {"width", 0}, {"context", 0},
    {"step_ms", 0}, {"flops", 0}, {"rate", 0}, {"train_flops", 0}, {"bandwidth", 0}, {"gpt2", 1},
};

int lesson_facts_gpt2_shape(const char *size, size_t n, Gpt2Config *cfg) {
    for (size_t i = 0; i < N_SIZES; i++) {
        if (strlen(GPT2_SIZES[i].size) != n || memcmp(GPT2_SIZES[i].size, size, n) != 0) continue;
        *cfg = (Gpt2Config){.n_layer = GPT2_SIZES[i].n_layer, .n_head = GPT2_SIZES[i].n_head,
                            .n_embd = GPT2_SIZES[i].n_embd, .n_positions = 1024, .vocab_size = 50257,
                            .ln_eps = 1e-5f};
        return (int)i;
    }
    return -1;
}

double lesson_facts_flops(const Gpt2Config *cfg, int pos) {
    double C = cfg->n_embd, L = cfg->n_layer, V = cfg->vocab_size;
    return L * (24.0 * C * C + 4.0 * C * (pos + 1)) + 2.0 * C * V;
}

double lesson_facts_weight_bytes(const Gpt2Config *cfg) {
    double C = cfg->n_embd, L = cfg->n_layer, V = cfg->vocab_size;
    return 4.0 * (L * 12.0 * C * C + V * C);
}

/* One placeholder "{name}" or "{name ARG}" at text[0]: its length (through '}') and
 * the table index; 0 if it is not well formed or unknown. */
static size_t match(const char *t, int *which, const char **arg, size_t *arg_len) {
    const char *close = strchr(t, '}');
    if (!close) return 0;
    size_t len = (size_t)(close - t) + 1, wl = 0;
    while (t[1 + wl] && t[1 + wl] != ' ' && t[1 + wl] != '}') wl++;
    *arg = t + 1 + wl;
    *arg_len = 0;
    if (**arg == ' ') {
        (*arg)++;
        *arg_len = (size_t)(close - *arg);
    }
    for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++) {
        if (strlen(NAMES[i].name) != wl || memcmp(NAMES[i].name, t + 1, wl) != 0) continue;
        if ((*arg_len > 0) != NAMES[i].arg) return 0;
        Gpt2Config c;
        if (NAMES[i].arg && lesson_facts_gpt2_shape(*arg, *arg_len, &c) < 0) return 0;
        *which = (int)i;
        return len;
    }
    return 0;
}

int lesson_facts_validate(const char *text, char *msg, size_t cap) {
    for (const char *t = text; *t; t++) {
        if (*t != '{') continue;
        if (t[1] == '{') { t++; continue; }
        int which;
        const char *arg;
        size_t al;
        size_t len = match(t, &which, &arg, &al);
        if (!len) {
            snprintf(msg, cap, "unknown placeholder '%.30s' (see lessons/README.md: {step_ms}, {params}, "
                     "{gpt2 124M}, ...; write {{ for a '{')", t);
            return -1;
        }
        t += len - 1;
    }
    return 0;
}

/* Median wall time (ms) of single-token steps at the current position; -1 if the
 * context has no room. session_probe_step_ms forgets the probe rows again and keeps
 * the session's redo rows and remembered picks right. */
static double probe_step_ms(Session *s) {
    return session_probe_step_ms(s, 5);
}

/* "16.1 M", "124 M", "1.56 B": three significant digits with an SI word. */
static void fmt_si(double v, const char *unit, char *buf, size_t cap) {
    const char *pre[] = {"", " k", " M", " G", " T"};
    int k = 0;
    while (v >= 999.5 && k < 4) { v /= 1000.0; k++; }
    const char *p = pre[k];
    if (unit[0] == 0 && k == 3) p = " B"; /* a count: billion, as GPT-2 "1.5B" is said */
    snprintf(buf, cap, v >= 99.95 ? "%.0f%s%s" : v >= 9.995 ? "%.1f%s%s" : "%.2f%s%s", v, p, unit);
}

static void fmt_ms(double ms, char *buf, size_t cap) {
    if (ms < 0) snprintf(buf, cap, "(no room left in the context to time a step)");
    else if (ms >= 1000.0) snprintf(buf, cap, "%.2f s", ms / 1000.0);
    else snprintf(buf, cap, ms >= 9.95 ? "%.0f ms" : "%.1f ms", ms);
}

static double facts_step(Session *s, LessonFacts *f) {
    if (!f->measured) {
        f->step_ms = probe_step_ms(s);
        f->measured = 1;
    }
    return f->step_ms;
}

static int same_shape(const Gpt2Config *a, const Gpt2Config *b) {
    return a->n_layer == b->n_layer && a->n_head == b->n_head && a->n_embd == b->n_embd &&
           a->vocab_size == b->vocab_size;
}

/* Size i timed from its own folder (see LessonFacts), once: gpt2-SIZE beside the running
 * model's folder, else in models/ (where `make gpt2 SIZE=...` puts it when the app runs
 * from the repository, as it finds assets/: so also while a lesson shows the bundled
 * model because 124M is not downloaded). */
static double facts_size(Session *s, LessonFacts *f, int i, const Gpt2Config *c, char *folder, size_t cap) {
    snprintf(folder, cap, "gpt2-%s", GPT2_SIZES[i].size);
    if (f->size_state[i] == 0) {
        const char *slash = strrchr(s->model.dir, '/');
        char dirs[2][1200];
        snprintf(dirs[0], sizeof dirs[0], "%.*s%s%s", slash ? (int)(slash - s->model.dir) : 0, s->model.dir,
                 slash ? "/" : "", folder);
        snprintf(dirs[1], sizeof dirs[1], "models/%s", folder);
        f->size_ms[i] = -1.0;
        for (int k = 0; k < 2 && f->size_ms[i] <= 0; k++)
            if (k == 0 ? s->model.dir[0] != 0 : strcmp(dirs[0], dirs[1]) != 0)
                f->size_ms[i] = session_probe_folder_ms(dirs[k], c, 5);
        f->size_state[i] = f->size_ms[i] > 0 ? 1 : -1;
    }
    return f->size_state[i] == 1 ? f->size_ms[i] : -1.0;
}

static void fmt_gpt2(int i, Session *s, LessonFacts *f, char *buf, size_t cap) {
    Gpt2Config c;
    lesson_facts_gpt2_shape(GPT2_SIZES[i].size, strlen(GPT2_SIZES[i].size), &c);
    char params[32], flops[32], t[96], folder[32];
    fmt_si((double)gpt2_config_n_params(&c, 1), "", params, sizeof params);
    fmt_si(lesson_facts_flops(&c, 0), "FLOP", flops, sizeof flops);
    const Gpt2Config *run = &s->model.config;
    double ms = facts_step(s, f);
    if (same_shape(&c, run)) {
        fmt_ms(ms, t, sizeof t);
        snprintf(buf, cap, "%s: %d layers \xC3\x97 %d heads, %s parameters, %s per token: %s per token here (measured)",
                 GPT2_SIZES[i].label, c.n_layer, c.n_head, params, flops, t);
        return;
    }
    double own = facts_size(s, f, i, &c, folder, sizeof folder);
    if (own > 0) {
        fmt_ms(own, t, sizeof t);
        snprintf(buf, cap, "%s: %d layers \xC3\x97 %d heads, %s parameters, %s per token: %s per token here "
                 "(measured: a short decode of %s)", GPT2_SIZES[i].label, c.n_layer, c.n_head, params, flops, t, folder);
        return;
    }
    if (ms > 0) {
        /* bytes per step / (bytes per ms the running model achieved) */
        double est = lesson_facts_weight_bytes(&c) / (lesson_facts_weight_bytes(run) / ms);
        char e[32];
        fmt_ms(est, e, sizeof e);
        snprintf(t, sizeof t, "about %s per token here (estimate)", e);
    } else {
        snprintf(t, sizeof t, "(no estimate: no room left to time a step)");
    }
    snprintf(buf, cap, "%s: %d layers \xC3\x97 %d heads, %s parameters, %s per token: %s", GPT2_SIZES[i].label,
             c.n_layer, c.n_head, params, flops, t);
}

/* The text of placeholder `which` into buf. */
static void expand(int which, const char *arg, size_t al, Session *s, LessonFacts *f, char *buf, size_t cap) {
    const Gpt2Config *c = &s->model.config;
    int pos = session_len(s);
    double ms;
    switch (which) {
    case 0: snprintf(buf, cap, "%s", s->model.name); break;
    case 1: fmt_si((double)s->model.n_params, "", buf, cap); break;
    case 2: snprintf(buf, cap, "%d", c->n_layer); break;
    case 3: snprintf(buf, cap, "%d", c->n_head); break;
    case 4: snprintf(buf, cap, "%d", c->n_embd); break;
    case 5: snprintf(buf, cap, "%d", c->n_positions); break;
    case 6: fmt_ms(facts_step(s, f), buf, cap); break;
    case 7: fmt_si(lesson_facts_flops(c, pos), "FLOP", buf, cap); break;
    case 8:
        ms = facts_step(s, f);
        if (ms > 0) snprintf(buf, cap, "%.1f GFLOP/s", lesson_facts_flops(c, pos) / ms / 1e6);
        else fmt_ms(ms, buf, cap);
        break;
    case 9: fmt_si(3.0 * lesson_facts_flops(c, pos), "FLOP", buf, cap); break;
    case 10:
        ms = facts_step(s, f);
        if (ms > 0) snprintf(buf, cap, "%.1f GB/s", lesson_facts_weight_bytes(c) / ms / 1e6);
        else fmt_ms(ms, buf, cap);
        break;
    default: {
        Gpt2Config g;
        int i = lesson_facts_gpt2_shape(arg, al, &g);
        fmt_gpt2(i, s, f, buf, cap);
        break;
    }
    }
}

int lesson_facts_format(const char *text, Session *s, LessonFacts *facts, char *out, size_t cap, char *msg,
                        size_t msg_cap) {
    if (lesson_facts_validate(text, msg, msg_cap)) return -1;
    LessonFacts local = {.step_ms = -1.0};
    LessonFacts *f = facts ? facts : &local;
    size_t o = 0;
    const char *t = text;
    while (*t && o + 1 < cap) {
        int which;
        const char *arg;
        size_t al, adv;
        if (t[0] == '{' && t[1] == '{') {
            out[o++] = '{';
            t += 2;
        } else if (t[0] == '{' && (adv = match(t, &which, &arg, &al)) > 0) {
            char piece[300];
            expand(which, arg, al, s, f, piece, sizeof piece);
            size_t plen = strlen(piece);
            if (o + plen >= cap) plen = cap - 1 - o;
            memcpy(out + o, piece, plen);
            o += plen;
            t += adv;
        } else {
            out[o++] = *t++;
        }
    }
    /* cut at cap: never leave half a character at the end */
    if (o > 0) o -= utf8_incomplete_tail((const uint8_t *)out, o);
    out[o] = 0;
    return 0;
}

int lesson_facts_check(const Lesson *l, ErrorMsg *err) {
    for (size_t i = 0; i < l->n_dir; i++) {
        const LessonDirective *d = &l->dir[i];
        char m[200];
        if (d->op == LOP_CAPTION && lesson_facts_validate(d->text, m, sizeof m))
            return error_set(err, "%s:%d: %s", l->path, d->line, m);
    }
    return 0;
}

int lesson_facts_captions(const LessonBeatView *bv, Session *s, LessonFacts *facts, LessonCaptions *out, char *msg,
                          size_t cap) {
    out->n = 0;
    out->facts = facts ? *facts : (LessonFacts){.step_ms = -1.0};
    if (bv->note[0]) out->line[out->n++] = bv->note;
    for (int i = 0; i < bv->n_captions && i < LESSON_MAX_CAPTIONS; i++) {
        const char *c = bv->captions[i];
        if (strchr(c, '{')) {
            if (lesson_facts_format(c, s, &out->facts, out->text[i], sizeof out->text[i], msg, cap)) return -1;
            c = out->text[i];
        }
        out->line[out->n++] = c;
    }
    if (facts) *facts = out->facts;
    return 0;
}
