/* frame_draw.c — draw_frame and draw_panel_figure (panels.h): the window's layout,
 * computed from the target size every frame (immediate mode, no stored geometry),
 * and the composition of the panels, the highlight border, the status line, the
 * lesson bands and the key help. It draws no data itself: each panel draws its own
 * content, title and legend. Not the app (no input handling) and not an exporter (no
 * pixels read back). */
#include "panels.h"

#include "draw.h"

/* Logical sizes (multiplied by viz_px): the gap between panels leaves room for the
 * highlight border, which is drawn in the gap so it never covers panel content. */
#define FRAME_GAP 8
#define FRAME_HIGHLIGHT 3
#define FIGURE_MARGIN 12
/* Width/height ratio above which the layout uses three columns instead of two
 * (ultra-wide screens and side-by-side projector setups). */
#define FRAME_WIDE_ASPECT 2.2f
/* Width/height ratio below which the window counts as upright (a tablet in portrait,
 * 768x1024 or 820x1180): the attention column there is much taller than its square
 * heatmap needs and left half of it empty, so the text moves under the attention and
 * the bars take the whole right column. Decided on the whole target, not on what the
 * status line leaves, so a window keeps its layout at every UI scale. */
#define FRAME_TALL_ASPECT 0.9f
/* Upright: the attention panel's height per pixel of its width (the square heatmap, its
 * token labels below and title above; the head grid and legend beside it). */
#define TALL_ATTENTION_ASPECT 0.72f
/* The token strip and the text get what they need, within these fractions of the
 * column, so the pictures (heatmap, bars) get the rest at every UI scale: the strip
 * shows up to two rows of chips, the text 2 to 4 lines (then it scrolls). */
#define TOKENS_MIN_FRAC 0.12f
#define TOKENS_MAX_FRAC 0.28f
#define TEXT_MIN_LINES 2
#define TEXT_MAX_LINES 4
#define TEXT_MIN_FRAC 0.16f
#define TEXT_MAX_FRAC 0.34f

/* The gap grows slower than the text (8 px at 100 %, 10 at 250 %): room for pictures. */
static int frame_gap(const Viz *viz) {
    int a = viz_gx(viz, FRAME_GAP), b = viz_px(viz, 4);
    return a > b ? a : b;
}

typedef struct FrameLayout {
    Rect panel[VIZ_PANEL_COUNT]; /* indexed by VizPanel; [VIZ_PANEL_FRAME] = all panels */
    Rect status;
    Rect banner;                 /* "switched off: ..." while parts are ablated (else empty) */
} FrameLayout;

static int clamp_frac(int want, int total, float lo, float hi) {
    int a = (int)((float)total * lo), b = (int)((float)total * hi);
    return want < a ? a : want > b ? b : want;
}

/* Carves r into the panels. Two columns on ordinary screens:
 *     tokens     | probs          the question (tokens) sits above the heads
 *     attention  | (probs)        (attention); the answer (probs) beside them,
 *                | text           the text so far under the answer
 * Three columns when the window is very wide: tokens over text | attention | probs.
 * Upright (portrait): the text under the attention in the left column, the probs the
 * whole right column:
 *     tokens     | probs
 *     attention  | (probs)
 *     text       | (probs)
 * Column widths are fractions of the window; the strip and the text are as tall as
 * their content needs (bounded), so the heatmap and the bars keep their room when the
 * UI scale makes the text larger. */
