/* test_viz_draw.c — headless drawing (SDL dummy video driver + software renderer):
 * a fixed scene of every primitive in both themes renders byte-identically twice,
 * pixel spot checks (exact rect colour, colour-bar ends = viridis(0)/(1) and
 * BuRd(0)/(1), text puts ink where it should, ellipsis truncation), the text cache
 * stays bounded, scale changes resize fonts, and the scene matches the committed
 * golden tests/golden/viz_draw_scene.png (INFERSCOPE_UPDATE_GOLDEN=1 to rewrite). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "draw.h"
#include "golden.h"
#include "offscreen.h"
#include "token_label.h"
#include "viz.h"

#define SCENE_W 720
#define SCENE_H 440
static const char *ASSETS = "assets";

/* Where the scene put things, for the spot checks. */
typedef struct SceneMarks {
    Rect swatch;          /* solid fill, SWATCH colour */
    Rect vir_bar, div_bar; /* gradients returned by draw_colorbar (light half) */
    Rect cid_bar;          /* vertical cividis bar */
    Rect text_box[3];      /* a line of each font on the light panel */
    Rect cut_box;          /* narrow box with a truncated label */
} SceneMarks;

static const SDL_Color SWATCH = {0x12, 0x9A, 0x4F, 255};

static void draw_half(Viz *viz, Rect area, SceneMarks *m, int record) {
    const Theme *th = viz->theme;
    draw_fill_rect(viz, area, th->background);
    Rect panel = rect_inset(area, viz_px(viz, 8));
    draw_fill_rect(viz, panel, th->panel);
    draw_rect_outline(viz, panel, th->panel_border, 1);
    Rect in = rect_inset(panel, viz_px(viz, 8));

    Rect title = rect_cut_top(&in, viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE));
    TextStyle ts = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_TITLE, .color = th->text};
    draw_text_in_rect(viz, title, th->name[0] == 'l' ? "Light: Attention" : "Dark: Attention", &ts);
    TextStyle rs = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL, .color = th->text_muted,
                    .halign = VIZ_ALIGN_RIGHT, .valign = VIZ_ALIGN_BOTTOM};
    draw_text_in_rect(viz, title, "layer 0 \xC2\xB7 head 3", &rs); /* right-aligned */

    /* one line per font */
    const VizFont fonts[3] = {VIZ_FONT_SANS, VIZ_FONT_BOLD, VIZ_FONT_MONO};
    const char *lines[3] = {"Sans: next-token probability 0.42",
                            "Bold: the chosen token \xE2\x80\x9C the\xE2\x80\x9D",
                            "Mono: \xC4\xA0the \xC4\x8A id=262 p=0.125"};
    for (int i = 0; i < 3; i++) {
        Rect line = rect_cut_top(&in, viz_line_height(viz, fonts[i], VIZ_TEXT_BODY));
        TextStyle s = {.font = fonts[i], .size = VIZ_TEXT_BODY, .color = th->text};
        draw_text_in_rect(viz, line, lines[i], &s);
        if (record) m->text_box[i] = line;
    }
    rect_cut_top(&in, viz_px(viz, 4));

    /* swatch + truncated label + alignment demo on one row */
    Rect row = rect_cut_top(&in, viz_px(viz, 22));
    Rect sw = rect_cut_left(&row, viz_px(viz, 40));
    draw_fill_rect(viz, sw, SWATCH);
    rect_cut_left(&row, viz_px(viz, 6));
    Rect cut = rect_cut_left(&row, viz_px(viz, 110));
    draw_rect_outline(viz, cut, th->grid, 1);
    TextStyle cs = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_BODY, .color = th->text_muted};
    draw_text_in_rect(viz, cut, "a label far too long for its box", &cs);
    rect_cut_left(&row, viz_px(viz, 6));
    draw_fill_rect(viz, (Rect){row.x, row.y + row.h / 2, row.w, 1}, th->grid); /* baseline guide */
    TextStyle base = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_BODY, .color = th->accent,
                      .valign = VIZ_ALIGN_BASELINE};
    int wdrawn = 0;
    draw_text(viz, row.x, row.y + row.h / 2, "baseline", &base, &wdrawn);
    base.font = VIZ_FONT_MONO;
    base.color = th->cut;
    draw_text(viz, row.x + wdrawn + viz_px(viz, 4), row.y + row.h / 2, "Mono cut", &base, NULL);
    draw_text(viz, row.x, row.y, "", &base, NULL); /* empty text: must be a no-op */
    if (record) {
        m->swatch = sw;
        m->cut_box = cut;
    }
    rect_cut_top(&in, viz_px(viz, 6));

    /* a heatmap row with numbers: text colour picked per cell */
    Rect cells = rect_cut_top(&in, viz_px(viz, 22));
    for (size_t i = 0; i < 8; i++) {
        float p = (float)i / 7.0f;
        char buf[16];
        snprintf(buf, sizeof buf, "%.2f", (double)p);
        draw_text_on_cell(viz, rect_grid_cell(cells, 1, 8, 0, i), colormap_sample(th->sequential, p), buf,
                          VIZ_FONT_MONO, VIZ_TEXT_SMALL);
    }
    rect_cut_top(&in, viz_px(viz, 6));

    /* legends at the bottom, plot in what is left */
    ColorbarSpec vir = {.map = COLORMAP_VIRIDIS, .vmin = 0, .vmax = 1, .label = "probability (viridis)"};
    ColorbarSpec div = {.map = COLORMAP_BURD, .vmin = -2.5, .vmax = 2.5, .label = "resid_post (BuRd)"};
    Rect bars = rect_cut_bottom(&in, draw_colorbar_size(viz, &vir, viz_px(viz, 12)));
    Rect halves[2];
    rect_split_cols(bars, NULL, 2, viz_px(viz, 12), halves);
    Rect vb, db;
    draw_colorbar(viz, halves[0], &vir, &vb);
    draw_colorbar(viz, halves[1], &div, &db);
    rect_cut_bottom(&in, viz_px(viz, 6));

    ColorbarSpec cid = {.map = COLORMAP_CIVIDIS, .vmin = 0, .vmax = 0.3, .vertical = 1, .target_ticks = 4};
    Rect vbar_area = rect_cut_right(&in, draw_colorbar_size(viz, &cid, viz_px(viz, 10)));
    Rect cb;
    draw_colorbar(viz, vbar_area, &cid, &cb);
    rect_cut_right(&in, viz_px(viz, 8));

    Rect plot = in;
    rect_cut_left(&plot, draw_axis_size(viz, VIZ_SIDE_LEFT, 0, 1, 5, "p"));
    rect_cut_bottom(&plot, draw_axis_size(viz, VIZ_SIDE_BOTTOM, 0, 10, 6, "position"));
    draw_axis(viz, plot, VIZ_SIDE_LEFT, 0, 1, 5, "p", 1);
    draw_axis(viz, plot, VIZ_SIDE_BOTTOM, 0, 10, 6, "position", 1);
    const float ys[] = {0.1f, 0.5f, 0.35f, 0.8f, 0.6f, 0.95f};
    for (int i = 0; i + 1 < 6; i++) {
        int x0 = axis_value_to_px(plot, VIZ_SIDE_BOTTOM, 0, 10, i * 2.0);
        int x1 = axis_value_to_px(plot, VIZ_SIDE_BOTTOM, 0, 10, (i + 1) * 2.0);
        int y0 = axis_value_to_px(plot, VIZ_SIDE_LEFT, 0, 1, ys[i]);
        int y1 = axis_value_to_px(plot, VIZ_SIDE_LEFT, 0, 1, ys[i + 1]);
        draw_line(viz, x0, y0, x1, y1, th->accent, viz_px(viz, 2));
    }
    draw_line(viz, plot.x, plot.y, plot.x + plot.w - 1, plot.y + plot.h - 1, th->highlight, 1);
    if (record) {
        m->vir_bar = vb;
        m->div_bar = db;
        m->cid_bar = cb;
    }
}

