/* lesson_parse.h — what the lesson parser (lesson.c) shares with the parser of its
 * `expect` claims (lesson_parse_expect.c): the parser's place in the file and the
 * helpers that read a text or a number and refuse with "FILE:LINE: problem". Private
 * to src/lesson/; the rest of the program reads lessons through lesson.h. */
#ifndef LESSON_PARSE_H
#define LESSON_PARSE_H

#include <stddef.h>

#include "error.h"
#include "lesson.h"

typedef struct LessonParser {
    const char *path;
    int line;
    ErrorMsg *err;
    Lesson *l;
    size_t cap_dir, cap_beat;
} LessonParser;

/* -1 with "PATH:LINE: " + fmt (one %s: a). */
int lesson_parser_fail(LessonParser *p, const char *fmt, const char *a);

/* 1 if the quote at s[q] is escaped: an odd number of backslashes right before it. */
int lesson_quote_escaped(const char *s, size_t q);

/* TEXT, quoted or not (lesson.c parse_text): *out malloc'd. */
int lesson_parser_text(LessonParser *p, const char *s, size_t n, char **out, size_t *out_len);

/* A whole number in [lo, hi] / a number in [lo, hi]; what names it in the refusal. */
int lesson_parser_long(LessonParser *p, const char *arg, long lo, long hi, const char *what, long *out);
int lesson_parser_double(LessonParser *p, const char *arg, double lo, double hi, const char *what, double *out);

/* `expect CLAIM` (arg: the claim, alen bytes) into d (lesson_parse_expect.c). */
int lesson_parse_expect(LessonParser *p, const char *arg, size_t alen, LessonDirective *d);

#endif
