/* class_load.c — `make class-load`: the load, as a measurement rather than a timed
 * test. The window (the bundled model, the dummy video driver, SDL's software renderer)
 * runs its frame loop with a class room open on 127.0.0.1 (loopback only, any free
 * port) while 300 simulated students join and guess (each from its own loopback
 * address) and 100 malformed requests a second arrive for SECONDS (default 30). Every
 * frame is drawn (the worst case: an idle window draws only when something changed).
 * Printed: the totals (students, guesses as the room counts them, malformed sent and
 * refused), the frame times (p50, p99, max over the run) and the resident memory at the
 * start, after the students and at the end. Exit 1 when a vote was lost or counted
 * twice, a malformed request was answered 2xx, or memory grew more than 64 MB after the
 * students joined; the frame times are reported, never judged (a loaded machine
 * measures itself, not the program). Usage: class-load [SECONDS]. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"
#include "app_class.h"
#include "app_jobs.h"
#include "class_client.h"
#include "cli.h"

#define STUDENTS 300
#define WORKERS 10
#define MALFORMED_PER_S 100
#define RSS_GROWTH_MAX_MB 64.0

static ClassClient cc;
static char code[CLASS_CODE_LEN + 1];

typedef struct Students {
    int first, n, guessed;
} Students;

static void *run_students(void *arg) {
    Students *w = arg;
    char out[16384], name[16], src[32], device[CLASS_DEVICE_LEN + 1], cookie[128];
    for (int i = w->first; i < w->first + w->n; i++) {
        snprintf(src, sizeof src, "127.1.%d.%d", i / 250, i % 250 + 1);
        snprintf(name, sizeof name, "s%d", i);
        if (class_join(&cc, src, code, name, device)) continue;
        snprintf(cookie, sizeof cookie, CLASS_COOKIE_NAME "=%s", device);
        if (class_post(&cc, src, "/guess", cookie, "text=there", out, sizeof out) > 0 && class_status_of(out) == 200)
            w->guessed++;
    }
    return NULL;
}

typedef struct Malformed {
    int seconds, sent, refused;
} Malformed;

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

static void sleep_until(double t_ms) {
    double d = t_ms - now_ms();
    if (d <= 0) return;
    struct timespec ts = {.tv_sec = (time_t)(d / 1e3), .tv_nsec = (long)(1e6 * (d - 1e3 * (double)(time_t)(d / 1e3)))};
    nanosleep(&ts, NULL);
}

/* 100 a second, on a fixed schedule (late ones are sent at once, never skipped), from
 * rotating loopback addresses so the rate limit of one address does not answer them all. */
static void *run_malformed(void *arg) {
    Malformed *m = arg;
    double t0 = now_ms();
    char src[32];
    for (int i = 0; i < m->seconds * MALFORMED_PER_S; i++) {
        sleep_until(t0 + i * (1000.0 / MALFORMED_PER_S));
        snprintf(src, sizeof src, "127.3.%d.%d", (i / 250) % 250, i % 250 + 1);
        m->refused += class_malformed(&cc, src, i);
        m->sent++;
    }
    return NULL;
}

