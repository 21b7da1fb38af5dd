/* lesson_slide.h — what a lesson beat adds to its slide: the title (first beat), the
 * captions (after the model note, when there is one), the question and the counter,
 * as an ExportOverlay. One place, so `export --lesson`, E in presenter mode and the
 * tests put exactly the same bands on a slide. Not the replay (lesson_run.h). */
#ifndef LESSON_SLIDE_H
#define LESSON_SLIDE_H

#include "export.h"
#include "lesson.h"
#include "lesson_run.h"

/* Fills *out from beat bv of lesson l; caps (cap_max entries, >= LESSON_MAX_CAPTIONS + 1)
 * holds the caption pointers (borrowed from l and bv, valid while they are). */
void lesson_slide_overlay(const Lesson *l, const LessonBeatView *bv, const char **caps, int cap_max,
                          ExportOverlay *out);

#endif
