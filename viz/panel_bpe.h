/* panel_bpe.h — the BPE replay under the token strip (internal to the tokens panel):
 * the selected prompt word's bytes, then the word after each recorded merge, lowest
 * rank first, with the rule that fired. Split from panel_tokens.c so each file keeps
 * one job. Only reads the VizFrame (TokEncoding.merges); nothing here tokenizes. */
#ifndef VIZ_PANEL_BPE_H
#define VIZ_PANEL_BPE_H

#include "frame.h"
#include "viz.h"

/* The selected word's replay state: parts after `shown` merges. */
typedef struct BpeReplay {
    const TokPiece *piece;
    const uint8_t *word;   /* piece bytes */
    int n_merges;          /* merges of the word */
    int shown;             /* merges shown (view.bpe_step clamped) */
    const char *note;      /* why there is no replay, or NULL */
} BpeReplay;

/* Text sizes of the replay: the part boxes (the strip's label size, so a slide sets them
 * as large as the chips) and the row labels. */
typedef struct BpeSizes {
    VizTextSize box, label;
} BpeSizes;

/* The replay of view.selected_token's word (piece NULL + a note when there is none). */
BpeReplay bpe_replay_find(const VizFrame *f);

/* Height the replay wants (header + every row shown). */
int bpe_replay_height(Viz *viz, const BpeReplay *rp, BpeSizes sz);

/* Draws it into area (the latest rows when not all fit). Returns 0 or -1. */
int draw_bpe_replay(Viz *viz, Rect area, const VizFrame *f, const BpeReplay *rp, BpeSizes sz);

#endif
