/* test_viz_room.c — the picture grows with the room (issue "projector-grade"), measured
 * on rendered pixels:
 *   - the attention heatmap's colour area in a 1920×1080 frame at UI scale 2.5 is at
 *     least 0.8× its area at 1 (and at 1280×720, 1.75); the probability rows keep their
 *     height; nothing of the probability layout overlaps at any of these;
 *   - every single-panel export (tokens, probs, text, attention) and every beat of every
 *     shipped lesson, exported at 1920×1080, has ink on at least half of its rows and
 *     half of its columns (ink: a pixel that is none of background, panel, border and
 *     caption band);
 *   - a slide's smallest text is >= 24 px and its body text >= 28 px at 1080p.
 * The numbers are printed (the report quotes them). Heatmap cells are found through
 * the attention panel's own hit regions, then counted as pixels of the colour map. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "check_session.h"
#include "check_export.h"
#include "export.h"
#include "frame_fill.h"
#include "lesson.h"
#include "lesson_run.h"
#include "lesson_slide.h"
#include "offscreen.h"
#include "panel_probs_layout.h"
#include "panels.h"
#include "session.h"
#include "viz.h"

static VizHits hits; /* large: not on the stack */
static unsigned last_cramped; /* viz.cramped_mask of the last render_frame */

typedef struct Shot {
    uint8_t *px; /* RGBA */
    int w, h;
} Shot;

/* Draws the whole frame headless at w × h and UI scale ui; keeps pixels and hits. */
static int render_frame(const Session *s, const VizView *view, int w, int h, float ui, Shot *out) {
    Offscreen off = {0};
    Viz viz = {0};
    ErrorMsg err = {{0}};
    memset(out, 0, sizeof *out);
    if (offscreen_create(&off, w, h, &err) || viz_init(&viz, off.renderer, "assets", ui, 1.0f, THEME_LIGHT, &err)) {
        CHECK(0, "canvas %dx%d: %s", w, h, err.text);
        viz_free(&viz);
        offscreen_free(&off);
        return -1;
    }
    VizFrame f;
    frame_fill(&f, s, view);
    f.last_step_ms = -1;
    hits.n = 0;
    int rc = draw_frame(&viz, rect_make(0, 0, w, h), &f, &hits);
    last_cramped = viz.cramped_mask;
    CHECK(rc == 0 && !viz.has_error, "frame %dx%d at %.2f: %s", w, h, (double)ui, viz.last_error.text);
    out->w = w;
    out->h = h;
    out->px = malloc(offscreen_rgba_size(w, h));
    if (out->px) offscreen_read_rgba(&off, out->px, offscreen_rgba_size(w, h), &err);
    viz_free(&viz);
    offscreen_free(&off);
    return out->px ? 0 : -1;
}

/* Pixels of the heatmap's square (the bounding box of its cell hits) that carry a
 * colour of the sequential map: the area the picture really has on screen. */
static long heatmap_area(const Shot *sh, ColormapId map) {
    int x0 = sh->w, y0 = sh->h, x1 = 0, y1 = 0;
    for (int i = 0; i < hits.n; i++) {
        const VizHit *hh = &hits.hit[i];
        if (hh->kind != VIZ_HIT_ATTN_CELL) continue;
        if (hh->r.x < x0) x0 = hh->r.x;
        if (hh->r.y < y0) y0 = hh->r.y;
        if (hh->r.x + hh->r.w > x1) x1 = hh->r.x + hh->r.w;
        if (hh->r.y + hh->r.h > y1) y1 = hh->r.y + hh->r.h;
    }
    SDL_Color lut[512];
    for (int i = 0; i < 512; i++) lut[i] = colormap_sample(map, (float)i / 511.0f);
    long n = 0;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            const uint8_t *p = sh->px + ((size_t)y * (size_t)sh->w + (size_t)x) * 4;
            for (int i = 0; i < 512; i++)
                if (abs(p[0] - lut[i].r) <= 2 && abs(p[1] - lut[i].g) <= 2 && abs(p[2] - lut[i].b) <= 2) {
                    n++;
                    break;
                }
        }
    return n;
}

static const VizHit *panel_hit(VizPanel p) {
    for (int i = 0; i < hits.n; i++)
        if (hits.hit[i].kind == VIZ_HIT_PANEL && hits.hit[i].a == (int)p) return &hits.hit[i];
    return NULL;
}

