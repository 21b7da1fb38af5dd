/* figure_meta_parse.c — the strict reader of a figure's provenance (see figure_meta.h).
 * It treats every value as hostile: fixed limits, full-string number parses, range
 * checks, no recursion. Not the writer (figure_meta.c), not the applier
 * (figure_state_apply.c). */
#include "figure_meta.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "file_read.h"
#include "frame_fill.h"
#include "frame_size.h"
#include "offscreen.h"
#include "parse_num.h"
#include "settings.h"
#include "utf8.h"
#include "video_meta_read.h"
#include "free_all.h"

/* ---- the reader -------------------------------------------------------------------- */

void figure_state_free(FigureState *fs) {
    if (!fs) return;
    FREE_ALL(fs->prompt, fs->ids, fs->salts);
    memset(fs, 0, sizeof *fs);
}

/* The value of key, or an error naming it. */
static int need(const PngTextChunks *t, const char *what, const char *key, const char **v, ErrorMsg *err) {
    *v = png_text_find(t, key);
    if (!*v) return error_set(err, "%s: provenance has no %s (not an inferscope figure, or from an incompatible version)", what, key);
    return 0;
}

/* A whole-string decimal integer in [lo, hi]. */
/* long long, not long: a salt goes up to UINT32_MAX, which a 32-bit long (WebAssembly,
 * Windows) cannot hold — (long long)UINT32_MAX there is -1 and every figure was refused */
static int parse_long(const char *what, const char *key, const char *v, long long lo, long long hi, long long *out,
                      ErrorMsg *err) {
    long long x = 0;
    if (parse_num_int(v, &x) != NUM_OK) return error_set(err, "%s: %s: '%.40s' is not an integer", what, key, v);
    if (x < lo || x > hi) return error_set(err, "%s: %s: %lld is outside [%lld, %lld]", what, key, x, lo, hi);
    *out = x;
    return 0;
}

static int get_int(const PngTextChunks *t, const char *what, const char *key, long lo, long hi, int *out,
                   ErrorMsg *err) {
    const char *v;
    long long x;
    if (need(t, what, key, &v, err) || parse_long(what, key, v, lo, hi, &x, err)) return -1;
    *out = (int)x;
    return 0;
}

/* A whole-string finite float in [lo, hi]. */
static int get_float(const PngTextChunks *t, const char *what, const char *key, double lo, double hi,
                     float *out, ErrorMsg *err) {
    const char *v;
    if (need(t, what, key, &v, err)) return -1;
    double x = 0;
    if (parse_num_real(v, &x) != NUM_OK) return error_set(err, "%s: %s: '%.40s' is not a number", what, key, v);
    if (x < lo || x > hi) return error_set(err, "%s: %s: %g is outside [%g, %g]", what, key, x, lo, hi);
    *out = (float)x;
    return 0;
}

/* Copies a plain value (printable ASCII only) into buf. */
static int get_text(const PngTextChunks *t, const char *what, const char *key, char *buf, size_t cap,
                    ErrorMsg *err) {
    const char *v;
    if (need(t, what, key, &v, err)) return -1;
    size_t n = strlen(v);
    if (n >= cap) return error_set(err, "%s: %s: value of %zu bytes is too long (at most %zu)", what, key, n, cap - 1);
    /* printable characters, UTF-8 included (what meta_add writes) */
    const uint8_t *u = (const uint8_t *)v;
    for (size_t i = 0; i < n;) {
        uint32_t cp = u[i];
        size_t k = u[i] >= 0x80 ? utf8_decode_one(u + i, n - i, &cp) : 1;
        if (k == 0 || cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0))
            return error_set(err, "%s: %s: byte 0x%02x at %zu is not a printable UTF-8 character", what, key, u[i], i);
        i += k;
    }
    memcpy(buf, v, n + 1);
    return 0;
}

/* A JSON array of non-negative integers "[1,2,3]", each <= hi, at most max_n of them,
 * parsed by cJSON. Only digits, commas, brackets and white space are allowed, so "1e3",
 * "-0" and "1.0" are refused as the writer never writes them; the length is checked
 * first so a hostile chunk cannot make cJSON build millions of nodes. *out is malloc'd
 * (NULL for "[]"). */