static void draw_scene(Viz *viz, SceneMarks *m) {
    Rect all = rect_make(0, 0, SCENE_W, SCENE_H), halves[2];
    rect_split_cols(all, NULL, 2, 0, halves);
    viz_set_theme(viz, THEME_LIGHT);
    draw_half(viz, halves[0], m, 1);
    viz_set_theme(viz, THEME_DARK);
    draw_half(viz, halves[1], m, 0);
    viz_set_theme(viz, THEME_LIGHT);
}

/* Renders the scene on a fresh offscreen target; returns malloc'ed RGBA or NULL. */
static uint8_t *render_scene(SceneMarks *m, Viz *keep, Offscreen *keep_off) {
    Offscreen off = {0};
    Viz viz = {0};
    ErrorMsg err = {{0}};
    uint8_t *px = NULL;
    if (offscreen_create(&off, SCENE_W, SCENE_H, &err) != 0 ||
        viz_init(&viz, off.renderer, ASSETS, 1.0f, 1.0f, THEME_LIGHT, &err) != 0) {
        CHECK(0, "setup: %s", err.text);
        goto out;
    }
    draw_scene(&viz, m);
    CHECK(!viz.has_error, "scene drew without errors: %s", viz.last_error.text);
    size_t n = offscreen_rgba_size(SCENE_W, SCENE_H);
    px = malloc(n);
    if (offscreen_read_rgba(&off, px, n, &err) != 0) {
        CHECK(0, "read back: %s", err.text);
        free(px);
        px = NULL;
    }
out:
    if (keep && keep_off) {
        *keep = viz;
        *keep_off = off;
        return px;
    }
    viz_free(&viz);
    offscreen_free(&off);
    return px;
}