/* UI scale 1 against `big` at one size: heatmap area ratio and the probability rows. */
static void compare_scales(const Session *s, int w, int h, float big, double min_ratio, double min_rows) {
    VizView view = frame_default_view();
    Shot a, b;
    if (render_frame(s, &view, w, h, 1.0f, &a)) return;
    long area1 = heatmap_area(&a, theme_get(THEME_LIGHT)->sequential);
    const VizHit *p1 = panel_hit(VIZ_PANEL_PROBS);
    Rect probs1 = p1 ? p1->r : (Rect){0, 0, 0, 0};
    if (render_frame(s, &view, w, h, big, &b)) {
        free(a.px);
        return;
    }
    long area2 = heatmap_area(&b, theme_get(THEME_LIGHT)->sequential);
    const VizHit *p2 = panel_hit(VIZ_PANEL_PROBS);
    Rect probs2 = p2 ? p2->r : (Rect){0, 0, 0, 0};
    double ratio = area1 > 0 ? (double)area2 / (double)area1 : 0.0;
    printf("heatmap colour area %dx%d: %ld px at 100 %%, %ld px at %.0f %% (ratio %.2f)\n", w, h, area1, area2,
           (double)big * 100.0, ratio);
    CHECK(area1 > 10000, "%dx%d: a heatmap at 100 %% (%ld px)", w, h, area1);
    CHECK(ratio >= min_ratio, "%dx%d: heatmap area at %.0f %% is %.2fx the area at 100 %% (want >= %.2f)", w, h,
          (double)big * 100.0, ratio, min_ratio);
    /* the bars: the rows' height in the probability panel, laid out at each scale */
    Offscreen off = {0};
    Viz viz = {0};
    ErrorMsg err = {{0}};
    if (offscreen_create(&off, 64, 64, &err) == 0 && viz_init(&viz, off.renderer, "assets", 1.0f, 1.0f, THEME_LIGHT, &err) == 0) {
        VizFrame f;
        frame_fill(&f, s, &view);
        ProbsLayout L1, L2;
        int ok1 = probs_panel_layout(&viz, probs1, &f, &L1) == 0;
        viz_set_scale(&viz, big, 1.0f, &err);
        int ok2 = probs_panel_layout(&viz, probs2, &f, &L2) == 0;
        if (ok1 && ok2) {
            double rows = L1.rows.h > 0 ? (double)L2.rows.h / (double)L1.rows.h : 0.0;
            double bars = (double)L2.cols.bar_w * L2.rows.h / ((double)L1.cols.bar_w * L1.rows.h + 1e-9);
            printf("probability rows %dx%d: %d px tall, bars %d px wide at 100 %%; %d px, %d px at %.0f %% "
                   "(height %.2fx, bar area %.2fx)\n",
                   w, h, L1.rows.h, L1.cols.bar_w, L2.rows.h, L2.cols.bar_w, (double)big * 100.0, rows, bars);
            CHECK(rows >= min_rows, "%dx%d: the probability rows keep %.2fx their height at %.0f %% (want %.2f)", w,
                  h, rows, (double)big * 100.0, min_rows);
        }
    }
    viz_free(&viz);
    offscreen_free(&off);
    free(a.px);
    free(b.px);
}

/* A tablet held upright (768x1024 and 820x1180; the canvas is what the page's bar
 * leaves): the attention panel is about as tall as its heatmap needs (the heatmap's rows
 * at least 0.45 of the panel's height, every UI scale), the text under it in the left
 * column, the bars the whole right column. Before, the attention took the left column
 * down to the status line and its square heatmap filled the top quarter to third
 * (0.24 at 250 %). Landscape keeps two columns with the text under the bars. */
