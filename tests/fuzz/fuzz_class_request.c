/* fuzz_class_request.c — libFuzzer harness for the class room's request handler
 * (src/class/class_http.c): every byte a student's device can send — method, path, Cookie
 * and Content-Type headers, the client address and the form body — against a room in
 * one of several states. Input: byte 0 = the room's state and repeats (bit 0 a round is
 * open, bit 1 it is revealed, bit 2 the room is locked, bit 3 the request carries the
 * cookie of a joined device, bit 4 another device guessed already, bits 5-6 the request
 * is sent 1-4 times), then method NUL url NUL cookie NUL content-type NUL address NUL body.
 * Oracles: the status is one of the handler's; 404 is exactly "not found"; the page only
 * for GET or HEAD of "/"; every JSON answer parses (cJSON); the truth appears only after
 * the reveal; a cookie is set only by a successful /join; the room keeps its invariants
 * (students <= max, at most one guess per student per round, tokens in the vocabulary,
 * nicknames that pass the text rules). */
#include "fuzz.h"

#include <cJSON.h>

#include "class_http.h"

static const char *const DEV1 = "00000000000000000000000000000001";
static const char *const DEV2 = "00000000000000000000000000000002";

static void counter_random(void *ctx, uint8_t *out, size_t n) {
    unsigned *k = ctx;
    memset(out, 0xab, n);
    memcpy(out, k, sizeof *k < n ? sizeof *k : n);
    ++*k;
}

/* The next NUL-terminated field of data[*at..size) copied into out (cap bytes). */
static const char *field(const uint8_t *data, size_t size, size_t *at, char *out, size_t cap, int null_if_empty) {
    size_t n = 0;
    while (*at < size && data[*at] != 0) {
        if (n + 1 < cap) out[n++] = (char)data[*at];
        (*at)++;
    }
    if (*at < size) (*at)++; /* the NUL */
    out[n] = 0;
    return null_if_empty && n == 0 ? NULL : out;
}

static void check_room(const ClassRoom *r) {
    FUZZ_ASSERT(r->n_students >= 0 && r->n_students <= r->max_students, "students %d", r->n_students);
    for (int i = 0; i < r->n_students; i++) {
        size_t n = strlen(r->students[i].nick);
        FUZZ_ASSERT(n == 0 || class_text_check((const uint8_t *)r->students[i].nick, n) == CLASS_OK,
                    "a nickname that breaks the text rules");
    }
    const ClassRound *c = class_room_current(r);
    if (!c) return;
    FUZZ_ASSERT(c->n_guesses <= r->n_students, "%d guesses from %d students", c->n_guesses, r->n_students);
    for (int i = 0; i < c->n_guesses; i++) {
        FUZZ_ASSERT(c->guesses[i].g.token >= 0 && (size_t)c->guesses[i].g.token < r->n_vocab, "token");
        for (int j = 0; j < i; j++)
            FUZZ_ASSERT(c->guesses[i].student != c->guesses[j].student, "a student guessed twice in one round");
    }
}

