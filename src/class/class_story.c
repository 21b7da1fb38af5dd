/* class_story.c — the built-in story (class_story.h). */
#include "class_story.h"

const char CLASS_STORY[] =
    "Once upon a time, there was a little girl named Lily. She loved to play outside in the park. "
    "One day, she saw a big red ball under a tree. She ran to the ball and kicked it very high. "
    "The ball flew over the fence and landed in a pond. Lily was sad. Then a friendly dog jumped "
    "into the water and brought the ball back. Lily smiled and said, \"Thank you, dog!\" They "
    "played together all day, and Lily was very happy.";
const size_t CLASS_STORY_LEN = sizeof CLASS_STORY - 1;
