/* class_results_read.c — class_results_read.h: the writer's format (class_results.c)
 * field by field, nothing else taken on trust. */
#include "class_results_read.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file_read.h"
#include "json_whole.h"

/* Where a field was looked for, for the error: "rounds[3].model.p". */
typedef struct Where {
    const char *path;
    char at[32];     /* "rounds[3]", "score" or "" */
    const char *sub; /* "model", "class" or NULL */
} Where;

static int bad(const Where *w, const char *field, const char *what, ErrorMsg *err) {
    return error_set(err, "%.300s: %s%s%s%s%s: %s (not a class-rounds file of inferscope?)", w->path, w->at,
                     w->sub ? "." : "", w->sub ? w->sub : "", w->at[0] ? "." : "", field, what);
}

static int get_int(const cJSON *o, const char *field, long lo, long hi, long *out, const Where *w, ErrorMsg *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, field);
    if (!cJSON_IsNumber(v)) return bad(w, field, "missing or not a number", err);
    double d = v->valuedouble;
    if (!(d >= (double)lo && d <= (double)hi) || d != floor(d)) {
        char what[96];
        snprintf(what, sizeof what, "not a whole number in [%ld, %ld]", lo, hi);
        return bad(w, field, what, err);
    }
    *out = (long)d;
    return 0;
}

static int get_real(const cJSON *o, const char *field, double lo, double hi, double *out, const Where *w,
                    ErrorMsg *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, field);
    if (!cJSON_IsNumber(v)) return bad(w, field, "missing or not a number", err);
    if (!(v->valuedouble >= lo && v->valuedouble <= hi)) {
        char what[96];
        snprintf(what, sizeof what, "outside [%g, %g]", lo, hi);
        return bad(w, field, what, err);
    }
    *out = v->valuedouble;
    return 0;
}

/* A token as the writer puts it: {"id": N, "text": "..."}; its text copied. */
static int get_token(const cJSON *o, const char *field, char **out, const Where *w, ErrorMsg *err) {
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, field);
    const cJSON *text = cJSON_IsObject(t) ? cJSON_GetObjectItemCaseSensitive(t, "text") : NULL;
    if (!cJSON_IsString(text)) return bad(w, field, "missing or not a token {\"id\", \"text\"}", err);
    size_t n = strlen(text->valuestring);
    if (n > CLASS_RESULTS_MAX_TOKEN) return bad(w, field, "a token text longer than 256 bytes", err);
    *out = malloc(n + 1);
    if (!*out) return error_set(err, "%.300s: out of memory", w->path);
    memcpy(*out, text->valuestring, n + 1);
    return 0;
}

static int read_round(const cJSON *o, ClassResultRound *r, const Where *w, ErrorMsg *err) {
    long v;
    if (!cJSON_IsObject(o)) return bad(w, "", "not an object", err);
    if (get_int(o, "round", 1, CLASS_RESULTS_MAX_ROUNDS, &v, w, err)) return -1;
    r->round = (int)v;
    if (get_int(o, "guesses", 0, 1000000, &v, w, err)) return -1;
    r->guesses = (int)v;
    const cJSON *game = cJSON_GetObjectItemCaseSensitive(o, "game");
    if (!cJSON_IsString(game) || (strcmp(game->valuestring, "text") && strcmp(game->valuestring, "model")))
        return bad(w, "game", "not \"text\" or \"model\"", err);
    r->model_game = strcmp(game->valuestring, "model") == 0;
    const cJSON *truth = cJSON_GetObjectItemCaseSensitive(o, "truth");
    if (!cJSON_IsNull(truth) && get_token(o, "truth", &r->truth, w, err)) return -1;
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "model");
    if (m && r->truth) {
        Where wm = *w;
        wm.sub = "model";
        if (get_real(m, "p", 0, 1, &r->model_p, &wm, err) || get_token(m, "top", &r->model_top, &wm, err) ||
            get_int(m, "hit", 0, 1, &v, &wm, err))
            return -1;
        r->model_hit = (int)v;
        r->has_model = 1;
    }
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(o, "class");
    if (c && r->truth) {
        Where wc = *w;
        wc.sub = "class";
        if (get_int(c, "right", 0, r->guesses, &v, &wc, err) || get_real(c, "top1", 0, 1, &r->class_top1, &wc, err) ||
            get_real(c, "bits", 0, 64, &r->class_bits, &wc, err))
            return -1;
        r->right = (int)v;
        r->scored = 1;
    }
    return 0;
}

