/* app_export.h — E / Shift+E in the window: hands the session and the view to the
 * exporter (src/figure/export.h, which re-renders offscreen at the window's size, UI scale
 * and theme and writes a numbered PNG with provenance) and reports the outcome on the
 * status line. Not the exporter itself and no pixels read from the window: the
 * offscreen render is what the window shows (same software rasteriser). */
#ifndef APP_EXPORT_H
#define APP_EXPORT_H

#include "app.h"
#include "export.h"

/* Does app->export_request (the frame, or the panel app->export_panel) for a window of
 * w×h pixels drawn at density scale (1; 2 or 4 on a HiDPI screen: the figure then has
 * scale times the pixels, as the screen); "exported <path>" or the error goes to the
 * status line. */
void app_export(AppState *app, int w, int h, int scale);

/* The options E (what = APP_EXPORT_FRAME) or Shift+E exports with at w×h: the window's
 * folder, UI scale and theme; in a lesson the frame is the slide (its overlay lines go
 * into *ov, which opt points at: keep ov alive while opt is used). */
void app_export_options(AppState *app, int w, int h, AppExport what, ExportOptions *opt, ExportOverlay *ov);

#endif
