/* panel_tokens.c — draw_tokens_panel: the token strip (one chip per position: the
 * token's visible label, its id, a band coloured by position with the position
 * number) and, under it, the BPE replay of the selected prompt word, merge by merge.
 * Only reads the VizFrame: the merges come from the tokenizer's recorded encoding
 * (TokEncoding.merges); nothing here tokenizes. Layout is recomputed every call from
 * r (immediate mode); nothing is allocated (fixed-size arrays on the stack). */
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "panels.h"
#include "token_label.h"

/* Chips considered at most: more than any screen holds at the smallest chip width
 * (the "… N earlier tokens" marker covers the rest). Bounds the width array. */
#define MAX_CHIPS 1024
/* Words longer than this many bytes are not replayed (none in normal text). */
#define MAX_WORD 128

/* Sizes of one chip, in device pixels, from the current scale. */
typedef struct ChipMetrics {
    int band_h;  /* coloured position band with the position number */
    int label_h; /* the token text */
    int id_h;    /* the id line */
    int h;       /* whole chip */
    int pad;     /* inner horizontal padding */
    int gap;     /* between chips */
    int row_gap; /* between rows */
    int divider_w; /* the prompt | generated divider slot */
    int max_w;   /* chips wider than this cut their label with "…" */
    int one_row; /* only one row fits: the short "… N" marker */
} ChipMetrics;

static ChipMetrics chip_metrics(Viz *viz, int avail_w) {
    ChipMetrics m;
    m.band_h = viz_line_height(viz, VIZ_FONT_MONO, VIZ_TEXT_SMALL) + viz_px(viz, 2);
    m.label_h = viz_line_height(viz, VIZ_FONT_MONO, VIZ_TEXT_TITLE) + viz_px(viz, 2);
    m.id_h = viz_line_height(viz, VIZ_FONT_MONO, VIZ_TEXT_SMALL) + viz_px(viz, 3);
    m.h = m.band_h + m.label_h + m.id_h;
    m.pad = viz_px(viz, 6);
    m.gap = viz_px(viz, 4);
    m.row_gap = viz_px(viz, 6);
    m.divider_w = viz_px(viz, 14);
    m.max_w = viz_px(viz, 220);
    if (m.max_w > avail_w) m.max_w = avail_w;
    m.one_row = 0;
    return m;
}

static int chip_is_newest(const VizFrame *f, int p) { return p == f->n_pos - 1 && f->n_pos > f->n_prompt; }

/* The newest token's label is bold; the others are monospace (ids line up). */
static VizFont chip_font(const VizFrame *f, int p) { return chip_is_newest(f, p) ? VIZ_FONT_BOLD : VIZ_FONT_MONO; }

/* Label and id texts of the chip at position p (characters the font lacks, such as
 * emoji, as bytes). */
static void chip_texts(Viz *viz, const VizFrame *f, int p, char *label, size_t label_cap, char *id, size_t id_cap) {
    token_label_ex(f->tok, f->ids[p], TOKEN_LABEL_DEFAULT, token_glyph_in_ttf,
                   viz_font(viz, chip_font(f, p), VIZ_TEXT_TITLE), label, label_cap);
    snprintf(id, id_cap, "%d", f->ids[p]);
}

static int chip_width(Viz *viz, const VizFrame *f, int p, const ChipMetrics *m) {
    char label[TOKEN_LABEL_CAP], id[16], pos[16];
    chip_texts(viz, f, p, label, sizeof label, id, sizeof id);
    snprintf(pos, sizeof pos, "%d", p);
    int w = viz_text_width(viz, chip_font(f, p), VIZ_TEXT_TITLE, label);
    int wi = viz_text_width(viz, VIZ_FONT_MONO, VIZ_TEXT_SMALL, id);
    int wp = viz_text_width(viz, VIZ_FONT_MONO, VIZ_TEXT_SMALL, pos);
    if (wi > w) w = wi;
    if (wp > w) w = wp;
    w += 2 * m->pad;
    return w > m->max_w ? m->max_w : w;
}

/* "… 12 earlier tokens", or "… 12" when only one row of chips fits. */
static void marker_text(int n_earlier, int compact, char *buf, size_t cap) {
    if (compact) snprintf(buf, cap, "\xE2\x80\xA6 %d", n_earlier);
    else snprintf(buf, cap, "\xE2\x80\xA6 %d earlier token%s", n_earlier, n_earlier == 1 ? "" : "s");
}

