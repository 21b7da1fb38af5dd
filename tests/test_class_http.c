/* test_class_http.c — the class room's request handler without sockets (class_http.c):
 * exactly four routes and nothing else, methods, content types and body limits, the device
 * cookie, the room code and its tries, one guess per device per round, the per-address
 * limits, the truth hidden until the reveal, and escaping of what students typed. Every
 * state answer is parsed back with cJSON. */
#include <string.h>

#include <cJSON.h>

#include "check.h"
#include "class_http.h"

static ClassRoom room;
static ClassPage page;
static ClassHttp http;
static double clock_s = 1000.0;

/* device tokens from a counter: the test knows them */
static void counter_random(void *ctx, uint8_t *out, size_t n) {
    unsigned *k = ctx;
    memset(out, 0, n);
    out[n - 1] = (uint8_t)++*k;
}

typedef struct Reply {
    int status;
    char body[8192];
    char cookie[128];
    const char *page;
    const char *csp;
} Reply;

static Reply req(const char *method, const char *url, const char *cookie, const char *ctype, const char *body,
                 const char *addr) {
    ClassHttpRequest rq = {.method = method, .url = url, .cookie = cookie, .content_type = ctype,
                           .body = (const uint8_t *)body, .body_len = body ? strlen(body) : 0,
                           .addr = addr, .now = clock_s};
    ClassHttpResponse rs;
    class_http_handle(&http, &rq, &rs);
    Reply r = {.status = rs.status, .page = rs.page, .csp = rs.csp};
    snprintf(r.body, sizeof r.body, "%s", rs.body.data ? rs.body.data : "");
    snprintf(r.cookie, sizeof r.cookie, "%s", rs.set_cookie);
    class_http_response_free(&rs);
    clock_s += 0.5; /* requests half a second apart: within every rate */
    return r;
}

#define FORM "application/x-www-form-urlencoded"
static Reply post(const char *url, const char *cookie, const char *body, const char *addr) {
    return req("POST", url, cookie, FORM, body, addr);
}

/* "inferscope_device=HEX" of a Set-Cookie value */
static void cookie_of(const Reply *r, char *out, size_t cap) {
    snprintf(out, cap, "%.*s", (int)strcspn(r->cookie, ";"), r->cookie);
}

/* the "state" object of a reply (or the reply itself); NULL if not JSON */
static cJSON *state_of(const Reply *r, cJSON **root) {
    *root = cJSON_Parse(r->body);
    if (!*root) return NULL;
    cJSON *s = cJSON_GetObjectItem(*root, "state");
    return s ? s : *root;
}

static void test_routes(void) {
    Reply r = req("GET", "/", NULL, NULL, NULL, "10.0.0.1");
    CHECK(r.status == 200 && r.page && strstr(r.page, "<title>Guess the next word") && strstr(r.page, "poll();"),
          "GET / is the page with its script inline (%d)", r.status);
    CHECK(r.csp && strstr(r.csp, "default-src 'none'") && strstr(r.csp, "script-src 'sha256-"), "the page's CSP: %s",
          r.csp ? r.csp : "(none)");
    CHECK(strstr(r.page, "innerHTML") == NULL && strstr(r.page, "http://") == NULL && strstr(r.page, "https://") == NULL,
          "the page writes no markup from data and loads nothing from elsewhere");
    CHECK(req("HEAD", "/", NULL, NULL, NULL, "10.0.0.1").status == 200, "HEAD /");
    CHECK(req("GET", "/?x=1", NULL, NULL, NULL, "10.0.0.1").status == 200, "a query is ignored");
    const char *not_served[] = {"/../../etc/passwd", "/model.safetensors", "/assets/models/stories16m/config.json",
                                "/index.html", "//", "/state/", "/STATE", "", "/%2e%2e/etc/passwd", "/favicon.ico",
                                "/join/../state", "/lessons/"};
    for (size_t i = 0; i < sizeof not_served / sizeof *not_served; i++) {
        r = req("GET", not_served[i], NULL, NULL, NULL, "10.0.0.1");
        CHECK(r.status == 404 && strcmp(r.body, "not found\n") == 0 && !r.page, "GET %s is 404 (%d)", not_served[i],
              r.status);
    }
    CHECK(req("POST", "/", NULL, FORM, "", "10.0.0.1").status == 405, "POST / is 405");
    CHECK(req("GET", "/join", NULL, NULL, NULL, "10.0.0.1").status == 405, "GET /join is 405");
    CHECK(req("PUT", "/guess", NULL, FORM, "text=a", "10.0.0.1").status == 405, "PUT /guess is 405");
    CHECK(req("DELETE", "/state", NULL, NULL, NULL, "10.0.0.1").status == 405, "DELETE /state");
    CHECK(req(NULL, NULL, NULL, NULL, NULL, NULL).status == 404, "nothing at all: 404, no crash");
    CHECK(req("POST", "/join", NULL, "application/json", "{\"code\":\"1234\"}", "10.0.0.1").status == 415,
          "JSON bodies are not taken (415)");
    CHECK(req("POST", "/join", NULL, NULL, "code=1234", "10.0.0.1").status == 415, "no content type: 415");
    CHECK(req("POST", "/join", NULL, FORM "; charset=UTF-8", "code=0000", "10.0.0.1").status == 403,
          "a form with a charset is a form (wrong code: 403)");
    ClassHttpRequest big = {.method = "POST", .url = "/join", .content_type = FORM, .body = (const uint8_t *)"code=1",
                            .body_len = 6, .body_too_large = 1, .addr = "10.0.0.1", .now = clock_s};
    ClassHttpResponse rs;
    class_http_handle(&http, &big, &rs);
    CHECK(rs.status == 413, "a body past the limit is 413 (%d)", rs.status);
    class_http_response_free(&rs);
}

