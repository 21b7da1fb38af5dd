/* class_http.c — routes, parsing and the state JSON of the class room (class_http.h).
 * Everything a student sends is bounded before it is looked at: the body by the server
 * (CLASS_MAX_BODY), each form field by CLASS_FIELD_MAX, texts by class_text_check. */
#include "class_http.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "class_score.h"
#include "json_escape.h"
#include "utf8.h"

static const char JSON_TYPE[] = "application/json; charset=utf-8";
static const char TEXT_TYPE[] = "text/plain; charset=utf-8";
static const char HTML_TYPE[] = "text/html; charset=utf-8";
/* everything but the page: nothing may load or run from it */
static const char CSP_NONE[] = "default-src 'none'; frame-ancestors 'none'";

void class_http_init(ClassHttp *h, ClassRoom *room, const ClassPage *page, int devices_per_addr,
                     ClassRandomFn random, void *random_ctx) {
    memset(h, 0, sizeof *h);
    h->room = room;
    h->page = page;
    h->random = random;
    h->random_ctx = random_ctx;
    class_limits_init(&h->limits, devices_per_addr);
}

void class_http_set_host(ClassHttp *h, const char *host) { snprintf(h->host, sizeof h->host, "%s", host ? host : ""); }

void class_http_response_free(ClassHttpResponse *rs) { strbuf_free(&rs->body); }

/* ---- parsing ---------------------------------------------------------------------- */

static int hex_value(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int class_http_cookie_device(const char *cookie, char out[CLASS_DEVICE_LEN + 1]) {
    out[0] = 0;
    if (!cookie) return 0;
    const size_t name_len = strlen(CLASS_COOKIE_NAME);
    /* cookies are "a=1; b=2": look at the start of each one */
    for (const char *p = cookie; *p;) {
        while (*p == ' ' || *p == ';') p++;
        const char *end = strchr(p, ';');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == name_len + 1 + CLASS_DEVICE_LEN && strncmp(p, CLASS_COOKIE_NAME, name_len) == 0 &&
            p[name_len] == '=') {
            const char *v = p + name_len + 1;
            int ok = 1;
            for (size_t i = 0; i < CLASS_DEVICE_LEN; i++) {
                int h = hex_value((unsigned char)v[i]);
                ok &= h >= 0 && !(v[i] >= 'A' && v[i] <= 'F');
            }
            if (ok) {
                memcpy(out, v, CLASS_DEVICE_LEN);
                out[CLASS_DEVICE_LEN] = 0;
                return 1;
            }
        }
        if (!end) break;
        p = end + 1;
    }
    return 0;
}

/* One field of a form: name, where its decoded value goes, and whether it came. */
typedef struct FormField {
    const char *name;
    uint8_t value[CLASS_FIELD_MAX];
    size_t len;
    int seen;
} FormField;

/* Percent-decodes s[0..n) ('+' is a space) into out (cap bytes). -1 on a bad escape or
 * when it does not fit. */
static long form_decode(const uint8_t *s, size_t n, uint8_t *out, size_t cap) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int c = s[i];
        if (c == '+') c = ' ';
        else if (c == '%') {
            if (i + 2 >= n) return -1;
            int hi = hex_value(s[i + 1]), lo = hex_value(s[i + 2]);
            if (hi < 0 || lo < 0) return -1;
            c = hi * 16 + lo;
            i += 2;
        }
        if (k == cap) return -1;
        out[k++] = (uint8_t)c;
    }
    return (long)k;
}

/* Parses an application/x-www-form-urlencoded body into fields[0..n_fields): every key
 * must be one of them, at most once. CLASS_OK, CLASS_ERR_BAD_FORM or TOO_LONG. */