static void test_portrait(const Session *s) {
    static const struct { int w, h; float ui; int upright; } cases[] = {
        {768, 916, 1.0f, 1}, {820, 1072, 1.0f, 1}, {768, 916, 2.5f, 1}, {820, 1072, 1.5f, 1},
        {1280, 720, 1.0f, 0}, {1920, 1080, 2.5f, 0}};
    VizView view = frame_default_view();
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int w = cases[k].w, h = cases[k].h;
        double ui = (double)cases[k].ui * 100;
        Shot sh;
        if (render_frame(s, &view, w, h, cases[k].ui, &sh)) continue;
        free(sh.px);
        const VizHit *att = panel_hit(VIZ_PANEL_ATTENTION), *pr = panel_hit(VIZ_PANEL_PROBS),
                     *tx = panel_hit(VIZ_PANEL_TEXT);
        if (!att || !pr || !tx) {
            CHECK(0, "%dx%d at %.0f %%: every panel has its hit region", w, h, ui);
            continue;
        }
        int y0 = h, y1 = 0; /* the heatmap's rows: its cells' extent */
        for (int i = 0; i < hits.n; i++) {
            if (hits.hit[i].kind != VIZ_HIT_ATTN_CELL) continue;
            if (hits.hit[i].r.y < y0) y0 = hits.hit[i].r.y;
            if (hits.hit[i].r.y + hits.hit[i].r.h > y1) y1 = hits.hit[i].r.y + hits.hit[i].r.h;
        }
        double picture = att->r.h > 0 && y1 > y0 ? (double)(y1 - y0) / att->r.h : 0.0;
        int text_left = tx->r.x == att->r.x && tx->r.y > att->r.y;
        printf("%dx%d at %.0f %%: attention %dx%d, heatmap %d px high (%.2f of it); text %dx%d %s; probs %d px high\n",
               w, h, ui, att->r.w, att->r.h, y1 - y0, picture, tx->r.w, tx->r.h,
               text_left ? "under the attention" : "under the bars", pr->r.h);
        if (cases[k].upright)
            CHECK(text_left && picture >= 0.45 && pr->r.h >= h * 3 / 4,
                  "%dx%d at %.0f %%: text under the attention (%d), heatmap %.2f of the attention's height (want >= 0.45), "
                  "bars %d px high (want the whole column)", w, h, ui, text_left, picture, pr->r.h);
        else
            CHECK(!text_left && tx->r.x == pr->r.x, "%dx%d at %.0f %%: landscape keeps the text under the bars", w, h, ui);
    }
}

/* ---- ink ----------------------------------------------------------------------------- */

static int near(const uint8_t *p, SDL_Color c) {
    return abs(p[0] - c.r) <= 24 && abs(p[1] - c.g) <= 24 && abs(p[2] - c.b) <= 24;
}

/* Fractions of rows and columns with ink: at least 0.5 % of their pixels drawn in a
 * colour that is not background, panel, panel border or caption band. */
static void ink_fractions(const ExportImage *img, const Theme *th, double *rows, double *cols) {
    const SDL_Color band = {0x10, 0x10, 0x10, 255};
    int *col_n = calloc((size_t)img->w, sizeof *col_n);
    int rows_inked = 0, cols_inked = 0;
    if (!col_n) return;
    for (int y = 0; y < img->h; y++) {
        int n = 0;
        const uint8_t *row = img->rgba + (size_t)y * (size_t)img->w * 4;
        /* a caption band spans the whole row: its fill is not ink (its text is); the
         * same dark colour elsewhere is text (the light theme's) */
        int band_row = near(row, band) && near(row + (size_t)(img->w - 1) * 4, band);
        for (int x = 0; x < img->w; x++) {
            const uint8_t *p = row + (size_t)x * 4;
            if (near(p, th->background) || near(p, th->panel) || near(p, th->panel_border) || (band_row && near(p, band)))
                continue;
            n++;
            col_n[x]++;
        }
        if (n * 200 >= img->w) rows_inked++;
    }
    for (int x = 0; x < img->w; x++)
        if (col_n[x] * 200 >= img->h) cols_inked++;
    *rows = (double)rows_inked / img->h;
    *cols = (double)cols_inked / img->w;
    free(col_n);
}

static void check_ink(const ExportImage *img, ThemeId theme, const char *what, double *min_rows, double *min_cols) {
    double r = 0, c = 0;
    ink_fractions(img, theme_get(theme), &r, &c);
    printf("ink %-34s rows %.2f  columns %.2f\n", what, r, c);
    CHECK(r >= 0.5 && c >= 0.5, "%s: ink on %.0f %% of rows and %.0f %% of columns (want >= 50 %% each)", what,
          r * 100.0, c * 100.0);
    if (r < *min_rows) *min_rows = r;
    if (c < *min_cols) *min_cols = c;
}

