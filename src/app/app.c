/* app.c — the window and one frame of it (immediate mode): apply the input that
 * arrived (app_update), run an export if one was asked for, then, only if something
 * changed, lay out and draw the whole frame from state (app_draw) and present. The
 * loop that calls the frame is the platform's (platform.h: SDL's event wait natively,
 * the browser's animation frames on the web). The window, renderer and Viz live here;
 * everything else is in app_update.c, app_draw.c and the Session. Not a place for
 * drawing code, model math, threads or waiting. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "app_class.h"
#include "app_export.h"
#include "app_record.h"
#include "app_jobs.h"
#include "file_write.h"
#include "inside_fill.h"
#include "platform.h"

/* FNV-1a over bytes, chained from x (start with FNV_OFFSET). */
#define FNV_OFFSET 1469598103934665603ULL
static uint64_t fnv1a(uint64_t x, const void *data, size_t n) {
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) x = (x ^ p[i]) * 1099511628211ULL;
    return x;
}

/* Test hook: with INFERSCOPE_HITS_OUT=FILE the loop writes, whenever it changes, a
 * line of state ("state n_pos=20 n_branches=2 branch=1 help=0 ... full=0 beat=-1 size=1280x720",
 * the size in renderer pixels) followed by the
 * clickable regions of the frame on screen ("kind a b x y w h" per line, kind as in
 * VizHitKind). A window test waits for the state it expects before it looks, and
 * clicks a probability bar without guessing the layout. Through file_write.h: a reader
 * never sees half a list, and no link at the name or beside it is written through. */
static void write_hits(const AppState *app, const char *path, int out_w, int out_h, uint64_t *last_hash) {
    char state[256];
    const Session *s = &app->session;
    snprintf(state, sizeof state,
             "state n_pos=%d n_branches=%d branch=%d help=%d focus=%d blank=%d editing=%d full=%d beat=%d size=%dx%d",
             session_len(s), s->n_branches, s->cur, app->view.show_help, (int)app->view.focus, app->view.blank,
             app->editing, app->fullscreen, app->in_lesson ? app->beat.beat : -1, out_w, out_h);
    const VizHits *h = &app->hits;
    uint64_t x = fnv1a(fnv1a(FNV_OFFSET, state, strlen(state)), h->hit, (size_t)h->n * sizeof h->hit[0]);
    if (x == *last_hash) return;
    *last_hash = x;
    AtomicFile a;
    ErrorMsg err;
    if (atomic_file_open(&a, path, 1, &err)) return; /* a test hook: the test sees no file */
    a.no_fsync = 1; /* rewritten on every change: an fsync per frame would stall the loop */
    fprintf(a.f, "%s\n", state);
    for (int i = 0; i < h->n; i++)
        fprintf(a.f, "%d %d %d %d %d %d %d\n", (int)h->hit[i].kind, h->hit[i].a, h->hit[i].b, h->hit[i].r.x,
                h->hit[i].r.y, h->hit[i].r.w, h->hit[i].r.h);
    (void)atomic_file_commit(&a, &err);
}

/* Window pixels → renderer pixels (differ only on a HiDPI backend). */
static void pixel_scale(SDL_Window *win, SDL_Renderer *ren, float *sx, float *sy) {
    int ww = 0, wh = 0, ow = 0, oh = 0;
    SDL_GetWindowSize(win, &ww, &wh);
    SDL_GetRendererOutputSize(ren, &ow, &oh);
    *sx = ww > 0 && ow > 0 ? (float)ow / (float)ww : 1.0f;
    *sy = wh > 0 && oh > 0 ? (float)oh / (float)wh : 1.0f;
}

static void handle_event(AppState *app, const SDL_Event *e, AppWindow *w) {
    if (e->type == SDL_WINDOWEVENT) {
        switch (e->window.event) {
        case SDL_WINDOWEVENT_SIZE_CHANGED:
        case SDL_WINDOWEVENT_EXPOSED:
        case SDL_WINDOWEVENT_SHOWN:
        case SDL_WINDOWEVENT_RESTORED:
            app->dirty = 1; /* the layout comes from the window size: redraw */
            break;
        default:
            break;
        }
    }
    float sx, sy;
    pixel_scale(w->win, w->ren, &sx, &sy);
    AppInput in;
    if (!app_input_from_event(e, sx, sy, &in)) return;
    if (app->busy) {
        /* the worker owns the session: keep the input for later, in order (a quick
         * "Space Space Space" still makes three steps). Auto-repeats and mouse motion
         * are dropped so holding a key on a slow model never builds a backlog. */
        if (in.kind == APP_INPUT_QUIT) app->quit = 1;
        else if (in.kind == APP_INPUT_MOUSE_MOVE || in.repeat) return;
        else if (app->n_queued < APP_QUEUE_MAX) app->queue[app->n_queued++] = in;
        return;
    }
    /* anything but a hover may change the session the inside worker reads */
    if (in.kind != APP_INPUT_MOUSE_MOVE) app_inside_stop(app);
    app_update(app, &in);
}

