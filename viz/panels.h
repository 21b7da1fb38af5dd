/* panels.h — one draw function per panel of the window, plus the overlays and the
 * composition of a whole frame. Every function draws into `r` (device pixels) from
 * read-only data (frame.h), appends what can be clicked or hovered to `hits` (may be
 * NULL), never changes the app, and returns 0 or -1 (error recorded in viz->last_error).
 * Each panel draws its own title, axis labels and legend, so the same call makes a
 * print figure (draw_panel_figure) and a window panel. Sizes come from r and viz_px:
 * any resolution and UI scale work. */
#ifndef VIZ_PANELS_H
#define VIZ_PANELS_H

#include "frame.h"
#include "layout.h"
#include "panel_table.h"
#include "viz.h"

/* Prompt and tokens: token chips (text with a visible space mark, id, bytes for partial
 * UTF-8), coloured by position; below, the BPE replay of view.selected_token's word,
 * merge by merge (view.bpe_step merges applied). Hits: VIZ_HIT_TOKEN_CHIP. */
int draw_tokens_panel(Viz *viz, Rect r, const VizFrame *f, VizHits *hits);
/* Height the tokens panel needs at width w: header, up to max_rows rows of chips, the
 * BPE replay when a word is selected — with fewer rows, then without the header's key
 * and legend, when that is more than max_h (the frame layout gives it that). */
int tokens_panel_height(Viz *viz, int w, const VizFrame *f, int max_rows, int max_h);
/* The penalty mark of chip p: 1 when f->rec (the pending draw, whose context is this
 * strip) penalised the chip's token and p lies in its penalty window, with *delta (may
 * be NULL) = its logit change (penalised[].after - before); 0 otherwise. The strip
 * prints it under the chip ("Δ−1.52"). */
int tokens_penalty_mark(const VizFrame *f, int p, double *delta);

/* Attention: heatmap of pattern[view.layer][view.head] (query rows × key columns,
 * token labels on both axes, linear 0..1 colour scale with legend, masked cells
 * marked), a layers × heads grid of thumbnails, and a hover readout of the cell under
 * the mouse. Hits: VIZ_HIT_ATTN_CELL, VIZ_HIT_HEAD_THUMB. */
int draw_attention_panel(Viz *viz, Rect r, const VizFrame *f, VizHits *hits);

/* Next-token probabilities: bars for the top N through the sampler stages (raw,
 * temperature, cut, renormalised), the cutoff line and kept mass, an "all other
 * tokens" bar, and the draw u on the cumulative strip with the chosen token (or the
 * argmax when greedy). Hidden behind a question card when view.hide_probs.
 * Hits: VIZ_HIT_PROB_BAR. */
int draw_probs_panel(Viz *viz, Rect r, const VizFrame *f, VizHits *hits);

/* A contact sheet: the attention heatmap of every head of layers [layer0, layer0 +
 * n_layers) in one figure — one layer as a grid `cols` wide (0: the width that makes the
 * heatmaps largest), several layers as one row per layer — with the title, one legend and the token labels drawn once for the sheet
 * and one colour scale for every cell. f->view.layer/head is marked in the accent
 * colour. Returns 0 or -1 (error recorded). */
int draw_attention_sheet(Viz *viz, Rect r, const VizFrame *f, int layer0, int n_layers, int cols, const char *title);

/* One query's attention computation (f->attn_math, filled by src/session/attn_fill.c): q
 * as a diverging colour strip, one row per key (k_j strip, q.k_j bar, / sqrt(d), the mask
 * with -inf, the softmax weight with its sum, p_j v_j strip), z, the heads concatenated
 * and projected, the shape of every stage. Hits: VIZ_HIT_ATTN_CELL (a = query, b = key). */
int draw_attn_math_panel(Viz *viz, Rect r, const VizFrame *f, VizHits *hits);

/* The BertViz head view of view.layer (f->attn_lines, filled by src/session/attn_fill.c):
 * queries left, keys right, one line per selected weight (width and opacity = weight), one
 * colour per head with a legend; a long text as a window around the chosen query, with what
 * was left out said on the figure. Hits: VIZ_HIT_TOKEN_CHIP (a = position). */
int draw_attn_lines_panel(Viz *viz, Rect r, const VizFrame *f, VizHits *hits);

/* What each head does (f->heads): a layers x heads grid per pattern with the numbers
 * printed, the chance level, the best head, what to look for. Hits: VIZ_HIT_HEAD_THUMB. */
int draw_heads_panel(Viz *viz, Rect r, const VizFrame *f, VizHits *hits);

/* Generated text: prompt then generated tokens, the newest highlighted, wrapped. */
int draw_text_panel(Viz *viz, Rect r, const VizFrame *f, VizHits *hits);
/* Height of a text panel at width w that shows f's text in min_lines..max_lines lines
 * (more text scrolls): the frame layout gives it that. */
int text_panel_height(Viz *viz, int w, const VizFrame *f, int min_lines, int max_lines);

/* Logit lens (panel_lens.c): f->lens as a layers x positions grid (the top token of every
 * cell on viridis by its probability, the chosen token's rank beneath, a colour scale) and
 * f->lens_strip: the pending pick's rank depth by depth at the newest position. A message
 * when f->lens is NULL (f->inside_missing says why). */
int draw_lens_panel(Viz *viz, Rect r, const VizFrame *f, VizHits *hits);