/* Walks the strip layout for chips [start, n) in rows of width `width`: the optional
 * "… N earlier" marker first, the divider before the first generated chip. Calls
 * place(ctx, kind, index, x, row, w) for each element if place != NULL. Returns the
 * rows used. kind: 0 chip, 1 marker, 2 divider. */
typedef void (*PlaceFn)(void *ctx, int kind, int index, int x, int row, int w);

static int strip_layout(Viz *viz, const VizFrame *f, const int *widths, int base, int start, int width,
                        const ChipMetrics *m, PlaceFn place, void *ctx) {
    int x = 0, row = 0;
    /* puts one element of width w, wrapping first if it does not fit on this row */
#define PUT(kind, index, w)                                        \
    do {                                                           \
        int w_ = (w);                                              \
        if (x > 0 && x + w_ > width) {                             \
            x = 0;                                                 \
            row++;                                                 \
        }                                                          \
        if (place) place(ctx, (kind), (index), x, row, w_);        \
        x += w_ + m->gap;                                          \
    } while (0)
    if (start > 0) {
        char mk[64];
        marker_text(start, m->one_row, mk, sizeof mk);
        PUT(1, start, viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, mk) + 2 * m->pad);
    }
    for (int p = start; p < f->n_pos; p++) {
        if (p == f->n_prompt && p > 0) PUT(2, p, m->divider_w);
        PUT(0, p, widths[p - base]);
    }
#undef PUT
    return row + 1;
}

typedef struct DrawCtx {
    Viz *viz;
    const VizFrame *f;
    const ChipMetrics *m;
    Rect area;       /* where the strip goes */
    Rect clip;       /* the panel: hit regions never reach beyond it */
    VizHits *hits;
    int rc;
} DrawCtx;

static void draw_chip(DrawCtx *c, int p, Rect chip) {
    Viz *viz = c->viz;
    const Theme *th = viz->theme;
    const VizFrame *f = c->f;
    const ChipMetrics *m = c->m;
    char label[TOKEN_LABEL_CAP], id[16], pos[16];
    chip_texts(viz, f, p, label, sizeof label, id, sizeof id);
    snprintf(pos, sizeof pos, "%d", p);
    int newest = chip_is_newest(f, p);
    int generated = p >= f->n_prompt;

    /* body: the figure background (a step darker than the panel), tinted with the
     * highlight colour for the newest token — the same tint the text panel uses */
    SDL_Color body = newest ? color_mix(th->background, th->highlight, 0.35f) : th->background;
    c->rc |= draw_fill_rect(viz, chip, body);
    c->rc |= draw_rect_outline(viz, chip, th->panel_border, 1);

    /* position band: colour = position on the sequential map, with the number on it
     * so the colour is never the only carrier (legend "position" in the header) */
    float t = f->n_pos > 1 ? (float)p / (float)(f->n_pos - 1) : 0.0f;
    Rect band = {chip.x, chip.y, chip.w, m->band_h};
    c->rc |= draw_text_on_cell(viz, band, colormap_sample(th->sequential, t), pos, VIZ_FONT_MONO, VIZ_TEXT_SMALL);

    Rect lab = {chip.x + m->pad, chip.y + m->band_h, chip.w - 2 * m->pad, m->label_h};
    TextStyle ls = {.font = chip_font(f, p), .size = VIZ_TEXT_TITLE,
                    .color = th->text, .halign = VIZ_ALIGN_CENTER, .valign = VIZ_ALIGN_MIDDLE};
    c->rc |= draw_text_in_rect(viz, lab, label, &ls);
    Rect idr = {chip.x + m->pad, lab.y + lab.h, chip.w - 2 * m->pad, m->id_h - viz_px(viz, 3)};
    TextStyle is = {.font = VIZ_FONT_MONO, .size = VIZ_TEXT_SMALL, .color = th->text_muted,
                    .halign = VIZ_ALIGN_CENTER, .valign = VIZ_ALIGN_MIDDLE};
    c->rc |= draw_text_in_rect(viz, idr, id, &is);

    /* generated tokens are underlined in the accent colour (as in the text panel) */
    if (generated) {
        int uh = viz_px(viz, 3);
        c->rc |= draw_fill_rect(viz, (Rect){chip.x, chip.y + chip.h - uh, chip.w, uh}, th->accent);
    }
    if (p == f->view.selected_token)
        c->rc |= draw_rect_outline(viz, chip, th->accent, viz_px(viz, 2));
    if (p == f->view.highlight_token) {
        int o = viz_px(viz, 2);
        c->rc |= draw_rect_outline(viz, rect_inset(chip, -o), th->highlight, viz_px(viz, 3));
    }
    viz_hits_add(c->hits, rect_intersect(chip, c->clip), VIZ_HIT_TOKEN_CHIP, p, 0);
}