/* Applies queued input until it is used up or an input starts another job. */
static void drain_queue(AppState *app) {
    int i = 0;
    if (app->n_queued) app_inside_stop(app);
    while (i < app->n_queued && !app->busy && !app->quit) app_update(app, &app->queue[i++]);
    memmove(app->queue, app->queue + i, (size_t)(app->n_queued - i) * sizeof app->queue[0]);
    app->n_queued -= i;
}

/* The density the window draws at: renderer pixels per window pixel (a HiDPI screen, a
 * browser's devicePixelRatio: 2 keeps text crisp at the same size), times what fits the
 * layout's smallest size into a window smaller than that — only a page can be (a
 * portrait tablet is 768 CSS px wide; platform_page_sizes_window): zoomed out, never cut. */
static float window_dpi(SDL_Window *win, SDL_Renderer *ren) {
    float sx = 1.0f, sy = 1.0f, fit = 1.0f;
    pixel_scale(win, ren, &sx, &sy);
    int ww = 0, wh = 0;
    SDL_GetWindowSize(win, &ww, &wh);
    if (ww > 0 && ww < APP_MIN_W) fit = (float)ww / APP_MIN_W;
    if (wh > 0 && wh < APP_MIN_H && (float)wh / APP_MIN_H < fit) fit = (float)wh / APP_MIN_H;
    float d = sx * fit;
    return d < VIZ_DPI_SCALE_MIN ? VIZ_DPI_SCALE_MIN : d > VIZ_DPI_SCALE_MAX ? VIZ_DPI_SCALE_MAX : d;
}

/* The UI scale the window draws at: the user's, or in presenter mode the slide's for
 * this window size (the same rule `export --lesson` uses, so E exports what is seen). */
static float effective_ui_scale(const AppState *app, SDL_Window *win, SDL_Renderer *ren) {
    if (!app->in_lesson) return app->ui_scale;
    int ow = 0, oh = 0;
    SDL_GetRendererOutputSize(ren, &ow, &oh);
    float dpi = window_dpi(win, ren); /* the slide's rule is for the layout's size */
    return viz_slide_ui_scale((int)(ow / dpi), (int)(oh / dpi), app->ui_scale);
}

/* Brings window, text input and Viz in line with what app_update decided. */
static void sync_window(AppState *app, AppWindow *w) {
    if (app->editing != (SDL_IsTextInputActive() == SDL_TRUE)) {
        if (app->editing) SDL_StartTextInput();
        else SDL_StopTextInput();
    }
    Viz *viz = &w->viz;
    float ui = effective_ui_scale(app, w->win, w->ren), dpi = window_dpi(w->win, w->ren);
    if (ui != viz->ui_scale || dpi != viz->dpi_scale) {
        ErrorMsg err;
        if (viz_set_scale(viz, ui, dpi, &err)) {
            if (!app->in_lesson) app->ui_scale = viz->ui_scale;
            app_set_status(app, 1, "%s", err.text);
        }
        app->dirty = 1;
    }
    if (app->theme != viz->theme_id) {
        viz_set_theme(viz, app->theme);
        app->dirty = 1;
    }
    int is_full = (SDL_GetWindowFlags(w->win) & SDL_WINDOW_FULLSCREEN_DESKTOP) != 0;
    if (app->fullscreen != is_full) {
        if (SDL_SetWindowFullscreen(w->win, app->fullscreen ? SDL_WINDOW_FULLSCREEN_DESKTOP : 0) != 0) {
            app->fullscreen = is_full;
            app_set_status(app, 1, "full screen: %s", SDL_GetError());
        }
        app->dirty = 1;
    }
}

/* In presenter mode the slide is what the class sees: messages that are not errors
 * ("exported …") go to the window title, not onto the slide. */
static void show_lesson_message(AppState *app, AppWindow *w) {
    if (app->status_is_error || strcmp(app->status, w->shown) == 0) return;
    snprintf(w->shown, sizeof w->shown, "%s", app->status);
    char t[APP_STATUS_MAX + 300];
    if (w->shown[0]) snprintf(t, sizeof t, "%s \xE2\x80\x94 %s", w->title, w->shown);
    else snprintf(t, sizeof t, "%s", w->title);
    SDL_SetWindowTitle(w->win, t);
}

