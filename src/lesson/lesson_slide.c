/* lesson_slide.c — a beat's bands as an ExportOverlay (lesson_slide.h). */
#include "lesson_slide.h"

void lesson_slide_overlay(const Lesson *l, const LessonBeatView *bv, const LessonCaptions *lc, ExportOverlay *out) {
    *out = (ExportOverlay){.title = bv->beat == 0 ? l->title : NULL, .captions = lc->line, .n_captions = lc->n,
                           .question = bv->question, .beat_label = bv->beat_label};
}
