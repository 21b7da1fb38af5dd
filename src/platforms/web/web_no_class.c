/* web_no_class.c — the class room in the browser build: a page cannot listen for the
 * students' phones (no sockets), so J, `--class` and a lesson's class lines say so on the
 * status line; the teacher runs the room from the native app (README "Play it with your
 * class"). The window's class panel is then never shown (app->klass stays NULL). */
#include "app_class.h"

int app_class_open(AppState *app, const char *address, ErrorMsg *err) {
    (void)app, (void)address;
    return error_set(err, "the class room runs in the native app only (a browser page cannot serve phones)");
}
void app_class_close(AppState *app) { (void)app; }
void app_class_command(AppState *app, int cmd) {
    (void)cmd;
    app_set_status(app, 1, "the class room runs in the native app only (a browser page cannot serve phones)");
}
void app_class_lesson_beat(AppState *app, int beat) { (void)app, (void)beat; }
int app_class_poll(AppState *app) { return (void)app, 0; }