static const uint8_t *pixel(const uint8_t *px, int x, int y) {
    return px + ((size_t)y * SCENE_W + (size_t)x) * 4;
}

static int same_color(const uint8_t *p, SDL_Color c) {
    return p[0] == c.r && p[1] == c.g && p[2] == c.b && p[3] == 255;
}

/* Pixels in r darker than the panel by a clear margin (luma < 128 on a white panel). */
static int count_ink(const uint8_t *px, Rect r) {
    int n = 0;
    for (int y = r.y; y < r.y + r.h; y++)
        for (int x = r.x; x < r.x + r.w; x++) {
            const uint8_t *p = pixel(px, x, y);
            if (p[0] * 299 + p[1] * 587 + p[2] * 114 < 128 * 1000) n++;
        }
    return n;
}

static void test_scene(void) {
    SceneMarks m = {0}, m2 = {0};
    uint8_t *a = render_scene(&m, NULL, NULL);
    uint8_t *b = render_scene(&m2, NULL, NULL);
    if (!a || !b) {
        free(a);
        free(b);
        return;
    }
    size_t n = offscreen_rgba_size(SCENE_W, SCENE_H);
    CHECK(memcmp(a, b, n) == 0, "two renders are byte-identical");

    /* a filled rect has exactly its colour, edge to edge */
    int exact = 1;
    for (int y = m.swatch.y; y < m.swatch.y + m.swatch.h; y++)
        for (int x = m.swatch.x; x < m.swatch.x + m.swatch.w; x++)
            if (!same_color(pixel(a, x, y), SWATCH)) exact = 0;
    CHECK(exact && m.swatch.w > 0, "swatch is exactly #129A4F");
    CHECK(!same_color(pixel(a, m.swatch.x - 1, m.swatch.y), SWATCH) &&
              !same_color(pixel(a, m.swatch.x + m.swatch.w, m.swatch.y), SWATCH),
          "and not one pixel more");

    /* colour-bar ends */
    Rect v = m.vir_bar, d = m.div_bar, c = m.cid_bar;
    CHECK(v.w > 50 && v.h > 5, "viridis bar %dx%d", v.w, v.h);
    const uint8_t *l = pixel(a, v.x, v.y + v.h / 2), *r = pixel(a, v.x + v.w - 1, v.y + v.h / 2);
    CHECK(same_color(l, colormap_sample(COLORMAP_VIRIDIS, 0)), "viridis left end %02x%02x%02x", l[0], l[1], l[2]);
    CHECK(same_color(r, colormap_sample(COLORMAP_VIRIDIS, 1)), "viridis right end %02x%02x%02x", r[0], r[1], r[2]);
    CHECK(l[0] == 0x44 && l[1] == 0x01 && l[2] == 0x54 && r[0] == 0xFD && r[1] == 0xE7 && r[2] == 0x25,
          "ends are #440154 and #FDE725");
    l = pixel(a, d.x, d.y + 1);
    r = pixel(a, d.x + d.w - 1, d.y + 1);
    const uint8_t *mid = pixel(a, d.x + (d.w - 1) / 2, d.y + 1);
    CHECK(same_color(l, colormap_sample(COLORMAP_BURD, 0)) && same_color(r, colormap_sample(COLORMAP_BURD, 1)),
          "diverging ends");
    CHECK(mid[0] > 0xE8 && mid[1] > 0xE8 && mid[2] > 0xE8, "diverging centre is near-white %02x%02x%02x",
          mid[0], mid[1], mid[2]);
    /* vertical bar: low at the bottom */
    CHECK(same_color(pixel(a, c.x + 1, c.y + c.h - 1), colormap_sample(COLORMAP_CIVIDIS, 0)) &&
              same_color(pixel(a, c.x + 1, c.y), colormap_sample(COLORMAP_CIVIDIS, 1)),
          "cividis bar: 0 at the bottom, 1 at the top");
    /* the outline sits outside the gradient, not over its end columns */
    CHECK(same_color(pixel(a, v.x - 1, v.y), theme_get(THEME_LIGHT)->panel_border), "outline outside the bar");

    /* text puts dark ink on the light panel, in every font */
    for (int i = 0; i < 3; i++) {
        int ink = count_ink(a, m.text_box[i]);
        CHECK(ink > 150, "font %d drew %d dark pixels", i, ink);
    }
    /* truncated label stays inside its box (outline excluded) */
    Rect cb = m.cut_box;
    int outside = count_ink(a, (Rect){cb.x + cb.w, cb.y + 2, 6, cb.h - 4});
    CHECK(outside == 0, "truncated text does not spill past its box (%d px)", outside);
    CHECK(count_ink(a, rect_inset(cb, 1)) > 30, "truncated text is drawn");

    CHECK(golden_compare(a, SCENE_W, SCENE_H, "tests/golden/viz_draw_scene.png", 2) == 0,
          "scene matches tests/golden/viz_draw_scene.png");
    /* the comparison can fail: a 40x40 patch (0.5% of the pixels) off by 3 must not pass */
    const char *upd = getenv("INFERSCOPE_UPDATE_GOLDEN");
    if (!(upd && strcmp(upd, "1") == 0)) {
        for (int y = 100; y < 140; y++)
            for (int x = 100; x < 140; x++) b[((size_t)y * SCENE_W + (size_t)x) * 4 + 1] ^= 3;
        fprintf(stderr, "(expected mismatch follows)\n");
        CHECK(golden_compare(b, SCENE_W, SCENE_H, "tests/golden/viz_draw_scene.png", 2) == -1,
              "a perturbed image fails the golden comparison");
    }
    free(a);
    free(b);
}