static int parse_uint_array(const char *what, const char *key, const char *v, unsigned long hi, size_t max_n,
                            unsigned long **out, size_t *n_out, ErrorMsg *err) {
    *out = NULL;
    *n_out = 0;
    size_t len = strlen(v), max_len = 12 * max_n + 16; /* "4294967295, " per element */
    if (len > max_len) return error_set(err, "%s: %s: %zu bytes, more than %zu elements can take", what, key, len, max_n);
    size_t bad = strspn(v, "0123456789,[] \t\r\n");
    if (bad < len) return error_set(err, "%s: %s: '%c' at byte %zu: expected a JSON array of non-negative integers",
                                    what, key, v[bad], bad);
    const char *end = NULL;
    cJSON *arr = cJSON_ParseWithOpts(v, &end, 1);
    if (!cJSON_IsArray(arr)) {
        size_t at = end && end >= v && end <= v + len ? (size_t)(end - v) : 0;
        cJSON_Delete(arr);
        return error_set(err, "%s: %s: not a JSON array '[...]' of integers (byte %zu)", what, key, at);
    }
    size_t n = (size_t)cJSON_GetArraySize(arr);
    if (n > max_n) {
        cJSON_Delete(arr);
        return error_set(err, "%s: %s: more than %zu elements", what, key, max_n);
    }
    unsigned long *a = n ? malloc(n * sizeof *a) : NULL;
    if (n && !a) {
        cJSON_Delete(arr);
        return error_set(err, "%s: %s: out of memory", what, key);
    }
    size_t i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, arr) {
        /* a nested array is the only other thing the characters above allow */
        if (!cJSON_IsNumber(e) || e->valuedouble > (double)hi) {
            /* read e before the tree it lives in is freed */
            int number = cJSON_IsNumber(e);
            double x = number ? e->valuedouble : 0.0;
            free(a);
            cJSON_Delete(arr);
            if (!number) return error_set(err, "%s: %s: element %zu is not a non-negative integer", what, key, i);
            return error_set(err, "%s: %s: element %zu (%.15g) is outside [0, %lu]", what, key, i, x, hi);
        }
        a[i++] = (unsigned long)e->valuedouble; /* digits only: a whole number, exact below 2^53 */
    }
    cJSON_Delete(arr);
    *out = a;
    *n_out = n;
    return 0;
}

/* Decodes the literal piece lit[0..n) (a complete "..." without \u0000 escapes) with
 * cJSON and appends its bytes at o + *k. `base` is where the piece starts in the
 * value, for the error position. */
static int json_string_piece(const char *what, const char *key, const char *lit, size_t n, size_t base, uint8_t *o,
                             size_t *k, ErrorMsg *err) {
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithLengthOpts(lit, n, &end, 0);
    if (!cJSON_IsString(j) || end != lit + n) {
        size_t at = base + (end && end >= lit && end <= lit + n ? (size_t)(end - lit) : 0);
        cJSON_Delete(j);
        return error_set(err, "%s: %s: not a valid JSON string (bad escape or lone surrogate near byte %zu)", what,
                         key, at);
    }
    size_t m = strlen(j->valuestring);
    memcpy(o + *k, j->valuestring, m);
    *k += m;
    cJSON_Delete(j);
    return 0;
}

/* A JSON string literal (RFC 8259 §7) -> UTF-8 bytes, decoded by cJSON. Raw bytes must
 * be printable ASCII (we write everything else escaped); lone surrogates are refused.
 * cJSON's strings end at a NUL, so the literal is decoded in pieces between its \u0000
 * escapes (a prompt read from a file may hold NUL bytes), the NULs put back between
 * them. Every \u must have four hex digits: cJSON would read "\uZZZZ" as U+0000. */
