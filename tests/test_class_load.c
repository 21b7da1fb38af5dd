/* test_class_load.c — the class room under a bounded load, over loopback only: the server
 * (class_server.c) runs in this process on 127.0.0.1 (any free port); 300 simulated
 * students, each from its own loopback address (127.1.x.y: all of 127/8 is this machine),
 * join with the room code and send one guess, 10 at a time, while malformed requests
 * (garbage, a path outside the four, a 20 KB header, a wrong method, a body past the
 * limit, a second guess from the same device) arrive from other loopback addresses. The
 * totals must equal what was sent: 300 students, 300 guesses, each student's guess the
 * token it sent — no vote lost or counted twice — and the server still answers. The time
 * taken is printed, never asserted (speed is for benchmarks). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "class_server.h"

#define STUDENTS 300
#define WORKERS 10
static int port;
static char host[32]; /* "127.0.0.1:PORT": the Host every request must name */
static char code[CLASS_CODE_LEN + 1];

/* One request from source address src; the whole answer (until the server closes) into
 * out. Returns the bytes read, or -1 when the connection failed. 5 s timeouts. */
static long exchange(const char *src, const char *req, size_t n, char *out, size_t cap) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    struct timeval tv = {.tv_sec = 5};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    struct sockaddr_in a = {.sin_family = AF_INET};
    inet_pton(AF_INET, src, &a.sin_addr);
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
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

static int status_of(const char *resp) {
    int st = 0;
    return sscanf(resp, "HTTP/1.%*d %d", &st) == 1 ? st : 0;
}

static long post(const char *src, const char *path, const char *cookie, const char *body, char *out, size_t cap) {
    char req[1024];
    int n = snprintf(req, sizeof req,
                     "POST %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n%s%s%s"
                     "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: %zu\r\n\r\n%s",
                     path, host, cookie ? "Cookie: " : "", cookie ? cookie : "", cookie ? "\r\n" : "", strlen(body), body);
    return exchange(src, req, (size_t)n, out, cap);
}

/* The words the students guess: student i guesses WORDS[i % 5]. */
static const char *const WORDS[] = {"there", "%2C", "the", "dragon", "."};
static const int WORD_TOKENS[] = {612, 11, 262, 10441, 13};

typedef struct Worker {
    int first, n;        /* students [first, first + n) */
    int joined, guessed; /* answered 200 */
    int malformed_sent, malformed_refused;
    char device[STUDENTS][CLASS_DEVICE_LEN + 1];
} Worker;

static void malformed(Worker *w, int k) {
    static char big[24000];
    char src[32], out[4096];
    snprintf(src, sizeof src, "127.2.%d.%d", w->first / 250, k % 250 + 1);
    /* each names the right Host, so it is refused for what it is */
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
    if (!big[0]) {
        memset(big, 'a', sizeof big - 5);
        memcpy(big, "GET / HTTP/1.1\r\nX: ", 19);
        memcpy(big + sizeof big - 5, "\r\n\r\n", 5);
    }
    if (k % 7 < 6) snprintf(one, sizeof one, forms[k % 7], k % 7 == 0 || k % 7 == 5 ? "" : host);
    const char *r = k % 7 < 6 ? one : big;
    long got = exchange(src, r, strlen(r), out, sizeof out);
    w->malformed_sent++;
    /* refused: an error status, or the connection closed without an answer */
    int st = got > 0 ? status_of(out) : 0;
    w->malformed_refused += st == 0 || st >= 400;
}

