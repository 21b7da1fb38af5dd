/* panel_journey.c — draw_journey_panel: the newest token's way through the network for
 * self-study (engine/token_journey.c, VizFrame.journey), one row per stage top to bottom:
 * embedding, block 0 .. L-1, the final norm, the logits. Each row: the stage, the shapes
 * of its tensors ("[T, 768]", the pattern's "[12, T, T]"), the length of the vector
 * leaving it (a bar and the number), for a block what its attention and its MLP add
 * (arrows of proportional length, numbers printed) and the logit-lens top-3 there.
 * Strings and numbers come from the engine; this file lays them out. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "panels.h"
#include "prob_format.h"
#include "token_label.h"

/* The shape of the stage's tensor whose name ends in suffix, or NULL. */
static const char *shape_of(const JourneyStage *st, const char *suffix) {
    size_t n = strlen(suffix);
    for (int i = 0; i < st->n_tensors; i++) {
        size_t m = strlen(st->tensors[i].name);
        if (m >= n && strcmp(st->tensors[i].name + m - n, suffix) == 0) return st->tensors[i].shape;
    }
    return NULL;
}

/* A bar of length frac of lane with an arrow head (a triangle of lines) at its end. */
static int draw_arrow(Viz *viz, Rect lane, double frac, SDL_Color c) {
    int w = (int)lround(fmin(fmax(frac, 0.0), 1.0) * (lane.w - lane.h / 2));
    int h = lane.h;
    int rc = 0;
    if (w > 0) rc |= draw_fill_rect(viz, (Rect){lane.x, lane.y + h / 4, w, h - h / 2}, c);
    for (int i = 0; i <= h / 2; i++) /* the head: a column of lines shrinking to a point */
        rc |= draw_line(viz, lane.x + w + i, lane.y + i, lane.x + w + i, lane.y + h - 1 - i, c, 1);
    return rc;
}

/* What the rows share: the frame, the journey, the type, the columns and the scales. */
typedef struct JourneyCtx {
    Viz *viz;
    const Theme *th;
    const VizFrame *f;
    const TokenJourney *j;
    VizTextSize ts;                      /* the rows' type size */
    int mono_h, row_h;
    int two;                             /* 1: block rows put attention and MLP on two lines */
    Rect c_stage, c_shape, c_norm, c_parts, c_top; /* the columns (x and w only) */
    double max_norm, max_part, max_logits; /* the scales of the lengths, the parts, the logits */
    SDL_Color attn_c, mlp_c;
} JourneyCtx;

#define JOURNEY_LINE_CAP (TOKEN_LABEL_CAP + 160)

/* The title naming the token and the line below it, cut off the top of *area. */
static int draw_journey_heading(const JourneyCtx *c, Rect *area, const TextStyle *tts, const TextStyle *ms) {
    Viz *viz = c->viz;
    const TokenJourney *j = c->j;
    const int small_h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL);
    char tl[TOKEN_LABEL_CAP], line[JOURNEY_LINE_CAP];
    int rc = 0;
    token_label_ex(c->f->tok, j->token, TOKEN_LABEL_DEFAULT, viz_glyph_provided, viz, tl, sizeof tl);
    snprintf(line, sizeof line, "the journey of %s through the network", tl);
    rc |= draw_text_in_rect(viz, rect_cut_top(area, viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE)), line, tts);
    snprintf(line, sizeof line,
             "position %d, T = %d tokens so far; each row: the vector leaving the stage, its length, "
             "what attention and the MLP add, the logit lens's top 3",
             j->pos, j->n_pos);
    int sub_lines = draw_count_lines(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL, line, area->w, 2); /* wrapped, never cut */
    rc |= draw_wrapped_text(viz, rect_cut_top(area, small_h * sub_lines), line, ms, small_h, 2);
    rect_cut_top(area, viz_px(viz, 6));
    return rc;
}