static int parse_json_string(const char *what, const char *key, const char *v, uint8_t **out, size_t *len,
                             ErrorMsg *err) {
    *out = NULL;
    *len = 0;
    size_t n = strlen(v);
    if (n < 2 || v[0] != '"' || v[n - 1] != '"')
        return error_set(err, "%s: %s: expected a JSON string in double quotes", what, key);
    /* every escape shrinks or keeps the size, except \uXXXX which gives <= 4 bytes
     * from 6 (or 12 for a pair): n bytes of output always suffice */
    char *lit = malloc(n + 1); /* a copy: the pieces get their own quotes in place */
    uint8_t *o = malloc(n);
    if (!lit || !o) {
        FREE_ALL(lit, o);
        return error_set(err, "%s: %s: out of memory", what, key);
    }
    memcpy(lit, v, n + 1);
    size_t k = 0, start = 0, i = 1; /* the current piece opens with the quote at lit[start] */
    int rc = 0;
    while (rc == 0 && i < n - 1) {
        unsigned char c = (unsigned char)lit[i];
        if (c == '"' || c < 0x20 || c >= 0x7F) {
            rc = error_set(err, "%s: %s: byte 0x%02x at %zu must be escaped", what, key, c, i);
        } else if (c != '\\') {
            i++;
        } else if (lit[i + 1] != 'u') {
            i += 2; /* the piece's cJSON parse checks the escape */
        } else if (i + 6 > n - 1 || strspn(lit + i + 2, "0123456789abcdefABCDEF") < 4) {
            rc = error_set(err, "%s: %s: bad \\u escape at %zu", what, key, i);
        } else if (memcmp(lit + i + 2, "0000", 4) != 0) {
            i += 6;
        } else { /* \u0000: the piece so far ends here, the next begins after it */
            lit[i] = '"';
            rc = json_string_piece(what, key, lit + start, i + 1 - start, start, o, &k, err);
            o[k++] = 0;
            start = i + 5;
            lit[start] = '"';
            i += 6;
        }
    }
    if (rc == 0) rc = json_string_piece(what, key, lit + start, n - start, start, o, &k, err);
    free(lit);
    if (rc) {
        free(o);
        return -1;
    }
    o[k] = '\0'; /* k <= n - 2 < n */
    *out = o;
    *len = k;
    return 0;
}

/* ---- the groups of fields, each filling its part of fs (0, or -1 with err) ---------- */

/* Format version, software, model name and checksum. */
static int parse_origin(const PngTextChunks *t, const char *what, FigureState *fs, ErrorMsg *err) {
    const char *v;
    long long x;
    if (need(t, what, "inferscope:format", &v, err)) return -1;
    if (parse_long(what, "inferscope:format", v, 0, INT_MAX, &x, err)) return -1;
    if (x != FIGURE_META_FORMAT)
        return error_set(err, "%s: provenance format %lld, this inferscope reads format %d", what, x, FIGURE_META_FORMAT);
    if (get_text(t, what, "Software", fs->software, sizeof fs->software, err) ||
        get_text(t, what, "inferscope:model", fs->model, sizeof fs->model, err) ||
        get_text(t, what, "inferscope:model_sha256", fs->model_sha256, sizeof fs->model_sha256, err))
        return -1;
    if (strcmp(fs->model_sha256, "unknown") == 0) {
        fs->model_sha256[0] = '\0';
        return 0;
    }
    size_t n = strlen(fs->model_sha256);
    int ok = n == 64;
    for (size_t i = 0; ok && i < n; i++)
        ok = (fs->model_sha256[i] >= '0' && fs->model_sha256[i] <= '9') ||
             (fs->model_sha256[i] >= 'a' && fs->model_sha256[i] <= 'f');
    if (!ok) return error_set(err, "%s: inferscope:model_sha256: not 64 lowercase hex digits", what);
    return 0;
}

