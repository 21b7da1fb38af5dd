/* test_viz_layout.c — the pure parts of viz/: rectangle layout, nice ticks, colour
 * maps (against published values: viridis #440154 … #FDE725, its midpoint #21918C,
 * Tol's BuRd anchors) and the themes' WCAG contrast. No SDL rendering here. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "colormap.h"
#include "layout.h"
#include "theme.h"
#include "ticks.h"

#define CHECK_COLOR(c, R, G, B, what)                                                     \
    CHECK((c).r == (R) && (c).g == (G) && (c).b == (B) && (c).a == 255,                   \
          "%s: got #%02X%02X%02X%02X want #%02X%02X%02X", (what), (c).r, (c).g, (c).b,    \
          (c).a, (R), (G), (B))

static void test_split(void) {
    Rect r = rect_make(10, 20, 300, 100), out[4];
    float w121[] = {1, 2, 1};
    CHECK(rect_split_rows(r, w121, 3, 0, out) == 0, "split rows");
    CHECK(out[0].y == 20 && out[0].h == 25 && out[1].y == 45 && out[1].h == 50 && out[2].y == 95 &&
              out[2].h == 25 && out[2].x == 10 && out[2].w == 300,
          "1:2:1 rows: %d+%d %d+%d %d+%d", out[0].y, out[0].h, out[1].y, out[1].h, out[2].y, out[2].h);
    /* 3 equal columns of 301 px with 2 px gaps: sizes differ by at most 1, cover exactly */
    r = rect_make(0, 0, 301, 50);
    CHECK(rect_split_cols(r, NULL, 3, 2, out) == 0, "split cols");
    int total = 0;
    for (int i = 0; i < 3; i++) total += out[i].w;
    CHECK(total == 301 - 4, "widths sum to the usable width: %d", total);
    CHECK(out[1].x == out[0].x + out[0].w + 2 && out[2].x == out[1].x + out[1].w + 2, "gaps of 2");
    CHECK(out[2].x + out[2].w == 301, "last column ends on the edge: %d", out[2].x + out[2].w);
    CHECK(abs(out[0].w - out[2].w) <= 1, "equal within 1 px: %d %d", out[0].w, out[2].w);
    float frac[] = {0.25f, 0.75f};
    CHECK(rect_split_cols(rect_make(0, 0, 1000, 10), frac, 2, 0, out) == 0 && out[0].w == 250 &&
              out[1].x == 250 && out[1].w == 750,
          "fractions 0.25/0.75: %d %d", out[0].w, out[1].w);
    float bad[] = {1, -1};
    CHECK(rect_split_rows(r, bad, 2, 0, out) == -1, "negative weight rejected");
    float zero[] = {0, 0};
    CHECK(rect_split_rows(r, zero, 2, 0, out) == -1, "all-zero weights rejected");
    CHECK(rect_split_rows(r, NULL, 0, 0, out) == -1, "n = 0 rejected");
    /* gaps that do not fit are dropped, never negative sizes */
    CHECK(rect_split_cols(rect_make(0, 0, 5, 5), NULL, 3, 10, out) == 0 && out[0].w >= 0 &&
              out[2].x + out[2].w == 5,
          "tiny rect: %d %d %d", out[0].w, out[1].w, out[2].w);
}

