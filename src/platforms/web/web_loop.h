/* web_loop.h — what the browser build's page exports (web_exports.c) need of
 * platform_web.c: the pointer its loop hands each frame (app.c's AppRun), so a call
 * from the page between two frames reaches the app that is running. */
#ifndef WEB_LOOP_H
#define WEB_LOOP_H

/* platform_run_loop's arg, or NULL before the loop has started. */
void *web_loop_arg(void);

#endif
