/* platform.h — the one seam between the app and what it runs on: the loop that calls
 * the window's frame function, model jobs off (or inside) that loop, files, downloads
 * and the clock. Each platform is one file behind this header, in the manner of
 * raylib's src/platforms/rcore_*.c: platform_desktop_sdl.c (Linux, macOS, Windows: SDL
 * threads, SDL's event wait) and platform_web.c (the browser: emscripten's main loop,
 * one thread, MEMFS). The Makefile compiles exactly one of them (PLATFORM=desktop_sdl
 * by default, PLATFORM=web with emcc); a new platform is a new file implementing every
 * function below. Not the window, the renderer or the input events: those are SDL's in
 * every build (app.c). Conditionals on the platform (emscripten's macro) belong in this
 * folder only; the app above it has none. */
#ifndef PLATFORM_H
#define PLATFORM_H

#include <stdatomic.h>

#include "error.h"

/* ---- the loop ---- */

/* One frame of the app (app_frame): apply the input that arrived, poll the jobs, draw.
 * Returns how long the platform may sleep waiting for input before the next frame
 * (milliseconds; 0 = at once), or PLATFORM_FRAME_STOP when the app is done. */
typedef int (*PlatformFrameFn)(void *arg);
#define PLATFORM_FRAME_STOP (-1)

/* Calls frame(arg) until it returns PLATFORM_FRAME_STOP.
 * Desktop: between frames it sleeps until an input event arrives or the frame's wait
 * has passed (SDL_WaitEventTimeout; the event stays queued for the frame), then
 * returns after the last frame. Web: the browser calls frame once per animation frame
 * (emscripten_set_main_loop_arg) and the wait is ignored; this call does not return
 * (the page is the loop), so the caller's locals that arg points to stay as they are,
 * and what the caller does after this call (freeing, --state-out) never runs there. */
void platform_run_loop(PlatformFrameFn frame, void *arg);

/* 1 when the app may end itself (desktop: Esc / Q close the window); 0 where the page
 * is the app (web: a stray Esc in class must not leave a dead page — the tab closes it). */
int platform_can_quit(void);

/* 1 where the page sizes the window (web: the canvas's CSS box; the app sets no
 * minimum and zooms out to fit instead), 0 where the app does (desktop). */
int platform_page_sizes_window(void);

/* ---- model jobs ---- */

/* A job: fn(arg) run off the loop where the platform can (desktop: its own thread, so
 * a slow step on a big GPT-2 never freezes the window), inside the loop where it
 * cannot (web, one thread: within the frame that starts it). The caller owns the
 * struct (zeroed = no job) and must not read what fn writes until platform_job_done
 * or platform_job_wait has returned. One job per struct at a time. */
typedef void (*PlatformJobFn)(void *arg);
typedef struct PlatformJob {
    PlatformJobFn fn;     /* what runs, and its argument */
    void *arg;
    void *thread;         /* the platform's handle while running (desktop: SDL_Thread*) */
    atomic_int finished;  /* set when fn has returned (by the thread that ran it) */
    int running;          /* 1 from a successful platform_job_start until done/wait */
} PlatformJob;

/* Starts fn(arg) as `name` (a thread name, for debuggers). Returns 0 when the job
 * started (finish it with platform_job_done / platform_job_wait; on the web fn has
 * already run), -1 when the platform could not start it (no thread): the caller then
 * runs fn itself, inline. A job still running in *job is a programmer error. */
int platform_job_start(PlatformJob *job, const char *name, PlatformJobFn fn, void *arg);

/* 1 when a started job is running (started, not yet finished by done / wait). */
int platform_job_running(const PlatformJob *job);

/* Never blocks: 1 when the running job's fn has returned — the job is then joined and
 * *job idle again, and what fn wrote may be read; 0 while it runs or when none runs. */
int platform_job_done(PlatformJob *job);

/* Blocks until the running job's fn has returned and joins it; nothing when none runs.
 * For cancelling (set the job's own cancel flag first) and at quit. */
void platform_job_wait(PlatformJob *job);

/* ---- files ---- */

/* Paths are ordinary paths in every build, read and written with stdio: desktop, the
 * file system; web, emscripten's in-memory file system (MEMFS), which the page fills
 * before main (the bundled model, lessons) and into which it copies what the user
 * chooses or drops (a figure to reopen, a lesson). platform_files_init prepares that
 * once, before any file is read: desktop, nothing to do (0); web, the folders of the
 * in-memory file system. -1 with err when it cannot. */
int platform_files_init(ErrorMsg *err);

/* The folder the window's figures (E / Shift+E, lesson slides) are written into: asked
 * (--export-dir) when given; else desktop NULL (the exporter's default,
 * ./inferscope-figures), web a folder of MEMFS from which downloads are offered. */
const char *platform_export_dir(const char *asked);

/* ---- downloads ---- */

/* A file the app has just written completely (an exported figure) is handed to the
 * user: desktop, it stays where it was written; web, the browser offers it as a
 * download (mime: its type, "image/png"). Returns what the status line names (desktop
 * the path, web the file name), or NULL when the offer failed (the file is written). */
const char *platform_offer_file(const char *path, const char *mime);

/* ---- the clock ---- */

/* Milliseconds on a monotonic clock (sub-millisecond resolution): frame times, how
 * long a job has been running. Only differences mean anything. */
double platform_now_ms(void);

#endif
