/* platform_web.c — platform.h in the browser (WebAssembly, emscripten): the browser
 * calls the frame once per animation frame, a model job runs within the frame that
 * starts it (one thread: runs on any static host, no cross-origin isolation needed),
 * files live in emscripten's in-memory file system (MEMFS), and a figure the app wrote
 * there is offered as a download. Only the web build compiles this file (PLATFORM=web,
 * CC=emcc: it includes emscripten.h); the native build compiles platform_desktop_sdl.c.
 *
 * Link needs (the web build's flags): the file system (stdio already pulls it in;
 * EM_JS below reads FS), and -lidbfs.js for the persistent folder (optional: without
 * it PLATFORM_WEB_CACHE_DIR is an ordinary MEMFS folder, emptied by every page load). */
#include <emscripten.h>

#include <assert.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "platform.h"
#include "web/web_loop.h"

/* MEMFS folders: figures written before they are downloaded; files the page copies in
 * from a file picker or a drop (a figure to reopen, a lesson); the persistent cache. */
#define PLATFORM_WEB_EXPORT_DIR "/figures"
#define PLATFORM_WEB_UPLOAD_DIR "/uploads"
#define PLATFORM_WEB_CACHE_DIR "/cache"

/* ---- the loop ---- */

/* The browser's loop takes one pointer and outlives platform_run_loop's call frame
 * (it is the page), so what it calls through lives in static storage: the one global
 * of this file, set once. */
typedef struct WebLoop {
    PlatformFrameFn frame;
    void *arg;
} WebLoop;
static WebLoop web_loop;

static void web_frame(void *p) {
    const WebLoop *l = p;
    /* the wait the frame asks for is the desktop's; the browser paces frames itself */
    if (l->frame(l->arg) < 0) emscripten_cancel_main_loop(); /* the app quit: the page stays */
}

void *web_loop_arg(void) { return web_loop.frame ? web_loop.arg : NULL; }

void platform_run_loop(PlatformFrameFn frame, void *arg) {
    web_loop.frame = frame;
    web_loop.arg = arg;
    /* fps 0: requestAnimationFrame; 1: simulate an infinite loop — this call does not
     * return and the caller's stack (arg points into it) stays untouched */
    emscripten_set_main_loop_arg(web_frame, &web_loop, 0, 1);
}

int platform_page_sizes_window(void) { return 1; }

int platform_can_quit(void) { return 0; }

/* ---- model jobs ---- */

int platform_job_start(PlatformJob *job, const char *name, PlatformJobFn fn, void *arg) {
    (void)name;
    assert(!job->running);
    job->fn = fn;
    job->arg = arg;
    job->thread = NULL;
    /* One thread: the job runs now, inside the frame that asked for it, and the next
     * frame's platform_job_done finishes it as it would a thread's. A job long enough
     * to stall the page (a step of a big model, the lens grid) is for this file to
     * slice across frames later (the inside worker stops between lens columns when
     * InsideData.cancel is set, so it can be resumed column by column). */
    fn(arg);
    atomic_store(&job->finished, 1);
    job->running = 1;
    return 0;
}

int platform_job_running(const PlatformJob *job) { return job->running; }

int platform_job_done(PlatformJob *job) {
    if (!job->running || !atomic_load(&job->finished)) return 0;
    job->running = 0;
    return 1;
}

void platform_job_wait(PlatformJob *job) {
    job->running = 0; /* it ran to the end inside platform_job_start */
}

/* ---- files ---- */

/* mkdir that accepts a folder already there */
static int make_dir(const char *path, ErrorMsg *err) {
    if (mkdir(path, 0755) == 0 || errno == EEXIST) return 0;
    return error_set(err, "%s: cannot create the folder in the browser's file system (%s)", path, strerror(errno));
}

/* The persistent cache over IndexedDB when the build linked IDBFS; filling it from
 * IndexedDB (FS.syncfs(true, ...), asynchronous) and writing it back are the model
 * cache's to do, before the first read and after a download. */
EM_JS(void, web_mount_cache, (const char *dir), {
    if (typeof IDBFS !== 'undefined') FS.mount(IDBFS, {}, UTF8ToString(dir));
})

int platform_files_init(ErrorMsg *err) {
    if (make_dir(PLATFORM_WEB_EXPORT_DIR, err) || make_dir(PLATFORM_WEB_UPLOAD_DIR, err) ||
        make_dir(PLATFORM_WEB_CACHE_DIR, err))
        return -1;
    web_mount_cache(PLATFORM_WEB_CACHE_DIR);
    return 0;
}

const char *platform_export_dir(const char *asked) { return asked ? asked : PLATFORM_WEB_EXPORT_DIR; }

/* ---- downloads ---- */

/* The file's bytes from MEMFS into a Blob, offered through a click on a temporary
 * <a download>; the object URL is released once the browser has taken the file.
 * 0, or -1 when the file cannot be read or the page refuses (never throws into C). */
EM_JS(int, web_offer_file, (const char *path, const char *name, const char *mime), {
    try {
        var bytes = FS.readFile(UTF8ToString(path));
        var url = URL.createObjectURL(new Blob([bytes], {type: UTF8ToString(mime)}));
        var a = document.createElement('a');
        a.href = url;
        a.download = UTF8ToString(name);
        a.style.display = 'none';
        document.body.appendChild(a);
        a.click();
        document.body.removeChild(a);
        setTimeout(function() { URL.revokeObjectURL(url); }, 60000);
        return 0;
    } catch (e) {
        console.error('inferscope: download of ' + UTF8ToString(path) + ' failed: ' + e);
        return -1;
    }
})

const char *platform_offer_file(const char *path, const char *mime) {
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path; /* the download keeps the figure's name */
    return web_offer_file(path, name, mime) == 0 ? name : NULL;
}

/* ---- the clock ---- */

double platform_now_ms(void) { return emscripten_get_now(); /* performance.now() */ }