/* Layout from the output size, draw, present. */
static void draw_once(AppState *app, AppWindow *w) {
    int ow = 0, oh = 0;
    SDL_GetRendererOutputSize(w->ren, &ow, &oh);
    Rect r = rect_make(0, 0, ow, oh);
    Viz *viz = &w->viz;
    viz_clear_error(viz);
    app->dirty = 0;
    double t0 = platform_now_ms();
    InsideData *inside = app->session.inside;
    if (inside) inside->async = 1; /* the draw only reads: the model math is app_inside_start's */
    app_draw(app, viz, r);
    if (inside) inside->async = 0;
    if (viz->has_error && (!app->status_is_error || strcmp(app->status, viz->last_error.text) != 0)) {
        /* show a draw problem on the next frame; the same error again does not loop */
        app_set_status(app, 1, "%s", viz->last_error.text);
    }
    SDL_RenderPresent(w->ren);
    app->frame_ms_last = platform_now_ms() - t0;
    if (app->frame_ms_last > app->frame_ms_max) app->frame_ms_max = app->frame_ms_last;
    app->n_frames++;
    /* a lesson being checked passes through the states of its beats: not one to wait for */
    if (w->hits_out && !app->lesson_checking) write_hits(app, w->hits_out, ow, oh, &w->hits_hash);
}

int app_frame(AppState *app, AppWindow *w) {
    SDL_Event e;
    while (SDL_PollEvent(&e)) handle_event(app, &e, w);
    app_jobs_poll(app);
    app_inside_poll(app);
    drain_queue(app);
    /* a lesson being checked: its next beat once the frame on screen shows the last one
     * done (in the browser the job runs within this frame: one drawn frame, one beat) */
    if (!app->dirty) app_lesson_check_next(app);
    if (app->busy) {
        /* a slow step (big GPT-2, long prompt): say so in the title, keep the frame */
        if (!w->title_busy && platform_now_ms() - app->busy_since_ms > 150) {
            char t[300];
            snprintf(t, sizeof t, "%s \xE2\x80\x94 computing\xE2\x80\xA6", w->title);
            SDL_SetWindowTitle(w->win, t);
            w->title_busy = 1;
        }
        return APP_FRAME_BUSY_MS;
    }
    if (w->title_busy) {
        SDL_SetWindowTitle(w->win, w->title);
        w->title_busy = 0;
    }
    if (app->quit) {
        app_record_stop(app); /* quitting ends a recording: the video is written */
        return PLATFORM_FRAME_STOP;
    }
    sync_window(app, w);
    if (app->export_request != APP_EXPORT_NONE || app->record_request || (app->recording && app->dirty)) {
        app_inside_stop(app); /* the export computes its own numbers, synchronously */
        int ow = 0, oh = 0;
        SDL_GetRendererOutputSize(w->ren, &ow, &oh);
        /* re-rendered offscreen at the window's size; on a screen of density 2 or 4 at
         * that density (the export's scale), so the figure looks as the window does */
        float dpi = w->viz.dpi_scale;
        int k = dpi == 2.0f || dpi == 4.0f ? (int)dpi : 1;
        if (app->export_request != APP_EXPORT_NONE) app_export(app, ow / k, oh / k, k);
        app->export_request = APP_EXPORT_NONE;
        if (app->record_request) app_record_toggle(app, ow, oh);
        else app_record_poll(app);
        app->record_request = 0;
    }
    if (app->in_lesson) show_lesson_message(app, w);
    app_class_poll(app); /* the votes arrive from the network, not as events */
    if (app->dirty) draw_once(app, w);
    app_inside_start(app); /* what that frame found missing, behind the next frames */
    if (platform_job_running(&app->inside_worker) || app->lesson_checking) return APP_FRAME_BUSY_MS;
    return app->klass ? APP_CLASS_POLL_MS : APP_FRAME_IDLE_MS;
}

/* With no display SDL falls back to a driver that draws nowhere (offscreen, dummy), and
 * the window would run unseen without a word. Those drivers are for tests and batch runs
 * that ask for them by name (SDL_VIDEODRIVER=dummy); otherwise say there is no display.
 * Checked before SDL_Init when no display is named at all (SDL would first print its own
 * XDG_RUNTIME_DIR complaint), and after it for a display that could not be reached. */