/* Returns 1 when the (last) request was answered 200, else 0. */
static int fuzz_class_request_one(const uint8_t *data, size_t size) {
    static Tokenizer tok;
    static ClassPage page;
    static ClassHttp http;
    static int ready;
    if (!ready) {
        ErrorMsg err;
        FUZZ_ASSERT(tok_load(&tok, fuzz_tokenizer_dir(), &err) == 0, "tokenizer: %s", err.text);
        FUZZ_ASSERT(class_page_build(&page, &err) == 0, "page: %s", err.text);
        ready = 1;
    }
    if (size == 0) return 0;
    uint8_t flags = data[0];
    size_t at = 1;
    char method[64], url[512], cookie[512], ctype[256], addr[CLASS_ADDR_MAX + 16];
    const char *m = field(data, size, &at, method, sizeof method, 1);
    const char *u = field(data, size, &at, url, sizeof url, 0);
    const char *ck = field(data, size, &at, cookie, sizeof cookie, 1);
    const char *ct = field(data, size, &at, ctype, sizeof ctype, 1);
    const char *ad = field(data, size, &at, addr, sizeof addr, 1);
    const uint8_t *body = data + at;
    size_t body_len = size - at;
    char dev_cookie[128];
    if (flags & 8) {
        snprintf(dev_cookie, sizeof dev_cookie, "%s%s" CLASS_COOKIE_NAME "=%s", ck ? ck : "", ck ? "; " : "", DEV1);
        ck = dev_cookie;
    }

    /* a fresh room in the state byte 0 asks for */
    ClassRoom room;
    ErrorMsg err;
    unsigned counter = 0;
    FUZZ_ASSERT(class_room_init(&room, &tok, tok.n_vocab, "1234", 4, &err) == 0, "room: %s", err.text);
    class_http_init(&http, &room, &page, 2, counter_random, &counter);
    int k;
    FUZZ_ASSERT(class_room_join(&room, DEV1, (const uint8_t *)"1234", 4, (const uint8_t *)"Ada", 3, &k) == CLASS_OK, "join");
    FUZZ_ASSERT(class_room_join(&room, DEV2, (const uint8_t *)"1234", 4, NULL, 0, &k) == CLASS_OK, "join 2");
    if (flags & 1) {
        FUZZ_ASSERT(class_room_open(&room, CLASS_GAME_TEXT, 4, (const uint8_t *)"Once upon a time", 16, &err) == 0, "open");
        if (flags & 16) FUZZ_ASSERT(class_room_guess(&room, DEV2, (const uint8_t *)",", 1, NULL) == CLASS_OK, "guess");
        if (flags & 2) FUZZ_ASSERT(class_room_reveal(&room, 11, 0.786, 11, &err) == 0, "reveal");
    }
    class_room_lock(&room, (flags & 4) != 0);

    int repeats = 1 + ((flags >> 5) & 3), status = 0;
    for (int rep = 0; rep < repeats; rep++) {
        ClassHttpRequest rq = {.method = m, .url = u, .cookie = ck, .content_type = ct, .body = body,
                               .body_len = body_len > CLASS_MAX_BODY ? CLASS_MAX_BODY : body_len,
                               .body_too_large = body_len > CLASS_MAX_BODY, .addr = ad, .now = 1.0 + rep};
        ClassHttpResponse rs;
        class_http_handle(&http, &rq, &rs);
        status = rs.status;
        static const int OK_STATUS[] = {200, 400, 403, 404, 405, 409, 413, 415, 429, 503};
        int known = 0;
        for (size_t i = 0; i < sizeof OK_STATUS / sizeof *OK_STATUS; i++) known |= status == OK_STATUS[i];
        FUZZ_ASSERT(known, "status %d", status);
        FUZZ_ASSERT(rs.content_type != NULL && rs.csp != NULL, "no content type or policy");
        int is_get = m && (!strcmp(m, "GET") || !strcmp(m, "HEAD"));
        int root = u && (u[0] == '/' && (u[1] == 0 || u[1] == '?'));
        if (rs.page) FUZZ_ASSERT(is_get && root && status == 200, "the page for %s %s", m ? m : "-", u);
        if (status == 404) FUZZ_ASSERT(rs.body.data && !strcmp(rs.body.data, "not found\n"), "404 body");
        if (rs.set_cookie[0])
            FUZZ_ASSERT(status == 200 && u && !strncmp(u, "/join", 5), "a cookie set by %d %s", status, u);
        if (!strncmp(rs.content_type, "application/json", 16)) {
            FUZZ_ASSERT(rs.body.len < 16384, "a JSON answer of %zu bytes", rs.body.len);
            cJSON *j = cJSON_ParseWithLength(rs.body.data, rs.body.len);
            FUZZ_ASSERT(j != NULL, "an answer that is not JSON: %.200s", rs.body.data);
            cJSON *st = cJSON_GetObjectItem(j, "state");
            if (!st && cJSON_GetObjectItem(j, "joined")) st = j;
            cJSON *truth = st ? cJSON_GetObjectItem(st, "truth") : NULL;
            if (truth && room.phase != CLASS_PHASE_REVEALED)
                FUZZ_ASSERT(cJSON_IsNull(truth), "the truth before the reveal");
            cJSON_Delete(j);
        }
        class_http_response_free(&rs);
        check_room(&room);
    }
    class_room_free(&room);
    return status == 200;
}

FUZZ_ENTRY(fuzz_class_request_one)
