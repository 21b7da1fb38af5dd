/* panel_class.c — draw_class_panel: the class room on the teacher's screen. On top the
 * way in (the QR code of the join address, the address, the room code set as large as
 * the band allows so the back row reads it, "N of M answered"); then the round: the
 * model's favourites with their p beside the share of the class that chose each (a
 * favourite nobody chose says "nobody"), the class's other picks with the model's p, the
 * entropy of both; at reveal the true token is boxed and marked "right" (a mark and a
 * box, never colour alone); at the bottom the score over the rounds, class against the
 * model, and the top students by nickname when the teacher turned names on. Draws what
 * f->klass holds (src/app/app_class.c computes it); no model math, no room logic. */
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "panels.h"
#include "token_label.h"

#define CLASS_QR_QUIET 4      /* light modules around the code: the QR standard's quiet zone */
#define CLASS_CODE_MAX_PX 160 /* the room code's largest size (device px at UI 100 %) */

static const char *const GAME_NAMES[2] = {"guess the text", "guess the model's pick"};
static const char *const PHASE_NAMES[3] = {"no round yet", "round open", "revealed"};

typedef struct ClassCtx {
    Viz *viz;
    const Theme *th;
    const VizFrame *f;
    const VizClass *k;
    int rc;
} ClassCtx;

/* The QR code in the square q (dark modules on white whatever the theme: phones' readers
 * want a light quiet zone); nothing when there are no modules. */
static void draw_qr(ClassCtx *c, Rect q) {
    const VizClass *k = c->k;
    if (!k->qr || k->qr_size <= 0) return;
    int n = k->qr_size + 2 * CLASS_QR_QUIET, m = q.w / n;
    if (m < 1) return;
    Rect sq = rect_center(q, m * n, m * n);
    const SDL_Color white = {255, 255, 255, 255}, black = {0, 0, 0, 255};
    c->rc |= draw_fill_rect(c->viz, sq, white);
    for (int y = 0; y < k->qr_size; y++)
        for (int x = 0; x < k->qr_size; x++)
            if (k->qr[(size_t)y * (size_t)k->qr_size + (size_t)x])
                c->rc |= draw_fill_rect(
                    c->viz, rect_make(sq.x + (x + CLASS_QR_QUIET) * m, sq.y + (y + CLASS_QR_QUIET) * m, m, m), black);
}

/* The way in: QR left, then the address, the code (large) and who answered. */
static void draw_join_band(ClassCtx *c, Rect band) {
    Viz *viz = c->viz;
    const VizClass *k = c->k;
    int side = band.h < band.w * 2 / 5 ? band.h : band.w * 2 / 5;
    Rect qr = rect_cut_left(&band, side);
    draw_qr(c, qr);
    rect_cut_left(&band, viz_px(viz, 12));
    TextStyle body = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_BODY, .color = c->th->text, .valign = VIZ_ALIGN_TOP};
    TextStyle muted = body;
    muted.color = c->th->text_muted;
    int bh = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY);
    char line[160];
    /* the address whole, in the largest size that fits (a cut address cannot be typed) */
    snprintf(line, sizeof line, "join: %s", k->url ? k->url : "");
    TextStyle mono = body;
    mono.font = VIZ_FONT_MONO;
    if (viz_text_width(viz, VIZ_FONT_MONO, VIZ_TEXT_BODY, line) > band.w) mono.size = VIZ_TEXT_SMALL;
    if (viz_text_width(viz, VIZ_FONT_MONO, mono.size, line) > band.w) snprintf(line, sizeof line, "%s", k->url ? k->url : "");
    c->rc |= draw_text_in_rect(viz, rect_cut_top(&band, viz_line_height(viz, VIZ_FONT_MONO, mono.size)), line, &mono);
    int title_px = viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE);
    int two = band.h >= 2 * bh + title_px;
    Rect foot = rect_cut_bottom(&band, two ? 2 * bh : bh);
    /* the code as large as what is left allows (digits are about 0.6 em wide), and never
     * smaller than a title: the one thing every student must read */
    int px = (band.h - bh) * 4 / 5, wpx = band.w * 10 / (6 * (int)(k->code ? strlen(k->code) + 1 : 5));
    if (px > wpx) px = wpx;
    if (px > viz_px(viz, CLASS_CODE_MAX_PX)) px = viz_px(viz, CLASS_CODE_MAX_PX);
    if (px < title_px) {
        snprintf(line, sizeof line, "room code %s", k->code ? k->code : "");
        TextStyle t = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_TITLE, .color = c->th->text, .valign = VIZ_ALIGN_TOP};
        c->rc |= draw_text_in_rect(viz, rect_cut_top(&band, title_px), line, &t);
    } else {
        c->rc |= draw_text_in_rect(viz, rect_cut_top(&band, bh), "room code", &muted);
        viz_set_display_px(viz, px);
        TextStyle big = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_DISPLAY, .color = c->th->text,
                         .valign = VIZ_ALIGN_MIDDLE};
        c->rc |= draw_text_in_rect(viz, band, k->code ? k->code : "", &big);
    }
    snprintf(line, sizeof line, "%d of %d answered%s", k->answered, k->joined,
             k->locked && !two ? " \xC2\xB7 locked" : "");
    TextStyle bold = body;
    bold.font = VIZ_FONT_BOLD;
    c->rc |= draw_text_in_rect(viz, rect_cut_top(&foot, bh), line, &bold);
    snprintf(line, sizeof line, "%d joined (at most %d)%s", k->joined, k->max_students,
             k->locked ? " \xC2\xB7 room locked" : "");
    if (two) c->rc |= draw_text_in_rect(viz, rect_cut_top(&foot, bh), line, &muted);
}