/* The prompt text, the token ids, the step/branch counts and the dice. */
static int parse_tokens(const PngTextChunks *t, const char *what, FigureState *fs, ErrorMsg *err) {
    const char *v;
    long long x;
    unsigned long *arr = NULL;
    size_t n_arr = 0;
    if (need(t, what, "inferscope:prompt", &v, err)) return -1;
    if (strlen(v) > 6 * (size_t)FIGURE_MAX_PROMPT + 2)
        return error_set(err, "%s: inferscope:prompt: longer than %u bytes", what, FIGURE_MAX_PROMPT);
    if (parse_json_string(what, "inferscope:prompt", v, &fs->prompt, &fs->prompt_len, err)) return -1;
    if (fs->prompt_len > FIGURE_MAX_PROMPT)
        return error_set(err, "%s: inferscope:prompt: longer than %u bytes", what, FIGURE_MAX_PROMPT);

    if (need(t, what, "inferscope:ids", &v, err) ||
        parse_uint_array(what, "inferscope:ids", v, INT_MAX, FIGURE_MAX_IDS, &arr, &n_arr, err))
        return -1;
    if (n_arr == 0) return error_set(err, "%s: inferscope:ids: no tokens", what);
    fs->ids = malloc(n_arr * sizeof *fs->ids);
    if (!fs->ids) {
        free(arr);
        return error_set(err, "%s: out of memory", what);
    }
    for (size_t i = 0; i < n_arr; i++) fs->ids[i] = (int)arr[i];
    fs->n_ids = n_arr;
    free(arr);
    arr = NULL;

    if (get_int(t, what, "inferscope:n_prompt", 1, (long)fs->n_ids, &fs->n_prompt, err) ||
        get_int(t, what, "inferscope:step", 0, FIGURE_MAX_IDS, &fs->step, err))
        return -1;
    if ((size_t)fs->step != fs->n_ids - (size_t)fs->n_prompt)
        return error_set(err, "%s: inferscope:step is %d but ids hold %zu generated tokens", what, fs->step,
                         fs->n_ids - (size_t)fs->n_prompt);
    if (get_int(t, what, "inferscope:n_branches", 1, SESSION_MAX_BRANCHES, &fs->n_branches, err) ||
        get_int(t, what, "inferscope:branch", 0, fs->n_branches - 1, &fs->branch, err))
        return -1;
    if (need(t, what, "inferscope:salts", &v, err) ||
        parse_uint_array(what, "inferscope:salts", v, UINT32_MAX, FIGURE_MAX_IDS, &arr, &n_arr, err))
        return -1;
    if (n_arr != (size_t)fs->step) {
        free(arr);
        return error_set(err, "%s: inferscope:salts has %zu entries for %d generated tokens", what, n_arr, fs->step);
    }
    if (n_arr) {
        fs->salts = malloc(n_arr * sizeof *fs->salts);
        if (!fs->salts) {
            free(arr);
            return error_set(err, "%s: out of memory", what);
        }
        for (size_t i = 0; i < n_arr; i++) fs->salts[i] = (uint32_t)arr[i];
    }
    free(arr);
    if (need(t, what, "inferscope:pending_salt", &v, err) ||
        parse_long(what, "inferscope:pending_salt", v, 0, (long long)UINT32_MAX, &x, err))
        return -1;
    fs->pending_salt = (uint32_t)x;
    const char *dv = png_text_find(t, "inferscope:draws"); /* optional: absent = none */
    if (dv) {
        if (parse_long(what, "inferscope:draws", dv, 1, SAMPLER_MAX_DRAWS, &x, err)) return -1;
        fs->draws = (int)x;
    }
    return 0;
}

/* What was drawn: panel, focus, layer/head, contact sheet, tensor and colour names. */
static int parse_drawn(const PngTextChunks *t, const char *what, FigureState *fs, ErrorMsg *err) {
    char name[32];
    int p;
    long long x;
    if (get_text(t, what, "inferscope:panel", name, sizeof name, err)) return -1;
    if ((p = viz_panel_from_name(name)) < 0)
        return error_set(err, "%s: inferscope:panel: unknown panel '%s'", what, name);
    fs->panel = (VizPanel)p;
    fs->view = frame_default_view();
    if (get_text(t, what, "inferscope:focus", name, sizeof name, err)) return -1;
    if ((p = viz_panel_from_name(name)) < 0)
        return error_set(err, "%s: inferscope:focus: unknown panel '%s'", what, name);
    fs->view.focus = (VizPanel)p;
    /* 4096 layers/heads is far beyond any GPT-2; the session checks the real model */
    if (get_int(t, what, "inferscope:layer", 0, 4095, &fs->view.layer, err) ||
        get_int(t, what, "inferscope:head", 0, 4095, &fs->view.head, err))
        return -1;
    if (get_text(t, what, "inferscope:contact_sheet", name, sizeof name, err)) return -1;
    fs->sheet_layer = -1;
    if (name[0]) {
        fs->contact_sheet = 1;
        if (strncmp(name, "layer ", 6) == 0) {
            if (parse_long(what, "inferscope:contact_sheet", name + 6, 0, 4095, &x, err)) return -1;
            fs->sheet_layer = (int)x;
        } else if (strcmp(name, "all layers") != 0) {
            return error_set(err, "%s: inferscope:contact_sheet: '%s' is not 'layer N' or 'all layers'", what, name);
        }
    }
    if (get_text(t, what, "inferscope:tensor", fs->tensor, sizeof fs->tensor, err) ||
        get_text(t, what, "inferscope:colormap", fs->colormap, sizeof fs->colormap, err) ||
        get_text(t, what, "inferscope:color_range", fs->color_range, sizeof fs->color_range, err))
        return -1;
    return 0;
}