static int no_display(int sdl_started, ErrorMsg *err) {
    const char *asked = SDL_GetHint(SDL_HINT_VIDEODRIVER); /* SDL_VIDEODRIVER, or NULL */
    if (!sdl_started) {
        /* only Linux names its displays in the environment (elsewhere: no label to reach,
         * which -Wunused-label refuses, e.g. under emcc) */
        int unnamed = 0;
#if defined(__linux__)
        unnamed = !asked && !getenv("DISPLAY") && !getenv("WAYLAND_DISPLAY");
#endif
        if (!unnamed) return 0;
    } else {
        const char *drv = SDL_GetCurrentVideoDriver();
        if (!drv || (strcmp(drv, "offscreen") != 0 && strcmp(drv, "dummy") != 0)) return 0;
        if (asked && strstr(asked, drv)) return 0;
    }
    return error_set(err, "no display to open the window on (DISPLAY and WAYLAND_DISPLAY reach none); "
                     "`inferscope export` draws figures without one, SDL_VIDEODRIVER=offscreen runs it unseen");
}

int app_window_open(AppWindow *w, const AppState *app, int width, int height, ErrorMsg *err) {
    if (no_display(0, err)) return -1;
    if (SDL_Init(SDL_INIT_VIDEO) != 0) return error_set(err, "cannot start SDL video: %s", SDL_GetError());
    if (no_display(1, err)) {
        SDL_Quit();
        return -1;
    }
    snprintf(w->title, sizeof w->title, "inferscope \xE2\x80\x94 %s", app->session.model.name);
    /* ALLOW_HIGHDPI is honoured on macOS/Wayland; SDL 2.26 on X11 ignores it (use --scale) */
    w->win = SDL_CreateWindow(w->title, SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED, width, height,
                              SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
    if (!w->win) {
        error_set(err, "cannot open a window: %s", SDL_GetError());
        goto fail;
    }
    /* a page sizes its canvas itself (CSS): a minimum there would overflow a tablet */
    if (!platform_page_sizes_window()) SDL_SetWindowMinimumSize(w->win, APP_MIN_W, APP_MIN_H);
    /* index -1: SDL picks a renderer, honouring SDL_RENDER_DRIVER (tests ask for software) */
    w->ren = SDL_CreateRenderer(w->win, -1, SDL_RENDERER_PRESENTVSYNC);
    if (!w->ren) w->ren = SDL_CreateRenderer(w->win, -1, 0);
    if (!w->ren) {
        error_set(err, "cannot create a renderer: %s", SDL_GetError());
        goto fail;
    }
    if (viz_init(&w->viz, w->ren, app->assets_dir, effective_ui_scale(app, w->win, w->ren), window_dpi(w->win, w->ren),
                 app->theme, err))
        goto fail;
    SDL_StopTextInput(); /* SDL starts text input by default; only the prompt editor wants it */
    w->hits_out = getenv("INFERSCOPE_HITS_OUT");
    return 0;
fail:
    app_window_close(w);
    return -1;
}

void app_window_close(AppWindow *w) {
    viz_free(&w->viz);
    if (w->ren) SDL_DestroyRenderer(w->ren);
    if (w->win) SDL_DestroyWindow(w->win);
    w->ren = NULL;
    w->win = NULL;
    SDL_Quit();
}

static int run_frame(void *arg) {
    AppRun *r = arg;
    return app_frame(r->app, r->win);
}


int app_run(AppState *app, int width, int height, ErrorMsg *err) {
    AppWindow w;
    memset(&w, 0, sizeof w);
    if (app_window_open(&w, app, width, height, err)) return -1;
    app->dirty = 1;
    app->async = 1; /* forward passes through platform jobs: the loop never waits on the model */
    AppRun run = {app, &w}; /* lives as long as the loop (on the web: the page; platform.h) */
    platform_run_loop(run_frame, &run);
    app_jobs_wait(app);
    app->async = 0;
    /* INFERSCOPE_TIMINGS=1: how long frames and forward steps took (for the report in
     * docs and for checking that the window never stalls) */
    if (getenv("INFERSCOPE_TIMINGS"))
        fprintf(stderr, "inferscope: %d frames, last %.2f ms, slowest %.2f ms; last forward step %.2f ms\n",
                app->n_frames, app->frame_ms_last, app->frame_ms_max, app->session.last_step_ms);
    app_window_close(&w);
    /* a lesson whose check failed closed the window: its error is the app's */
    if (app->lesson_failed) return error_set(err, "%s", app->lesson_error.text);
    return 0;
}