/* "12.3 %" (or "<0.1 %"). */
static void percent(double p, char *buf, size_t cap) {
    if (p > 0 && p < 0.001) snprintf(buf, cap, "<0.1 %%");
    else snprintf(buf, cap, "%.1f %%", 100 * p);
}

/* One row: the token, the model's bar and p, the class's bar and votes. */
static void draw_row(ClassCtx *c, Rect row, const VizClassRow *w, double p_max, int vote_max, VizTextSize size) {
    Viz *viz = c->viz;
    const VizClass *k = c->k;
    int right = k->phase == 2 && w->id == k->truth;
    Rect lab = rect_cut_left(&row, row.w * 30 / 100);
    Rect half = rect_cut_left(&row, row.w / 2);
    /* the right answer's label starts with a check mark (✓): not the box alone */
    char text[TOKEN_LABEL_CAP + 8] = "\xE2\x9C\x93 ", num[48];
    size_t at = right ? strlen(text) : 0;
    token_label(c->f->tok, w->id, TOKEN_LABEL_DEFAULT, text + at, sizeof text - at);
    TextStyle mono = {.font = right ? VIZ_FONT_BOLD : VIZ_FONT_MONO, .size = size, .color = c->th->text,
                      .valign = VIZ_ALIGN_MIDDLE};
    c->rc |= draw_text_in_rect(viz, rect_inset4(lab, viz_px(viz, 4), 0, viz_px(viz, 4), 0), text, &mono);
    int gap = viz_px(viz, 3);
    TextStyle num_st = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL, .color = c->th->text, .valign = VIZ_ALIGN_MIDDLE};
    /* the model: p of this token, on the scale of the largest p listed */
    Rect mb = rect_inset4(half, 0, gap, viz_px(viz, 6), gap);
    int mw = p_max > 0 ? (int)((double)mb.w * 0.55 * w->model_p / p_max) : 0;
    c->rc |= draw_fill_rect(viz, rect_make(mb.x, mb.y, mw, mb.h), c->th->accent);
    percent(w->model_p, num, sizeof num);
    c->rc |= draw_text_in_rect(viz, rect_inset4(mb, mw + gap, 0, 0, 0), num, &num_st);
    /* the class: how many chose it */
    Rect cb = rect_inset4(row, 0, gap, 0, gap);
    if (w->votes <= 0) {
        TextStyle none = num_st;
        none.color = c->th->text_muted;
        c->rc |= draw_text_in_rect(viz, cb, "nobody", &none);
    } else {
        int cw = vote_max > 0 ? (int)((double)cb.w * 0.6 * w->votes / vote_max) : 0;
        c->rc |= draw_fill_rect(viz, rect_make(cb.x, cb.y, cw, cb.h), colormap_sample(COLORMAP_CIVIDIS, 0.75f));
        snprintf(num, sizeof num, "%d (%.0f %%)", w->votes, k->answered ? 100.0 * w->votes / k->answered : 0.0);
        c->rc |= draw_text_in_rect(viz, rect_inset4(cb, cw + gap, 0, 0, 0), num, &num_st);
    }
    if (right) {
        Rect all = rect_make(lab.x, lab.y, lab.w + half.w + cb.w, lab.h);
        c->rc |= draw_rect_outline(viz, all, c->th->text, viz_px(viz, 2));
    }
}