static void place_draw(void *ctx, int kind, int index, int x, int row, int w) {
    DrawCtx *c = ctx;
    Viz *viz = c->viz;
    const Theme *th = viz->theme;
    const ChipMetrics *m = c->m;
    /* rows go down from the top of the strip area */
    Rect e = {c->area.x + x, c->area.y + row * (m->h + m->row_gap), w, m->h};
    /* rows past the area are skipped, except the first (clipped by the panel) so a
     * tiny panel still shows the latest tokens */
    if (row > 0 && e.y + e.h > c->area.y + c->area.h + 1) return;
    if (kind == 0) {
        draw_chip(c, index, e);
    } else if (kind == 1) {
        char mk[64];
        marker_text(index, m->one_row, mk, sizeof mk);
        TextStyle s = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_BODY, .color = th->text_muted,
                       .halign = VIZ_ALIGN_CENTER, .valign = VIZ_ALIGN_MIDDLE};
        c->rc |= draw_rect_outline(viz, e, th->grid, 1);
        c->rc |= draw_text_in_rect(viz, e, mk, &s);
    } else {
        /* prompt | generated: a solid bar as tall as the chips (the header says so) */
        int lw = viz_px(viz, 3);
        c->rc |= draw_fill_rect(viz, (Rect){e.x + (e.w - lw) / 2, e.y, lw, e.h}, th->text_muted);
    }
}

/* ---- BPE replay ----------------------------------------------------------------- */

/* The selected word's replay state: parts after `shown` merges. */
typedef struct Replay {
    const TokPiece *piece;
    const uint8_t *word;   /* piece bytes */
    int n_merges;          /* merges of the word */
    int shown;             /* merges shown (view.bpe_step clamped) */
    const char *note;      /* why there is no replay, or NULL */
} Replay;

static Replay replay_find(const VizFrame *f) {
    Replay rp = {0};
    int sel = f->view.selected_token;
    if (sel < 0 || sel >= f->n_pos) return rp;
    const TokEncoding *e = f->prompt_enc;
    if (sel >= f->n_prompt || !e) {
        rp.note = "BPE replay: select a prompt token (generated tokens were sampled, not merged)";
        return rp;
    }
    for (size_t i = 0; i < e->n_pieces; i++) {
        const TokPiece *pc = &e->pieces[i];
        if ((size_t)sel >= pc->first_token && (size_t)sel < pc->first_token + pc->n_tokens) {
            rp.piece = pc;
            break;
        }
    }
    if (!rp.piece || rp.piece->start + rp.piece->len > e->text_len ||
        rp.piece->first_merge + rp.piece->n_merges > e->n_merges) {
        rp.piece = NULL;
        rp.note = "BPE replay: the prompt's encoding does not cover this token";
        return rp;
    }
    if (rp.piece->special) {
        rp.piece = NULL;
        rp.note = "BPE replay: <|endoftext|> is a special token, not merged from bytes";
        return rp;
    }
    if (rp.piece->len > MAX_WORD) {
        rp.piece = NULL;
        rp.note = "BPE replay: this word is too long to replay";
        return rp;
    }
    if (rp.piece->n_merges == 0 && rp.piece->len > 1 && e->n_merges == 0) {
        rp.piece = NULL;
        rp.note = "BPE replay: merges were not recorded for this prompt";
        return rp;
    }
    rp.word = e->text + rp.piece->start;
    rp.n_merges = (int)rp.piece->n_merges;
    int step = f->view.bpe_step;
    rp.shown = (step < 0 || step > rp.n_merges) ? rp.n_merges : step;
    return rp;
}

/* Parts of the word after applying merges [0, k): token ids and byte offsets. Returns
 * the number of parts; *merged_at gets the index of the part made by merge k-1 (-1 if
 * k == 0). Returns -1 if a recorded merge does not match the parts (never expected). */