static void test_cut_inset(void) {
    Rect r = rect_make(0, 0, 200, 100);
    Rect title = rect_cut_top(&r, 24);
    CHECK(title.y == 0 && title.h == 24 && r.y == 24 && r.h == 76, "cut top");
    Rect axis = rect_cut_left(&r, 40);
    CHECK(axis.x == 0 && axis.w == 40 && axis.h == 76 && r.x == 40 && r.w == 160, "cut left");
    Rect legend = rect_cut_bottom(&r, 30);
    CHECK(legend.y == 70 && legend.h == 30 && r.h == 46, "cut bottom: %d %d", legend.y, r.h);
    Rect side = rect_cut_right(&r, 500);
    CHECK(side.w == 160 && r.w == 0, "cutting more than there is takes all");
    Rect in = rect_inset(rect_make(10, 10, 100, 50), 5);
    CHECK(in.x == 15 && in.y == 15 && in.w == 90 && in.h == 40, "inset");
    Rect gone = rect_inset(rect_make(10, 10, 8, 8), 5);
    CHECK(gone.w == 0 && gone.h == 0, "over-inset collapses to empty");
    Rect c = rect_center(rect_make(0, 0, 100, 100), 20, 10);
    CHECK(c.x == 40 && c.y == 45 && c.w == 20 && c.h == 10, "center");
    CHECK(rect_contains(rect_make(0, 0, 10, 10), 9, 9) && !rect_contains(rect_make(0, 0, 10, 10), 10, 5),
          "contains: right edge exclusive");
    Rect i = rect_intersect(rect_make(0, 0, 10, 10), rect_make(5, 5, 10, 10));
    CHECK(i.x == 5 && i.y == 5 && i.w == 5 && i.h == 5, "intersect");
    CHECK(rect_intersect(rect_make(0, 0, 5, 5), rect_make(6, 6, 1, 1)).w == 0, "disjoint");
}

static void test_grid(void) {
    Rect r = rect_make(3, 7, 100, 33);
    int x = 3, ok = 1;
    for (size_t col = 0; col < 7; col++) {
        Rect c = rect_grid_cell(r, 3, 7, 1, col);
        if (c.x != x || c.w < 14 || c.w > 15) ok = 0;
        x = c.x + c.w;
    }
    CHECK(ok && x == 103, "7 cells tile 100 px without seams (end %d)", x);
    Rect last = rect_grid_cell(r, 3, 7, 2, 6);
    CHECK(last.y + last.h == 40 && last.x + last.w == 103, "last cell ends at the corner");
    CHECK(rect_grid_cell(r, 3, 7, 3, 0).w == 0, "out-of-range row is empty");
}

static void test_ticks(void) {
    double t[32], step;
    char buf[32];
    size_t n = ticks_nice(0, 1, 5, t, 32, &step);
    CHECK(n == 5 && step == 0.25 && t[0] == 0 && t[4] == 1, "0..1 → 5 ticks of 0.25 (n=%zu step=%g)", n, step);
    CHECK(strcmp(ticks_format(t[1], step, buf, sizeof buf), "0.25") == 0, "label %s", buf);
    CHECK(strcmp(ticks_format(t[0], step, buf, sizeof buf), "0") == 0, "label %s", buf);
    CHECK(strcmp(ticks_format(t[4], step, buf, sizeof buf), "1") == 0, "label %s", buf);
    n = ticks_nice(-3.2, 7.9, 6, t, 32, &step);
    CHECK(n == 5 && step == 2.5 && t[0] == -2.5 && t[4] == 7.5, "-3.2..7.9: n=%zu step=%g first=%g", n,
          step, t[0]);
    CHECK(strcmp(ticks_format(t[0], step, buf, sizeof buf), "-2.5") == 0, "label %s", buf);
    n = ticks_nice(0, 0.3, 4, t, 32, &step);
    CHECK(n == 4 && fabs(step - 0.1) < 1e-15, "0..0.3 step 0.1 (n=%zu step=%g)", n, step);
    CHECK(strcmp(ticks_format(t[3], step, buf, sizeof buf), "0.3") == 0, "no 0.30000000000000004: %s", buf);
    n = ticks_nice(-1, 1, 5, t, 32, &step);
    CHECK(n == 5 && step == 0.5, "-1..1 (n=%zu step=%g)", n, step);
    CHECK(strcmp(ticks_format(-0.0, 0.5, buf, sizeof buf), "0") == 0, "no -0: %s", buf);
    CHECK(strcmp(ticks_format(2e-5, 1e-5, buf, sizeof buf), "2e-05") == 0, "small: %s", buf);
    CHECK(strcmp(ticks_format(1200, 200, buf, sizeof buf), "1200") == 0, "integer: %s", buf);
    CHECK(ticks_nice(1, 1, 5, t, 32, &step) == 0, "empty range");
    CHECK(ticks_nice(0, NAN, 5, t, 32, &step) == 0, "NaN range");
    CHECK(ticks_nice(0, 100, 50, t, 3, &step) == 3, "max_ticks respected");
}