/* The round: column heads, the favourites, the class's other picks, the entropies. */
static void draw_round(ClassCtx *c, Rect area) {
    Viz *viz = c->viz;
    const VizClass *k = c->k;
    TextStyle head = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_SMALL, .color = c->th->text_muted,
                      .valign = VIZ_ALIGN_MIDDLE};
    int sh = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL);
    int bh = viz_line_height(viz, VIZ_FONT_MONO, VIZ_TEXT_BODY) + viz_px(viz, 6);
    char line[TOKEN_LABEL_CAP + 96];
    /* two lines under the rows (the answer, the entropies): kept free of rows */
    int n_foot = (k->phase == 2) + (k->model_entropy >= 0 || k->class_entropy >= 0);
    Rect foot = rect_cut_bottom(&area, n_foot * (sh + viz_px(viz, 4)));
    Rect hr = rect_cut_top(&area, sh + viz_px(viz, 4));
    Rect h1 = rect_cut_left(&hr, hr.w * 30 / 100), h2 = rect_cut_left(&hr, hr.w / 2);
    c->rc |= draw_text_in_rect(viz, rect_inset4(h1, viz_px(viz, 4), 0, 0, 0), "token", &head);
    c->rc |= draw_text_in_rect(viz, h2, "the model (p)", &head);
    c->rc |= draw_text_in_rect(viz, hr, "the class (votes)", &head);
    double p_max = 0;
    int v_max = 0;
    for (int i = 0; i < k->n_rows; i++) {
        if (k->rows[i].model_p > p_max) p_max = k->rows[i].model_p;
        if (k->rows[i].votes > v_max) v_max = k->rows[i].votes;
    }
    int others = k->n_rows > k->n_fav;
    int avail = area.h - (others ? sh + viz_px(viz, 6) : 0);
    int want = k->n_rows < 5 ? k->n_rows : 5;
    VizTextSize size = VIZ_TEXT_BODY;
    if (avail / (bh > 0 ? bh : 1) < want) { /* a projector's large UI: rows in the small size first */
        size = VIZ_TEXT_SMALL;
        bh = viz_line_height(viz, VIZ_FONT_MONO, VIZ_TEXT_SMALL) + viz_px(viz, 4);
    }
    int fit = avail / (bh > 0 ? bh : 1);
    if (fit < k->n_rows && fit > 0) fit--; /* room for the line that says what is left out */
    int shown = 0;
    for (int i = 0; i < k->n_rows && shown < fit; i++, shown++) {
        if (i == k->n_fav) {
            Rect sep = rect_cut_top(&area, sh + viz_px(viz, 6));
            c->rc |= draw_line(viz, sep.x, sep.y + viz_px(viz, 2), sep.x + sep.w, sep.y + viz_px(viz, 2),
                               c->th->panel_border, 1);
            c->rc |= draw_text_in_rect(viz, rect_inset4(sep, viz_px(viz, 4), viz_px(viz, 3), 0, 0),
                                       "the class's other picks", &head);
        }
        draw_row(c, rect_cut_top(&area, bh), &k->rows[i], p_max, v_max, size);
    }
    if (shown < k->n_rows) {
        snprintf(line, sizeof line, "%d more row%s not shown%s", k->n_rows - shown, k->n_rows - shown == 1 ? "" : "s",
                 c->f->view.fill || c->f->view.print ? "" : " (F enlarges the panel)");
        TextStyle st = head;
        st.font = VIZ_FONT_SANS;
        c->rc |= draw_text_in_rect(viz, rect_cut_top(&area, sh + viz_px(viz, 4)), line, &st);
    }
    /* the lines right under the last row */
    foot.y = area.y;
    int lh = sh + viz_px(viz, 4);
    if (k->phase == 2 && foot.h >= lh) {
        int listed = 0;
        for (int i = 0; i < k->n_rows; i++) listed |= k->rows[i].id == k->truth;
        char tl[TOKEN_LABEL_CAP];
        token_label(c->f->tok, k->truth, TOKEN_LABEL_DEFAULT, tl, sizeof tl);
        snprintf(line, sizeof line, "the answer: %s \xC2\xB7 %d of %d right%s", tl, k->n_right, k->answered,
                 listed ? "" : " (not among the rows above)");
        TextStyle st = head;
        st.color = c->th->text;
        c->rc |= draw_text_in_rect(viz, rect_cut_top(&foot, sh + viz_px(viz, 4)), line, &st);
    }
    if ((k->model_entropy >= 0 || k->class_entropy >= 0) && foot.h >= lh) {
        char me[32] = "\xE2\x80\x94", ce[32] = "\xE2\x80\x94"; /* — when there is none */
        if (k->model_entropy >= 0) snprintf(me, sizeof me, "%.2f bits", k->model_entropy);
        if (k->class_entropy >= 0) snprintf(ce, sizeof ce, "%.2f bits", k->class_entropy);
        snprintf(line, sizeof line, "entropy: model %s \xC2\xB7 class %s", me, ce);
        TextStyle st = head;
        st.font = VIZ_FONT_SANS;
        st.color = c->th->text;
        c->rc |= draw_text_in_rect(viz, rect_cut_top(&foot, sh + viz_px(viz, 4)), line, &st);
    }
    if (k->n_rows == 0) {
        TextStyle st = head;
        st.font = VIZ_FONT_SANS;
        c->rc |= draw_text_in_rect(viz, rect_cut_top(&area, bh), "no next-token distribution yet", &st);
    }
}

