/* lesson_slide.c — a beat's bands as an ExportOverlay (lesson_slide.h). */
#include "lesson_slide.h"

void lesson_slide_overlay(const Lesson *l, const LessonBeatView *bv, const char **caps, int cap_max,
                          ExportOverlay *out) {
    int nc = 0;
    if (bv->note[0] && nc < cap_max) caps[nc++] = bv->note;
    for (int c = 0; c < bv->n_captions && nc < cap_max; c++) caps[nc++] = bv->captions[c];
    *out = (ExportOverlay){.title = bv->beat == 0 ? l->title : NULL, .captions = caps, .n_captions = nc,
                           .question = bv->question, .beat_label = bv->beat_label};
}