static void test_colormaps(void) {
    /* matplotlib's published endpoints and midpoint (index 128) */
    CHECK_COLOR(colormap_sample(COLORMAP_VIRIDIS, 0.0f), 0x44, 0x01, 0x54, "viridis(0) #440154");
    CHECK_COLOR(colormap_sample(COLORMAP_VIRIDIS, 1.0f), 0xFD, 0xE7, 0x25, "viridis(1) #FDE725");
    CHECK_COLOR(colormap_sample(COLORMAP_VIRIDIS, 128.0f / 255.0f), 0x21, 0x91, 0x8C, "viridis #21918C");
    CHECK_COLOR(colormap_sample(COLORMAP_CIVIDIS, 0.0f), 0x00, 0x22, 0x4E, "cividis(0) #00224E");
    CHECK_COLOR(colormap_sample(COLORMAP_CIVIDIS, 1.0f), 0xFE, 0xE8, 0x38, "cividis(1) #FEE838");
    CHECK_COLOR(colormap_sample(COLORMAP_VIRIDIS, -3.0f), 0x44, 0x01, 0x54, "clamped below");
    CHECK_COLOR(colormap_sample(COLORMAP_VIRIDIS, 7.0f), 0xFD, 0xE7, 0x25, "clamped above");
    CHECK_COLOR(colormap_sample(COLORMAP_VIRIDIS, NAN), 128, 128, 128, "NaN is grey");
    /* perceptual ordering: luminance rises strictly along both sequential maps, so a
     * scrambled or truncated table cannot pass */
    for (int m = COLORMAP_VIRIDIS; m <= COLORMAP_CIVIDIS; m++) {
        double prev = -1.0;
        int mono = 1;
        for (int i = 0; i <= 64; i++) {
            double l = color_relative_luminance(colormap_sample((ColormapId)m, (float)i / 64.0f));
            if (!(l > prev)) mono = 0;
            prev = l;
        }
        CHECK(mono, "%s luminance increases monotonically", colormap_name((ColormapId)m));
    }
    /* Paul Tol's BuRd anchors */
    CHECK_COLOR(colormap_sample(COLORMAP_BURD, 0.0f), 0x21, 0x66, 0xAC, "BuRd(0) #2166AC");
    CHECK_COLOR(colormap_sample(COLORMAP_BURD, 0.5f), 0xF7, 0xF7, 0xF7, "BuRd(0.5) #F7F7F7");
    CHECK_COLOR(colormap_sample(COLORMAP_BURD, 1.0f), 0xB2, 0x18, 0x2B, "BuRd(1) #B2182B");
    CHECK_COLOR(colormap_sample(COLORMAP_BURD, 0.125f), 0x43, 0x93, 0xC3, "BuRd(1/8) #4393C3");
    CHECK_COLOR(colormap_sample_signed(COLORMAP_BURD, -2.0f, 2.0f), 0x21, 0x66, 0xAC, "signed -max");
    CHECK_COLOR(colormap_sample_signed(COLORMAP_BURD, 0.0f, 2.0f), 0xF7, 0xF7, 0xF7, "signed 0");
    CHECK_COLOR(colormap_sample_signed(COLORMAP_BURD, 9.0f, 2.0f), 0xB2, 0x18, 0x2B, "signed saturates");
    CHECK_COLOR(colormap_sample_signed(COLORMAP_BURD, 1.0f, 0.0f), 0xF7, 0xF7, 0xF7, "max_abs 0 → neutral");
    CHECK_COLOR(colormap_sample_signed(COLORMAP_BURD, NAN, 1.0f), 0xFF, 0xEE, 0x99, "NaN → Tol bad");
    CHECK(colormap_is_diverging(COLORMAP_BURD) && !colormap_is_diverging(COLORMAP_VIRIDIS), "diverging flag");
    CHECK(strcmp(colormap_name(COLORMAP_CIVIDIS), "cividis") == 0, "name");
}