static FrameLayout frame_layout(Viz *viz, Rect r, const VizFrame *f, int with_status) {
    FrameLayout L;
    for (int i = 0; i < VIZ_PANEL_COUNT; i++) L.panel[i] = rect_make(r.x, r.y, 0, 0);
    L.status = rect_make(r.x, r.y, 0, 0);
    int gap = frame_gap(viz);
    Rect area = rect_inset(r, gap);
    if (with_status) {
        /* one body line plus padding: the status line must stay legible at any scale */
        int sh = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY) + viz_px(viz, 10);
        L.status = rect_cut_bottom(&area, sh);
        rect_cut_bottom(&area, gap);
    }
    L.banner = rect_make(r.x, r.y, 0, 0);
    if (f->ablated && f->ablated[0]) {
        /* what is switched off, above every panel: nothing on screen is the whole model */
        L.banner = rect_cut_top(&area, viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_BODY) + viz_px(viz, 8));
        rect_cut_top(&area, gap);
    }
    L.panel[VIZ_PANEL_FRAME] = area;
    VizPanel focus = f->view.focus;
    const VizPanelRow *row = viz_panel_row(focus);
    if (row && focus != VIZ_PANEL_FRAME) {
        if (row->companion == VIZ_PANEL_FRAME || row->companion == focus) {
            L.panel[focus] = area; /* one panel enlarged to the whole frame */
            return L;
        }
        /* enlarged with the panel its clicks and numbers refer to beside it */
        Rect two[2];
        const float w2[2] = {0.58f, 0.42f};
        rect_split_cols(area, w2, 2, gap, two);
        L.panel[focus] = two[0];
        L.panel[row->companion] = two[1];
        return L;
    }
    Rect col[3];
    float aspect = area.h > 0 ? (float)area.w / (float)area.h : 1.0f;
    int wide = aspect > FRAME_WIDE_ASPECT;
    if (wide) {
        const float w3[3] = {0.30f, 0.36f, 0.34f};
        rect_split_cols(area, w3, 3, gap, col);
    } else {
        const float w2[2] = {0.56f, 0.44f};
        rect_split_cols(area, w2, 2, gap, col);
    }
    int tok_max = (int)((float)col[0].h * TOKENS_MAX_FRAC);
    int tok_h = clamp_frac(tokens_panel_height(viz, col[0].w, f, 2, tok_max), col[0].h, TOKENS_MIN_FRAC, TOKENS_MAX_FRAC);
    Rect left = col[0];
    L.panel[VIZ_PANEL_TOKENS] = rect_cut_top(&left, tok_h);
    rect_cut_top(&left, gap);
    /* a class room open: its panel takes the attention's place, beside the bars it is
     * compared with (the teacher's class is about the answer, not the heads) */
    VizPanel beside = f->klass ? VIZ_PANEL_CLASS : VIZ_PANEL_ATTENTION;
    if (wide) {
        L.panel[VIZ_PANEL_TEXT] = left;
        L.panel[beside] = col[1];
        L.panel[VIZ_PANEL_PROBS] = col[2];
        return L;
    }
    if (r.h > 0 && (float)r.w / (float)r.h < FRAME_TALL_ASPECT) {
        /* upright: the attention as tall as its picture needs at this width, the text
         * under it in the left column, the bars the whole right column */
        int att_h = (int)((float)left.w * TALL_ATTENTION_ASPECT);
        int text_min = (int)((float)col[0].h * TEXT_MIN_FRAC);
        if (att_h > left.h - gap - text_min) att_h = left.h - gap - text_min;
        L.panel[beside] = rect_cut_top(&left, att_h);
        rect_cut_top(&left, gap);
        L.panel[VIZ_PANEL_TEXT] = left;
        L.panel[VIZ_PANEL_PROBS] = col[1];
        return L;
    }
    L.panel[beside] = left;
    Rect right = col[1];
    int text_h = clamp_frac(text_panel_height(viz, col[1].w, f, TEXT_MIN_LINES, TEXT_MAX_LINES), col[1].h,
                            TEXT_MIN_FRAC, TEXT_MAX_FRAC);
    L.panel[VIZ_PANEL_TEXT] = rect_cut_bottom(&right, text_h);
    rect_cut_bottom(&right, gap);
    L.panel[VIZ_PANEL_PROBS] = right;
    return L;
}

/* The ablation banner: a hatched error-coloured edge (a pattern, not colour alone) and
 * the parts switched off, how far the prediction moved, how to undo it. */
static int draw_ablation_banner(Viz *viz, Rect r, const VizFrame *f) {
    const Theme *th = viz->theme;
    int rc = draw_fill_rect(viz, r, color_mix(th->panel, th->error, 0.12f));
    rc |= draw_rect_outline(viz, r, th->error, viz_px(viz, 2));
    Rect edge = {r.x, r.y, viz_px(viz, 14), r.h};
    rc |= draw_hatch(viz, edge, r, r.x, r.y, viz_px(viz, 5), th->error);
    draw_set_clip(viz, NULL);
    char text[512];
    int k = snprintf(text, sizeof text, "ABLATED \xE2\x80\x94 switched off: %s", f->ablated);
    if (f->ablation_kl >= 0 && k > 0 && (size_t)k < sizeof text)
        k += snprintf(text + k, sizeof text - (size_t)k, "  \xC2\xB7  KL(original \xE2\x80\x96 ablated) = %.4f nats",
                      f->ablation_kl);
    if (k > 0 && (size_t)k < sizeof text && f->p_orig)
        k += snprintf(text + k, sizeof text - (size_t)k, "  \xC2\xB7  bars: ablated, \xE2\x94\x83 = original p");
    if (k > 0 && (size_t)k < sizeof text && !f->view.print)
        snprintf(text + k, sizeof text - (size_t)k, "  \xC2\xB7  Shift+X: all back on");
    TextStyle ts = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_BODY, .color = th->text, .valign = VIZ_ALIGN_MIDDLE};
    rc |= draw_text_in_rect(viz, rect_inset4(r, viz_px(viz, 20), 0, viz_px(viz, 6), 0), text, &ts);
    return rc;
}

/* One panel by its row of the panel table (drawn with view.fill when it is the one
 * enlarged), its cramped rule, then the clip reset (panels set it and draw_set_clip is
 * not a stack). */
static int draw_one_panel(Viz *viz, Rect r, const VizFrame *f, VizPanel p, int alone, VizHits *hits) {
    const VizPanelRow *row = viz_panel_row(p);
    if (!row || !row->draw) return viz_fail(viz, "draw: panel %d is not a single panel", (int)p);
    VizFrame g = *f;
    g.view.fill = alone;
    int rc = row->draw(viz, r, &g, hits);
    if ((row->min_w && r.w < viz_px(viz, row->min_w)) || (row->min_h && r.h < viz_px(viz, row->min_h)))
        draw_enlarge_hint(viz, p, &g);
    if (draw_set_clip(viz, NULL) != 0) rc = -1;
    return rc;
}