static ClassError form_parse(const uint8_t *body, size_t n, FormField *fields, size_t n_fields) {
    for (size_t at = 0; at < n;) {
        const uint8_t *amp = memchr(body + at, '&', n - at);
        size_t end = amp ? (size_t)(amp - body) : n;
        const uint8_t *eq = memchr(body + at, '=', end - at);
        if (!eq) return CLASS_ERR_BAD_FORM;
        size_t key_len = (size_t)(eq - (body + at));
        FormField *f = NULL;
        for (size_t i = 0; i < n_fields; i++)
            if (strlen(fields[i].name) == key_len && memcmp(fields[i].name, body + at, key_len) == 0) f = &fields[i];
        if (!f || f->seen) return CLASS_ERR_BAD_FORM;
        size_t v0 = at + key_len + 1;
        /* a value longer than CLASS_FIELD_MAX encoded bytes may still decode into it */
        long k = form_decode(body + v0, end - v0, f->value, sizeof f->value);
        if (k < 0) return end - v0 > CLASS_FIELD_MAX ? CLASS_ERR_TOO_LONG : CLASS_ERR_BAD_FORM;
        f->len = (size_t)k;
        f->seen = 1;
        at = amp ? end + 1 : n;
    }
    return CLASS_OK;
}

/* The content type is a form (parameters such as "; charset=UTF-8" allowed). */
static int is_form(const char *ct) {
    static const char FORM[] = "application/x-www-form-urlencoded";
    if (!ct || strncasecmp(ct, FORM, sizeof FORM - 1) != 0) return 0;
    char next = ct[sizeof FORM - 1];
    return next == 0 || next == ';' || next == ' ';
}

/* ---- the state JSON --------------------------------------------------------------- */

/* Bytes as a JSON string a browser shows as they are: valid UTF-8 passes through, and
 * each byte that is not (half an emoji: GPT-2 splits characters into byte tokens) is
 * written as the four characters \xNN, so the student sees which bytes the token holds
 * instead of a lone surrogate or U+FFFD. */
static void json_bytes(StrBuf *b, const uint8_t *s, size_t n) {
    StrBuf shown = {0};
    for (size_t i = 0; i < n;) {
        size_t k = utf8_decode_one(s + i, n - i, NULL);
        if (k) {
            strbuf_add(&shown, s + i, k);
            i += k;
        } else {
            strbuf_addf(&shown, "\\x%02X", s[i]);
            i++;
        }
    }
    if (shown.oom) b->oom = 1;
    json_escape(b, (const uint8_t *)(shown.data ? shown.data : ""), shown.len, JSON_ESCAPE_UTF8);
    strbuf_free(&shown);
}

static void json_token(StrBuf *b, const Tokenizer *t, int id) {
    size_t n = 0;
    const uint8_t *p = id >= 0 ? tok_token_bytes(t, id, &n) : NULL;
    json_bytes(b, p ? p : (const uint8_t *)"", p ? n : 0);
}

static const char *const PHASE_NAME[] = {"waiting", "open", "revealed"};

void class_http_state_json(const ClassRoom *r, int student, StrBuf *b) {
    strbuf_addf(b, "{\"joined\": %s, \"locked\": %s, \"full\": %s, \"max_students\": %d, \"students\": %d",
                student >= 0 ? "true" : "false", r->locked ? "true" : "false",
                r->n_students >= r->max_students ? "true" : "false", r->max_students, r->n_students);
    if (student < 0) {
        strbuf_adds(b, "}");
        return;
    }
    const ClassRound *c = class_room_current(r);
    strbuf_addf(b, ", \"game\": \"%s\", \"round\": %d, \"phase\": \"%s\", \"answered\": %d, \"nick\": ",
                c && c->game == CLASS_GAME_MODEL ? "model" : "text", r->n_rounds, PHASE_NAME[r->phase],
                c ? c->n_guesses : 0);
    json_bytes(b, (const uint8_t *)r->students[student].nick, strlen(r->students[student].nick));
    strbuf_adds(b, ", \"text\": ");
    json_bytes(b, r->context, r->context_len);
    const ClassGuess *g = class_room_guess_of(r, student);
    strbuf_adds(b, ", \"guess\": ");
    if (g) {
        strbuf_adds(b, "{\"text\": ");
        json_bytes(b, g->g.text, g->g.len);
        strbuf_addf(b, ", \"token\": %d, \"tokens\": %d, \"piece\": ", (int)g->g.token, g->g.n_tokens);
        json_token(b, r->tok, g->g.token);
        strbuf_adds(b, ", \"piece2\": ");
        json_token(b, r->tok, g->g.second);
        strbuf_adds(b, "}");
    } else {
        strbuf_adds(b, "null");
    }
    /* the truth only once it is revealed: before, nothing in the answer depends on it */
    if (c && r->phase == CLASS_PHASE_REVEALED) {
        int right = 0;
        for (int i = 0; i < c->n_guesses; i++) right += c->guesses[i].g.token == c->truth;
        strbuf_addf(b, ", \"truth\": {\"token\": %d, \"piece\": ", c->truth);
        json_token(b, r->tok, c->truth);
        strbuf_addf(b, ", \"model_p\": %.4f}, \"right\": %s, \"right_count\": %d", c->model_p,
                    g && g->g.token == c->truth ? "true" : "false", right);
    } else {
        strbuf_adds(b, ", \"truth\": null, \"right\": null, \"right_count\": null");
    }
    strbuf_adds(b, "}");
}