/* Attribution (panel_attribution.c): f->attr's 10 largest positive and 10 largest negative
 * parts as signed bars (BuRd, numbers printed), the rest as one row, the sum = the logit.
 * Hits: VIZ_HIT_ATTR_BAR on head and MLP rows. */
int draw_attribution_panel(Viz *viz, Rect r, const VizFrame *f, VizHits *hits);

/* Journey (panel_journey.c): f->journey, one row per stage (embed, blocks, ln_final,
 * logits) with its tensor shapes, the vector's length, a block's attention and MLP
 * contributions as arrows of proportional length (numbers printed), the lens top 3. */
int draw_journey_panel(Viz *viz, Rect r, const VizFrame *f, VizHits *hits);
/* Settings side by side (f->compare): one column per setting, the continuations aligned
 * by position in bands of 5 tokens, the first token that leaves greedy boxed and
 * numbered, each column's distinct-2/3, repeated n-grams, mean surprisal and divergence
 * under it; f->compare_note when there is nothing to draw yet. */
int draw_compare_panel(Viz *viz, Rect r, const VizFrame *f, VizHits *hits);

/* The class room (f->klass; "no class room open" without one): the join address, its QR
 * code and the room code set large for the back row, "N of M answered", the model's
 * favourites with the class's votes beside their p (tokens nobody chose marked), the
 * class's other picks with the model's p, the entropy of each, at reveal the truth and
 * who was right, and the score class vs model over the rounds. */
int draw_class_panel(Viz *viz, Rect r, const VizFrame *f, VizHits *hits);
/* How draw_compare_panel lays out r (for tests): the type (px), tokens per band, tokens
 * shown per column (all, or the first bands when r is too small for all: the numbers under
 * the columns stay), and the height that takes against the height available. Sets the
 * display size as drawing would. -1 when there is nothing to compare. */
typedef struct ComparePanelFit {
    int px, band, shown, used, avail;
} ComparePanelFit;
int compare_panel_fit(Viz *viz, Rect r, const VizFrame *f, ComparePanelFit *fit);

/* One status line: model and size, layer/head, sampler settings, seed, step, branch,
 * time of the last step; f->status (or an error, drawn as such) on the right. */
int draw_status_line(Viz *viz, Rect r, const VizFrame *f);

/* Instead of the panels while a long piece of model work runs before anything can be
 * shown (f->progress set): f->title, f->progress with a bar of progress_done of
 * progress_total, and f->status under it (panel_progress.c). */
int draw_progress_screen(Viz *viz, Rect r, const VizFrame *f);

/* The key overlay (`?`): every row of f->keys, on a translucent card over r, in body
 * text, or in small text when that is what keeps every action whole. */
int draw_help_overlay(Viz *viz, Rect r, const VizFrame *f);
/* What draw_help_overlay would do in r: the text size it picks (VizTextSize), in
 * *shown_pct how much of the widest action fits (100 = every action whole; less: the
 * longer ones end in "…" because not even one column of them fits), and in *left_out
 * (may be NULL) how many rows did not fit at all (the card then ends with "… N more:
 * enlarge the window"; a window manager may make a window smaller than its minimum). */
int help_overlay_text_size(Viz *viz, Rect r, const VizFrame *f, int *shown_pct, int *left_out);

/* Lesson bands (panel_lesson.c): the title band on top (f->title), the caption band
 * at the bottom — opaque — with the captions and, when the probability panel is not
 * showing it, the question; the beat counter at the right end of a band. Draws
 * nothing outside a lesson (all fields NULL/0). The figure goes between the bands. */
int draw_lesson_overlay(Viz *viz, Rect r, const VizFrame *f);

/* Height of the lesson title band draw_lesson_overlay puts on top of r (0 without a
 * title): layouts leave it free so the band never covers a panel's own title. */
int lesson_overlay_top(const Viz *viz, const VizFrame *f);
/* Height of the caption band at the bottom of r (0 without captions, question or, in
 * a slide, a counter), likewise. */
int lesson_overlay_bottom(Viz *viz, const VizFrame *f, Rect r);
/* Narration lines the caption band in r leaves out (it says "... N more lines" in their
 * place), 0 when all of them fit. */
int lesson_overlay_left_out(Viz *viz, const VizFrame *f, Rect r);

/* The whole window, and a lesson slide: the target cleared (black when view.blank,
 * then nothing else), the lesson bands, between them the layout from the rect's size —
 * every panel, or only view.focus enlarged (drawn with view.fill) — the highlight
 * border, the status line (not on a one-panel slide unless it shows an error), the key
 * help. Hits: each panel's rect as VIZ_HIT_PANEL plus the panels' own hits. */
int draw_frame(Viz *viz, Rect r, const VizFrame *f, VizHits *hits);

/* One panel alone as a figure: background, the panel filling r with a margin and
 * drawn with view.fill, no status line or overlays. p = VIZ_PANEL_FRAME is the
 * window's layout with its status line, without overlays. */
int draw_panel_figure(Viz *viz, Rect r, const VizFrame *f, VizPanel p, VizHits *hits);

/* Records that panel p had to leave something out at this size and UI scale (window
 * only: not in print or when already alone); the status line then says so and offers F. */
int draw_enlarge_hint(Viz *viz, VizPanel p, const VizFrame *f);

#endif
