/* panel_bpe.c — the BPE replay of the tokens panel (panel_bpe.h): the selected
 * word's parts after 0, 1, … n merges, from the merges the tokenizer recorded while
 * encoding the prompt (TokEncoding.merges) — replayed, never recomputed. */
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "panel_bpe.h"
#include "token_label.h"

/* Words longer than this many bytes are not replayed (none in normal text). */
#define MAX_WORD 128

BpeReplay bpe_replay_find(const VizFrame *f) {
    BpeReplay rp = {0};
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
static int replay_parts(const VizFrame *f, const BpeReplay *rp, int k, int *ids, size_t *offs, int *merged_at) {
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

static int replay_row_h(Viz *viz, BpeSizes sz) {
    int lh = viz_line_height(viz, VIZ_FONT_MONO, sz.box);
    return lh + (viz_px(viz, 8) > lh / 4 ? viz_px(viz, 8) : lh / 4);
}

/* One row: the label on the left, the parts as boxes, then "Ġ + t → Ġt". */
static int draw_replay_row(Viz *viz, const VizFrame *f, const BpeReplay *rp, int k, Rect row, int label_w, BpeSizes sz) {
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
    TextStyle ls = {.font = VIZ_FONT_SANS, .size = sz.label, .color = k ? th->text : th->text_muted,
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
        int w = viz_text_width(viz, VIZ_FONT_MONO, sz.box, txt) + 2 * pad;
        Rect b = {x, box_area.y, w, box_area.h};
        if (b.x + b.w > row.x + row.w) break;
        int hot = i == merged_at;
        rc |= draw_fill_rect(viz, b, hot ? color_mix(th->panel, th->accent, 0.18f) : th->background);
        rc |= draw_rect_outline(viz, b, hot ? th->accent : th->panel_border, hot ? viz_px(viz, 2) : 1);
        TextStyle ts = {.font = VIZ_FONT_MONO, .size = sz.box, .color = th->text,
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
        TextStyle rs = {.font = VIZ_FONT_MONO, .size = sz.label, .color = th->accent,
                        .valign = VIZ_ALIGN_MIDDLE};
        rc |= draw_text_in_rect(viz, rr, rule, &rs);
    }
    return rc;
}

int bpe_replay_height(Viz *viz, const BpeReplay *rp, BpeSizes sz) {
    /* the same cuts as draw_replay: 4 px rule gap, the title line + 2, 2 px */
    int head = viz_px(viz, 4) + viz_line_height(viz, VIZ_FONT_BOLD, VIZ_TEXT_BODY) + viz_px(viz, 2) + viz_px(viz, 2);
    if (!rp->piece) return rp->note ? head : 0;
    return head + (rp->shown + 1) * replay_row_h(viz, sz);
}

int draw_bpe_replay(Viz *viz, Rect area, const VizFrame *f, const BpeReplay *rp, BpeSizes sz) {
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
    token_label_bytes_ex(rp->word, rp->piece->len, TOKEN_LABEL_DEFAULT, viz_glyph_provided,
                         viz, word, sizeof word);
    snprintf(title, sizeof title, "BPE replay of \xE2\x80\x9C%s\xE2\x80\x9D: %d of %d merge%s, lowest rank first",
             word, rp->shown, rp->n_merges, rp->n_merges == 1 ? "" : "s");
    rect_cut_top(&area, viz_px(viz, 2));

    /* rows that fit; when they do not all fit, the latest steps stay visible and the
     * header says how many scrolled away (cut off the header first: no overlap) */
    int rh = replay_row_h(viz, sz);
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
    int label_w = viz_text_width(viz, VIZ_FONT_SANS, sz.label, widest) + viz_px(viz, 10);
    if (label_w > area.w / 3) label_w = area.w / 3;
    for (int k = first; k <= last; k++) {
        Rect row = rect_cut_top(&area, rh);
        rc |= draw_replay_row(viz, f, rp, k, row, label_w, sz);
    }
    return rc;
}
