/* frame_size.h — the one reader of a frame size typed as WIDTHxHEIGHT (the window's and
 * export's --size): both sides whole numbers read in full (parse_num.h: no wrap-around,
 * "4294968320x4294968376" is too large, not 1024x1080), each within the caller's minimum
 * and VIZ_FRAME_MAX_SIDE. The minimum is the caller's: the window's layout is designed
 * for APP_MIN_W x APP_MIN_H, a figure (one panel, a slide) can be smaller, down to
 * VIZ_FIGURE_MIN_W x VIZ_FIGURE_MIN_H, where panel titles and labels still fit. */
#ifndef FRAME_SIZE_H
#define FRAME_SIZE_H

#include "error.h"

#define VIZ_FIGURE_MIN_W 320
#define VIZ_FIGURE_MIN_H 200
#define VIZ_FRAME_MAX_SIDE 8192 /* logical pixels; export's --scale multiplies them */

/* Parses text ("1920x1080") into *w, *h. Returns 0, or -1 with err naming flag, the text
 * and the range: "--size: '1x1' is not WIDTHxHEIGHT from 320x200 to 8192x8192". */
int viz_size_parse(const char *flag, const char *text, int min_w, int min_h, int *w, int *h, ErrorMsg *err);

#endif
