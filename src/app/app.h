/* app.h — the window: AppState (a Session + the VizView + UI settings), the input
 * events it understands, app_update (input → intent → session/view change, the ONE
 * place intents are applied), app_draw (Session → VizFrame → draw_frame), app_frame
 * (one pass of the immediate-mode loop: input → update → export if asked → layout +
 * draw → present) and app_run (SDL window and renderer; the loop over app_frame is the
 * platform's, platform.h). Not model math (Session) and not drawing (viz/).
 *
 * Files: app.c = window + one frame (the loop is the platform's, platform.h);
 * app_update.c = intents; app_draw.c = the frame;
 * app_state_json.c = the --state-out snapshot; keys.c = the key table. */
#ifndef APP_H
#define APP_H

#include <SDL.h>
#include <stddef.h>
#include <stdint.h>

#include "action.h"
#include "error.h"
#include "frame.h"
#include "keys.h"
#include "lesson_facts.h"
#include "lesson_run.h"
#include "platform.h"
#include "session.h"
#include "sha256_file.h"
#include "theme.h"
#include "viz.h"

#define APP_EDIT_MAX 1024    /* bytes of prompt the editor holds */
#define APP_STATUS_MAX 512
#define APP_HELP_MAX 48      /* rows of the key overlay */
#define APP_SCALE_STEP 0.25f /* Ctrl +/-: 100, 125, ... 250 % */
#define APP_MIN_W 1024       /* smallest window the layout is designed for */
#define APP_MIN_H 640
#define APP_QUEUE_MAX 64     /* inputs kept while a step runs (applied after it, in order) */

/* Everything `inferscope` (no command) can be told on the command line. */
typedef struct AppOptions {
    const char *model_dir;     /* checkpoint folder */
    const char *tok_dir;       /* tokenizer folder */
    const char *assets_dir;    /* fonts live in <assets_dir>/fonts */
    const char *prompt;        /* UTF-8 */
    int prompt_given;          /* 1 when the user chose the prompt (no fallback then) */
    const char *ids;           /* --ids "3,1,2": the prompt as token ids (instead of prompt) */
    uint64_t seed;
    SamplerSettings settings;
    float ui_scale;            /* VIZ_UI_SCALE_MIN..MAX */
    ThemeId theme;
    int width, height;         /* initial window size in pixels */
    const char *export_dir;    /* folder for E / Shift+E figures (NULL = ./inferscope-figures) */
    int weights;               /* --weights: GPT2_WEIGHTS_AS_STORED or a KernDtype */
    size_t trace_budget;       /* --trace-mb in bytes: SESSION_TRACE_AUTO (default) or 0 = no limit */
    int class_open;            /* --class: open the class room with the window */
    const char *class_address; /* --class-address ADDR:PORT (NULL = the LAN default), for J too */
} AppOptions;

/* The defaults: prompt "Once upon a time", seed 0, T=1 / no cuts, scale 1, light,
 * 1280×720, trace budget from free RAM; model/tokenizer/assets NULL (the caller fills them). */
AppOptions app_default_options(void);

/* One input event, already stripped of SDL's details (tests build these directly or
 * through app_input_from_event from synthetic SDL_Events). */
typedef enum AppInputKind {
    APP_INPUT_NONE = 0,
    APP_INPUT_KEY,        /* key down: key + mod */
    APP_INPUT_TEXT,       /* typed text (UTF-8, only used while editing the prompt) */
    APP_INPUT_MOUSE_MOVE, /* x, y in frame pixels */
    APP_INPUT_MOUSE_DOWN, /* x, y, button (SDL_BUTTON_LEFT ...) */
    APP_INPUT_MOUSE_LEAVE,/* the mouse left the window */
    APP_INPUT_QUIT,       /* window closed */
} AppInputKind;

typedef struct AppInput {
    AppInputKind kind;
    SDL_Keycode key;
    Uint16 mod;
    int repeat;           /* 1 for a key's auto-repeat */
    char text[32];        /* SDL_TEXTINPUTEVENT_TEXT_SIZE bytes, NUL-terminated */
    int x, y, button;
} AppInput;

