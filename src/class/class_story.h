/* class_story.h — the text of "guess the text" when the teacher brings none: a short
 * story written for inferscope in the style of TinyStories (the bundled model's training
 * data; the corpus itself stays out of the repository). One copy, for `inferscope class`
 * and the window's class room. */
#ifndef CLASS_STORY_H
#define CLASS_STORY_H

#include <stddef.h>

extern const char CLASS_STORY[];
extern const size_t CLASS_STORY_LEN; /* bytes, without the NUL */
#define CLASS_STORY_START 4          /* tokens shown before the first round */

#endif