/* The columns: stage | shapes | length | attention + MLP | top 3; and the scales. */
static void layout_journey(JourneyCtx *c, Rect area) {
    Viz *viz = c->viz;
    const TokenJourney *j = c->j;
    const int n = j->n_stages;
    c->two = c->row_h >= 2 * c->mono_h + viz_px(viz, 2);
    int w_stage = viz_text_width(viz, VIZ_FONT_BOLD, c->ts, "\xE2\x86\x93 ln_final ") + viz_px(viz, 6);
    int w_shape = viz_text_width(viz, VIZ_FONT_MONO, c->ts, "pattern [12, T, T] ") + viz_px(viz, 6);
    int rest = area.w - w_stage - w_shape;
    int w_norm = rest * 20 / 100, w_parts = rest * 36 / 100;
    c->c_stage = (Rect){area.x, 0, w_stage, 0};
    c->c_shape = (Rect){c->c_stage.x + w_stage, 0, w_shape, 0};
    c->c_norm = (Rect){c->c_shape.x + w_shape, 0, w_norm, 0};
    c->c_parts = (Rect){c->c_norm.x + w_norm + viz_px(viz, 8), 0, w_parts, 0};
    c->c_top = (Rect){c->c_parts.x + w_parts + viz_px(viz, 8), 0, area.x + area.w - (c->c_parts.x + w_parts + viz_px(viz, 8)), 0};
    c->max_norm = 0, c->max_part = 0;
    for (int s = 0; s < n; s++) {
        const JourneyStage *st = &j->stage[s];
        if (st->kind != JOURNEY_LOGITS && st->norm > c->max_norm) c->max_norm = st->norm;
        if (st->attn_norm > c->max_part) c->max_part = st->attn_norm;
        if (st->mlp_norm > c->max_part) c->max_part = st->mlp_norm;
    }
    c->max_logits = 0;
    for (int s = 0; s < n; s++)
        if (j->stage[s].kind == JOURNEY_LOGITS) c->max_logits = j->stage[s].norm;
}

/* The columns' names in the row `head`. */
static int draw_journey_header(const JourneyCtx *c, Rect head) {
    Viz *viz = c->viz;
    const VizTextSize ts = c->ts;
    TextStyle hs = {.font = VIZ_FONT_SANS, .size = ts, .color = c->th->text_muted, .valign = VIZ_ALIGN_MIDDLE};
    int hy = head.y + head.h / 2, rc = 0;
    hs.max_width = c->c_shape.w;
    rc |= draw_text(viz, c->c_shape.x, hy, "shapes", &hs, NULL);
    /* the headers in short where the long ones do not fit (a projector's UI scale) */
    static const char len_long[] = "length \xE2\x80\x96x\xE2\x80\x96", len_short[] = "\xE2\x80\x96x\xE2\x80\x96";
    static const char add_long[] = "added: attention, MLP (\xE2\x80\x96out\xE2\x80\x96)",
                      add_short[] = "a=attn m=MLP";
    hs.max_width = c->c_norm.w;
    rc |= draw_text(viz, c->c_norm.x, hy, viz_text_width(viz, VIZ_FONT_SANS, ts, len_long) <= c->c_norm.w ? len_long : len_short,
                    &hs, NULL);
    hs.max_width = c->c_parts.w;
    rc |= draw_text(viz, c->c_parts.x, hy, viz_text_width(viz, VIZ_FONT_SANS, ts, add_long) <= c->c_parts.w ? add_long : add_short,
                    &hs, NULL);
    hs.max_width = c->c_top.w;
    rc |= draw_text(viz, c->c_top.x, hy, "logit lens top 3", &hs, NULL);
    return rc;
}

/* The stage's shapes: what leaves the stage; a block also its pattern. */
static int draw_stage_shapes(const JourneyCtx *c, const JourneyStage *st, int cy) {
    Viz *viz = c->viz;
    TextStyle vs = {.font = VIZ_FONT_MONO, .size = c->ts, .color = c->th->text_muted, .valign = VIZ_ALIGN_MIDDLE,
                    .max_width = c->c_shape.w - viz_px(viz, 4)};
    const char *pat = st->kind == JOURNEY_BLOCK ? shape_of(st, "attn.hook_pattern") : NULL;
    char line[JOURNEY_LINE_CAP];
    int rc = 0;
    if (pat && c->two) {
        rc |= draw_text(viz, c->c_shape.x, cy - c->mono_h / 2, st->out_shape, &vs, NULL);
        snprintf(line, sizeof line, "pattern %s", pat);
        rc |= draw_text(viz, c->c_shape.x, cy + c->mono_h / 2, line, &vs, NULL);
    } else {
        snprintf(line, sizeof line, "%s%s%s", st->out_shape, pat ? " \xC2\xB7 " : "", pat ? pat : "");
        rc |= draw_text(viz, c->c_shape.x, cy, line, &vs, NULL);
    }
    return rc;
}

