/* app_class.h — the class room in the window: `inferscope --class` or the J key opens it
 * (src/class/: libmicrohttpd serves the students from its own thread), the teacher's
 * keys (keys.h, INTENT_CLASS) open a round, reveal, move on, lock the room, clear or
 * show names and switch the game, and every poll of the window's frame hands the room's
 * state over to the class panel under the server's one lock (a copy: the panel never
 * reads the room while the server writes it). The model work of a round (moving on one
 * token) is an Action like any other, run as a job through the platform (app_jobs.h).
 * The room has its own tokenizer: a Tokenizer is not thread-safe for encoding, and the
 * server encodes guesses while a job may encode a prompt. Nothing about students is
 * written to disk here. */
#ifndef APP_CLASS_H
#define APP_CLASS_H

#include "app.h"
#include "class_panel.h"
#include "class_qr.h"
#include "class_room.h"
#include "class_server.h"

/* How often the window looks at the room while one is open (ms): votes arrive from the
 * network, not as window events. */
#define APP_CLASS_POLL_MS 200

typedef struct AppClass {
    ClassRoom room;          /* owned; touched only under srv's lock once srv runs */
    ClassServer srv;         /* owned: the server thread */
    Tokenizer tok;           /* owned: the room's (guesses), never the session's */
    ClassQr qr;              /* owned: the join address's modules */
    ClassGame game;          /* the game of the next round */
    int names_on;            /* 1: the panel shows the top students by nickname */
    int *story;              /* (n_story) owned: the built-in story's tokens (guess the text) */
    int n_story;
    int pending_open;        /* > 0: open a round once the session holds this many tokens
                              * (after the job that moves on one token) */
    ClassPanel panel;         /* owned: the panel's copy, rebuilt by app_class_poll */
    char code[CLASS_CODE_LEN + 1];
    int lesson_beat;          /* the last lesson beat whose `class` lines ran (-1 none) */
} AppClass;

/* Opens the room on address ("ADDR:PORT"; NULL = the LAN default) with the story's
 * first tokens as the prompt (a job). One line on stderr: `class: URL code NNNN`.
 * -1 with err (the address, the port in use, the tokenizer); nothing left open. */
int app_class_open(AppState *app, const char *address, ErrorMsg *err);
/* Stops the server and forgets the room (names, guesses, scores); safe when none is open. */
void app_class_close(AppState *app);

/* A teacher's key (AppClassCmd); problems go to the status line. */
void app_class_command(AppState *app, int cmd);

/* A lesson beat was shown (main thread, after its job): its `class` lines (lesson.h,
 * LOP_CLASS) switch the game, open the round, reveal it, in order, once per beat and only
 * going forward (PageUp shows an old beat again; the room keeps what the class did). */
void app_class_lesson_beat(AppState *app, int beat);

/* Main thread, when no job runs: opens a round that waits for a job, copies the room
 * into the panel's view. 1 when the view changed (draw again). */
int app_class_poll(AppState *app);

#endif