static void test_contrast(void) {
    SDL_Color black = {0, 0, 0, 255}, white = {255, 255, 255, 255};
    CHECK_CLOSE(color_contrast_ratio(black, white), 21.0, 1e-9, 0, "black/white = 21:1");
    CHECK_CLOSE(color_relative_luminance((SDL_Color){0x77, 0x77, 0x77, 255}), 0.184475, 2e-6, 0, "L(#777)");
    SDL_Color t0 = color_text_on(colormap_sample(COLORMAP_VIRIDIS, 0.0f));
    SDL_Color t1 = color_text_on(colormap_sample(COLORMAP_VIRIDIS, 1.0f));
    CHECK(t0.r == 255 && t1.r == 0, "white on dark purple, black on yellow");
    /* every cell colour of every map gets text with at least 4.5:1 contrast */
    double worst = 21.0;
    for (int m = 0; m < COLORMAP_COUNT; m++)
        for (int i = 0; i <= 255; i++) {
            SDL_Color bg = colormap_sample((ColormapId)m, (float)i / 255.0f);
            double c = color_contrast_ratio(bg, color_text_on(bg));
            if (c < worst) worst = c;
        }
    CHECK(worst >= 4.5, "worst cell-text contrast %.2f >= 4.5", worst);
    SDL_Color mid = color_mix(black, white, 0.5f);
    CHECK(mid.r == 128 && mid.a == 255, "mix");
}

static void test_themes(void) {
    for (int id = 0; id < THEME_COUNT; id++) {
        const Theme *t = theme_get((ThemeId)id);
        const SDL_Color grounds[2] = {t->background, t->panel};
        for (int g = 0; g < 2; g++) {
            CHECK(color_contrast_ratio(t->text, grounds[g]) >= 7.0, "%s text %.2f", t->name,
                  color_contrast_ratio(t->text, grounds[g]));
            CHECK(color_contrast_ratio(t->text_muted, grounds[g]) >= 4.5, "%s muted %.2f", t->name,
                  color_contrast_ratio(t->text_muted, grounds[g]));
            CHECK(color_contrast_ratio(t->accent, grounds[g]) >= 4.5, "%s accent %.2f", t->name,
                  color_contrast_ratio(t->accent, grounds[g]));
            CHECK(color_contrast_ratio(t->error, grounds[g]) >= 4.5, "%s error %.2f", t->name,
                  color_contrast_ratio(t->error, grounds[g]));
            CHECK(color_contrast_ratio(t->cut, grounds[g]) >= 3.0, "%s cut %.2f", t->name,
                  color_contrast_ratio(t->cut, grounds[g]));
        }
        /* greyed-out tokens must look weaker than live ones */
        CHECK(color_contrast_ratio(t->cut, t->panel) < color_contrast_ratio(t->text_muted, t->panel),
              "%s cut is dimmer than muted", t->name);
        ThemeId back;
        CHECK(theme_parse(t->name, &back) == 0 && back == (ThemeId)id, "parse %s", t->name);
    }
    ThemeId x;
    CHECK(theme_parse("solarized", &x) == -1, "unknown theme rejected");
    CHECK(theme_get((ThemeId)99) == theme_get(THEME_LIGHT), "bad id → light");
}

int main(void) {
    test_split();
    test_cut_inset();
    test_grid();
    test_ticks();
    test_colormaps();
    test_contrast();
    test_themes();
    return check_summary("test_viz_layout");
}