static void test_text_api(void) {
    Offscreen off = {0};
    Viz viz = {0};
    ErrorMsg err = {{0}};
    if (offscreen_create(&off, 200, 100, &err) != 0 ||
        viz_init(&viz, off.renderer, ASSETS, 1.0f, 1.0f, THEME_LIGHT, &err) != 0) {
        CHECK(0, "setup: %s", err.text);
        viz_free(&viz);
        offscreen_free(&off);
        return;
    }
    char buf[128];
    const char *long_text = "the quick brown fox jumps over the lazy dog";
    int full = viz_text_width(&viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, long_text);
    CHECK(full > 200, "measured width %d", full);
    int w = draw_fit_text(&viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, long_text, 80, buf, sizeof buf);
    size_t bl = strlen(buf);
    CHECK(w > 60 && w <= 80, "fitted width %d in (60, 80]", w);
    CHECK(bl > 3 && strcmp(buf + bl - 3, "\xE2\x80\xA6") == 0 && strncmp(buf, long_text, bl - 3) == 0,
          "prefix + ellipsis: %s", buf);
    CHECK(w == viz_text_width(&viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, buf), "returned width is the real width");
    /* a line never ends on an opening quote before a space (`" park"`): the width that
     * would end the line right after the quote takes the quote to the next line */
    {
        const char *cap = "rolled: \" park\" holds";
        int upto_quote = viz_text_width(&viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, "rolled: \"");
        size_t used = draw_wrap_line(&viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, cap, upto_quote + 2, buf, sizeof buf);
        CHECK(strcmp(buf, "rolled:") == 0 && strncmp(cap + used, "\" park\"", 7) == 0,
              "quote kept with its token: line '%s', rest '%s'", buf, cap + used);
        const char *pct = "drops to 0.22 % now";
        int upto_num = viz_text_width(&viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, "drops to 0.22");
        used = draw_wrap_line(&viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, pct, upto_num + 2, buf, sizeof buf);
        CHECK(strcmp(buf, "drops to") == 0 && strncmp(pct + used, "0.22 %", 6) == 0,
              "a number keeps its %%: line '%s', rest '%s'", buf, pct + used);
        used = draw_wrap_line(&viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, "a \"b\" c", 1000, buf, sizeof buf);
        CHECK(strcmp(buf, "a \"b\" c") == 0, "a closing quote still ends a word: '%s'", buf);
        /* the last line shown of a longer text says it is cut: whole words, then "…",
         * within the width; a last line with nothing after it, or one that is not the last,
         * has none (the attention panel's hint in a portrait window was cut silently) */
        const char *hint = "Each row: how much one token reads from each earlier token";
        int upto = viz_text_width(&viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, "Each row: how much one token");
        used = draw_wrap_line_last(&viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, hint, upto + 2, 1, buf, sizeof buf);
        size_t hl = strlen(buf);
        CHECK(hl > 3 && strcmp(buf + hl - 3, "\xE2\x80\xA6") == 0 && strncmp(buf, "Each row: how much one", hl - 3) == 0 &&
                  viz_text_width(&viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, buf) <= upto + 2 && strncmp(hint + used, "reads", 5) == 0,
              "a cut last line ends with whole words and an ellipsis: '%s'", buf);
        used = draw_wrap_line_last(&viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, hint, upto + 2, 0, buf, sizeof buf);
        CHECK(strcmp(buf, "Each row: how much one token") == 0, "not the last line: no ellipsis: '%s'", buf);
        used = draw_wrap_line_last(&viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, "short text  ", 1000, 1, buf, sizeof buf);
        CHECK(strncmp(buf, "short text", 10) == 0 && !strstr(buf, "\xE2\x80\xA6"), "nothing left after it: no ellipsis: '%s'",
              buf);
        used = draw_wrap_line_last(&viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, "Extraordinarily long", 40, 1, buf, sizeof buf);
        hl = strlen(buf);
        CHECK(hl > 3 && strcmp(buf + hl - 3, "\xE2\x80\xA6") == 0 && viz_text_width(&viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, buf) <= 40,
              "a first word too wide is cut with one ellipsis: '%s'", buf);
    }
    w = draw_fit_text(&viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, "short", 80, buf, sizeof buf);
    CHECK(strcmp(buf, "short") == 0 && w > 0, "fits whole: %s", buf);
    w = draw_fit_text(&viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, long_text, 2, buf, sizeof buf);
    CHECK(w == 0 && buf[0] == '\0', "nothing fits in 2 px");
    /* cuts only between characters: 2-byte Ġ repeated */
    const char *g = "\xC4\xA0\xC4\xA0\xC4\xA0\xC4\xA0\xC4\xA0\xC4\xA0\xC4\xA0\xC4\xA0\xC4\xA0\xC4\xA0";
    int gw = viz_text_width(&viz, VIZ_FONT_MONO, VIZ_TEXT_BODY, g);
    w = draw_fit_text(&viz, VIZ_FONT_MONO, VIZ_TEXT_BODY, g, gw / 2, buf, sizeof buf);
    bl = strlen(buf);
    CHECK(bl >= 5 && (bl - 3) % 2 == 0 && (unsigned char)buf[bl - 5] == 0xC4, "UTF-8 boundary cut: %zu bytes", bl);
    /* a tiny buffer still gets a valid cut */
    char tiny[8];
    draw_fit_text(&viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, long_text, 500, tiny, sizeof tiny);
    CHECK(strlen(tiny) < sizeof tiny && strcmp(tiny + strlen(tiny) - 3, "\xE2\x80\xA6") == 0,
          "cap respected: %s", tiny);

    /* empty text: NULL texture, line height, no error */
    int tw = -1, th = -1;
    SDL_Texture *t = viz_text_texture(&viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, "", &tw, &th);
    CHECK(t == NULL && tw == 0 && th == viz_line_height(&viz, VIZ_FONT_SANS, VIZ_TEXT_BODY) && !viz.has_error,
          "empty text is not an error");
    TextStyle s = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_BODY, .color = {0, 0, 0, 255}};
    CHECK(draw_text(&viz, 0, 0, "", &s, &tw) == 0 && tw == 0, "draw_text(\"\") == 0");
    CHECK(draw_text(&viz, 0, 0, NULL, &s, NULL) == 0, "draw_text(NULL) == 0");

    /* cache: hits on repeat, bounded under many distinct strings */
    size_t hits = viz.cache_hits;
    draw_text(&viz, 0, 0, "repeat", &s, NULL);
    draw_text(&viz, 0, 0, "repeat", &s, NULL);
    CHECK(viz.cache_hits == hits + 1, "second draw is a cache hit");
    for (int i = 0; i < 3000; i++) {
        char label[32];
        snprintf(label, sizeof label, "token %d", i);
        draw_text(&viz, 0, 0, label, &s, NULL);
    }
    size_t live = 0;
    for (size_t i = 0; i < (size_t)VIZ_TEXT_CACHE_SETS * VIZ_TEXT_CACHE_WAYS; i++)
        if (viz.cache[i].tex.mono) live++;
    CHECK(live <= (size_t)VIZ_TEXT_CACHE_SETS * VIZ_TEXT_CACHE_WAYS && live > 800,
          "cache holds %zu textures (bounded)", live);
    CHECK(!viz.has_error, "no errors: %s", viz.last_error.text);
    /* and bounded in bytes: 300 large chips (display size 96 px, ~0.2 MB each, ~55 MB in
     * all) leave at most the budget (here its floor: the output is 200x100) cached, the
     * newest of them still hits, and cache_bytes is the sum over the cached textures */
    const size_t budget = viz_text_cache_budget(&viz);
    CHECK(budget == VIZ_TEXT_CACHE_BYTES_MIN, "budget %zu kB at 200x100", budget >> 10);
    CHECK(viz_set_display_px(&viz, 96) == 96, "display size 96 px");
    TextStyle big = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_DISPLAY, .color = {0, 0, 0, 255}};
    size_t drawn_bytes = 0;
    for (int i = 0; i < 300; i++) {
        char label[32];
        snprintf(label, sizeof label, "chip %03d", i);
        VizTextLayers t;
        if (viz_text_layers(&viz, big.font, big.size, label, &t) == 0) drawn_bytes += (size_t)t.w * (size_t)t.h * 4;
    }
    size_t held = 0, n_big = 0;
    for (size_t i = 0; i < (size_t)VIZ_TEXT_CACHE_SETS * VIZ_TEXT_CACHE_WAYS; i++) {
        const VizTextLayers *t = &viz.cache[i].tex;
        if (!t->mono) continue;
        held += (size_t)t->w * (size_t)t->h * 4 * (t->color ? 2 : 1);
        n_big += viz.cache[i].size == VIZ_TEXT_DISPLAY;
    }
    CHECK(drawn_bytes > 4 * budget, "the chips are %zu MB in all", drawn_bytes >> 20);
    CHECK(held <= budget && held > budget / 2, "cache holds %zu kB (budget %zu kB)", held >> 10, budget >> 10);
    CHECK(viz.cache_bytes == held, "cache_bytes %zu == %zu held", viz.cache_bytes, held);
    CHECK(n_big > 10, "%zu chips cached", n_big);
    hits = viz.cache_hits;
    draw_text(&viz, 0, 0, "chip 299", &big, NULL);
    CHECK(viz.cache_hits == hits + 1, "the newest chip is still cached");
    CHECK(!viz.has_error, "no errors: %s", viz.last_error.text);
    /* the budget is a screen of the output above the floor: 14.7 MB for 2560x1440 */
    {
        Offscreen wide;
        Viz vw;
        memset(&vw, 0, sizeof vw);
        if (offscreen_create(&wide, 2560, 1440, &err) == 0 &&
            viz_init(&vw, wide.renderer, ASSETS, 1.0f, 1.0f, THEME_LIGHT, &err) == 0)
            CHECK(viz_text_cache_budget(&vw) == (size_t)2560 * 1440 * 4, "budget %zu at 2560x1440",
                  viz_text_cache_budget(&vw));
        else
            CHECK(0, "2560x1440 viz: %s", err.text);
        viz_free(&vw);
        offscreen_free(&wide);
    }
    /* long text bypasses the cache and still draws */
    char lng[300];
    memset(lng, 'x', sizeof lng - 1);
    lng[sizeof lng - 1] = '\0';
    CHECK(draw_text(&viz, 0, 0, lng, &s, &tw) == 0 && tw > 1000, "long uncached text: %d px", tw);

    /* scale: fonts grow, the cache is emptied; out-of-range scales rejected */
    int h1 = viz_line_height(&viz, VIZ_FONT_SANS, VIZ_TEXT_BODY);
    CHECK(viz_set_scale(&viz, 2.0f, 1.0f, &err) == 0, "scale 2: %s", err.text);
    int h2 = viz_line_height(&viz, VIZ_FONT_SANS, VIZ_TEXT_BODY);
    CHECK(h2 >= 2 * h1 - 2 && h2 <= 2 * h1 + 2, "line height %d → %d", h1, h2);
    CHECK(viz_px(&viz, 8) == 16 && viz_px(&viz, 0.2f) == 0 && viz_px(&viz, 1) == 2, "viz_px at scale 2");
    CHECK(viz.cache[0].tex.mono == NULL && viz.cache_bytes == 0, "cache emptied on rescale");
    CHECK(viz_set_scale(&viz, 3.0f, 1.0f, &err) == -1 && strstr(err.text, "UI scale 3"), "scale 3 rejected: %s",
          err.text);
    CHECK(viz.scale == 2.0f, "rejected scale leaves the old one");
    CHECK(viz_set_scale(&viz, 1.0f, 3.0f, &err) == 0 && viz.scale == 3.0f, "print dpi 3x: %s", err.text);

    /* read back of a sub-rectangle */
    draw_fill_rect(&viz, (Rect){10, 10, 5, 5}, (SDL_Color){1, 2, 3, 255});
    uint8_t sub[5 * 5 * 4];
    Rect area = {10, 10, 5, 5};
    CHECK(renderer_read_rgba(off.renderer, &area, sub, sizeof sub, &err) == 0 && sub[0] == 1 && sub[1] == 2 &&
              sub[2] == 3 && sub[3] == 255 && sub[sizeof sub - 2] == 3,
          "sub-rect read back: %s", err.text);
    Rect outside = {190, 90, 20, 20};
    CHECK(renderer_read_rgba(off.renderer, &outside, sub, sizeof sub, &err) == -1, "area outside rejected");
    CHECK(offscreen_read_rgba(&off, sub, sizeof sub, &err) == -1 && strstr(err.text, "buffer"),
          "small buffer rejected: %s", err.text);
    viz_free(&viz);
    viz_free(&viz); /* twice is safe */
    offscreen_free(&off);
}