/* The score over the rounds and, when names are on, the top students. */
static void draw_scoreboard(ClassCtx *c, Rect *area) {
    Viz *viz = c->viz;
    const VizClass *k = c->k;
    int bh = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY);
    TextStyle body = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_BODY, .color = c->th->text, .valign = VIZ_ALIGN_TOP};
    char line[400];
    int n_lines = 2 + (k->names_on ? 1 : 0);
    Rect sb = rect_cut_bottom(area, n_lines * bh + viz_px(viz, 8));
    c->rc |= draw_line(viz, sb.x, sb.y + viz_px(viz, 2), sb.x + sb.w, sb.y + viz_px(viz, 2), c->th->panel_border, 1);
    rect_cut_top(&sb, viz_px(viz, 6));
    const VizClassScore *s = &k->score;
    if (s->rounds == 0) {
        TextStyle m = body;
        m.color = c->th->text_muted;
        c->rc |= draw_text_in_rect(viz, rect_cut_top(&sb, bh),
                                   "score: a round counts once it is revealed with a guess", &m);
    } else {
        TextStyle b = body;
        b.font = VIZ_FONT_BOLD;
        snprintf(line, sizeof line, "class: top-1 %.0f %% (%ld of %ld) \xC2\xB7 %.2f bits/token", 100 * s->class_top1,
                 s->right, s->guesses, s->class_bits);
        c->rc |= draw_text_in_rect(viz, rect_cut_top(&sb, bh), line, &b);
        snprintf(line, sizeof line, "model: top-1 %.0f %% \xC2\xB7 %.2f bits/token \xC2\xB7 over %d round%s",
                 100 * s->model_top1, s->model_bits, s->rounds, s->rounds == 1 ? "" : "s");
        c->rc |= draw_text_in_rect(viz, rect_cut_top(&sb, bh), line, &b);
    }
    if (k->names_on) {
        int n = snprintf(line, sizeof line, "top: ");
        for (int i = 0; i < k->n_names && n > 0 && (size_t)n < sizeof line; i++)
            n += snprintf(line + n, sizeof line - (size_t)n, "%s%s (%d)", i ? ", " : "", k->names[i], k->name_right[i]);
        if (k->n_names == 0) snprintf(line, sizeof line, "top: nobody right yet");
        c->rc |= draw_text_in_rect(viz, rect_cut_top(&sb, bh), line, &body);
    }
}

int draw_class_panel(Viz *viz, Rect r, const VizFrame *f, VizHits *hits) {
    (void)hits;
    if (r.w <= 0 || r.h <= 0) return 0;
    const Theme *th = viz->theme;
    Rect in;
    int rc = draw_panel_begin(viz, r, &in);
    TextStyle tts = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_TITLE, .color = th->text, .valign = VIZ_ALIGN_TOP};
    int title_h = viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE);
    const VizClass *k = f ? f->klass : NULL;
    if (!k) {
        rc |= draw_text_in_rect(viz, rect_cut_top(&in, title_h), "the class", &tts);
        TextStyle ms = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_BODY, .color = th->text_muted};
        rc |= draw_text_in_rect(viz, rect_cut_top(&in, title_h), "no class room open", &ms);
        draw_set_clip(viz, NULL);
        return rc ? -1 : 0;
    }
    ClassCtx c = {.viz = viz, .th = th, .f = f, .k = k, .rc = rc};
    char title[160];
    snprintf(title, sizeof title, "the class \xC2\xB7 %s \xC2\xB7 round %d, %s", GAME_NAMES[k->game == 1],
             k->round, PHASE_NAMES[k->phase >= 0 && k->phase <= 2 ? k->phase : 0]);
    c.rc |= draw_text_in_rect(viz, rect_cut_top(&in, title_h + viz_px(viz, 4)), title, &tts);
    /* the join band gets about a third of the panel: the code must read from the back */
    int bh = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY), sh = viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL);
    int rest = (k->names_on ? 3 : 2) * bh + 8 * sh + viz_px(viz, 40); /* score, heads, 4 rows, 2 lines */
    int band_h = in.h * 34 / 100;
    if (in.h - band_h < rest) band_h = in.h - rest;
    if (band_h < 2 * bh + viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE))
        band_h = 2 * bh + viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE);
    Rect band = rect_cut_top(&in, band_h);
    draw_join_band(&c, band);
    rect_cut_top(&in, viz_px(viz, 8));
    draw_scoreboard(&c, &in);
    draw_round(&c, in);
    draw_set_clip(viz, NULL);
    return c.rc ? -1 : 0;
}
