/* web_exports.c — what the page (web/index.html) asks of the running app, between two
 * frames: the state for the address bar (a link is a state), opening a link's state or
 * a dropped figure, a key from the on-page buttons, the prompt from the on-page text
 * field, a lesson beat. The link's state is a figure's provenance (figure_meta.h), the
 * same keys a PNG carries, so a link opens through the code --open-figure uses
 * (figure_meta_parse, app_open_figure_state) and nothing is decoded twice in JS. The
 * page calls these by name (the link keeps them: -sEXPORTED_FUNCTIONS in the Makefile);
 * the address-bar form is query parameters, keys without the "inferscope:" prefix. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "app_editor.h"
#include "app_jobs.h"
#include "figure_meta.h"
#include "png_write.h"
#include "strbuf.h"
#include "version.h"
#include "web/web_loop.h"

#define WEB_KEY_PREFIX "inferscope:"

/* The app the page runs, or NULL before its loop has started. */
static AppRun *running(void) { return web_loop_arg(); }

/* Appends s percent-encoded for a query (RFC 3986 unreserved characters stay). */
static void append_encoded(StrBuf *b, const char *s) {
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        int plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                    *p == '-' || *p == '.' || *p == '_' || *p == '~';
        char e[4] = {(char)*p, 0, 0, 0};
        if (!plain) e[0] = '%', e[1] = hex[*p >> 4], e[2] = hex[*p & 15];
        strbuf_adds(b, e);
    }
}

/* The state on screen as a query ("prompt=%22Once...&step=3&..."), malloc'd (the page
 * frees it with _free), or NULL (no app yet, out of memory). In a lesson only the
 * beat and how many there are ("beat=3&beats=12"): the beat is rebuilt exactly from
 * the lesson, which the page names. */
char *web_state_query(void) {
    AppRun *r = running();
    if (!r) return NULL;
    AppState *app = r->app;
    StrBuf b = {0};
    if (app->lesson_checking) {
        /* the beat it will show, and how many beats have held so far (the page waits for
         * the lesson until `checking` is gone) */
        strbuf_addf(&b, "beat=%d&beats=%zu&checking=%zu", app->lesson_first_beat + 1, app->lesson.n_beats,
                    lesson_check_done(&app->lesson));
    } else if (app->in_lesson) {
        strbuf_addf(&b, "beat=%d&beats=%d", app->beat.beat + 1, app->beat.n_beats);
    } else {
        int ow = 0, oh = 0;
        SDL_GetRendererOutputSize(r->win->ren, &ow, &oh);
        FigureMetaInput in = {.panel = VIZ_PANEL_FRAME, .width = ow, .height = oh, .scale = 1,
                              .ui_scale = app->ui_scale, .theme = app->theme, .model_sha256 = NULL};
        FigureMeta m = {0};
        ErrorMsg err;
        if (figure_meta_build(&m, &app->session, &app->view, &in, &err)) return NULL;
        for (size_t i = 0; i < m.n; i++) {
            const char *k = m.text[i].keyword;
            if (strncmp(k, WEB_KEY_PREFIX, strlen(WEB_KEY_PREFIX)) != 0) continue; /* Software, Title... */
            if (b.len) strbuf_adds(&b, "&");
            append_encoded(&b, k + strlen(WEB_KEY_PREFIX));
            strbuf_adds(&b, "=");
            append_encoded(&b, m.text[i].value);
        }
        figure_meta_free(&m);
    }
    if (b.oom || !b.data) return strbuf_free(&b), NULL;
    return b.data; /* the page's to free */
}

/* "%41" -> 'A', "+" -> ' ' (as a browser writes a query); in place. -1 on a bad escape. */
static int decode_in_place(char *s) {
    char *w = s;
    for (const char *p = s; *p; p++) {
        if (*p == '+') {
            *w++ = ' ';
        } else if (*p == '%') {
            int v = 0;
            for (int i = 1; i <= 2; i++) {
                char c = p[i];
                int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                        : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
                if (d < 0) return -1;
                v = v * 16 + d;
            }
            if (v == 0) return -1; /* a NUL would cut the value silently */
            *w++ = (char)v;
            p += 2;
        } else {
            *w++ = *p;
        }
    }
    *w = 0;
    return 0;
}

/* Splits a query into text chunks named as in a figure ("step" -> "inferscope:step").
 * Keys the figure format does not know are the parser's to refuse. 0 or -1 with err. */
static int query_chunks(const char *query, PngTextChunks *t, ErrorMsg *err) {
    memset(t, 0, sizeof *t);
    size_t cap = 2; /* the pieces, and Software */
    for (const char *p = query; *p; p++) cap += *p == '&';
    t->items = calloc(cap, sizeof *t->items);
    char *copy = strdup(query);
    if (!t->items || !copy) return free(copy), png_text_chunks_free(t), error_set(err, "link: out of memory");
    for (char *save = NULL, *part = strtok_r(copy, "&", &save); part; part = strtok_r(NULL, "&", &save)) {
        char *eq = strchr(part, '=');
        if (!eq || eq == part) continue; /* "?lesson" alone, an empty piece: not a figure key */
        *eq = 0;
        if (decode_in_place(part) || decode_in_place(eq + 1)) {
            free(copy);
            png_text_chunks_free(t);
            return error_set(err, "link: a bad %%-escape in the value of '%.40s'", part);
        }
        size_t kn = strlen(WEB_KEY_PREFIX) + strlen(part) + 1;
        PngTextEntry *e = &t->items[t->count];
        e->keyword = malloc(kn);
        e->value = strdup(eq + 1);
        if (!e->keyword || !e->value) {
            t->count++;
            free(copy);
            png_text_chunks_free(t);
            return error_set(err, "link: out of memory");
        }
        snprintf(e->keyword, kn, "%s%s", WEB_KEY_PREFIX, part);
        t->count++;
    }
    free(copy);
    /* the one key a figure needs and a link leaves out: this software made the state */
    PngTextEntry *e = &t->items[t->count];
    e->keyword = strdup("Software");
    e->value = strdup("inferscope " INFERSCOPE_VERSION);
    t->count++;
    if (!e->keyword || !e->value) return png_text_chunks_free(t), error_set(err, "link: out of memory");
    return 0;
}

/* Applies a parsed figure state to the running app after its jobs have finished. */
static int open_state(AppState *app, FigureState *fs, const char *what) {
    app_jobs_wait(app);
    app_inside_stop(app);
    ErrorMsg err;
    int rc = app_open_figure_state(app, fs, what, &err);
    if (rc) app_set_status(app, 1, "%s", err.text);
    figure_state_free(fs);
    app->dirty = 1;
    return rc;
}

/* Opens the state a link carries (the page passes location.search without "?").
 * 0, or -1 with the reason on the status line (and the console, from stderr). */
int web_open_state(const char *query) {
    AppRun *r = running();
    if (!r) return -1;
    PngTextChunks t;
    ErrorMsg err;
    FigureState fs = {0};
    int rc = query_chunks(query, &t, &err);
    if (rc == 0) {
        rc = figure_meta_parse(&t, "link", &fs, &err);
        png_text_chunks_free(&t);
    }
    if (rc) {
        fprintf(stderr, "inferscope: %s\n", err.text);
        app_set_status(r->app, 1, "%s", err.text);
        r->app->dirty = 1;
        return -1;
    }
    return open_state(r->app, &fs, "the link");
}

/* Opens a figure PNG the page copied into the file system (a drop): --open-figure's path. */
int web_open_figure(const char *path) {
    AppRun *r = running();
    if (!r) return -1;
    FigureState fs = {0};
    ErrorMsg err;
    if (figure_meta_read(path, &fs, &err)) {
        fprintf(stderr, "inferscope: %s\n", err.text);
        app_set_status(r->app, 1, "%s", err.text);
        r->app->dirty = 1;
        return -1;
    }
    return open_state(r->app, &fs, path);
}

/* A key from an on-page button, queued as SDL's own key event so the next frame
 * handles it exactly as a key on a keyboard (keys.c's table). mod: KMOD_* bits. */
void web_key(int keycode, int mod) {
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = SDL_KEYDOWN;
    e.key.state = SDL_PRESSED;
    e.key.keysym.sym = keycode;
    e.key.keysym.scancode = SDL_GetScancodeFromKey(keycode);
    e.key.keysym.mod = (Uint16)mod;
    SDL_PushEvent(&e);
    e.type = SDL_KEYUP;
    e.key.state = SDL_RELEASED;
    SDL_PushEvent(&e);
}

/* The prompt from the on-page text field (a tablet has no keyboard for the editor):
 * the editor opened, its line replaced, Enter — the path the typed prompt takes. */
void web_set_prompt(const char *utf8) {
    AppRun *r = running();
    if (!r) return;
    AppState *app = r->app;
    size_t n = strlen(utf8);
    if (n > APP_EDIT_MAX - 1) {
        app_set_status(app, 1, "the prompt editor holds at most %d bytes", APP_EDIT_MAX - 1);
        app->dirty = 1;
        return;
    }
    app_edit_open(app);
    memcpy(app->edit, utf8, n + 1);
    app->edit_len = n;
    app_edit_key(app, SDLK_RETURN, 0);
    app->dirty = 1;
}

/* Presenter mode: shows beat k (1-based, as the link and the counter say). */
void web_show_beat(int k) {
    AppRun *r = running();
    if (r && r->app->lesson_checking) r->app->lesson_first_beat = k - 1; /* shown when it is done */
    else if (r && r->app->in_lesson) app_lesson_show(r->app, k - 1);
}

/* The name of the SDL renderer the window draws with ("software", or "opengles2" where
 * the page asked for WebGL on a high-DPI screen), or NULL before the loop has started.
 * SDL's own string (static, not to be freed): tests and the page's console ask which
 * path ran, since the page only asks SDL for one and SDL may fall back. */
const char *web_renderer_name(void) {
    AppRun *r = running();
    SDL_RendererInfo info;
    if (!r || SDL_GetRendererInfo(r->win->ren, &info) != 0) return NULL;
    return info.name;
}