static void *run_worker(void *arg) {
    Worker *w = arg;
    char out[16384], body[128], src[32], cookie[128];
    for (int i = w->first; i < w->first + w->n; i++) {
        snprintf(src, sizeof src, "127.1.%d.%d", i / 250, i % 250 + 1);
        snprintf(body, sizeof body, "code=%s&name=student+%d", code, i);
        if (post(src, "/join", NULL, body, out, sizeof out) <= 0 || status_of(out) != 200) continue;
        const char *c = strstr(out, CLASS_COOKIE_NAME "=");
        if (!c) continue;
        w->joined++;
        snprintf(w->device[i - w->first], CLASS_DEVICE_LEN + 1, "%s", c + strlen(CLASS_COOKIE_NAME) + 1);
        snprintf(cookie, sizeof cookie, CLASS_COOKIE_NAME "=%s", w->device[i - w->first]);
        snprintf(body, sizeof body, "text=%s", WORDS[i % 5]);
        if (post(src, "/guess", cookie, body, out, sizeof out) > 0 && status_of(out) == 200) w->guessed++;
        /* the same device again: refused, never counted twice */
        if (i % 10 == 0) {
            w->malformed_sent++;
            post(src, "/guess", cookie, "text=again", out, sizeof out);
            w->malformed_refused += status_of(out) == 409;
        }
        malformed(w, i);
    }
    return NULL;
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

int main(void) {
    Tokenizer tok = {0};
    ErrorMsg err;
    ClassRoom room;
    ClassServer srv;
    ClassAddress addr;
    class_random_code(code);
    if (tok_load(&tok, "assets/tokenizer", &err) || class_room_init(&room, &tok, tok.n_vocab, code, 400, &err) ||
        class_address_parse("127.0.0.1:0", &addr, &err) || class_server_start(&srv, &room, &addr, 1, &err)) {
        CHECK(0, "setup: %s", err.text);
        return check_summary("test_class_load");
    }
    port = srv.addr.port;
    snprintf(host, sizeof host, "127.0.0.1:%d", port);
    CHECK(port > 0 && strncmp(srv.url, "http://127.0.0.1:", 17) == 0, "listening on %s", srv.url);
    class_server_lock(&srv);
    CHECK(class_room_open(&room, CLASS_GAME_TEXT, 4, (const uint8_t *)"Once upon a time", 16, &err) == 0, "open");
    class_server_unlock(&srv);

    static Worker w[WORKERS];
    pthread_t th[WORKERS];
    double t0 = now_ms();
    for (int k = 0; k < WORKERS; k++) {
        w[k].first = k * (STUDENTS / WORKERS);
        w[k].n = STUDENTS / WORKERS;
        pthread_create(&th[k], NULL, run_worker, &w[k]);
    }
    int joined = 0, guessed = 0, bad_sent = 0, bad_refused = 0;
    for (int k = 0; k < WORKERS; k++) {
        pthread_join(th[k], NULL);
        joined += w[k].joined, guessed += w[k].guessed;
        bad_sent += w[k].malformed_sent, bad_refused += w[k].malformed_refused;
    }
    double ms = now_ms() - t0;
    printf("test_class_load: %d students joined and guessed, %d malformed requests, in %.0f ms\n", guessed, bad_sent, ms);
    CHECK(joined == STUDENTS && guessed == STUDENTS, "every student answered 200: %d joined, %d guessed", joined, guessed);
    CHECK(bad_refused == bad_sent, "every malformed request refused: %d of %d", bad_refused, bad_sent);

    class_server_lock(&srv);
    const ClassRound *c = class_room_current(&room);
    CHECK(room.n_students == STUDENTS, "the room counts %d students", room.n_students);
    CHECK(c->n_guesses == STUDENTS, "the round counts %d guesses, %d were sent", c->n_guesses, STUDENTS);
    int right_token = 0;
    for (int k = 0; k < WORKERS; k++)
        for (int i = 0; i < w[k].n; i++) {
            int s = class_room_find(&room, w[k].device[i]);
            const ClassGuess *g = class_room_guess_of(&room, s);
            int student = w[k].first + i;
            right_token += g && g->g.token == WORD_TOKENS[student % 5] &&
                           (size_t)snprintf(NULL, 0, "student %d", student) == strlen(room.students[s].nick);
        }
    CHECK(right_token == STUDENTS, "each student's one guess is the token it sent: %d of %d", right_token, STUDENTS);
    long refused = srv.http->n_refused;
    class_server_unlock(&srv);
    CHECK(refused > 0, "the handler counted the refusals (%ld)", refused);

    char out[8192];
    char last[128];
    snprintf(last, sizeof last, "GET /state HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", host);
    long got = exchange("127.0.0.1", last, strlen(last), out, sizeof out);
    CHECK(got > 0 && status_of(out) == 200, "the server still answers after the load");
    class_server_stop(&srv);
    class_room_free(&room);
    tok_free(&tok);
    return check_summary("test_class_load");
}