static void test_single_panels(Session *s) {
    static const VizPanel panels[] = {VIZ_PANEL_TOKENS, VIZ_PANEL_PROBS, VIZ_PANEL_TEXT, VIZ_PANEL_ATTENTION};
    double mr = 1, mc = 1;
    for (ThemeId th = THEME_LIGHT; th <= THEME_DARK; th++)
        for (size_t i = 0; i < sizeof panels / sizeof panels[0]; i++) {
            ExportOptions o = check_export_opts(NULL, panels[i], EXPORT_DEFAULT_W, EXPORT_DEFAULT_H);
            o.theme = th;
            VizView view = frame_default_view();
            ExportImage img;
            ErrorMsg err = {{0}};
            if (export_render(s, &view, &o, &img, &err)) {
                CHECK(0, "export %s: %s", viz_panel_name(panels[i]), err.text);
                continue;
            }
            char what[64];
            snprintf(what, sizeof what, "--panel %s (%s)", viz_panel_name(panels[i]), theme_get(th)->name);
            check_ink(&img, th, what, &mr, &mc);
            export_image_free(&img);
        }
    printf("single-panel exports: smallest ink fractions rows %.2f, columns %.2f\n", mr, mc);
}

static int ends_with(const char *s, const char *suf) {
    size_t n = strlen(s), k = strlen(suf);
    return n >= k && strcmp(s + n - k, suf) == 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void test_lesson_slides(void) {
    DIR *d = opendir("lessons");
    CHECK(d != NULL, "lessons/ opens");
    if (!d) return;
    char *names[64];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 64)
        if (ends_with(e->d_name, ".lesson")) names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], cmp_str);
    CHECK(n >= 8, "%d shipped lessons", n);
    double mr = 1, mc = 1;
    int slides = 0;
    for (int i = 0; i < n; i++) {
        char path[512], dir[1200], note[256];
        snprintf(path, sizeof path, "lessons/%s", names[i]);
        Lesson l;
        ErrorMsg err = {{0}};
        if (lesson_load(&l, path, &err)) {
            CHECK(0, "%s", err.text);
            continue;
        }
        lesson_model_dir(&l, "assets/models/stories16m", dir, sizeof dir, note, sizeof note);
        Session s;
        if (session_open(&s, dir, "assets/tokenizer", 0, GPT2_CAP_DEFAULT, &err)) {
            CHECK(0, "%s: %s", path, err.text);
            lesson_free(&l);
            continue;
        }
        VizView view = frame_default_view();
        LessonBeatView bv = {0};
        snprintf(bv.note, sizeof bv.note, "%s", note);
        LessonFacts facts = {.step_ms = -1.0};
        for (size_t k = 0; k < l.n_beats; k++) {
            if (lesson_goto_beat(&l, (int)k, &s, &view, &bv, &err)) {
                CHECK(0, "%s", err.text);
                break;
            }
            LessonCaptions lc;
            char m[200];
            if (lesson_facts_captions(&bv, &s, &facts, &lc, m, sizeof m)) {
                CHECK(0, "%s: beat %zu: %s", path, k + 1, m);
                break;
            }
            ExportOverlay ov;
            lesson_slide_overlay(&l, &bv, &lc, &ov);
            ExportOptions o = check_export_opts(NULL, view.focus, EXPORT_DEFAULT_W, EXPORT_DEFAULT_H);
            o.overlay = &ov;
            ExportImage img;
            if (export_render(&s, &view, &o, &img, &err)) {
                CHECK(0, "%s beat %zu: %s", path, k + 1, err.text);
                continue;
            }
            char what[96];
            snprintf(what, sizeof what, "%s beat %zu", names[i], k + 1);
            check_ink(&img, THEME_LIGHT, what, &mr, &mc);
            export_image_free(&img);
            slides++;
        }
        session_free(&s);
        lesson_free(&l);
    }
    for (int i = 0; i < n; i++) free(names[i]);
    printf("lesson slides: %d, smallest ink fractions rows %.2f, columns %.2f\n", slides, mr, mc);
}