/* ---- answers ---------------------------------------------------------------------- */

/* The HTTP status of a refusal. */
static int error_status(ClassError e) {
    switch (e) {
    case CLASS_OK: return 200;
    case CLASS_ERR_CODE: case CLASS_ERR_LOCKED: case CLASS_ERR_FULL: case CLASS_ERR_NOT_JOINED: return 403;
    case CLASS_ERR_NOT_OPEN: case CLASS_ERR_ALREADY: return 409;
    case CLASS_ERR_RATE: case CLASS_ERR_DEVICES: case CLASS_ERR_CODE_TRIES: return 429;
    case CLASS_ERR_NOMEM: return 503;
    default: return 400;
    }
}

/* {"ok": true, "state": ...} or {"error": "...", "state": ...}; state only for a device
 * that has joined (student >= 0) or may see the lobby (student -1). */
static void answer(ClassHttp *h, ClassHttpResponse *rs, ClassError e, int student, int with_state) {
    rs->status = error_status(e);
    rs->content_type = JSON_TYPE;
    if (e == CLASS_OK) strbuf_adds(&rs->body, "{\"ok\": true");
    else {
        strbuf_adds(&rs->body, "{\"error\": ");
        const char *t = class_error_text(e);
        json_bytes(&rs->body, (const uint8_t *)t, strlen(t));
    }
    if (with_state) {
        strbuf_adds(&rs->body, ", \"state\": ");
        class_http_state_json(h->room, student, &rs->body);
    }
    strbuf_adds(&rs->body, "}\n");
}

static void answer_plain(ClassHttpResponse *rs, int status, const char *text) {
    rs->status = status;
    rs->content_type = TEXT_TYPE;
    strbuf_adds(&rs->body, text);
}

static void new_device(ClassHttp *h, char out[CLASS_DEVICE_LEN + 1]) {
    uint8_t raw[CLASS_DEVICE_LEN / 2];
    h->random(h->random_ctx, raw, sizeof raw);
    static const char HEX[] = "0123456789abcdef";
    for (size_t i = 0; i < sizeof raw; i++) {
        out[2 * i] = HEX[raw[i] >> 4];
        out[2 * i + 1] = HEX[raw[i] & 15];
    }
    out[CLASS_DEVICE_LEN] = 0;
}

static void handle_join(ClassHttp *h, const ClassHttpRequest *rq, ClassHttpResponse *rs, ClassAddrSlot *slot,
                        int student) {
    FormField f[2] = {{.name = "code"}, {.name = "name"}};
    ClassError e = form_parse(rq->body, rq->body_len, f, 2);
    if (e != CLASS_OK) {
        answer(h, rs, e, student, 0);
        return;
    }
    if (!class_limits_code_allowed(slot, rq->now)) {
        answer(h, rs, CLASS_ERR_CODE_TRIES, student, 0);
        return;
    }
    char device[CLASS_DEVICE_LEN + 1];
    int is_new = student < 0;
    if (is_new) {
        if (slot->devices >= h->limits.devices_per_addr) {
            answer(h, rs, CLASS_ERR_DEVICES, student, 0);
            return;
        }
        new_device(h, device);
    } else {
        memcpy(device, h->room->students[student].device, sizeof device);
    }
    int k = -1;
    e = class_room_join(h->room, device, f[0].value, f[0].len, f[1].value, f[1].len, &k);
    if (e == CLASS_ERR_CODE) class_limits_code_wrong(slot, rq->now);
    if (e == CLASS_OK && is_new) {
        slot->devices++;
        snprintf(rs->set_cookie, sizeof rs->set_cookie, "%s=%s; Path=/; Max-Age=%d; HttpOnly; SameSite=Strict",
                 CLASS_COOKIE_NAME, device, CLASS_COOKIE_MAX_AGE);
    }
    answer(h, rs, e, e == CLASS_OK ? k : student, 1);
}

