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
#include "viz.h"

/* Prompt and tokens: token chips (text with a visible space mark, id, bytes for partial
 * UTF-8), coloured by position; below, the BPE replay of view.selected_token's word,
 * merge by merge (view.bpe_step merges applied). Hits: VIZ_HIT_TOKEN_CHIP. */
int draw_tokens_panel(Viz *viz, Rect r, const VizFrame *f, VizHits *hits);

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

/* Generated text: prompt then generated tokens, the newest highlighted, wrapped. */
int draw_text_panel(Viz *viz, Rect r, const VizFrame *f, VizHits *hits);

/* One status line: model and size, layer/head, sampler settings, seed, step, branch,
 * time of the last step; f->status (or an error, drawn as such) on the right. */
int draw_status_line(Viz *viz, Rect r, const VizFrame *f);

/* The key overlay (`?`): every row of f->keys, on a translucent card over r, in body
 * text, or in small text when that is what keeps every action whole. */
int draw_help_overlay(Viz *viz, Rect r, const VizFrame *f);
/* What draw_help_overlay would do in r: the text size it picks (VizTextSize) and, in
 * *shown_pct, how much of the widest action fits (100 = every action whole; less: the
 * longer ones end in "…" because the window is too small even for small text). */
int help_overlay_text_size(Viz *viz, Rect r, const VizFrame *f, int *shown_pct);

/* Lesson overlay: title, caption lines (large, legible at projector distance), an
 * open question, the beat counter in the top-right corner. Draws nothing outside a
 * lesson (all fields NULL/0). */
int draw_lesson_overlay(Viz *viz, Rect r, const VizFrame *f);

/* Height of the lesson title band draw_lesson_overlay puts on top of r (0 without a
 * title): layouts leave it free so the band never covers a panel's own title. */
int lesson_overlay_top(const Viz *viz, const VizFrame *f);
/* Height of the caption band at the bottom of r (0 without captions), likewise. */
int lesson_overlay_bottom(Viz *viz, const VizFrame *f, Rect r);

/* The whole window: layout from r's size, then every panel (or only view.focus,
 * enlarged), the highlight border, the status line and the overlays. Blank screen when
 * view.blank. Hits: each panel's rect as VIZ_HIT_PANEL plus the panels' own hits. */
int draw_frame(Viz *viz, Rect r, const VizFrame *f, VizHits *hits);

/* One panel alone as a print figure: background, the panel filling r with a margin,
 * no status line or overlays. p = VIZ_PANEL_FRAME is draw_frame without overlays. */
int draw_panel_figure(Viz *viz, Rect r, const VizFrame *f, VizPanel p, VizHits *hits);

#endif
