/* test_class_load.c — the class room under a bounded load, over loopback only: the server
 * (class_server.c) runs in this process on 127.0.0.1 (any free port); 300 simulated
 * students, each from its own loopback address (127.1.x.y: all of 127/8 is this machine),
 * join with the room code and send one guess, 10 at a time, while malformed requests
 * (garbage, a path outside the four, a 20 KB header, a wrong method, a body past the
 * limit, a second guess from the same device) arrive from other loopback addresses. The
 * totals must equal what was sent: 300 students, 300 guesses, each student's guess the
 * token it sent — no vote lost or counted twice — and the server still answers. The time
 * taken is printed, never asserted (speed is for benchmarks). */
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "class_client.h"
#include "class_server.h"

#define STUDENTS 300
#define WORKERS 10
static ClassClient cc; /* the server's port and Host */
static char code[CLASS_CODE_LEN + 1];

static long post(const char *src, const char *path, const char *cookie, const char *body, char *out, size_t cap) {
    return class_post(&cc, src, path, cookie, body, out, cap);
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
    char src[32];
    snprintf(src, sizeof src, "127.2.%d.%d", w->first / 250, k % 250 + 1);
    w->malformed_sent++;
    w->malformed_refused += class_malformed(&cc, src, k);
}

static void *run_worker(void *arg) {
    Worker *w = arg;
    char out[16384], body[128], src[32], cookie[128];
    for (int i = w->first; i < w->first + w->n; i++) {
        snprintf(src, sizeof src, "127.1.%d.%d", i / 250, i % 250 + 1);
        snprintf(body, sizeof body, "student+%d", i);
        if (class_join(&cc, src, code, body, w->device[i - w->first])) continue;
        w->joined++;
        snprintf(cookie, sizeof cookie, CLASS_COOKIE_NAME "=%s", w->device[i - w->first]);
        snprintf(body, sizeof body, "text=%s", WORDS[i % 5]);
        if (post(src, "/guess", cookie, body, out, sizeof out) > 0 && class_status_of(out) == 200) w->guessed++;
        /* the same device again: refused, never counted twice */
        if (i % 10 == 0) {
            w->malformed_sent++;
            post(src, "/guess", cookie, "text=again", out, sizeof out);
            w->malformed_refused += class_status_of(out) == 409;
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
    cc.port = srv.addr.port;
    snprintf(cc.host, sizeof cc.host, "127.0.0.1:%d", cc.port);
    CHECK(cc.port > 0 && strncmp(srv.url, "http://127.0.0.1:", 17) == 0, "listening on %s", srv.url);
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
    snprintf(last, sizeof last, "GET /state HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", cc.host);
    long got = class_exchange(&cc, "127.0.0.1", last, strlen(last), out, sizeof out);
    CHECK(got > 0 && class_status_of(out) == 200, "the server still answers after the load");
    class_server_stop(&srv);
    class_room_free(&room);
    tok_free(&tok);
    return check_summary("test_class_load");
}
