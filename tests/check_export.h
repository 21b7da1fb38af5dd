/* check_export.h — the export options the figure tests start from: one panel at a small
 * logical size, fonts from the source tree's assets/. Not the defaults of the product
 * (export_options_default is): the tests' own, in one place. */
#ifndef CHECK_EXPORT_H
#define CHECK_EXPORT_H

#include "export.h"
#include "figure_meta.h"

/* Options for a w x h figure of `panel` written into dir (NULL: render only). */
static inline ExportOptions check_export_opts(const char *dir, VizPanel panel, int w, int h) {
    ExportOptions o = export_options_default();
    o.dir = dir;
    o.panel = panel;
    o.width = w;
    o.height = h;
    o.assets_dir = "assets";
    return o;
}

/* The export options a figure was made with (what the window's --open-figure reopens). */
static inline void check_options_from_figure(ExportOptions *o, const FigureState *fs) {
    o->panel = fs->panel;
    o->width = fs->width;
    o->height = fs->height;
    o->scale = fs->scale;
    o->ui_scale = fs->ui_scale;
    o->theme = fs->theme;
}

#endif
