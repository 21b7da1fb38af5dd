/* class_server.c — libmicrohttpd around class_http_handle (class_server.h). */
#include "class_server.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

void class_random_bytes(void *ctx, uint8_t *out, size_t n) {
    (void)ctx;
    size_t done = 0;
    while (done < n) {
        ssize_t k = getrandom(out + done, n - done, 0);
        if (k <= 0) abort(); /* no randomness means no safe device tokens: never go on */
        done += (size_t)k;
    }
}

void class_random_code(char code[CLASS_CODE_LEN + 1]) {
    for (int i = 0; i < CLASS_CODE_LEN; i++) {
        uint8_t b;
        do class_random_bytes(NULL, &b, 1);
        while (b >= 250); /* 250 = 25 * 10: rejection keeps the digits uniform */
        code[i] = (char)('0' + b % 10);
    }
    code[CLASS_CODE_LEN] = 0;
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* What one connection has received of its body so far. */
typedef struct Upload {
    uint8_t body[CLASS_MAX_BODY];
    size_t len;
    int too_large;
} Upload;

static void client_address(struct MHD_Connection *c, char *out, size_t cap) {
    snprintf(out, cap, "?");
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (!ci || !ci->client_addr) return;
    const struct sockaddr *sa = ci->client_addr;
    if (sa->sa_family == AF_INET) inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, out, (socklen_t)cap);
    else if (sa->sa_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, out, (socklen_t)cap);
}

static enum MHD_Result respond(ClassServer *s, struct MHD_Connection *c, const char *url, const char *method,
                               const Upload *up) {
    char addr[CLASS_ADDR_MAX];
    client_address(c, addr, sizeof addr);
    ClassHttpRequest rq = {
        .method = method,
        .url = url,
        .cookie = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_COOKIE),
        .content_type = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE),
        .host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST),
        .body = up->body,
        .body_len = up->len,
        .body_too_large = up->too_large,
        .addr = addr,
        .now = now_s(),
    };
    ClassHttpResponse rs;
    pthread_mutex_lock(&s->lock);
    class_http_handle(s->http, &rq, &rs);
    pthread_mutex_unlock(&s->lock);
    struct MHD_Response *r =
        rs.page ? MHD_create_response_from_buffer(rs.page_len, (void *)rs.page, MHD_RESPMEM_PERSISTENT)
                : MHD_create_response_from_buffer(rs.body.len, rs.body.data ? rs.body.data : (char *)"",
                                                  MHD_RESPMEM_MUST_COPY);
    enum MHD_Result ok = MHD_NO;
    if (r) {
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, rs.content_type);
        MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
        MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
        MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
        MHD_add_response_header(r, "X-Frame-Options", "DENY");
        MHD_add_response_header(r, "Content-Security-Policy", rs.csp);
        if (rs.set_cookie[0]) MHD_add_response_header(r, MHD_HTTP_HEADER_SET_COOKIE, rs.set_cookie);
        ok = MHD_queue_response(c, (unsigned)rs.status, r);
        MHD_destroy_response(r);
    }
    class_http_response_free(&rs);
    return ok;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload_data, size_t *upload_data_size,
                                  void **con_cls) {
    (void)version;
    ClassServer *s = cls;
    Upload *up = *con_cls;
    if (!up) { /* first call: only the headers are known */
        up = calloc(1, sizeof *up);
        if (!up) return MHD_NO;
        *con_cls = up;
        const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (cl && strtoull(cl, NULL, 10) > CLASS_MAX_BODY) { /* refuse before reading it */
            up->too_large = 1;
            return respond(s, c, url, method, up);
        }
        return MHD_YES;
    }
    if (*upload_data_size) {
        if (!up->too_large) {
            size_t room = CLASS_MAX_BODY - up->len;
            if (*upload_data_size > room) {
                up->too_large = 1;
            } else {
                memcpy(up->body + up->len, upload_data, *upload_data_size);
                up->len += *upload_data_size;
            }
        }
        *upload_data_size = 0;
        if (up->too_large) return respond(s, c, url, method, up);
        return MHD_YES;
    }
    return respond(s, c, url, method, up);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe) {
    (void)cls, (void)c, (void)toe;
    free(*con_cls);
    *con_cls = NULL;
}

int class_server_start(ClassServer *s, ClassRoom *room, const ClassAddress *addr, int devices_per_addr,
                       ErrorMsg *err) {
    memset(s, 0, sizeof *s);
    if (class_page_build(&s->page, err)) return -1;
    s->http = malloc(sizeof *s->http);
    if (!s->http) {
        class_server_stop(s);
        return error_set(err, "class room: out of memory");
    }
    class_http_init(s->http, room, &s->page, devices_per_addr, class_random_bytes, NULL);
    if (pthread_mutex_init(&s->lock, NULL) != 0) {
        class_server_stop(s);
        return error_set(err, "class room: cannot make a lock");
    }
    s->lock_ready = 1;
    s->addr = *addr;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO;
    if (addr->sa.ss_family == AF_INET6) flags |= MHD_USE_IPv6;
    s->daemon = MHD_start_daemon(flags, (uint16_t)addr->port, NULL, NULL, on_request, s,
                                 MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)&addr->sa,
                                 MHD_OPTION_CONNECTION_LIMIT, (unsigned)CLASS_CONNECTIONS_MAX,
                                 MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)CLASS_CONNECTIONS_PER_ADDR,
                                 MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CLASS_CONNECTION_MEMORY,
                                 MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)CLASS_CONNECTION_TIMEOUT_S,
                                 MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL, MHD_OPTION_END);
    if (!s->daemon) {
        char url[96];
        class_address_url(addr, url, sizeof url);
        class_server_stop(s);
        return error_set(err, "--class-address: cannot listen on %s (in use, or not an address of this machine)", url);
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
    if (di && di->port) s->addr.port = di->port;
    class_address_url(&s->addr, s->url, sizeof s->url);
    /* the Host every request must name: the URL without "http://" and the last "/" */
    char host[sizeof s->url];
    snprintf(host, sizeof host, "%.*s", (int)(strlen(s->url) - 8), s->url + 7);
    class_http_set_host(s->http, host);
    return 0;
}

void class_server_stop(ClassServer *s) {
    if (s->daemon) MHD_stop_daemon(s->daemon);
    if (s->lock_ready) pthread_mutex_destroy(&s->lock);
    free(s->http);
    class_page_free(&s->page);
    memset(s, 0, sizeof *s);
}

void class_server_lock(ClassServer *s) { pthread_mutex_lock(&s->lock); }
void class_server_unlock(ClassServer *s) { pthread_mutex_unlock(&s->lock); }