static void test_errors(void) {
    Offscreen off = {0};
    Viz viz = {0};
    ErrorMsg err = {{0}};
    CHECK(offscreen_create(&off, 0, 10, &err) == -1 && strstr(err.text, "0x10"), "bad size: %s", err.text);
    offscreen_free(&off);
    CHECK(offscreen_create(&off, 64, 64, &err) == 0, "create: %s", err.text);
    CHECK(viz_init(&viz, off.renderer, "/nonexistent/assets", 1.0f, 1.0f, THEME_LIGHT, &err) == -1,
          "missing fonts fail");
    CHECK(strstr(err.text, "/nonexistent/assets/fonts/DejaVuSans.ttf"), "names the font file: %s", err.text);
    viz_free(&viz);
    CHECK(viz_init(&viz, off.renderer, ASSETS, 0.5f, 1.0f, THEME_LIGHT, &err) == -1 && strstr(err.text, "UI scale"),
          "scale 0.5 rejected: %s", err.text);
    viz_free(&viz);
    Viz zero = {0};
    viz_free(&zero); /* safe on zeroed */
    offscreen_free(&off);
    Offscreen zoff = {0};
    offscreen_free(&zoff);
}

/* The fallback chain: a complete emoji or CJK character is drawn by a fallback font
 * (colour emoji on their own layer, scaled to the line), a label keeps the character
 * when some installed font has it and shows bytes for part of one; without fallbacks
 * (or with a missing file) the byte view stays. Display sizes are cached per size. */