/* Translates an SDL event; returns 1 and fills *in for the kinds above, 0 for events
 * the app ignores. Mouse coordinates are multiplied by (px_scale_x, px_scale_y) to go
 * from window to frame pixels (1, 1 unless the renderer is HiDPI). */
int app_input_from_event(const SDL_Event *e, float px_scale_x, float px_scale_y, AppInput *in);

/* An export asked for by E / Shift+E, done by the loop (app_export.c). */
typedef enum AppExport { APP_EXPORT_NONE = 0, APP_EXPORT_FRAME, APP_EXPORT_PANEL } AppExport;

/* Session work that may be slow (a forward pass): see app_jobs.h. */
typedef enum AppJobKind {
    JOB_NONE = 0,
    JOB_ACTION, /* act: an Action that runs the model (action_is_model_work) */
    JOB_ABLATE, /* head (layer, head) flipped in the mask on screen, then ACT_ABLATE */
    JOB_BEAT,   /* presenter mode: lesson beat `beat` rebuilt, its live captions measured */
    JOB_COMPARE,/* the compare panel's columns for the prompt (session_compare_update) */
    JOB_CHECK,  /* a lesson opening: its next beat run and its `expect` lines checked
                 * (lesson_check_step), one beat per job so the window draws between them */
} AppJobKind;

typedef struct AppJob {
    AppJobKind kind;
    Action act;          /* JOB_ACTION; its text (a new prompt) is borrowed from
                          * AppState.edit, untouched while busy */
    int rank;            /* ACT_FORCE: the rank the token was shown at (for the message) */
    int layer, head;     /* JOB_ABLATE: the head switched off / on again; layer < 0 = every
                          * part back on */
    int beat;            /* JOB_BEAT: the beat to show */
    VizView view;        /* JOB_BEAT: the view it leaves (copied to AppState.view after) */
    char beat_msg[200];  /* JOB_BEAT: a caption placeholder problem, or "" */
    int rc;              /* result of the session call */
    ErrorMsg err;
    int had_branches;    /* n_branches before, to say "a new branch" */
} AppJob;

typedef struct AppState {
    Session session;          /* owned: model, tokenizer, tokens, branches, dice */
    VizView view;             /* what is shown (layer/head, focus, overlays, mouse) */
    float ui_scale;           /* 1.0..2.5 (Ctrl +/-); the loop applies it to the Viz */
    ThemeId theme;            /* D toggles; the loop applies it to the Viz */
    int fullscreen;           /* F11; the loop applies it to the window */
    AppKnob knob;             /* what ↑/↓ change (T, K, P, L, H select it) */
    int editing;              /* 1 while the prompt editor is open (text input on) */
    char edit[APP_EDIT_MAX];  /* the prompt being edited, UTF-8, NUL-terminated */
    size_t edit_len;
    char status[APP_STATUS_MAX]; /* the last message for the status line ("" = none) */
    int status_is_error;
    AppExport export_request; /* set by E / Shift+E, done and cleared by the loop */
    int export_panel;         /* VizPanel under the mouse for APP_EXPORT_PANEL */
    int quit;                 /* 1: leave the loop */
    int dirty;                /* 1: something changed, draw a new frame */
    double frame_ms_last;     /* wall time of the last draw + present (ms), for stats */
    double frame_ms_max;      /* slowest frame so far (ms) */
    int n_frames;             /* frames drawn since the window opened */
    VizHits hits;             /* regions of the last drawn frame: mouse → intents */
    VizKeyHelp help[APP_HELP_MAX]; /* rows of the key overlay, from the key table */
    int n_help;
    char status_line[APP_STATUS_MAX + APP_EDIT_MAX + 64]; /* composed per frame */
    char progress_line[128];  /* a lesson check's progress, composed per frame */
    const char *assets_dir;   /* borrowed from the options (fonts) */
    const char *export_dir;   /* borrowed: where E writes figures (NULL = exporter's default) */
    Sha256Cache sha_cache;    /* the weights' hash for figure provenance, computed once */
    int async;                /* 1 (window): jobs run through platform_job_start; 0: inline */
    int busy;                 /* 1 while a job runs: only the worker touches the session */
    AppJob job;               /* the running (or last) job */
    PlatformJob job_worker;   /* runs `job` while busy */
    double busy_since_ms;     /* platform_now_ms when the job started */
    PlatformJob inside_worker; /* runs while the lens / attribution / journey numbers are
                              * computed behind the drawing (app_inside_start) */
    unsigned inside_needs;    /* the VIZ_NEEDS_* it computes */
    int inside_vs;            /* the attribution's contrast token it computes for (-1 none) */
    AppInput queue[APP_QUEUE_MAX]; /* input that arrived while busy, oldest first */
    int n_queued;
    int in_lesson;            /* 1: presenter mode (app_lesson.c) */
    int lesson_checking;      /* 1 while the lesson is checked beat by beat before presenter
                               * mode starts (JOB_CHECK; in_lesson is 0 until it is done) */
    int lesson_first_beat;    /* the beat shown when the check is done (0; a link's ?beat=) */
    int lesson_failed;        /* 1: the check failed (lesson_error says where and why) */
    ErrorMsg lesson_error;    /* "FILE:LINE: problem" of a failed check */
    Lesson lesson;            /* owned while in_lesson */
    LessonBeatView beat;      /* the beat on screen: captions, question, counter */
    LessonCaptions beat_caps; /* its caption lines with the live numbers filled in */
    int record_request;       /* W pressed: app_record_toggle by the loop (needs the size) */
    struct ExportVideo *recording; /* owned while W records (app_record.c), else NULL */
    int record_w, record_h;   /* its picture size (the window's when it started) */
    char *record_last;        /* owned: the provenance JSON of the last picture recorded,
                               * so an unchanged state adds no picture */
    struct AppClass *klass;   /* owned: the class room while open (app_class.h), else NULL */
    const char *class_address; /* borrowed from the options: where J opens the room */
    const char *model_dir, *tok_dir; /* borrowed from the options: the room's own tokenizer */
} AppState;