/* The length: the residual stream's on one scale, the logits' on their own. */
static int draw_stage_length(const JourneyCtx *c, const JourneyStage *st, Rect row) {
    Viz *viz = c->viz;
    const Theme *th = c->th;
    const int mono_h = c->mono_h, cy = row.y + row.h / 2;
    TextStyle vs = {.font = VIZ_FONT_MONO, .size = c->ts, .color = th->text, .valign = VIZ_ALIGN_MIDDLE};
    double frac = st->kind == JOURNEY_LOGITS ? (c->max_logits > 0 ? st->norm / c->max_logits : 0)
                                             : (c->max_norm > 0 ? st->norm / c->max_norm : 0);
    char num[32];
    /* the logits' bar is on a scale of its own (grey): the number says so, the bar's
     * length against the stream's would mislead */
    snprintf(num, sizeof num, st->kind == JOURNEY_LOGITS ? "%.1f (own scale)" : "%.1f", st->norm);
    int nw = viz_text_width(viz, VIZ_FONT_MONO, c->ts, "00000.0") + viz_px(viz, 4);
    Rect lane = {c->c_norm.x, row.y + row.h / 2 - mono_h / 3, c->c_norm.w - nw, (mono_h * 2) / 3};
    int bw = (int)lround(frac * lane.w);
    int rc = draw_fill_rect(viz, (Rect){lane.x, lane.y, bw, lane.h},
                            st->kind == JOURNEY_LOGITS ? th->text_muted : th->accent);
    rc |= draw_text(viz, lane.x + bw + viz_px(viz, 4), cy, num, &vs, NULL);
    return rc;
}

/* What a block's attention and MLP add: two arrows of proportional length, numbers printed. */
static int draw_stage_parts(const JourneyCtx *c, const JourneyStage *st, Rect row) {
    Viz *viz = c->viz;
    const int mono_h = c->mono_h, two = c->two, cy = row.y + row.h / 2;
    const Rect c_parts = c->c_parts;
    TextStyle vs = {.font = VIZ_FONT_MONO, .size = c->ts, .color = c->th->text, .valign = VIZ_ALIGN_MIDDLE};
    int rc = 0;
    int lw = viz_text_width(viz, VIZ_FONT_MONO, c->ts, two ? "attn 0000.0 " : "a 000.0 m 000.0 ");
    int ah = two ? mono_h - viz_px(viz, 2) : (c->row_h - viz_px(viz, 4)) / 2;
    int ya = two ? cy - mono_h / 2 - ah / 2 : row.y + viz_px(viz, 2);
    int ym = two ? cy + mono_h / 2 - ah / 2 : ya + ah;
    char a[32], m[32];
    snprintf(a, sizeof a, "attn %.1f", st->attn_norm);
    snprintf(m, sizeof m, "mlp %.1f", st->mlp_norm);
    if (c_parts.w - lw >= viz_px(viz, 24)) { /* else the numbers alone (F enlarges) */
        rc |= draw_arrow(viz, (Rect){c_parts.x + lw, ya, c_parts.w - lw, ah}, st->attn_norm / c->max_part, c->attn_c);
        rc |= draw_arrow(viz, (Rect){c_parts.x + lw, ym, c_parts.w - lw, ah}, st->mlp_norm / c->max_part, c->mlp_c);
    } else {
        draw_enlarge_hint(viz, VIZ_PANEL_JOURNEY, c->f);
    }
    if (two) {
        rc |= draw_text(viz, c_parts.x, ya + ah / 2, a, &vs, NULL);
        rc |= draw_text(viz, c_parts.x, ym + ah / 2, m, &vs, NULL);
    } else { /* one line: both numbers before the two thin arrows */
        snprintf(a, sizeof a, "a %.1f m %.1f", st->attn_norm, st->mlp_norm);
        rc |= draw_text(viz, c_parts.x, cy, a, &vs, NULL);
    }
    return rc;
}