/* The sampler settings: every settings-table row's key through the one settings parser
 * (the CLI's and the lessons' limits). A key the figure does not have is the row's
 * default, so rows added later do not refuse older figures; a value that does not
 * parse is refused, naming the key. */
static int read_settings(const PngTextChunks *t, const char *what, SamplerSettings *set, ErrorMsg *err) {
    *set = sampler_settings_default();
    size_t n;
    const SettingRow *rows = settings_table(&n);
    ErrorMsg e;
    for (size_t i = 0; i < n; i++) {
        const char *v = png_text_find(t, rows[i].figure_key);
        if (v && settings_parse(&rows[i], rows[i].figure_key, v, set, &e)) return error_set(err, "%s: %s", what, e.text);
    }
    if (sampler_settings_validate(set, &e)) return error_set(err, "%s: %s", what, e.text);
    return 0;
}

/* The sampler settings, the seed and the parts switched off. */
/* The form of an ablation list (gpt2_ablation_parse checks the numbers against the model
 * when the figure is applied): PART[,PART...], PART = BLOCK.HEAD | BLOCK.attn | BLOCK.mlp
 * with decimal BLOCK and HEAD. (fuzz_figure: '11' passed a character check here and
 * was then refused on apply.) */
static int ablate_list_form(const char *s) {
    for (;;) {
        size_t nb = strspn(s, "0123456789");
        if (nb == 0 || s[nb] != '.') return 0;
        s += nb + 1;
        size_t nh = strspn(s, "0123456789");
        if (nh) s += nh;
        else if (strncmp(s, "attn", 4) == 0) s += 4;
        else if (strncmp(s, "mlp", 3) == 0) s += 3;
        else return 0;
        if (*s == 0) return 1;
        if (*s++ != ',') return 0;
    }
}

static int parse_sampling(const PngTextChunks *t, const char *what, FigureState *fs, ErrorMsg *err) {
    const char *v;
    if (read_settings(t, what, &fs->settings, err)) return -1;
    if (need(t, what, "inferscope:seed", &v, err)) return -1;
    {
        NumError ne = parse_num_u64(v, &fs->seed);
        if (ne != NUM_OK) {
            char q[ERROR_QUOTE_CAP];
            return error_set(err, "%s: inferscope:seed: '%s' %s: not an unsigned 64-bit integer", what,
                             ERROR_QUOTE(q, v), parse_num_problem(ne));
        }
    }

    /* optional (only figures with parts switched off have it); its numbers are checked
     * against the model when applied, the form of every part here */
    if (png_text_find(t, "inferscope:ablate")) {
        if (get_text(t, what, "inferscope:ablate", fs->ablate, sizeof fs->ablate, err)) return -1;
        if (!ablate_list_form(fs->ablate))
            return error_set(err, "%s: inferscope:ablate: '%.40s' is not a list like 0.3,1.attn,2.mlp", what,
                             fs->ablate);
    }
    return 0;
}

/* How it looks: theme, scale, size and the view settings that change pixels. */
static int parse_look(const PngTextChunks *t, const char *what, FigureState *fs, ErrorMsg *err) {
    char name[32];
    if (get_text(t, what, "inferscope:theme", name, sizeof name, err)) return -1;
    if (theme_parse(name, &fs->theme))
        return error_set(err, "%s: inferscope:theme: unknown theme '%s' (light or dark)", what, name);
    if (get_int(t, what, "inferscope:scale", 1, 4, &fs->scale, err)) return -1;
    if (fs->scale == 3) return error_set(err, "%s: inferscope:scale: 3 is not 1, 2 or 4", what);
    if (get_float(t, what, "inferscope:ui_scale", VIZ_UI_SCALE_MIN, VIZ_UI_SCALE_MAX, &fs->ui_scale, err)) return -1;
    if (get_text(t, what, "inferscope:size", name, sizeof name, err)) return -1;
    {
        /* the one size reader; any figure we ever wrote reopens (tests write 8x8 ones) */
        char who[300];
        snprintf(who, sizeof who, "%s: inferscope:size", what);
        if (viz_size_parse(who, name, 1, 1, &fs->width, &fs->height, err)) return -1;
        if (fs->width * fs->scale > OFFSCREEN_MAX_SIDE || fs->height * fs->scale > OFFSCREEN_MAX_SIDE)
            return error_set(err, "%s: '%s' at scale %d is more than %d pixels a side", who, name, fs->scale,
                             OFFSCREEN_MAX_SIDE);
    }

    int np = (int)fs->n_ids;
    if (get_int(t, what, "inferscope:top_n", 1, SESSION_TOP_N, &fs->view.top_n, err) ||
        get_int(t, what, "inferscope:hide_sink", 0, 1, &fs->view.hide_sink, err) ||
        get_int(t, what, "inferscope:selected_token", -1, np - 1, &fs->view.selected_token, err) ||
        get_int(t, what, "inferscope:bpe_step", -1, FIGURE_MAX_IDS, &fs->view.bpe_step, err) ||
        get_int(t, what, "inferscope:hide_probs", 0, 1, &fs->view.hide_probs, err) ||
        get_int(t, what, "inferscope:highlight_panel", -1, VIZ_PANEL_COUNT - 1, &fs->view.highlight_panel, err) ||
        get_int(t, what, "inferscope:highlight_token", -1, np - 1, &fs->view.highlight_token, err) ||
        get_int(t, what, "inferscope:highlight_bar", 0, SESSION_TOP_N, &fs->view.highlight_bar, err))
        return -1;
    /* the query attention-math explains (figures from before it was recorded: the newest) */
    if (png_text_find(t, "inferscope:query") &&
        get_int(t, what, "inferscope:query", -1, np - 1, &fs->view.query, err))
        return -1;
    /* the heads the lines view draws (absent: view.head alone) */
    const char *hl = png_text_find(t, "inferscope:heads");
    if (hl) {
        fs->view.lines_heads = 0;
        for (const char *p = hl; *p;) {
            char *end = NULL;
            long h = strtol(p, &end, 10);
            if (end == p || h < 0 || h > 63 || (*end && *end != ','))
                return error_set(err, "%s: inferscope:heads: '%.40s' is not a list of heads like 0,2,5", what, hl);
            fs->view.lines_heads |= 1ULL << h;
            p = *end ? end + 1 : end;
        }
    }
    /* the attribution's contrast token (absent: none); checked against the vocabulary
     * when the figure is replayed (figure_state_apply, as ACT_ATTR_VS) */
    int vs = -1;
    if (png_text_find(t, "inferscope:attr_vs") && get_int(t, what, "inferscope:attr_vs", 0, 100000000, &vs, err))
        return -1;
    viz_view_set_attr_vs(&fs->view, vs);
    /* the probability axis (figures from before it was recorded: the automatic one) */
    const char *axis = png_text_find(t, "inferscope:prob_axis");
    if (axis && viz_axis_parse(axis, &fs->view.prob_axis, &fs->view.prob_axis_max) != 0)
        return error_set(err, "%s: inferscope:prob_axis: '%.40s' is not auto, log or linear N", what, axis);
    /* the Text panel's marks (figures from before they existed: plain) */
    const char *tmode = png_text_find(t, "inferscope:text_mode");
    int tm = tmode ? viz_text_mode_from_name(tmode) : VIZ_TEXT_PLAIN;
    if (tm < 0) return error_set(err, "%s: inferscope:text_mode: '%.40s' is not plain, surprisal or seen", what, tmode);
    fs->view.text_mode = (VizTextMode)tm;
    return 0;
}

/* Settings side by side (optional): inferscope:compare, a JSON array of 2..4 spec
 * strings each of which settings_spec_parse accepts, and inferscope:compare_n. */