/* Presenter mode (app_lesson.c). app_lesson_open takes ownership of *lesson (also on
 * error), checks what needs no model (lesson_facts_check: -1 with err) and starts the
 * check of every beat against the model, which the window's frames go on with one beat
 * per job (app_lesson_check_next) while they draw the progress; when the last beat has
 * held, beat 1 (or lesson_first_beat) is shown. A beat that fails ends it with
 * lesson_failed / lesson_error ("FILE:LINE: problem", also on the status line; where the
 * app may end itself the window closes with it, as the app did before it opened).
 * note: a line shown with every beat (e.g. the model fallback), or "". */
int app_lesson_open(AppState *app, Lesson *lesson, const char *note, ErrorMsg *err);
/* Starts the next beat's check when one is due and no job runs (the frame calls it once
 * what it drew shows the progress). */
void app_lesson_check_next(AppState *app);
/* JOB_CHECK's follow-up (app_jobs.c): rc as lesson_check_step's. */
void app_lesson_checked(AppState *app, int rc, const ErrorMsg *err);
/* 1 (and the status line says why) when the intent must wait for the lesson's check:
 * everything that moves a beat or changes the session or the view; quitting, full
 * screen and the theme do not wait. 0 when no check runs. */
int app_lesson_refuses(AppState *app, AppIntent intent);
/* app_lesson_open and the whole check at once (no window: tests, a caller that waits):
 * returns when beat 1 is shown, or -1 with the check's error. */
int app_lesson_start(AppState *app, Lesson *lesson, const char *note, ErrorMsg *err);
/* The check's progress line ("checking the lesson on the model: beat 3 of 12") into
 * buf; 0 when no check runs (buf ""). */
int app_lesson_progress(const AppState *app, char *buf, size_t cap);
/* Shows beat k (clamped to the lesson): a JOB_BEAT, so the replay and the live numbers
 * run off the event loop like any model work. The presenter keys (PageDown, PageUp,
 * Home ... rows of the key table marked `presenter`) come here through app_update. */
void app_lesson_show(AppState *app, int k);
/* Adds the beat's title, captions, question and counter to a frame. */
void app_lesson_frame(const AppState *app, VizFrame *f, const char **caps, int cap_max);

