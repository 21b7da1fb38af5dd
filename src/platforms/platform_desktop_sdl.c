/* platform_desktop_sdl.c — platform.h on a desktop (Linux, macOS, Windows) with SDL:
 * the loop sleeps in SDL's event wait between frames, a model job is one short-lived
 * SDL thread (creating one costs microseconds, a forward step milliseconds to
 * seconds), files are the file system, a download is the file where it was written.
 * The native build compiles this file; the web build compiles platform_web.c instead. */
#include <SDL.h>
#include <assert.h>

#include "platform.h"

void platform_run_loop(PlatformFrameFn frame, void *arg) {
    int wait = 0; /* the first frame at once */
    for (;;) {
        /* sleep until something happens (the machine may be busy: training, a laptop on
         * battery) or the frame's wait is over: 500 ms idle, 5 ms while a job runs, to
         * see it finish. NULL: the event stays queued for the frame to take. */
        if (wait > 0) SDL_WaitEventTimeout(NULL, wait);
        wait = frame(arg);
        if (wait < 0) return;
    }
}

/* The thread: the job, then the flag the loop polls (seq_cst: what fn wrote is
 * visible to the thread that sees the flag set). */
static int job_thread_main(void *p) {
    PlatformJob *job = p;
    job->fn(job->arg);
    atomic_store(&job->finished, 1);
    return 0;
}

int platform_page_sizes_window(void) { return 0; }

int platform_can_quit(void) { return 1; }

int platform_job_start(PlatformJob *job, const char *name, PlatformJobFn fn, void *arg) {
    assert(!job->running);
    job->fn = fn;
    job->arg = arg;
    atomic_store(&job->finished, 0);
    job->thread = SDL_CreateThread(job_thread_main, name, job);
    if (!job->thread) return -1;
    job->running = 1;
    return 0;
}

int platform_job_running(const PlatformJob *job) { return job->running; }

static void job_join(PlatformJob *job) {
    SDL_WaitThread(job->thread, NULL);
    job->thread = NULL;
    job->running = 0;
}

int platform_job_done(PlatformJob *job) {
    if (!job->running || !atomic_load(&job->finished)) return 0;
    job_join(job);
    return 1;
}

void platform_job_wait(PlatformJob *job) {
    if (job->running) job_join(job);
}

int platform_files_init(ErrorMsg *err) {
    (void)err; /* the file system is there */
    return 0;
}

const char *platform_export_dir(const char *asked) { return asked; }

const char *platform_offer_file(const char *path, const char *mime) {
    (void)mime; /* the figure stays in the export folder; the status line names it */
    return path;
}

double platform_now_ms(void) {
    return (double)SDL_GetPerformanceCounter() * 1e3 / (double)SDL_GetPerformanceFrequency();
}