/* The lens's top 3 at the stage. */
static int draw_stage_top3(const JourneyCtx *c, const JourneyStage *st, int cy) {
    Viz *viz = c->viz;
    TextStyle vs = {.font = VIZ_FONT_MONO, .size = c->ts, .color = c->th->text, .valign = VIZ_ALIGN_MIDDLE,
                    .max_width = c->c_top.w};
    char tl[TOKEN_LABEL_CAP], line[JOURNEY_LINE_CAP];
    size_t k = 0;
    line[0] = 0;
    for (int t = 0; t < st->n_top && k < sizeof line; t++) {
        token_label_ex(c->f->tok, st->top_id[t], TOKEN_LABEL_DEFAULT, viz_glyph_provided, viz, tl, sizeof tl);
        char pct[24]; /* never "0%" above 0 nor "100%" below 1 (prob_format.h) */
        prob_format_pct(st->top_p[t], pct, sizeof pct);
        k += (size_t)snprintf(line + k, sizeof line - k, "%s%s %s", t ? "  " : "", tl, pct);
    }
    return draw_text(viz, c->c_top.x, cy, line, &vs, NULL);
}

/* Stage s's row, the odd ones shaded. */
static int draw_stage_row(const JourneyCtx *c, Rect area, int s) {
    Viz *viz = c->viz;
    const Theme *th = c->th;
    const JourneyStage *st = &c->j->stage[s];
    Rect row = {area.x, area.y + s * c->row_h, area.w, c->row_h};
    int cy = row.y + row.h / 2, rc = 0;
    if (s % 2 == 1) rc |= draw_fill_rect(viz, row, color_mix(th->panel, th->grid, 0.25f));
    char line[JOURNEY_LINE_CAP];
    snprintf(line, sizeof line, "%s%s", s ? "\xE2\x86\x93 " : "", st->label);
    TextStyle ls = {.font = VIZ_FONT_BOLD, .size = c->ts, .color = th->text, .valign = VIZ_ALIGN_MIDDLE,
                    .max_width = c->c_stage.w - viz_px(viz, 4)};
    rc |= draw_text(viz, c->c_stage.x, cy, line, &ls, NULL);
    rc |= draw_stage_shapes(c, st, cy);
    rc |= draw_stage_length(c, st, row);
    if (st->kind == JOURNEY_BLOCK && c->max_part > 0) rc |= draw_stage_parts(c, st, row);
    rc |= draw_stage_top3(c, st, cy);
    return rc;
}

int draw_journey_panel(Viz *viz, Rect r, const VizFrame *f, VizHits *hits) {
    (void)hits;
    if (r.w <= 0 || r.h <= 0) return 0;
    const Theme *th = viz->theme;
    Rect in;
    int rc = draw_panel_begin(viz, r, &in);
    const TokenJourney *j = f ? f->journey : NULL;
    TextStyle tts = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_TITLE, .color = th->text, .valign = VIZ_ALIGN_TOP};
    TextStyle ms = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL, .color = th->text_muted, .valign = VIZ_ALIGN_TOP};
    const int title_h = viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE);
    const int small_h = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL);
    Rect area = in;
    if (!j || j->pos < 0 || !f->tok || !f->cfg) {
        rc |= draw_text_in_rect(viz, rect_cut_top(&area, title_h), "the journey of one token", &tts);
        const char *why = f && f->inside_missing && f->inside_missing[0]
                              ? f->inside_missing
                              : "the journey is computed when this panel is shown alone (I, or F over it)";
        rc |= draw_wrapped_text(viz, area, why, &ms, small_h, 6);
        draw_set_clip(viz, NULL);
        return rc ? -1 : 0;
    }
    JourneyCtx c = {.viz = viz, .th = th, .f = f, .j = j, .ts = VIZ_TEXT_SMALL,
                    .attn_c = colormap_sample(COLORMAP_BURD, 0.12f), .mlp_c = colormap_sample(COLORMAP_BURD, 0.88f)};
    rc |= draw_journey_heading(&c, &area, &tts, &ms);
    c.mono_h = viz_line_height(viz, VIZ_FONT_MONO, c.ts);
    Rect head = rect_cut_top(&area, c.mono_h + viz_px(viz, 4));
    int n = j->n_stages;
    c.row_h = n > 0 ? area.h / n : 0;
    if (c.row_h < c.mono_h) {
        rc |= draw_text_in_rect(viz, area, "too small for every stage: enlarge the panel (F)", &ms);
        draw_set_clip(viz, NULL);
        return rc ? -1 : 0;
    }
    layout_journey(&c, area);
    rc |= draw_journey_header(&c, head);
    for (int s = 0; s < n; s++) rc |= draw_stage_row(&c, area, s);
    draw_set_clip(viz, NULL);
    return rc ? -1 : 0;
}