static void handle_guess(ClassHttp *h, const ClassHttpRequest *rq, ClassHttpResponse *rs, int student) {
    if (student < 0) {
        answer(h, rs, CLASS_ERR_NOT_JOINED, -1, 1);
        return;
    }
    FormField f[1] = {{.name = "text"}};
    ClassError e = form_parse(rq->body, rq->body_len, f, 1);
    if (e == CLASS_OK && !f[0].seen) e = CLASS_ERR_EMPTY;
    if (e == CLASS_OK)
        e = class_room_guess(h->room, h->room->students[student].device, f[0].value, f[0].len, NULL);
    answer(h, rs, e, student, 1);
}

void class_http_handle(ClassHttp *h, const ClassHttpRequest *rq, ClassHttpResponse *rs) {
    memset(rs, 0, sizeof *rs);
    rs->csp = CSP_NONE;
    h->n_requests++;
    ClassAddrSlot *slot = class_limits_slot(&h->limits, rq->addr, rq->now);
    const char *url = rq->url ? rq->url : "";
    const char *method = rq->method ? rq->method : "";
    size_t path_len = strcspn(url, "?");
    int get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
    int post = strcmp(method, "POST") == 0;
    enum { R_NONE, R_PAGE, R_STATE, R_JOIN, R_GUESS } route = R_NONE;
    if (path_len == 1 && url[0] == '/') route = R_PAGE;
    else if (path_len == 6 && strncmp(url, "/state", 6) == 0) route = R_STATE;
    else if (path_len == 5 && strncmp(url, "/join", 5) == 0) route = R_JOIN;
    else if (path_len == 6 && strncmp(url, "/guess", 6) == 0) route = R_GUESS;

    if (!class_limits_take(slot, rq->now)) answer(h, rs, CLASS_ERR_RATE, -1, 0);
    else if (h->host[0] && (!rq->host || strcasecmp(rq->host, h->host) != 0)) answer_plain(rs, 400, "wrong host\n");
    else if (route == R_NONE) answer_plain(rs, 404, "not found\n");
    else if ((route == R_PAGE || route == R_STATE) ? !get : !post) answer_plain(rs, 405, "method not allowed\n");
    else if (post && rq->body_too_large) answer_plain(rs, 413, "request body too large\n");
    else if (post && !is_form(rq->content_type)) answer_plain(rs, 415, "send a form (application/x-www-form-urlencoded)\n");
    else {
        char device[CLASS_DEVICE_LEN + 1];
        int student = class_http_cookie_device(rq->cookie, device) ? class_room_find(h->room, device) : -1;
        switch (route) {
        case R_PAGE:
            rs->status = 200;
            rs->content_type = HTML_TYPE;
            rs->page = h->page ? h->page->html : "";
            rs->page_len = h->page ? h->page->len : 0;
            rs->csp = h->page ? h->page->csp : CSP_NONE;
            break;
        case R_STATE:
            rs->status = 200;
            rs->content_type = JSON_TYPE;
            class_http_state_json(h->room, student, &rs->body);
            strbuf_adds(&rs->body, "\n");
            break;
        case R_JOIN: handle_join(h, rq, rs, slot, student); break;
        default: handle_guess(h, rq, rs, student); break;
        }
    }
    if (rs->body.oom) {
        strbuf_free(&rs->body);
        answer_plain(rs, 503, "out of memory\n");
    }
    if (rs->status >= 400) h->n_refused++;
}
