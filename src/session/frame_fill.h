/* frame_fill.h — builds the VizFrame (viz/frame.h) that panels draw, from a Session
 * and the view settings. The one place where session data is handed to viz/, used by
 * the window, the headless exporter and the lesson runner alike, so all three show
 * exactly the same thing for the same state. */
#ifndef FRAME_FILL_H
#define FRAME_FILL_H

#include "frame.h"
#include "panel_table.h"
#include "session.h"

/* Fills *f from s and view (borrowed pointers: valid until s changes). The status,
 * lesson and key-help fields are left NULL/0 for the caller to set. */
void frame_fill(VizFrame *f, const Session *s, const VizView *view);

/* Computes the engine data of VIZ_NEEDS_* `needs` into f as well (a figure of one panel:
 * frame_fill computes only what view.focus shows). */
void frame_fill_needs(VizFrame *f, const Session *s, unsigned needs);

/* A sensible default view for a model: layer L-1, head 0, top 15 bars, full frame. */
VizView frame_default_view(void);

#endif