static int replay_parts(const VizFrame *f, const Replay *rp, int k, int *ids, size_t *offs, int *merged_at) {
    int n = (int)rp->piece->len;
    for (int i = 0; i < n; i++) {
        ids[i] = f->tok->byte_token[rp->word[i]];
        offs[i] = (size_t)i;
    }
    *merged_at = -1;
    const TokMerge *mg = f->prompt_enc->merges + rp->piece->first_merge;
    for (int s = 0; s < k; s++) {
        int j = 0;
        while (j < n && offs[j] != mg[s].offset) j++;
        if (j + 1 >= n || ids[j] != mg[s].left || ids[j + 1] != mg[s].right) return -1;
        ids[j] = mg[s].merged;
        memmove(ids + j + 1, ids + j + 2, (size_t)(n - j - 2) * sizeof *ids);
        memmove(offs + j + 1, offs + j + 2, (size_t)(n - j - 2) * sizeof *offs);
        n--;
        *merged_at = j;
    }
    return n;
}

static int replay_row_h(Viz *viz) { return viz_line_height(viz, VIZ_FONT_MONO, VIZ_TEXT_TITLE) + viz_px(viz, 8); }

/* One row: the label on the left, the parts as boxes, then "Ġ + t → Ġt". */
static int draw_replay_row(Viz *viz, const VizFrame *f, const Replay *rp, int k, Rect row, int label_w) {
    const Theme *th = viz->theme;
    int rc = 0;
    int ids[MAX_WORD], merged_at;
    size_t offs[MAX_WORD];
    int n = replay_parts(f, rp, k, ids, offs, &merged_at);
    char lab[64];
    const TokMerge *mg = k > 0 ? &f->prompt_enc->merges[rp->piece->first_merge + (size_t)k - 1] : NULL;
    if (k == 0) snprintf(lab, sizeof lab, "bytes");
    else snprintf(lab, sizeof lab, "%d. rank %d", k, (int)mg->rank);
    Rect lr = rect_cut_left(&row, label_w);
    TextStyle ls = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_BODY, .color = k ? th->text : th->text_muted,
                    .valign = VIZ_ALIGN_MIDDLE};
    rc |= draw_text_in_rect(viz, lr, lab, &ls);
    if (n < 0) {
        TextStyle es = ls;
        es.color = th->text_muted;
        return rc | draw_text_in_rect(viz, row, "(recorded merges do not replay)", &es);
    }
    int pad = viz_px(viz, 5), gap = viz_px(viz, 3);
    int x = row.x;
    Rect box_area = rect_inset4(row, 0, viz_px(viz, 3), 0, viz_px(viz, 3));
    for (int i = 0; i < n; i++) {
        const char *txt = token_label_gpt2(f->tok, ids[i]);
        int w = viz_text_width(viz, VIZ_FONT_MONO, VIZ_TEXT_TITLE, txt) + 2 * pad;
        Rect b = {x, box_area.y, w, box_area.h};
        if (b.x + b.w > row.x + row.w) break;
        int hot = i == merged_at;
        rc |= draw_fill_rect(viz, b, hot ? color_mix(th->panel, th->accent, 0.18f) : th->background);
        rc |= draw_rect_outline(viz, b, hot ? th->accent : th->panel_border, hot ? viz_px(viz, 2) : 1);
        TextStyle ts = {.font = VIZ_FONT_MONO, .size = VIZ_TEXT_TITLE, .color = th->text,
                        .halign = VIZ_ALIGN_CENTER, .valign = VIZ_ALIGN_MIDDLE};
        rc |= draw_text_in_rect(viz, b, txt, &ts);
        x += w + gap;
    }
    if (mg) {
        /* the rule that fired: left + right → merged, in GPT-2's byte alphabet */
        char rule[3 * TOKEN_LABEL_CAP];
        snprintf(rule, sizeof rule, "%s + %s \xE2\x86\x92 %s", token_label_gpt2(f->tok, mg->left),
                 token_label_gpt2(f->tok, mg->right), token_label_gpt2(f->tok, mg->merged));
        Rect rr = {x + viz_px(viz, 12), row.y, row.x + row.w - x - viz_px(viz, 12), row.h};
        TextStyle rs = {.font = VIZ_FONT_MONO, .size = VIZ_TEXT_BODY, .color = th->accent,
                        .valign = VIZ_ALIGN_MIDDLE};
        rc |= draw_text_in_rect(viz, rr, rule, &rs);
    }
    return rc;
}

