/* lesson_slide.h — what a lesson beat adds to its slide: the title (first beat), the
 * caption lines (the model note, then the captions with their live numbers, as
 * lesson_facts_captions made them), the question and the counter, as an ExportOverlay.
 * One place, so `export --lesson`, E in presenter mode and the tests put exactly the
 * same bands on a slide. Not the replay (lesson_run.h), not the measuring (lesson_facts.h). */
#ifndef LESSON_SLIDE_H
#define LESSON_SLIDE_H

#include "export.h"
#include "lesson.h"
#include "lesson_facts.h"
#include "lesson_run.h"

/* Fills *out from beat bv of lesson l with the lines lc (borrowed: valid while l, bv
 * and lc are). */
void lesson_slide_overlay(const Lesson *l, const LessonBeatView *bv, const LessonCaptions *lc, ExportOverlay *out);

#endif
