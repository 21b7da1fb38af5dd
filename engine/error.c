/* error.c — the one formatter behind ErrorMsg (see error.h). */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>

int error_set(ErrorMsg *err, const char *fmt, ...) {
    if (!err) return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->text, sizeof err->text, fmt, ap);
    va_end(ap);
    /* keep it one line: a newline inside a message would break status lines/logs */
    for (char *p = err->text; *p; p++)
        if (*p == '\n' || *p == '\r') *p = ' ';
    return -1;
}
