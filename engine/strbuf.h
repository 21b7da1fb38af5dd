/* strbuf.h — a growable byte string for building output in memory (JSON, Markdown, PNG
 * chunks). Appends do not report errors one by one: the first failed allocation sets
 * `oom`, every later append is dropped, and the builder checks `oom` once at the end.
 * `data` is NUL-terminated one past `len` whenever it is not NULL (the bytes themselves
 * may hold NULs). Owner: whoever holds the struct (strbuf_free). Not a string library:
 * no search, no edit in the middle. */
#ifndef STRBUF_H
#define STRBUF_H

#include <stddef.h>

typedef struct StrBuf {
    char *data;     /* malloc'd, NULL until the first append */
    size_t len;     /* bytes held (not counting the terminating NUL) */
    size_t cap;     /* bytes allocated */
    int oom;        /* 1 once an allocation failed: everything after is dropped */
} StrBuf;

/* Appends p[0..n). n == 0 is a no-op (p may then be NULL). */
void strbuf_add(StrBuf *b, const void *p, size_t n);
/* Appends a NUL-terminated string. */
void strbuf_adds(StrBuf *b, const char *s);
/* Appends printf-formatted text (any length). */
void strbuf_addf(StrBuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Empties it for reuse (keeps the allocation; oom stays). */
void strbuf_clear(StrBuf *b);
/* Frees the data and zeroes the struct; safe on a zeroed struct and twice. */
void strbuf_free(StrBuf *b);

#endif