/* A slide's type at 1920x1080: the smallest size (tick labels, numbers) >= 24 px, body >= 28. */
static void test_slide_type(void) {
    float ui = viz_slide_ui_scale(1920, 1080, 1.0f);
    Offscreen off = {0};
    Viz viz = {0};
    ErrorMsg err = {{0}};
    if (offscreen_create(&off, 64, 64, &err) || viz_init(&viz, off.renderer, "assets", ui, 1.0f, THEME_LIGHT, &err)) {
        CHECK(0, "viz: %s", err.text);
    } else {
        printf("slide type at 1920x1080: UI scale %.2f, small %d px, body %d px, title %d px, caption %d px\n",
               (double)ui, viz_text_px(&viz, VIZ_TEXT_SMALL), viz_text_px(&viz, VIZ_TEXT_BODY),
               viz_text_px(&viz, VIZ_TEXT_TITLE), viz_text_px(&viz, VIZ_TEXT_CAPTION));
        CHECK(viz_text_px(&viz, VIZ_TEXT_SMALL) >= 24, "slide: numbers >= 24 px (%d)", viz_text_px(&viz, VIZ_TEXT_SMALL));
        CHECK(viz_text_px(&viz, VIZ_TEXT_BODY) >= 28, "slide: body >= 28 px (%d)", viz_text_px(&viz, VIZ_TEXT_BODY));
    }
    viz_free(&viz);
    offscreen_free(&off);
    CHECK(fabsf(viz_slide_ui_scale(1280, 720, 1.0f) - 1.45f) < 0.051f, "1280x720 slide scale %.2f",
          (double)viz_slide_ui_scale(1280, 720, 1.0f));
    CHECK(viz_slide_ui_scale(3840, 2160, 1.0f) == VIZ_UI_SCALE_MAX, "4K slide scale capped");
    CHECK(viz_slide_ui_scale(640, 360, 1.0f) == VIZ_UI_SCALE_MIN, "small slide scale at least 1");
}

/* A panel that hides most of its content says so and the status line offers F: at
 * 1280x720 and 250 % the tokens (one chip row), the text (its last words) and the bars
 * (4 of 15) are cramped; at 1920x1080 and 100 % nothing is. */
static void test_cramped(const Session *s) {
    VizView v = frame_default_view();
    Shot sh;
    if (render_frame(s, &v, 1920, 1080, 1.0f, &sh) == 0) CHECK(last_cramped == 0, "1920x1080 at 100 %%: none cramped (%#x)", last_cramped);
    free(sh.px);
    if (render_frame(s, &v, 1280, 720, 2.5f, &sh) == 0) {
        unsigned want = (1u << VIZ_PANEL_TOKENS) | (1u << VIZ_PANEL_TEXT) | (1u << VIZ_PANEL_PROBS);
        CHECK((last_cramped & want) == want, "1280x720 at 250 %%: tokens, text and bars cramped (%#x)", last_cramped);
        /* the offer is drawn: accent-coloured text in the status line (its bottom 10 %) */
        SDL_Color a = theme_get(THEME_LIGHT)->accent;
        long n = 0;
        for (int y = sh.h * 9 / 10; y < sh.h; y++)
            for (int x = 0; x < sh.w; x++) {
                const uint8_t *p = sh.px + ((size_t)y * (size_t)sh.w + (size_t)x) * 4;
                n += p[0] == a.r && p[1] == a.g && p[2] == a.b;
            }
        CHECK(n > 200, "the status line offers F in the accent colour (%ld px)", n);
    }
    free(sh.px);
}

/* The compare panel alone on a 1080p slide (the figure above the caption band) sets its
 * 3 x 40 tokens at slide body size or larger: bands of 10 or 20 aligned tokens when 5
 * would leave half of each column empty and the type small (21 px before). */
