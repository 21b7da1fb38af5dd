/* error.h — how the engine reports failure: functions return 0 on success and -1 on
 * error, after writing ONE human-readable line into an ErrorMsg the caller owns
 * (e.g. "assets/x/model.safetensors: header length 999 exceeds file size 12").
 * The engine never prints and never exits; the CLI prints the line, the window shows
 * it in the status line. */
#ifndef ERROR_H
#define ERROR_H

#include <stddef.h>

typedef struct ErrorMsg {
    char text[512]; /* NUL-terminated, one line, no trailing newline */
} ErrorMsg;

/* Formats into err (which may be NULL) and returns -1, so callers can write
 * `return error_set(err, "%s: truncated", path);`. The line is made one line (a newline or
 * carriage return becomes a space) and inert on a terminal: every other control
 * character, C1 control and byte that is not UTF-8 reads \xNN (text_visible.h), so a path
 * or a name from a file can be formatted in as it is. */
int error_set(ErrorMsg *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* A name read from a file (a tensor name, a JSON key) made safe to echo in one line:
 * s[0..n) is copied into out (cap bytes, NUL-terminated; cut with "..." when longer) with
 * every control character and every byte that is not valid UTF-8 written as \xNN, and a
 * backslash as \\. Returns out, so it can be an argument of error_set directly. */
const char *error_quote(char *out, size_t cap, const char *s, size_t n);

/* The same for a NUL-terminated string (NULL = ""); ERROR_QUOTE(buf, s) for an array buf. */
const char *error_quote_cstr(char *out, size_t cap, const char *s);
#define ERROR_QUOTE_CAP 160
#define ERROR_QUOTE(buf, s) error_quote_cstr((buf), sizeof(buf), (s))

#endif