/* The layout, the panels, the highlight border and (optionally) the status line. */
static int draw_layout(Viz *viz, Rect r, const VizFrame *f, VizHits *hits, int with_status) {
    const Theme *th = viz->theme;
    int rc = draw_set_clip(viz, NULL);
    rc |= draw_fill_rect(viz, r, th->background);
    FrameLayout L = frame_layout(viz, r, f, with_status);
    viz->cramped_mask = 0; /* the panels below say which of them left content out */
    for (int p = VIZ_PANEL_TOKENS; p < VIZ_PANEL_COUNT; p++) {
        Rect pr = L.panel[p];
        if (pr.w <= 0 || pr.h <= 0) continue;
        /* the panel's whole rect first: panels' own hits are looked up by kind, and
         * Shift+E / F find "the panel under the mouse" through these */
        viz_hits_add(hits, pr, VIZ_HIT_PANEL, p, 0);
        rc |= draw_one_panel(viz, pr, f, (VizPanel)p, p == (int)f->view.focus, hits);
    }
    if (L.banner.w > 0) rc |= draw_ablation_banner(viz, L.banner, f);
    int hp = f->view.highlight_panel;
    if (hp > VIZ_PANEL_FRAME && hp < VIZ_PANEL_COUNT && L.panel[hp].w > 0) {
        /* drawn in the gap around the panel, so it covers none of the panel's content */
        int t = viz_px(viz, FRAME_HIGHLIGHT);
        if (t > frame_gap(viz) - 1) t = frame_gap(viz) - 1; /* stays in the gap */
        rc |= draw_rect_outline(viz, rect_inset(L.panel[hp], -t), th->highlight, t);
    }
    if (with_status) {
        rc |= draw_status_line(viz, L.status, f);
        rc |= draw_set_clip(viz, NULL);
    }
    return rc ? -1 : 0;
}

int draw_frame(Viz *viz, Rect r, const VizFrame *f, VizHits *hits) {
    if (!viz || !f) return -1;
    if (r.w <= 0 || r.h <= 0) return 0;
    /* the whole target every frame: nothing of an earlier frame (an old caption, a
     * closed overlay) can show through anything drawn later */
    int rc = draw_set_clip(viz, NULL);
    const SDL_Color black = {0, 0, 0, 255};
    rc |= draw_fill_rect(viz, r, f->view.blank ? black : viz->theme->background);
    if (f->view.blank) return rc ? -1 : 0; /* presenter blanked the screen: black */
    if (f->progress) return (draw_progress_screen(viz, r, f) | rc) ? -1 : 0;
    /* the lesson bands above and below the figure, never over it */
    Rect body = r;
    rect_cut_top(&body, lesson_overlay_top(viz, f));
    rect_cut_bottom(&body, lesson_overlay_bottom(viz, f, r));
    int alone = f->view.focus > VIZ_PANEL_FRAME && f->view.focus < VIZ_PANEL_COUNT;
    int with_status = !(f->view.slide && alone) || f->status_is_error;
    rc |= draw_layout(viz, body, f, hits, with_status);
    /* the narration, then the key help (which must stay readable even in a lesson) */
    rc |= draw_lesson_overlay(viz, r, f);
    rc |= draw_set_clip(viz, NULL);
    if (f->view.show_help) {
        rc |= draw_help_overlay(viz, r, f);
        rc |= draw_set_clip(viz, NULL);
    }
    return rc ? -1 : 0;
}

int draw_panel_figure(Viz *viz, Rect r, const VizFrame *f, VizPanel p, VizHits *hits) {
    if (!viz || !f) return -1;
    if (r.w <= 0 || r.h <= 0) return 0;
    if (p == VIZ_PANEL_FRAME) return draw_layout(viz, r, f, hits, 1);
    if (!viz_panel_row(p)) return viz_fail(viz, "figure: unknown panel %d", (int)p);
    int rc = draw_set_clip(viz, NULL);
    rc |= draw_fill_rect(viz, r, viz->theme->background);
    Rect pr = rect_inset(r, viz_px(viz, FIGURE_MARGIN));
    viz_hits_add(hits, pr, VIZ_HIT_PANEL, (int)p, 0);
    rc |= draw_one_panel(viz, pr, f, p, 1, hits);
    return rc ? -1 : 0;
}

int draw_enlarge_hint(Viz *viz, VizPanel p, const VizFrame *f) {
    /* recorded, not drawn on the panel: a tag there covered its title; the status line
     * names the panels and offers F (draw_status_line) */
    if (!f || f->view.print || f->view.fill || (int)p < 0 || p >= VIZ_PANEL_COUNT) return 0;
    viz->cramped_mask |= 1u << (unsigned)p;
    return 0;
}