static int parse_compare(const PngTextChunks *t, const char *what, FigureState *fs, ErrorMsg *err) {
    const char *v = png_text_find(t, "inferscope:compare");
    if (!v) return 0;
    if (strlen(v) > (SETTINGS_SPEC_MAX + 8) * SEQ_COMPARE_MAX_COLS)
        return error_set(err, "%s: inferscope:compare: %zu bytes is too long", what, strlen(v));
    const char *end = NULL;
    cJSON *arr = cJSON_ParseWithOpts(v, &end, 1);
    int n = cJSON_IsArray(arr) ? cJSON_GetArraySize(arr) : -1;
    if (n < SEQ_COMPARE_MIN_COLS || n > SEQ_COMPARE_MAX_COLS) {
        cJSON_Delete(arr);
        return error_set(err, "%s: inferscope:compare: not a JSON array of %d to %d specs", what, SEQ_COMPARE_MIN_COLS,
                         SEQ_COMPARE_MAX_COLS);
    }
    int k = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, arr) {
        SamplerSettings set;
        ErrorMsg e2;
        if (!cJSON_IsString(e) || strlen(e->valuestring) > SETTINGS_SPEC_MAX ||
            settings_spec_parse(e->valuestring, &set, &e2)) {
            cJSON_Delete(arr);
            if (!cJSON_IsString(e)) return error_set(err, "%s: inferscope:compare: item %d is not a string", what, k + 1);
            return error_set(err, "%s: inferscope:compare: %s", what, e2.text);
        }
        snprintf(fs->compare[k], sizeof fs->compare[k], "%s", e->valuestring);
        k++;
    }
    cJSON_Delete(arr);
    fs->n_compare = k;
    return get_int(t, what, "inferscope:compare_n", 1, SEQ_COMPARE_MAX_NEW, &fs->compare_n, err);
}

static int by_keyword(const void *a, const void *b) {
    return strcmp((*(const PngTextEntry *const *)a)->keyword, (*(const PngTextEntry *const *)b)->keyword);
}

/* A key of ours written twice: png_text_find would take the first and ignore the other,
 * so a figure edited by hand (or crafted) would reopen in a state it does not show. As
 * config.json and safetensors headers do, refuse it. Sorted, so a PNG with many chunks
 * costs n log n. Other keys (a "Comment" repeated) are the PNG's own business. */
static int refuse_duplicates(const PngTextChunks *t, const char *what, ErrorMsg *err) {
    if (t->count < 2) return 0;
    const PngTextEntry **sorted = malloc(t->count * sizeof *sorted);
    if (!sorted) return error_set(err, "%s: out of memory", what);
    for (size_t i = 0; i < t->count; i++) sorted[i] = &t->items[i];
    qsort(sorted, t->count, sizeof *sorted, by_keyword);
    int rc = 0;
    for (size_t i = 1; i < t->count && rc == 0; i++) {
        const char *k = sorted[i]->keyword;
        if (strcmp(k, sorted[i - 1]->keyword) == 0 && (strncmp(k, "inferscope:", 11) == 0 || strcmp(k, "Software") == 0)) {
            char shown[ERROR_QUOTE_CAP];
            rc = error_set(err, "%s: provenance key \"%.60s\" appears twice", what, ERROR_QUOTE(shown, k));
        }
    }
    free(sorted);
    return rc;
}

int figure_meta_parse(const PngTextChunks *t, const char *what, FigureState *out, ErrorMsg *err) {
    memset(out, 0, sizeof *out);
    out->settings = sampler_settings_default(); /* settings a figure does not record stay neutral */
    if (refuse_duplicates(t, what, err)) return -1;
    /* in this order: parse_look checks token positions against the ids parse_tokens read */
    if (parse_origin(t, what, out, err) || parse_tokens(t, what, out, err) || parse_drawn(t, what, out, err) ||
        parse_sampling(t, what, out, err) || parse_look(t, what, out, err) || parse_compare(t, what, out, err)) {
        figure_state_free(out);
        return -1;
    }
    return 0;
}

int figure_meta_read(const char *path, FigureState *out, ErrorMsg *err) {
    memset(out, 0, sizeof *out);
    PngTextChunks t = {0};
    /* a video's container metadata holds the same keys (video_meta_read.h); the PNG
     * reader opens it without blocking: a FIFO named like a figure cannot hang */
    if (video_meta_is_video(path) ? video_meta_read(path, &t, err) : png_read_text_chunks(path, &t, err)) return -1;
    int rc = figure_meta_parse(&t, path, out, err);
    if (rc == 0 && !out->contact_sheet &&
        (t.width != (uint32_t)(out->width * out->scale) || t.height != (uint32_t)(out->height * out->scale))) {
        /* a single figure is exactly size x scale pixels; a contact sheet grows */
        rc = error_set(err, "%s: image is %ux%u but its provenance says %dx%d at scale %d", path, t.width,
                       t.height, out->width, out->height, out->scale);
        figure_state_free(out);
    }
    png_text_chunks_free(&t);
    return rc;
}