static void test_join_and_guess(void) {
    cJSON *root;
    Reply r = req("GET", "/state", NULL, NULL, NULL, "10.0.0.2");
    cJSON *s = state_of(&r, &root);
    CHECK(r.status == 200 && s && cJSON_IsFalse(cJSON_GetObjectItem(s, "joined")) && !cJSON_GetObjectItem(s, "text"),
          "not joined: the lobby only, not the text: %s", r.body);
    cJSON_Delete(root);

    /* form refusals */
    CHECK(post("/join", NULL, "code=1234&code=1234", "10.0.0.2").status == 400, "a field twice");
    CHECK(post("/join", NULL, "code=1234&admin=1", "10.0.0.2").status == 400, "an unknown field");
    CHECK(post("/join", NULL, "code", "10.0.0.2").status == 400, "a field without =");
    CHECK(post("/join", NULL, "code=12%zz", "10.0.0.2").status == 400, "a bad escape");
    CHECK(post("/join", NULL, "code=12%3", "10.0.0.2").status == 400, "a cut escape");
    CHECK(post("/join", NULL, "", "10.0.0.2").status == 403, "no code");

    r = post("/join", NULL, "code=1234&name=%3Cb%3E%22Ada%22%5C", "10.0.0.2");
    CHECK(r.status == 200 && strncmp(r.cookie, CLASS_COOKIE_NAME "=", strlen(CLASS_COOKIE_NAME) + 1) == 0,
          "join sets the device cookie: %s", r.cookie);
    CHECK(strstr(r.cookie, "HttpOnly") && strstr(r.cookie, "SameSite=Strict") && strstr(r.cookie, "Path=/"),
          "the cookie is HttpOnly, SameSite=Strict");
    char c1[96], c2[96];
    cookie_of(&r, c1, sizeof c1);
    s = state_of(&r, &root);
    cJSON *nick = s ? cJSON_GetObjectItem(s, "nick") : NULL;
    CHECK(nick && cJSON_IsString(nick) && strcmp(nick->valuestring, "<b>\"Ada\"\\") == 0,
          "the nickname round-trips through JSON exactly: %s", r.body);
    CHECK(strstr(r.body, "\\\"Ada\\\"\\\\") != NULL, "quotes and backslash are escaped in the JSON text");
    cJSON_Delete(root);

    r = post("/join", NULL, "code=1234", "10.0.0.3");
    cookie_of(&r, c2, sizeof c2);
    CHECK(r.status == 200 && strcmp(c1, c2) != 0, "a second client gets its own device token (%s / %s)", c1, c2);

    CHECK(post("/guess", NULL, "text=there", "10.0.0.2").status == 403, "a guess without a device");
    CHECK(post("/guess", CLASS_COOKIE_NAME "=00000000000000000000000000000000", "text=there", "10.0.0.2").status == 403,
          "a guess with a device token nobody was given");
    CHECK(post("/guess", c1, "text=there", "10.0.0.2").status == 409, "no round open: 409");

    ErrorMsg err;
    CHECK(class_room_open(&room, CLASS_GAME_TEXT, 4, (const uint8_t *)"Once upon a time", 16, &err) == 0, "open");
    r = post("/guess", c1, "text=+there+", "10.0.0.2");
    s = state_of(&r, &root);
    cJSON *g = s ? cJSON_GetObjectItem(s, "guess") : NULL;
    CHECK(r.status == 200 && g && cJSON_GetObjectItem(g, "token")->valueint == 612 &&
              strcmp(cJSON_GetObjectItem(g, "text")->valuestring, " there") == 0,
          "you guessed ' there' = token 612: %s", r.body);
    CHECK(s && cJSON_IsNull(cJSON_GetObjectItem(s, "truth")) && strstr(r.body, "\"model_p\"") == NULL,
          "the truth is not sent before the reveal");
    cJSON_Delete(root);
    CHECK(post("/guess", c1, "text=%2C", "10.0.0.2").status == 409, "a second guess in the round: 409");
    CHECK(post("/guess", c2, "text=", "10.0.0.3").status == 400, "an empty guess: 400");
    CHECK(post("/guess", c2, "text=a%0Ab", "10.0.0.3").status == 400, "a control character: 400");
    CHECK(post("/guess", c2, "text=%FF", "10.0.0.3").status == 400, "invalid UTF-8: 400");
    char longer[128] = "text=";
    memset(longer + 5, 'a', 49);
    CHECK(post("/guess", c2, longer, "10.0.0.3").status == 400, "49 bytes: 400");
    r = post("/guess", c2, "text=dragonfly", "10.0.0.3");
    s = state_of(&r, &root);
    g = s ? cJSON_GetObjectItem(s, "guess") : NULL;
    CHECK(g && cJSON_GetObjectItem(g, "tokens")->valueint == 2 &&
              strcmp(cJSON_GetObjectItem(g, "piece")->valuestring, " dragon") == 0 &&
              strcmp(cJSON_GetObjectItem(g, "piece2")->valuestring, "fly") == 0,
          "a split guess: ' dragon' + 'fly': %s", r.body);
    cJSON_Delete(root);
    CHECK(room.rounds[0].n_guesses == 2, "two guesses counted, not more: %d", room.rounds[0].n_guesses);

    CHECK(class_room_reveal(&room, 612, 0.25, 11, &err) == 0, "reveal");
    r = req("GET", "/state", c1, NULL, NULL, "10.0.0.2");
    s = state_of(&r, &root);
    cJSON *truth = s ? cJSON_GetObjectItem(s, "truth") : NULL;
    CHECK(truth && cJSON_GetObjectItem(truth, "token")->valueint == 612 && cJSON_IsTrue(cJSON_GetObjectItem(s, "right")) &&
              cJSON_GetObjectItem(s, "right_count")->valueint == 1 && cJSON_GetObjectItem(s, "answered")->valueint == 2,
          "after the reveal: the truth, right, 1 of 2: %s", r.body);
    cJSON_Delete(root);
    r = req("GET", "/state", "a=b; " CLASS_COOKIE_NAME "=zz; x=1", NULL, NULL, "10.0.0.2");
    CHECK(strstr(r.body, "\"joined\": false") != NULL, "a malformed cookie is no device");
}

