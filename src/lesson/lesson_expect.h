/* lesson_expect.h — checks the `expect` claims of a lesson (lesson.h LessonExpect)
 * against what is on screen: the session (tokens, records, attention) and the view.
 * A measurement is a pure function of that state, so a claim gives the same answer
 * in the window, in `export --lesson` and in the tests. Not the parser (lesson.c) and
 * not the replay (lesson_run.c), which calls lesson_expect_check at the claim's line. */
#ifndef LESSON_EXPECT_H
#define LESSON_EXPECT_H

#include <stddef.h>

#include "error.h"
#include "frame.h"
#include "lesson.h"
#include "session.h"

/* Measures claim d: writes what was measured (one line, e.g. "0.9996 for \" time\"")
 * into measured and returns 1 if the claim holds, 0 if it does not, -1 when it cannot
 * be measured (err: a layer the model lacks, no token is exactly TEXT, no generated
 * token yet...). The session is only read (its records may be brought up to date). */
int lesson_expect_measure(const LessonDirective *d, Session *s, const VizView *view, char *measured,
                          size_t cap, ErrorMsg *err);

/* 0 if claim d holds; else -1 with "FILE:LINE: expect failed: CLAIM (measured: M)" or
 * "FILE:LINE: expect CLAIM: problem". */
int lesson_expect_check(const Lesson *l, const LessonDirective *d, Session *s, const VizView *view,
                        ErrorMsg *err);

/* Mean attention weight of head (layer, head) on key i-1 (prev) or key 0 (first)
 * over query rows 1..T-1 of the current trace; 0 when T < 2. The previous-token score
 * that picks the "previous-token head". */
double lesson_attention_mean(const Session *s, int layer, int head, int query_form);

#endif
