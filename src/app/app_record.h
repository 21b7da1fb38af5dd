/* app_record.h — W in the window: records the steps you take into a video. Each change
 * of what the window shows (a step, a knob, a lesson beat...) becomes one picture of the
 * exported figure of that state (the frame as E exports it, drawn offscreen at the size
 * the recording started with: not a screen capture), held EXPORT_VIDEO_BEAT_DEFAULT
 * seconds. W again, or quitting, writes "NNNN-recording.mp4" into the export folder
 * (beside E's PNGs) and says so on the status line. Not the encoder (export_video.h). */
#ifndef APP_RECORD_H
#define APP_RECORD_H

#include "app.h"

/* W: starts a recording at w x h (rounded down to even sides, as H.264 needs) with the
 * current state as its first picture, or stops and writes the one running. */
void app_record_toggle(AppState *app, int w, int h);
/* When recording: a picture of the state if it differs from the last one recorded. */
void app_record_poll(AppState *app);
/* Writes a running recording (on quit); nothing when none. */
void app_record_stop(AppState *app);

#endif