/* Resident memory in MB (/proc/self/statm's second field), 0 when unknown. */
static double rss_mb(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, pages = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &size, &pages) != 2) pages = 0;
        fclose(f);
    }
    return (double)pages * (double)sysconf(_SC_PAGESIZE) / (1024.0 * 1024.0);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    int seconds = argc > 1 ? atoi(argv[1]) : 30;
    if (argc > 2 || seconds < 1 || seconds > 600) {
        fprintf(stderr, "usage: class-load [SECONDS]   (1..600, default 30)\n");
        return 2;
    }
    static AppState app;
    AppOptions opt = app_default_options();
    opt.model_dir = cli_default_model_dir();
    opt.tok_dir = cli_tokenizer_dir();
    opt.assets_dir = cli_assets_dir();
    ErrorMsg err = {{0}};
    AppWindow win;
    memset(&win, 0, sizeof win);
    if (app_init(&app, &opt, &err) || app_window_open(&win, &app, 1280, 720, &err) ||
        app_class_open(&app, "127.0.0.1:0", &err)) {
        fprintf(stderr, "class-load: %s\n", err.text);
        app_free(&app);
        return 2;
    }
    app.async = 1;
    AppClass *k = app.klass;
    cc.port = k->srv.addr.port;
    snprintf(cc.host, sizeof cc.host, "127.0.0.1:%d", cc.port);
    snprintf(code, sizeof code, "%s", k->code);
    while (app.busy) app_frame(&app, &win); /* the story's first tokens (a job) */
    app_class_command(&app, CLASS_CMD_ROUND);

    double rss0 = rss_mb(), rss_students = 0, rss_max = 0;
    static Students st[WORKERS];
    pthread_t th[WORKERS], mt;
    Malformed mal = {.seconds = seconds};
    double t0 = now_ms();
    for (int i = 0; i < WORKERS; i++) {
        st[i] = (Students){.first = i * (STUDENTS / WORKERS), .n = STUDENTS / WORKERS};
        pthread_create(&th[i], NULL, run_students, &st[i]);
    }
    pthread_create(&mt, NULL, run_malformed, &mal);
    size_t cap = (size_t)seconds * 200 + 64, n = 0;
    double *frames = malloc(cap * sizeof *frames);
    int students_done = 0;
    double students_ms = 0;
    while (now_ms() - t0 < seconds * 1000.0 + 500.0 && frames) {
        int before = app.n_frames;
        app.dirty = 1; /* every frame drawn: the worst case */
        app_frame(&app, &win);
        if (app.n_frames != before && n < cap) frames[n++] = app.frame_ms_last;
        double r = rss_mb();
        if (r > rss_max) rss_max = r;
        if (!students_done) {
            class_server_lock(&k->srv);
            const ClassRound *c = class_room_current(&k->room);
            students_done = c && c->n_guesses == STUDENTS;
            class_server_unlock(&k->srv);
            if (students_done) students_ms = now_ms() - t0, rss_students = r;
        }
        sleep_until(now_ms() + 16);
    }
    int guessed = 0;
    for (int i = 0; i < WORKERS; i++) pthread_join(th[i], NULL), guessed += st[i].guessed;
    pthread_join(mt, NULL);
    double rss_end = rss_mb();
    class_server_lock(&k->srv);
    int joined = k->room.n_students, counted = class_room_current(&k->room)->n_guesses;
    long refused_http = k->srv.http->n_refused;
    class_server_unlock(&k->srv);
    if (!rss_students) rss_students = rss_end;
    qsort(frames, n, sizeof *frames, cmp_double);
    double p50 = n ? frames[n / 2] : 0, p99 = n ? frames[(size_t)((double)(n - 1) * 0.99)] : 0,
           mx = n ? frames[n - 1] : 0;
    printf("class-load: %d s, loopback only; %d of %d students joined, %d guesses sent 200, the room counts %d "
           "(all in %.0f ms)\n",
           seconds, joined, STUDENTS, guessed, counted, students_ms);
    printf("class-load: %d malformed requests sent (%d/s), %d refused; the handler refused %ld in all\n", mal.sent,
           MALFORMED_PER_S, mal.refused, refused_http);
    printf("class-load: %zu frames drawn at 1280x720 (software renderer): p50 %.2f ms, p99 %.2f ms, max %.2f ms\n", n,
           p50, p99, mx);
    printf("class-load: resident memory %.1f MB at the start, %.1f MB after the students, %.1f MB at the end "
           "(max %.1f)\n",
           rss0, rss_students, rss_end, rss_max);
    int bad = joined != STUDENTS || guessed != STUDENTS || counted != STUDENTS || mal.refused != mal.sent ||
              rss_end - rss_students > RSS_GROWTH_MAX_MB;
    if (bad) printf("class-load: FAILED (a vote lost or counted twice, a malformed request accepted, or memory grew)\n");
    free(frames);
    app_class_close(&app);
    app_jobs_wait(&app);
    app_window_close(&win);
    app_free(&app);
    return bad ? 1 : 0;
}
