/* frame_draw.c — draw_frame and draw_panel_figure (panels.h): the window's layout,
 * computed from the target size every frame (immediate mode, no stored geometry),
 * and the composition of the panels, the highlight border, the status line and the
 * overlays. It draws no data itself: each panel draws its own content, title and
 * legend. Not the app (no input handling) and not an exporter (no pixels read back). */
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

typedef struct FrameLayout {
    Rect panel[VIZ_PANEL_COUNT]; /* indexed by VizPanel; [VIZ_PANEL_FRAME] = all panels */
    Rect status;
} FrameLayout;

/* Carves r into the panels. Two columns on ordinary screens:
 *     tokens     | probs          the question (tokens) sits above the heads
 *     attention  | (probs)        (attention); the answer (probs) beside them,
 *                | text           the text so far under the answer
 * Three columns when the window is very wide: tokens over text | attention | probs.
 * Panel sizes are fractions of the window, so any size from 1024×640 to 4K works and
 * the UI scale only changes what fits inside each panel. */
static FrameLayout frame_layout(const Viz *viz, Rect r, VizPanel focus, int with_status) {
    FrameLayout L;
    for (int i = 0; i < VIZ_PANEL_COUNT; i++) L.panel[i] = rect_make(r.x, r.y, 0, 0);
    L.status = rect_make(r.x, r.y, 0, 0);
    int gap = viz_px(viz, FRAME_GAP);
    Rect area = rect_inset(r, gap);
    if (with_status) {
        /* one body line plus padding: the status line must stay legible at any scale */
        int sh = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY) + viz_px(viz, 10);
        L.status = rect_cut_bottom(&area, sh);
        rect_cut_bottom(&area, gap);
    }
    L.panel[VIZ_PANEL_FRAME] = area;
    if (focus > VIZ_PANEL_FRAME && focus < VIZ_PANEL_COUNT) {
        L.panel[focus] = area; /* one panel enlarged to the whole frame */
        return L;
    }
    Rect col[3];
    float aspect = area.h > 0 ? (float)area.w / (float)area.h : 1.0f;
    if (aspect > FRAME_WIDE_ASPECT) {
        const float w3[3] = {0.30f, 0.36f, 0.34f};
        rect_split_cols(area, w3, 3, gap, col);
        Rect left[2];
        const float wl[2] = {0.45f, 0.55f};
        rect_split_rows(col[0], wl, 2, gap, left);
        L.panel[VIZ_PANEL_TOKENS] = left[0];
        L.panel[VIZ_PANEL_TEXT] = left[1];
        L.panel[VIZ_PANEL_ATTENTION] = col[1];
        L.panel[VIZ_PANEL_PROBS] = col[2];
        return L;
    }
    const float w2[2] = {0.56f, 0.44f};
    rect_split_cols(area, w2, 2, gap, col);
    Rect left[2], right[2];
    const float wl[2] = {0.30f, 0.70f};
    const float wr[2] = {0.70f, 0.30f};
    rect_split_rows(col[0], wl, 2, gap, left);
    rect_split_rows(col[1], wr, 2, gap, right);
    L.panel[VIZ_PANEL_TOKENS] = left[0];
    L.panel[VIZ_PANEL_ATTENTION] = left[1];
    L.panel[VIZ_PANEL_PROBS] = right[0];
    L.panel[VIZ_PANEL_TEXT] = right[1];
    return L;
}

/* One panel by its enum, then the clip reset (panels set it and draw_set_clip is not
 * a stack). */
static int draw_one_panel(Viz *viz, Rect r, const VizFrame *f, VizPanel p, VizHits *hits) {
    int rc;
    switch (p) {
    case VIZ_PANEL_TOKENS: rc = draw_tokens_panel(viz, r, f, hits); break;
    case VIZ_PANEL_ATTENTION: rc = draw_attention_panel(viz, r, f, hits); break;
    case VIZ_PANEL_PROBS: rc = draw_probs_panel(viz, r, f, hits); break;
    case VIZ_PANEL_TEXT: rc = draw_text_panel(viz, r, f, hits); break;
    default: rc = viz_fail(viz, "draw: panel %d is not a single panel", (int)p); break;
    }
    if (draw_set_clip(viz, NULL) != 0) rc = -1;
    return rc;
}

/* The layout, the panels, the highlight border and (optionally) the status line. */
static int draw_layout(Viz *viz, Rect r, const VizFrame *f, VizHits *hits, int with_status) {
    const Theme *th = viz->theme;
    int rc = draw_set_clip(viz, NULL);
    rc |= draw_fill_rect(viz, r, th->background);
    if (f->view.blank) return rc ? -1 : 0; /* presenter blanked the screen */
    FrameLayout L = frame_layout(viz, r, f->view.focus, with_status);
    for (int p = VIZ_PANEL_TOKENS; p < VIZ_PANEL_COUNT; p++) {
        Rect pr = L.panel[p];
        if (pr.w <= 0 || pr.h <= 0) continue;
        /* the panel's whole rect first: panels' own hits are looked up by kind, and
         * Shift+E / F find "the panel under the mouse" through these */
        viz_hits_add(hits, pr, VIZ_HIT_PANEL, p, 0);
        rc |= draw_one_panel(viz, pr, f, (VizPanel)p, hits);
    }
    int hp = f->view.highlight_panel;
    if (hp > VIZ_PANEL_FRAME && hp < VIZ_PANEL_COUNT && L.panel[hp].w > 0) {
        /* drawn in the gap around the panel, so it covers none of the panel's content */
        int t = viz_px(viz, FRAME_HIGHLIGHT);
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
    /* a lesson title gets its own band above the panels */
    Rect body = r;
    if (!f->view.blank) {
        rect_cut_top(&body, lesson_overlay_top(viz, f));
        rect_cut_bottom(&body, lesson_overlay_bottom(viz, f, r)); /* captions under, not over, the panels */
    }
    int rc = draw_layout(viz, body, f, hits, 1);
    if (f->view.blank) return rc;
    /* overlays on top of everything: the lesson narration, then the key help (the
     * help must stay readable even during a lesson) */
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
    if ((int)p < 0 || p >= VIZ_PANEL_COUNT) return viz_fail(viz, "figure: unknown panel %d", (int)p);
    int rc = draw_set_clip(viz, NULL);
    rc |= draw_fill_rect(viz, r, viz->theme->background);
    Rect pr = rect_inset(r, viz_px(viz, FIGURE_MARGIN));
    viz_hits_add(hits, pr, VIZ_HIT_PANEL, (int)p, 0);
    rc |= draw_one_panel(viz, pr, f, p, hits);
    return rc ? -1 : 0;
}
