/* class_client.h — the smallest HTTP/1.1 client a class-room load needs, over loopback
 * only: one request per connection from a chosen source address (all of 127/8 is this
 * machine, so 300 students can be 300 addresses), the whole answer read until the
 * server closes. Shared by tests/test_class_load.c and tools/class_load/ (the 30 s run
 * with the window's frame times). Header-only (static): each program takes what it uses. */
#ifndef CLASS_CLIENT_H
#define CLASS_CLIENT_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "class_http.h" /* CLASS_COOKIE_NAME */
#include "class_room.h" /* CLASS_DEVICE_LEN */

typedef struct ClassClient {
    int port;       /* the server's port on 127.0.0.1 */
    char host[32];  /* "127.0.0.1:PORT": the Host every request must name */
} ClassClient;

/* One request from source address src; the whole answer (until the server closes) into
 * out. Returns the bytes read, or -1 when the connection failed. 5 s timeouts. */
static inline long class_exchange(const ClassClient *cc, const char *src, const char *req, size_t n, char *out,
                                  size_t cap) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    struct timeval tv = {.tv_sec = 5};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    struct sockaddr_in a = {.sin_family = AF_INET};
    inet_pton(AF_INET, src, &a.sin_addr);
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)cc->port)};
    inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) || connect(fd, (struct sockaddr *)&to, sizeof to)) {
        close(fd);
        return -1;
    }
    for (size_t done = 0; done < n;) {
        ssize_t w = send(fd, req + done, n - done, MSG_NOSIGNAL);
        if (w <= 0) break; /* the server may close early (a refused request): read its answer */
        done += (size_t)w;
    }
    size_t got = 0;
    for (;;) {
        ssize_t r = recv(fd, out + got, cap - 1 - got, 0);
        if (r <= 0) break;
        got += (size_t)r;
        if (got == cap - 1) break;
    }
    out[got] = 0;
    close(fd);
    return (long)got;
}

/* The status code of an HTTP answer, 0 when there is none. */
static inline int class_status_of(const char *resp) {
    int st = 0;
    return sscanf(resp, "HTTP/1.%*d %d", &st) == 1 ? st : 0;
}

/* A form POST (cookie may be NULL). */
static inline long class_post(const ClassClient *cc, const char *src, const char *path, const char *cookie,
                              const char *body, char *out, size_t cap) {
    char req[1024];
    int n = snprintf(req, sizeof req,
                     "POST %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n%s%s%s"
                     "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: %zu\r\n\r\n%s",
                     path, cc->host, cookie ? "Cookie: " : "", cookie ? cookie : "", cookie ? "\r\n" : "",
                     strlen(body), body);
    return class_exchange(cc, src, req, (size_t)n, out, cap);
}

/* A student joins room `code` as `name` (form-encoded) from src: 0 with the device token the
 * answer's cookie carries in device (CLASS_DEVICE_LEN + 1 bytes), -1 when the join failed. */
static inline int class_join(const ClassClient *cc, const char *src, const char *code, const char *name,
                             char device[CLASS_DEVICE_LEN + 1]) {
    char out[16384], body[160];
    snprintf(body, sizeof body, "code=%s&name=%s", code, name);
    if (class_post(cc, src, "/join", NULL, body, out, sizeof out) <= 0 || class_status_of(out) != 200) return -1;
    const char *c = strstr(out, CLASS_COOKIE_NAME "=");
    if (!c) return -1;
    snprintf(device, CLASS_DEVICE_LEN + 1, "%s", c + strlen(CLASS_COOKIE_NAME) + 1);
    return 0;
}

/* Malformed request number k (7 kinds, each naming the right Host unless it is about the
 * Host): garbage, a path outside the four, a wrong method, a body past the limit, JSON
 * where a form is due, another Host, a 24 KB header. 1 when it was refused (an error
 * status, or the connection closed without an answer). */
static inline int class_malformed(const ClassClient *cc, const char *src, int k) {
    static char big[24000];
    char out[4096];
    const char *forms[] = {
        "garbage\r\n\r\n%s",
        "GET /../../etc/passwd HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n",
        "DELETE /state HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n",
        "POST /guess HTTP/1.1\r\nHost: %s\r\nConnection: close\r\nContent-Length: 999999\r\n\r\ntext=a",
        "POST /join HTTP/1.1\r\nHost: %s\r\nConnection: close\r\nContent-Type: application/json\r\n"
        "Content-Length: 14\r\n\r\n{\"code\":\"1\"}  ",
        "GET /state HTTP/1.1\r\nHost: rebound.example\r\nConnection: close\r\n\r\n%s",
    };
    char one[512];
    if (!big[0]) { /* filled once; the load's threads all write the same bytes */
        memset(big, 'a', sizeof big - 5);
        memcpy(big, "GET / HTTP/1.1\r\nX: ", 19);
        memcpy(big + sizeof big - 5, "\r\n\r\n", 5);
    }
    if (k % 7 < 6) snprintf(one, sizeof one, forms[k % 7], k % 7 == 0 || k % 7 == 5 ? "" : cc->host);
    const char *r = k % 7 < 6 ? one : big;
    long got = class_exchange(cc, src, r, strlen(r), out, sizeof out);
    int st = got > 0 ? class_status_of(out) : 0;
    return st == 0 || st >= 400;
}

#endif
