/* panel_progress.c — the screen of a long piece of model work that must end before
 * anything else can be shown (a lesson checked beat by beat before its first slide):
 * what is being done, how far it got as a bar and in words, and the status line (why a
 * key waits). Drawn instead of the panels: they would show half-built states (a later
 * beat's answer before the class has guessed it). No state; the app says when. */
#include "draw.h"
#include "panels.h"

int draw_progress_screen(Viz *viz, Rect r, const VizFrame *f) {
    const Theme *th = viz->theme;
    int rc = draw_set_clip(viz, NULL);
    rc |= draw_fill_rect(viz, r, th->background);
    /* the title may use the whole width and wraps (a projector's 250 % cut the sampling
     * lab's after "many…"): up to 3 lines, the last ending in "…" only past that */
    enum { TITLE_LINES = 3 };
    int margin = viz_px(viz, 40), title_w = r.w - 2 * margin;
    int title_line_h = viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_CAPTION);
    int title_n = f->title ? draw_count_lines(viz, VIZ_FONT_BOLD, VIZ_TEXT_CAPTION, f->title, title_w, TITLE_LINES) : 0;
    int title_h = title_n * title_line_h;
    int line_h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_TITLE);
    int status_h = f->status ? viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY) : 0;
    int gap = viz_px(viz, 16), bar_h = viz_px(viz, 14);
    int w = r.w - 2 * margin;
    if (w > viz_px(viz, 900)) w = viz_px(viz, 900);
    int h = title_h + (title_h ? gap : 0) + line_h + gap + bar_h + (status_h ? gap + status_h : 0);
    Rect c = rect_center(r, w, h);
    if (f->title) {
        TextStyle ts = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_CAPTION, .color = th->text, .halign = VIZ_ALIGN_CENTER};
        Rect t = rect_cut_top(&c, title_h);
        t.x = r.x + margin, t.w = title_w;
        rc |= draw_wrapped_text(viz, t, f->title, &ts, title_line_h, TITLE_LINES);
        rect_cut_top(&c, gap);
    }
    TextStyle ls = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_TITLE, .color = th->text, .halign = VIZ_ALIGN_CENTER};
    rc |= draw_text_in_rect(viz, rect_cut_top(&c, line_h), f->progress, &ls);
    rect_cut_top(&c, gap);
    /* the bar: the share of the work done, never only a colour (the line above says it) */
    Rect bar = rect_cut_top(&c, bar_h);
    rc |= draw_fill_rect(viz, bar, th->panel);
    if (f->progress_total > 0 && f->progress_done > 0) {
        int done = f->progress_done < f->progress_total ? f->progress_done : f->progress_total;
        Rect fill = bar;
        fill.w = (int)((long long)bar.w * done / f->progress_total);
        rc |= draw_fill_rect(viz, fill, th->accent);
    }
    rc |= draw_rect_outline(viz, bar, th->panel_border, viz_px(viz, 1));
    if (f->status) {
        rect_cut_top(&c, gap);
        TextStyle ss = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_BODY,
                        .color = f->status_is_error ? th->error : th->text_muted, .halign = VIZ_ALIGN_CENTER};
        rc |= draw_text_in_rect(viz, rect_cut_top(&c, status_h), f->status, &ss);
    }
    rc |= draw_set_clip(viz, NULL);
    return rc ? -1 : 0;
}
