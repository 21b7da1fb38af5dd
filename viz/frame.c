/* frame.c — panel names and the hit-region list of frame.h. */
#include "frame.h"

#include <string.h>

static const char *const PANEL_NAMES[VIZ_PANEL_COUNT] = {"frame", "tokens", "attention", "probs", "text"};

const char *viz_panel_name(VizPanel p) {
    return ((int)p >= 0 && p < VIZ_PANEL_COUNT) ? PANEL_NAMES[p] : NULL;
}

int viz_panel_from_name(const char *name) {
    if (!name) return -1;
    for (int i = 0; i < VIZ_PANEL_COUNT; i++)
        if (strcmp(name, PANEL_NAMES[i]) == 0) return i;
    return -1;
}

void viz_hits_add(VizHits *hits, Rect r, VizHitKind kind, int a, int b) {
    if (!hits || hits->n >= VIZ_MAX_HITS || r.w <= 0 || r.h <= 0) return;
    hits->hit[hits->n++] = (VizHit){r, kind, a, b};
}

const VizHit *viz_hits_at(const VizHits *hits, int x, int y, VizHitKind kind) {
    if (!hits) return NULL;
    for (int i = hits->n - 1; i >= 0; i--) {
        const VizHit *h = &hits->hit[i];
        if (kind == VIZ_HIT_NONE ? h->kind == VIZ_HIT_PANEL : h->kind != kind) continue;
        if (rect_contains(h->r, x, y)) return h;
    }
    return NULL;
}