/* Opens the session (model + tokenizer), applies seed, settings and prompt, and sets
 * the default view. No window. app must be zeroed; on error returns -1 with err
 * (naming the model folder / the prompt problem) and leaves app safe to app_free. */
int app_init(AppState *app, const AppOptions *opt, ErrorMsg *err);

/* Waits for a running job, frees the session; safe on a zeroed AppState and twice. */
void app_free(AppState *app);

/* Applies one input: a key through the key table, text to the editor, a click
 * through the last frame's hits. Never fails: problems go to app->status. */
void app_update(AppState *app, const AppInput *in);

/* Sets the status message (printf-style); is_error draws it as an error. */
void app_set_status(AppState *app, int is_error, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Fills a VizFrame from the session and view (frame_fill), adds the status line, the
 * key help, and draws the whole frame into r with draw_frame, recording the hits into
 * app->hits. Allocates nothing. Returns draw_frame's result (errors are in
 * viz->last_error; the caller shows them). */
int app_draw(AppState *app, Viz *viz, Rect r);

/* What the window's frames draw into and remember from one frame to the next (app.c). */
typedef struct AppWindow {
    SDL_Window *win;          /* owned */
    SDL_Renderer *ren;        /* owned */
    Viz viz;                  /* owned: fonts and theme on ren */
    char title[256];          /* "inferscope — <model>" */
    const char *hits_out;     /* INFERSCOPE_HITS_OUT (a test hook, app.c), or NULL */
    uint64_t hits_hash;       /* what was last written there */
    int title_busy;           /* 1 while the title says "computing…" */
    char shown[APP_STATUS_MAX]; /* the message shown in the title in presenter mode */
} AppWindow;

/* Opens the window (title "inferscope — <model>", width×height, resizable), its
 * renderer and Viz at the app's UI scale and theme; SDL_Init(VIDEO) first. 0, or -1
 * with err (nothing left open). w must be zeroed. */
int app_window_open(AppWindow *w, const AppState *app, int width, int height, ErrorMsg *err);
/* Closes what app_window_open opened and quits SDL; safe on a zeroed or closed w. */
void app_window_close(AppWindow *w);

/* The wait app_frame asks for: idle (only input wakes the window), and while a job
 * runs (to see it finish soon after it does). */
#define APP_FRAME_IDLE_MS 500
#define APP_FRAME_BUSY_MS 5

/* One frame of the window, what the platform's loop calls (platform_run_loop): apply
 * the input events SDL has queued, poll the jobs, apply the input kept while one ran,
 * then — when no job runs — bring the window in line (scale, theme, full screen), do
 * an export asked for, draw if something changed, and start the inside worker on what
 * the frame found missing. Returns the wait before the next frame (APP_FRAME_BUSY_MS
 * while a job runs, else APP_FRAME_IDLE_MS), or PLATFORM_FRAME_STOP once the user quit
 * and no job runs. app->async should be 1 (jobs through the platform). */
int app_frame(AppState *app, AppWindow *w);

/* Opens the window, runs the platform's loop over app_frame until the user quits,
 * closes the window. Returns 0, or -1 with err when the window or fonts cannot be
 * created (errors during the session go to the status line instead). */
int app_run(AppState *app, int width, int height, ErrorMsg *err);

/* Puts the app into the state a figure records (figure_state_apply: session and view,
 * then its theme and UI scale) and says so on the status line ("reopened WHAT", or
 * what differs: another model, other weights). --open-figure before the window opens;
 * in the browser also a dropped figure and a link's state while it runs (no job may be
 * running: app_jobs_wait first). 0, or -1 with err (the session may hold part of it). */
struct FigureState;
int app_open_figure_state(AppState *app, const struct FigureState *fig, const char *what, ErrorMsg *err);

/* The platform's loop calls frames with one pointer: the app and its window (the web
 * build's page exports reach the running app through it, src/platforms/web/). */
typedef struct AppRun {
    AppState *app;
    AppWindow *win;
} AppRun;

/* Writes a JSON snapshot (ids, n_prompt, n_pos, branches, settings, seed, layer,
 * head, scale, theme) to path, atomically (temporary file + rename). For tests. */
int app_write_state_json(const AppState *app, const char *path, ErrorMsg *err);

#endif