static int read_all(const cJSON *root, ClassResults *out, const Where *top, ErrorMsg *err) {
    if (!cJSON_IsObject(root)) return bad(top, "", "not a JSON object", err);
    const cJSON *sm = cJSON_GetObjectItemCaseSensitive(root, "smoothing");
    if (!cJSON_IsString(sm) || strlen(sm->valuestring) > 200) return bad(top, "smoothing", "missing or too long", err);
    out->smoothing = malloc(strlen(sm->valuestring) + 1);
    if (!out->smoothing) return error_set(err, "%.300s: out of memory", top->path);
    strcpy(out->smoothing, sm->valuestring);
    const cJSON *rounds = cJSON_GetObjectItemCaseSensitive(root, "rounds");
    if (!cJSON_IsArray(rounds)) return bad(top, "rounds", "missing or not a list", err);
    int n = cJSON_GetArraySize(rounds);
    if (n > CLASS_RESULTS_MAX_ROUNDS) return bad(top, "rounds", "more than 10,000 rounds", err);
    out->round = calloc((size_t)n + 1, sizeof *out->round);
    if (!out->round) return error_set(err, "%.300s: out of memory", top->path);
    const cJSON *o;
    cJSON_ArrayForEach(o, rounds) {
        Where w = *top;
        snprintf(w.at, sizeof w.at, "rounds[%d]", out->n);
        if (read_round(o, &out->round[out->n++], &w, err)) return -1;
    }
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(root, "score");
    Where ws = *top;
    snprintf(ws.at, sizeof ws.at, "score");
    long v;
    if (!cJSON_IsObject(s)) return bad(top, "score", "missing or not an object", err);
    if (get_int(s, "rounds", 0, n, &v, &ws, err)) return -1;
    out->rounds = (int)v;
    if (get_int(s, "guesses", 0, 1000000000L, &out->guesses, &ws, err) ||
        get_int(s, "right", 0, out->guesses, &out->right, &ws, err) ||
        get_real(s, "class_top1", 0, 1, &out->class_top1, &ws, err) ||
        get_real(s, "class_bits", 0, 64, &out->class_bits, &ws, err) ||
        get_real(s, "model_top1", 0, 1, &out->model_top1, &ws, err) ||
        get_real(s, "model_bits", 0, 64, &out->model_bits, &ws, err))
        return -1;
    return 0;
}

int class_results_read(const char *path, ClassResults *out, ErrorMsg *err) {
    memset(out, 0, sizeof *out);
    uint8_t *data = NULL;
    size_t len = 0;
    if (file_read_all(path, CLASS_RESULTS_MAX_BYTES, &data, &len, err)) return -1;
    cJSON *root = json_parse_whole((const char *)data, len, path, err);
    free(data);
    if (!root) return -1;
    Where top = {.path = path, .at = "", .sub = NULL};
    int rc = read_all(root, out, &top, err);
    cJSON_Delete(root);
    if (rc) class_results_free(out);
    return rc;
}

void class_results_free(ClassResults *r) {
    if (!r) return;
    for (int i = 0; r->round && i < r->n; i++) {
        free(r->round[i].truth);
        free(r->round[i].model_top);
    }
    free(r->round);
    free(r->smoothing);
    memset(r, 0, sizeof *r);
}
