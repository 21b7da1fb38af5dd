/* class_http.h — one HTTP request of the class room in, one response out: the routes
 * (exactly GET /, GET /state, POST /join, POST /guess; src/class/README.md), the form and
 * cookie parsing, the per-address limits, and the state JSON a device sees. No sockets and
 * no libmicrohttpd here (class_server.c is the thin layer that calls this under the room's
 * lock), so every byte a student can send reaches this code in the fuzz harness
 * (tests/fuzz/fuzz_class_request.c) and the tests. Opens no file, ever. */
#ifndef CLASS_HTTP_H
#define CLASS_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "class_limits.h"
#include "class_page.h"
#include "class_room.h"
#include "strbuf.h"

#define CLASS_MAX_BODY 1024      /* bytes of a POST body; the server stops collecting past it */
#define CLASS_FIELD_MAX 256      /* bytes of one decoded form field (the text rules cut to 48) */
#define CLASS_COOKIE_NAME "inferscope_device"
#define CLASS_COOKIE_MAX_AGE 43200 /* 12 hours: a school day, then the token is gone */

typedef struct ClassHttpRequest {
    const char *method;        /* "GET", "POST", ... */
    const char *url;           /* the path as received (anything after '?' is ignored) */
    const char *cookie;        /* the Cookie header, or NULL */
    const char *content_type;  /* the Content-Type header, or NULL */
    const char *host;          /* the Host header, or NULL */
    const uint8_t *body;       /* (body_len) POST body as received, not NUL-terminated */
    size_t body_len;
    int body_too_large;        /* 1: the body went past CLASS_MAX_BODY (and was cut) */
    const char *addr;          /* the client's address as text: the limits' key */
    double now;                /* seconds, monotonic */
} ClassHttpRequest;

typedef struct ClassHttpResponse {
    int status;                /* 200, 400, 403, 404, 405, 409, 413, 415, 429 */
    const char *content_type;  /* static */
    StrBuf body;               /* owned (class_http_response_free); unused for the page */
    const char *page;          /* the page's bytes when this is the page (borrowed), else NULL */
    size_t page_len;
    const char *csp;           /* Content-Security-Policy (borrowed, static or the page's) */
    char set_cookie[128];      /* the Set-Cookie value, "" = none */
} ClassHttpResponse;

/* Random bytes for device tokens (getrandom in the server; a counter in the fuzz harness). */
typedef void (*ClassRandomFn)(void *ctx, uint8_t *out, size_t n);

typedef struct ClassHttp {
    ClassRoom *room;           /* borrowed */
    const ClassPage *page;     /* borrowed */
    ClassLimits limits;        /* the per-address table */
    ClassRandomFn random;
    void *random_ctx;
    char host[80];             /* the Host a request must name ("ADDR:PORT" as served), "" =
                                * any; refuses DNS rebinding: a web page elsewhere whose name
                                * was pointed at this address cannot use a student's browser */
    long n_requests;           /* handled, all outcomes (the teacher's status line) */
    long n_refused;            /* answered with a 4xx status */
} ClassHttp;

/* Sets up the handler (limits with devices_per_addr, see class_limits.h). */
void class_http_init(ClassHttp *h, ClassRoom *room, const ClassPage *page, int devices_per_addr,
                     ClassRandomFn random, void *random_ctx);

/* Requests must name this Host (case-insensitive), e.g. "192.168.1.20:8765". */
void class_http_set_host(ClassHttp *h, const char *host);

/* Answers one request into *rs (zeroed here; free with class_http_response_free). Never
 * fails: every problem is a status with a one-sentence JSON {"error": ...} body. */
void class_http_handle(ClassHttp *h, const ClassHttpRequest *rq, ClassHttpResponse *rs);
void class_http_response_free(ClassHttpResponse *rs);

/* The device token in a Cookie header (CLASS_COOKIE_NAME=<32 hex>): 1 with out filled,
 * 0 when there is none of that form. */
int class_http_cookie_device(const char *cookie, char out[CLASS_DEVICE_LEN + 1]);

/* Appends the room as the device of `student` (-1: not joined) sees it, as JSON. */
void class_http_state_json(const ClassRoom *r, int student, StrBuf *out);

#endif