/* Height the replay wants (header + rows), before clamping to the panel. */
static int replay_height(Viz *viz, const Replay *rp) {
    /* the same cuts as draw_replay: 4 px rule gap, the title line + 2, 2 px */
    int head = viz_px(viz, 4) + viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_BODY) + viz_px(viz, 2) + viz_px(viz, 2);
    if (!rp->piece) return rp->note ? head : 0;
    return head + (rp->shown + 1) * replay_row_h(viz);
}

static int draw_replay(Viz *viz, Rect area, const VizFrame *f, const Replay *rp) {
    const Theme *th = viz->theme;
    int rc = 0;
    rc |= draw_fill_rect(viz, (Rect){area.x, area.y, area.w, 1}, th->panel_border);
    rect_cut_top(&area, viz_px(viz, 4));
    Rect head = rect_cut_top(&area, viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_BODY) + viz_px(viz, 2));
    TextStyle hs = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_BODY, .color = th->text, .valign = VIZ_ALIGN_MIDDLE};
    if (!rp->piece) {
        hs.font = VIZ_FONT_SANS;
        hs.color = th->text_muted;
        return rc | draw_text_in_rect(viz, head, rp->note, &hs);
    }
    char word[TOKEN_LABEL_CAP], title[TOKEN_LABEL_CAP + 128];
    token_label_bytes_ex(rp->word, rp->piece->len, TOKEN_LABEL_DEFAULT, token_glyph_in_ttf,
                         viz_font(viz, VIZ_FONT_BOLD, VIZ_TEXT_BODY), word, sizeof word);
    snprintf(title, sizeof title, "BPE replay of \xE2\x80\x9C%s\xE2\x80\x9D: %d of %d merge%s, lowest rank first",
             word, rp->shown, rp->n_merges, rp->n_merges == 1 ? "" : "s");
    rect_cut_top(&area, viz_px(viz, 2));

    /* rows that fit; when they do not all fit, the latest steps stay visible and the
     * header says how many scrolled away (cut off the header first: no overlap) */
    int rh = replay_row_h(viz);
    int fit = area.h / rh;
    int first = 0, last = rp->shown; /* rows k = 0 (bytes) .. shown */
    if (fit >= 1 && last - first + 1 > fit) first = last - fit + 1;
    if (first > 0) {
        char more[64];
        snprintf(more, sizeof more, "(%d earlier step%s above)", first, first == 1 ? "" : "s");
        TextStyle ms = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL, .color = th->text_muted,
                        .halign = VIZ_ALIGN_RIGHT, .valign = VIZ_ALIGN_MIDDLE};
        int mw = viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL, more);
        if (mw < head.w / 2) {
            rc |= draw_text_in_rect(viz, rect_cut_right(&head, mw), more, &ms);
            rect_cut_right(&head, viz_px(viz, 12));
        }
    }
    rc |= draw_text_in_rect(viz, head, title, &hs);
    if (fit < 1) return rc;
    char widest[64];
    snprintf(widest, sizeof widest, "%d. rank %d", rp->n_merges, 99999);
    int label_w = viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, widest) + viz_px(viz, 10);
    if (label_w > area.w / 3) label_w = area.w / 3;
    for (int k = first; k <= last; k++) {
        Rect row = rect_cut_top(&area, rh);
        rc |= draw_replay_row(viz, f, rp, k, row, label_w);
    }
    return rc;
}

/* ---- the panel ------------------------------------------------------------------ */