/* An emoji is split into byte tokens: the piece shown holds half a character, written as
 * \xNN so the answer stays valid UTF-8 JSON (a lone surrogate escape did not parse). */
static void test_split_emoji(void) {
    ErrorMsg err;
    CHECK(class_room_open(&room, CLASS_GAME_TEXT, 5, (const uint8_t *)"Once upon a time,", 17, &err) == 0, "round 2");
    Reply r = post("/join", NULL, "code=1234", "10.0.2.1");
    char c[96];
    cookie_of(&r, c, sizeof c);
    r = post("/guess", c, "text=%F0%9F%90%89", "10.0.2.1");
    cJSON *root;
    cJSON *s = state_of(&r, &root);
    cJSON *g = s ? cJSON_GetObjectItem(s, "guess") : NULL;
    CHECK(r.status == 200 && g, "the emoji guess is JSON: %s", r.body);
    if (g) {
        CHECK(cJSON_GetObjectItem(g, "token")->valueint == 12520 && cJSON_GetObjectItem(g, "tokens")->valueint == 3,
              "' \xF0\x9F' + 2 more: %s", r.body);
        CHECK(strcmp(cJSON_GetObjectItem(g, "piece")->valuestring, " \\xF0\\x9F") == 0, "piece shown as bytes: [%s]",
              cJSON_GetObjectItem(g, "piece")->valuestring);
        CHECK(strcmp(cJSON_GetObjectItem(g, "text")->valuestring, " \xF0\x9F\x90\x89") == 0, "the guess itself is whole");
    }
    cJSON_Delete(root);
}

