/* handout_class.h — `export --lesson L --handout --class-results FILE`: how the class did
 * in the lesson's rounds (a class-rounds-NNNN.json the window's U or `inferscope class`
 * wrote), as the handout's table after the slides. Glue between the class room's reader
 * (class_results_read.h) and the handout (lesson_handout.h), which know nothing of each
 * other. */
#ifndef HANDOUT_CLASS_H
#define HANDOUT_CLASS_H

#include "class_results_read.h"
#include "lesson_handout.h"

/* One row a round (round, game, the token that came, answered, right, the class's bits,
 * the model's p of it and its own pick) and the running score under it. */
int handout_class_table(LessonHandout *h, const ClassResults *r, ErrorMsg *err);

#endif
