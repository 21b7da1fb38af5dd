/* frame.c — text-mode names, the probability axis and the hit-region list of frame.h
 * (the panels' names live in the panel table, panel_table.c). */
#include "frame.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const TEXT_MODE_NAMES[VIZ_TEXT_MODE_COUNT] = {"plain", "surprisal", "seen"};

const char *viz_text_mode_name(VizTextMode m) {
    return ((int)m >= 0 && m < VIZ_TEXT_MODE_COUNT) ? TEXT_MODE_NAMES[m] : NULL;
}

int viz_text_mode_from_name(const char *name) {
    if (!name) return -1;
    for (int i = 0; i < VIZ_TEXT_MODE_COUNT; i++)
        if (strcmp(name, TEXT_MODE_NAMES[i]) == 0) return i;
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

void viz_axis_describe(VizProbAxis a, float max, char *buf, size_t cap) {
    if (a == VIZ_AXIS_LOG) snprintf(buf, cap, "log");
    else if (a == VIZ_AXIS_LINEAR) {
        /* the fewest digits that parse back to the same float ("linear 50", not 6 digits
         * that reopen a figure at 12.3457 % instead of 12.3456789 %: fuzz_figure found it) */
        for (int prec = 6; prec <= 12; prec++) {
            snprintf(buf, cap, "linear %.*g", prec, (double)max * 100.0);
            VizProbAxis back_a;
            float back;
            if (viz_axis_parse(buf, &back_a, &back) == 0 && back == max) break;
        }
    } else snprintf(buf, cap, "auto");
}

int viz_axis_parse(const char *s, VizProbAxis *a, float *max) {
    if (!s) return -1;
    while (*s == ' ') s++;
    if (strcmp(s, "auto") == 0) {
        *a = VIZ_AXIS_AUTO;
        *max = 1.0f;
        return 0;
    }
    if (strcmp(s, "log") == 0) {
        *a = VIZ_AXIS_LOG;
        *max = 1.0f;
        return 0;
    }
    if (strncmp(s, "linear", 6) != 0) return -1;
    s += 6;
    while (*s == ' ' || *s == '=') s++;
    double pct = 100.0;
    if (*s) {
        char *end;
        pct = strtod(s, &end);
        while (*end == ' ' || *end == '%') end++;
        if (end == s || *end || !(pct > 0.0 && pct <= 100.0)) return -1;
    }
    *a = VIZ_AXIS_LINEAR;
    *max = (float)(pct / 100.0);
    return 0;
}