/* DNS rebinding: a request must name the address the room is served on */
static void test_host(void) {
    class_http_set_host(&http, "192.168.1.20:8765");
    ClassHttpRequest rq = {.method = "GET", .url = "/state", .host = "evil.example:8765", .addr = "10.0.3.1",
                           .now = clock_s};
    ClassHttpResponse rs;
    class_http_handle(&http, &rq, &rs);
    CHECK(rs.status == 400 && !strcmp(rs.body.data, "wrong host\n"), "another Host is refused (%d)", rs.status);
    class_http_response_free(&rs);
    rq.host = NULL;
    class_http_handle(&http, &rq, &rs);
    CHECK(rs.status == 400, "no Host is refused (%d)", rs.status);
    class_http_response_free(&rs);
    rq.host = "192.168.1.20:8765";
    class_http_handle(&http, &rq, &rs);
    CHECK(rs.status == 200, "the served Host is answered (%d)", rs.status);
    class_http_response_free(&rs);
    class_http_set_host(&http, NULL);
}

static void test_cookie_parse(void) {
    char d[CLASS_DEVICE_LEN + 1];
    const char *hex = "0123456789abcdef0123456789abcdef";
    char c[160];
    snprintf(c, sizeof c, "theme=dark; " CLASS_COOKIE_NAME "=%s; lang=en", hex);
    CHECK(class_http_cookie_device(c, d) == 1 && strcmp(d, hex) == 0, "among other cookies");
    snprintf(c, sizeof c, CLASS_COOKIE_NAME "=%s", hex);
    CHECK(class_http_cookie_device(c, d) == 1, "alone");
    snprintf(c, sizeof c, "x" CLASS_COOKIE_NAME "=%s", hex);
    CHECK(class_http_cookie_device(c, d) == 0, "a longer name is another cookie");
    snprintf(c, sizeof c, CLASS_COOKIE_NAME "=%sa", hex);
    CHECK(class_http_cookie_device(c, d) == 0, "33 digits");
    snprintf(c, sizeof c, CLASS_COOKIE_NAME "=0123456789ABCDEF0123456789abcdef");
    CHECK(class_http_cookie_device(c, d) == 0, "uppercase is not ours");
    CHECK(class_http_cookie_device(NULL, d) == 0 && class_http_cookie_device("", d) == 0 &&
              class_http_cookie_device(";;; ;", d) == 0,
          "none");
}

static void test_limits(void) {
    /* devices per address: 2 */
    for (int i = 0; i < 2; i++)
        CHECK(post("/join", NULL, "code=1234", "10.0.1.1").status == 200, "device %d from one address", i + 1);
    Reply r = post("/join", NULL, "code=1234", "10.0.1.1");
    CHECK(r.status == 429 && r.cookie[0] == 0 && strstr(r.body, "Too many devices"), "a third device: 429 (%d)",
          r.status);
    /* wrong codes: CLASS_CODE_TRIES, then even the right one waits */
    for (int i = 0; i < CLASS_CODE_TRIES; i++) CHECK(post("/join", NULL, "code=9999", "10.0.1.2").status == 403, "wrong");
    CHECK(post("/join", NULL, "code=1234", "10.0.1.2").status == 429, "after 5 wrong codes: 429");
    /* requests: a burst at one instant, then 429 */
    int ok = 0, limited = 0;
    for (int i = 0; i < 100; i++) {
        ClassHttpRequest rq = {.method = "GET", .url = "/state", .addr = "10.0.1.3", .now = clock_s};
        ClassHttpResponse rs;
        class_http_handle(&http, &rq, &rs);
        ok += rs.status == 200;
        limited += rs.status == 429;
        class_http_response_free(&rs);
    }
    CHECK(ok == (int)CLASS_RATE_BURST && limited == 100 - ok, "100 at once: %d answered, %d refused", ok, limited);
    CHECK(post("/join", NULL, "code=1234", "10.0.1.4").status == 200, "another address is not affected");
}

int main(void) {
    Tokenizer t = {0};
    ErrorMsg err;
    unsigned counter = 0;
    if (tok_load(&t, "assets/tokenizer", &err) || class_room_init(&room, &t, 50257, "1234", 10, &err) ||
        class_page_build(&page, &err)) {
        CHECK(0, "setup: %s", err.text);
        return check_summary("test_class_http");
    }
    class_http_init(&http, &room, &page, 2, counter_random, &counter);
    test_routes();
    test_join_and_guess();
    test_split_emoji();
    test_host();
    test_cookie_parse();
    test_limits();
    class_page_free(&page);
    class_room_free(&room);
    tok_free(&t);
    return check_summary("test_class_http");
}