static void test_fallback_fonts(void) {
    Offscreen off = {0};
    ErrorMsg err = {{0}};
    if (offscreen_create(&off, 400, 100, &err) != 0) {
        CHECK(0, "offscreen: %s", err.text);
        return;
    }
    const char *emoji = "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf";
    const char *cjk = "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf";
    struct stat st;
    int have_emoji = stat(emoji, &st) == 0, have_cjk = stat(cjk, &st) == 0;
    Viz viz = {0};
    setenv("INFERSCOPE_FALLBACK_FONTS", VIZ_FALLBACK_DEFAULT, 1);
    CHECK(viz_init(&viz, off.renderer, ASSETS, 1.0f, 1.0f, THEME_LIGHT, &err) == 0, "viz: %s", err.text);
    CHECK(viz.n_fallback == have_emoji + have_cjk, "%d fallback fonts opened (%d installed)", viz.n_fallback,
          have_emoji + have_cjk);
    char lab[TOKEN_LABEL_CAP];
    token_label_bytes_ex((const uint8_t *)"\xF0\x9F", 2, 0, viz_glyph_provided, &viz, lab, sizeof lab);
    CHECK(strcmp(lab, "<f0 9f>") == 0, "part of an emoji stays bytes: %s", lab);
    if (have_emoji) {
        CHECK(viz_glyph_provided(&viz, 0x1F409), "the chain has the dragon");
        token_label_bytes_ex((const uint8_t *)"\xF0\x9F\x90\x89", 4, 0, viz_glyph_provided, &viz, lab, sizeof lab);
        CHECK(strcmp(lab, "\xF0\x9F\x90\x89") == 0, "a complete emoji is kept as the character: %s", lab);
        int lh = viz_line_height(&viz, VIZ_FONT_SANS, VIZ_TEXT_BODY);
        int w = viz_text_width(&viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, "\xF0\x9F\x90\x89");
        /* the 136x128 strike scaled to the line: about one line height wide, not 136 px */
        CHECK(w >= lh - 3 && w <= lh + 4, "emoji width %d for a %d px line", w, lh);
        VizTextLayers t;
        CHECK(viz_text_layers(&viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, "a \xF0\x9F\x90\x89 b", &t) == 0 && t.mono &&
                  t.color && t.h == lh,
              "text with an emoji: a colour layer, the line's height (%d)", t.h);
        TextStyle ts = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_BODY, .color = {0, 0, 0, 255}};
        draw_fill_rect(&viz, (Rect){0, 0, 400, 100}, (SDL_Color){255, 255, 255, 255});
        draw_text(&viz, 10, 10, "\xF0\x9F\x90\x89", &ts, NULL);
        uint8_t px[400 * 100 * 4];
        size_t colour = 0;
        if (offscreen_read_rgba(&off, px, sizeof px, &err) == 0)
            for (size_t i = 0; i < 400 * 100; i++) {
                int r = px[i * 4], g = px[i * 4 + 1], b = px[i * 4 + 2];
                int mx = r > g ? (r > b ? r : b) : (g > b ? g : b), mn = r < g ? (r < b ? r : b) : (g < b ? g : b);
                if (mx - mn > 60) colour++;
            }
        CHECK(colour > 40, "the dragon is drawn in colour, not tinted black (%zu colourful pixels)", colour);
    }
    if (have_cjk) {
        int w = viz_text_width(&viz, VIZ_FONT_MONO, VIZ_TEXT_TITLE, "\xE4\xB8\xAD");
        CHECK(viz_glyph_provided(&viz, 0x4E2D) && w > 8, "CJK from the fallback (%d px)", w);
    }
    /* display sizes: cached per pixel size, so two sizes in one frame stay right */
    viz_set_display_px(&viz, 100);
    int w100 = viz_text_width(&viz, VIZ_FONT_SANS, VIZ_TEXT_DISPLAY, "abc");
    TextStyle ds = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_DISPLAY, .color = {0, 0, 0, 255}};
    int d100 = 0, d50 = 0;
    draw_text(&viz, 0, 0, "abc", &ds, &d100);
    viz_set_display_px(&viz, 50);
    draw_text(&viz, 0, 0, "abc", &ds, &d50);
    CHECK(d100 == w100 && d50 > 0 && d50 < d100 * 2 / 3, "display sizes: %d px at 100, %d at 50", d100, d50);
    CHECK(viz_set_display_px(&viz, 100000) == VIZ_DISPLAY_PX_MAX, "display size clamped");
    viz_free(&viz);
    /* no fallbacks (or a missing file): the dragon's label is its bytes */
    setenv("INFERSCOPE_FALLBACK_FONTS", "/no/such/font.ttf", 1);
    CHECK(viz_init(&viz, off.renderer, ASSETS, 1.0f, 1.0f, THEME_LIGHT, &err) == 0 && viz.n_fallback == 0,
          "a missing fallback file is skipped");
    token_label_bytes_ex((const uint8_t *)"\xF0\x9F\x90\x89", 4, 0, viz_glyph_provided, &viz, lab, sizeof lab);
    CHECK(strcmp(lab, "<f0 9f 90 89>") == 0, "without an emoji font: bytes (%s)", lab);
    viz_free(&viz);
    setenv("INFERSCOPE_FALLBACK_FONTS", "", 1);
    offscreen_free(&off);
}

int main(void) {
    /* headless and deterministic: never let SDL pick a GL/X11 path */
    setenv("SDL_VIDEODRIVER", "dummy", 1);
    setenv("INFERSCOPE_FALLBACK_FONTS", "", 1); /* goldens: the same fonts on every machine */
    setenv("SDL_RENDER_DRIVER", "software", 1);
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        fprintf(stderr, "SDL_Init: %s\n", SDL_GetError());
        CHECK(0, "SDL_Init with the dummy driver");
        return check_summary("test_viz_draw");
    }
    test_scene();
    test_text_api();
    test_errors();
    test_fallback_fonts();
    SDL_Quit();
    return check_summary("test_viz_draw");
}