static void test_compare_slide_type(Session *s) {
    const char *specs[] = {"greedy", "min-p=0.2", "T=1.5,top-p=0.9"};
    ErrorMsg err = {{0}};
    CHECK(session_compare_set(s, specs, 3, 40, &err) == 0 && session_compare_update(s, &err) == 0, "compare: %s",
          err.text);
    const int w = 1920, h = 880;
    Offscreen off = {0};
    Viz viz = {0};
    if (offscreen_create(&off, w, h, &err) ||
        viz_init(&viz, off.renderer, "assets", viz_slide_ui_scale(1920, 1080, 1.0f), 1.0f, THEME_LIGHT, &err)) {
        CHECK(0, "canvas: %s", err.text);
    } else {
        VizView v = frame_default_view();
        v.focus = VIZ_PANEL_COMPARE;
        v.fill = 1;
        VizFrame f;
        frame_fill(&f, s, &v);
        hits.n = 0;
        int rc = draw_frame(&viz, rect_make(0, 0, w, h), &f, &hits);
        int px = viz_text_px(&viz, VIZ_TEXT_DISPLAY);
        printf("compare slide: tokens at %d px (slide body %d px)\n", px, viz_text_px(&viz, VIZ_TEXT_BODY));
        CHECK(rc == 0 && f.compare && px >= 28 && !(viz.cramped_mask & (1u << VIZ_PANEL_COMPARE)),
              "compare slide: tokens at %d px, want >= 28 and all shown", px);
    }
    viz_free(&viz);
    offscreen_free(&off);
    /* at UI scale 250 % not every token fits even at the small size: the panel shows the
     * first bands, says so, and keeps the numbers under the columns (lesson 11's caption
     * quotes them) inside the panel; before, the bands ran on and the numbers were cut */
    static const struct { int w, h; } slides[] = {{1920, 1080}, {1280, 720}};
    for (int k = 0; k < 2; k++) {
        const int sw = slides[k].w, sh = slides[k].h;
        if (offscreen_create(&off, sw, sh, &err) ||
            viz_init(&viz, off.renderer, "assets", viz_slide_ui_scale(slides[k].w, slides[k].h, 2.5f), 1.0f,
                     THEME_DARK, &err)) {
            CHECK(0, "canvas: %s", err.text);
        } else {
            VizView v = frame_default_view();
            v.focus = VIZ_PANEL_COMPARE;
            v.fill = 1;
            v.slide = 1;
            VizFrame f;
            frame_fill(&f, s, &v);
            /* lesson 11's slide 5: its two-line caption in the band below the figure */
            const char *caption[] = {"Greedy repeats 7 three-token phrases,", "min-p 0.2 only 3, hot top-p none."};
            f.captions = caption;
            f.n_captions = 2;
            f.beat_label = "5 / 8";
            Rect body = rect_make(0, 0, sw, sh);
            rect_cut_bottom(&body, lesson_overlay_bottom(&viz, &f, body));
            body = rect_inset(body, 10); /* the frame's gap at 250 % (frame_draw.c) */
            ComparePanelFit fit;
            int rc = compare_panel_fit(&viz, body, &f, &fit);
            printf("compare slide %dx%d at 250 %%: %d of 40 tokens in bands of %d at %d px, %d of %d px high\n",
                   slides[k].w, slides[k].h, fit.shown, fit.band, fit.px, fit.used, fit.avail);
            CHECK(rc == 0 && fit.used <= fit.avail && (fit.shown == 40 || fit.shown % fit.band == 0),
                  "compare slide %dx%d at 250 %%: %d tokens take %d px of %d (the numbers must stay inside)",
                  slides[k].w, slides[k].h, fit.shown, fit.used, fit.avail);
            hits.n = 0;
            viz.cramped_mask = 0;
            rc = draw_frame(&viz, rect_make(0, 0, sw, sh), &f, &hits);
            CHECK(rc == 0 && (fit.shown == 40 || (viz.cramped_mask & (1u << VIZ_PANEL_COMPARE))),
                  "compare slide %dx%d at 250 %%: tokens left out, but the panel does not say so", slides[k].w,
                  slides[k].h);
        }
        viz_free(&viz);
        offscreen_free(&off);
    }
    session_compare_set(s, NULL, 0, 0, &err);
}

int main(void) {
    setenv("SDL_VIDEODRIVER", "dummy", 1);
    setenv("INFERSCOPE_FALLBACK_FONTS", "", 1); /* the same pixels on every machine */
    test_slide_type();
    Session s;
    ErrorMsg err = {{0}};
    if (check_open_bundled(&s)) return check_summary("test_viz_room");
    const char *prompt = "Once upon a time there was a little dragon";
    CHECK(session_set_prompt(&s, (const uint8_t *)prompt, strlen(prompt), &err) == 0, "prompt: %s", err.text);
    session_set_seed(&s, 3);
    compare_scales(&s, 1920, 1080, 2.5f, 0.8, 0.95);
    compare_scales(&s, 1920, 1080, 1.75f, 0.8, 0.95);
    compare_scales(&s, 1280, 720, 1.75f, 0.8, 0.6); /* the text panel needs its two lines */
    compare_scales(&s, 1280, 720, 2.5f, 0.5, 0.5); /* 512x288 at 100 %: not everything fits */
    test_portrait(&s);
    test_single_panels(&s);
    test_compare_slide_type(&s);
    const char *longer = "Once upon a time, there was a little girl named Lily. She loved to";
    CHECK(session_set_prompt(&s, (const uint8_t *)longer, strlen(longer), &err) == 0, "prompt: %s", err.text);
    test_cramped(&s);
    session_free(&s);
    test_lesson_slides();
    return check_summary("test_viz_room");
}
