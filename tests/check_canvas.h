/* check_canvas.h — an offscreen renderer with a Viz on it and a buffer for its pixels:
 * what the panel tests draw into and read back (viz/offscreen.h, SDL's software
 * renderer; no window). Not a drawing helper: each test draws its own way. */
#ifndef CHECK_CANVAS_H
#define CHECK_CANVAS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "offscreen.h"
#include "png_write.h"
#include "viz.h"

typedef struct Canvas {
    Offscreen off;
    Viz viz;
    uint8_t *px; /* (w*h*4) the last read-back */
    size_t size; /* bytes of px */
    int w, h;
    int ok;      /* 1 once everything above exists */
} Canvas;

/* A w x h canvas at ui_scale in theme, fonts from assets/. Returns 0, or -1 after a
 * failed check naming the problem (the canvas is then safe to close). */
/* The looks the panel tests draw at: 1920x1080 light at 100 %, 1280x720 dark at 100 %,
 * 1280x720 light at 250 % (a projector's scale on a small screen). */
typedef struct CanvasLook {
    int w, h;
    float ui;
    ThemeId th;
} CanvasLook;
static const CanvasLook CHECK_LOOKS[] = {
    {1920, 1080, 1.0f, THEME_LIGHT}, {1280, 720, 1.0f, THEME_DARK}, {1280, 720, 2.5f, THEME_LIGHT}};
enum { CHECK_N_LOOKS = (int)(sizeof CHECK_LOOKS / sizeof CHECK_LOOKS[0]) };

static inline int canvas_open(Canvas *c, int w, int h, float ui_scale, ThemeId theme) {
    memset(c, 0, sizeof *c);
    ErrorMsg err = {{0}};
    if (offscreen_create(&c->off, w, h, &err) != 0 ||
        viz_init(&c->viz, c->off.renderer, "assets", ui_scale, 1.0f, theme, &err) != 0) {
        CHECK(0, "canvas %dx%d: %s", w, h, err.text);
        return -1;
    }
    c->w = w;
    c->h = h;
    c->size = offscreen_rgba_size(w, h);
    c->px = malloc(c->size);
    c->ok = c->px != NULL;
    CHECK(c->ok, "pixel buffer of %zu bytes", c->size);
    return c->ok ? 0 : -1;
}

static inline void canvas_close(Canvas *c) {
    viz_free(&c->viz);
    offscreen_free(&c->off);
    free(c->px);
    memset(c, 0, sizeof *c);
}

/* With the environment variable `env` naming a folder, saves the last read-back there as
 * NAME (a PNG, for looking at what a test drew); otherwise does nothing. */
static inline void canvas_dump(const Canvas *c, const char *env, const char *name) {
    const char *dir = getenv(env);
    if (!dir) return;
    char path[700];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    PngWriteOptions opt = {.overwrite = 1};
    ErrorMsg err = {{0}};
    if (png_write_file(path, c->px, c->w, c->h, 4, (size_t)c->w * 4, NULL, 0, &opt, &err) != 0)
        fprintf(stderr, "dump: %s\n", err.text);
}

#endif
