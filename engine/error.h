/* error.h — how the engine reports failure: functions return 0 on success and -1 on
 * error, after writing ONE human-readable line into an ErrorMsg the caller owns
 * (e.g. "assets/x/model.safetensors: header length 999 exceeds file size 12").
 * The engine never prints and never exits; the CLI prints the line, the window shows
 * it in the status line. */
#ifndef ERROR_H
#define ERROR_H

typedef struct ErrorMsg {
    char text[512]; /* NUL-terminated, one line, no trailing newline */
} ErrorMsg;

/* Formats into err (which may be NULL) and returns -1, so callers can write
 * `return error_set(err, "%s: truncated", path);`. */
int error_set(ErrorMsg *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif
