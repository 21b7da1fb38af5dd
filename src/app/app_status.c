/* app_status.c — the status line's message (app_set_status, declared in app.h). Its own
 * file so that what sets a message (the jobs, the update, the state) depends on it and
 * on nothing else: app_state.c starts and waits for jobs, app_jobs.c sets messages, and
 * neither needs the other's file. */
#include <stdarg.h>
#include <stdio.h>

#include "app.h"

void app_set_status(AppState *app, int is_error, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(app->status, sizeof app->status, fmt, ap);
    va_end(ap);
    app->status_is_error = is_error;
    app->dirty = 1;
}