int draw_tokens_panel(Viz *viz, Rect r, const VizFrame *f, VizHits *hits) {
    if (r.w <= 0 || r.h <= 0) return 0;
    const Theme *th = viz->theme;
    int rc = 0;
    rc |= draw_set_clip(viz, &r); /* whatever happens below, nothing leaves r */
    rc |= draw_fill_rect(viz, r, th->panel);
    rc |= draw_rect_outline(viz, r, th->panel_border, 1);
    Rect in = rect_inset(r, viz_px(viz, 10));
    int n = f && f->ids && f->tok ? f->n_pos : 0;
    ChipMetrics m = chip_metrics(viz, in.w);

    /* header: title and counts; the position legend and the key to the marks only when
     * a row of chips still fits under them (small panels at a large UI scale) */
    ColorbarSpec cb = {.map = th->sequential, .vmin = 0, .vmax = n > 1 ? n - 1 : 1,
                       .label = "position", .target_ticks = 3};
    int cb_h = draw_colorbar_size(viz, &cb, viz_px(viz, 8));
    int title_h = viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_TITLE);
    int gap_h = viz_px(viz, 8);
    int full_head = cb_h > title_h ? cb_h : title_h;
    int compact = in.h < full_head + gap_h + m.h;
    Rect head = rect_cut_top(&in, compact ? title_h : full_head);
    if (!compact) {
        Rect legend = rect_cut_right(&head, in.w / 4 < viz_px(viz, 200) ? in.w / 4 : viz_px(viz, 200));
        rc |= draw_colorbar(viz, legend, &cb, NULL);
        rect_cut_right(&head, viz_px(viz, 12));
    }
    Rect tr = rect_cut_top(&head, title_h);
    int tw = 0;
    TextStyle ts = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_TITLE, .color = th->text, .valign = VIZ_ALIGN_TOP};
    rc |= draw_text(viz, tr.x, tr.y, "Tokens", &ts, &tw);
    char counts[96];
    int n_prompt = f ? (f->n_prompt < n ? f->n_prompt : n) : 0;
    snprintf(counts, sizeof counts, "%d prompt \xE2\x94\x82 %d generated (underlined)", n_prompt, n - n_prompt);
    Rect cr = {tr.x + tw + viz_px(viz, 12), tr.y, tr.w - tw - viz_px(viz, 12), tr.h};
    TextStyle cs = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_BODY, .color = th->text_muted,
                    .valign = VIZ_ALIGN_MIDDLE};
    rc |= draw_text_in_rect(viz, cr, counts, &cs);
    if (!compact) {
        /* key to the marks, under the title (what a student asks first) */
        Rect key = rect_cut_top(&head, viz_line_height(viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL));
        TextStyle ks = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_SMALL, .color = th->text_muted,
                        .valign = VIZ_ALIGN_MIDDLE};
        rc |= draw_text_in_rect(viz, key,
                                TOKEN_MARK_SPACE " space    " TOKEN_MARK_NEWLINE " newline    <e2 80> bytes "
                                "of a split character    tinted: newest",
                                &ks);
    }
    rect_cut_top(&in, compact ? viz_px(viz, 4) : gap_h);
    if (n <= 0) {
        TextStyle es = {.font = VIZ_FONT_SANS, .size = VIZ_TEXT_BODY, .color = th->text_muted};
        rc |= draw_text_in_rect(viz, in, "No prompt yet.", &es);
        draw_set_clip(viz, NULL);
        return rc || viz->has_error ? -1 : 0;
    }

    /* chip widths of the last MAX_CHIPS tokens */
    int widths[MAX_CHIPS];
    int base = n > MAX_CHIPS ? n - MAX_CHIPS : 0;
    for (int p = base; p < n; p++) widths[p - base] = chip_width(viz, f, p, &m);

    /* BPE replay below the strip: all it wants if the chips still fit, else at most
     * half, and never the last row of chips */
    Replay rp = replay_find(f);
    int want = replay_height(viz, &rp);
    int row_step = m.h + m.row_gap;
    int chips_h = strip_layout(viz, f, widths, base, base, in.w, &m, NULL, NULL) * row_step;
    int max_replay = in.h - chips_h;
    if (max_replay < in.h / 2) max_replay = in.h / 2;
    if (max_replay > in.h - row_step) max_replay = in.h - row_step;
    if (want > max_replay) want = max_replay > 0 ? max_replay : 0;
    Rect replay = rect_cut_bottom(&in, want);

    /* the smallest start whose layout fits the rows available: rows needed only
     * shrink as start grows, so binary search */
    int max_rows = (in.h + m.row_gap) / row_step;
    if (max_rows < 1) max_rows = 1;
    m.one_row = max_rows == 1;
    int lo = base, hi = n - 1;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (strip_layout(viz, f, widths, base, mid, in.w, &m, NULL, NULL) <= max_rows) hi = mid;
        else lo = mid + 1;
    }
    DrawCtx ctx = {viz, f, &m, in, rect_inset(r, 1), hits, 0};
    int rows = strip_layout(viz, f, widths, base, lo, in.w, &m, place_draw, &ctx);
    rc |= ctx.rc;
    /* the replay follows the chips directly when they leave room */
    int below = in.y + rows * row_step + m.row_gap;
    if (replay.h > 0 && below < replay.y) {
        replay.h += replay.y - below;
        replay.y = below;
    }

    if (replay.h > 0) rc |= draw_replay(viz, replay, f, &rp);
    rc |= draw_set_clip(viz, NULL);
    return rc || viz->has_error ? -1 : 0;
}
