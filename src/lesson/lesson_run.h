/* lesson_run.h — plays a parsed lesson (lesson.h) on a Session: going to beat k
 * rebuilds the exact state at the end of that beat, the same as replaying every
 * directive from the start (seeded, so PageUp rewinds exactly and an export of beat k
 * is always the same picture), from a snapshot taken when the beat first ran. Captions, highlights and the open question belong to one beat.
 * Not the window: the presenter keys live in the app, the PNGs in export.c. */
#ifndef LESSON_RUN_H
#define LESSON_RUN_H

#include <stddef.h>

#include "frame.h"
#include "lesson.h"
#include "session.h"

/* What a beat adds on top of the session and view: borrowed from the Lesson. */
typedef struct LessonBeatView {
    int beat;                                   /* 0-based beat shown */
    int n_beats;
    const char *captions[LESSON_MAX_CAPTIONS];  /* this beat's narration lines */
    int n_captions;
    const char *question;                       /* open or just-revealed question, or NULL */
    char beat_label[32];                        /* "3 / 12" */
    char note[256];                             /* e.g. the model fallback notice, or "" */
} LessonBeatView;

/* Which model directory the lesson wants: "bundled" -> bundled_dir; a PATH; with
 * "or-bundled", the bundled model when PATH has no model.safetensors (and a note
 * saying so plainly). No `model` line = bundled. A relative PATH is relative to the
 * folder of the lesson file (l->path), not to the current directory. */
void lesson_model_dir(const Lesson *l, const char *bundled_dir, char *dir, size_t dir_cap,
                      char *note, size_t note_cap);

/* Rebuilds session + view at the end of beat k (0 <= k < n_beats), exactly as
 * replaying the lesson from its start would. Beats already run are restored from
 * their snapshot (work in proportion to what differs from the screen, not to k);
 * beats not run yet are run from the last snapshot. On error returns -1 with
 * "FILE:LINE: problem" (e.g. a layer the model lacks, a force text that is not one
 * token, a full context); the session is then in an unspecified but valid state. The
 * snapshots belong to session s (another session starts them afresh). */
int lesson_goto_beat(Lesson *l, int k, Session *s, VizView *view, LessonBeatView *bv,
                     ErrorMsg *err);

/* Runs every beat once from a clean start, so a lesson with an error is reported
 * before it is shown (never opened half-way), and keeps the snapshots. Leaves the
 * session at beat 0. The one call of the steps below (export --lesson, tests). */
int lesson_check(Lesson *l, Session *s, VizView *view, LessonBeatView *bv, ErrorMsg *err);

/* lesson_check a beat at a time, for a window that draws between beats (a long lesson
 * is seconds of model work). begin forgets the snapshots; each step runs the next beat
 * (its `expect` lines checked) from where the previous step left the session and keeps
 * its snapshot: 1 when beats remain, 0 after the last (the session at the lesson's end;
 * lesson_goto_beat(l, 0, ...) shows the first), -1 with lesson_check's "FILE:LINE:
 * problem" (the snapshots freed). A session changed between two steps is restored from
 * the last snapshot first, so the result is the one call's. done: beats run so far. */
void lesson_check_begin(Lesson *l);
int lesson_check_step(Lesson *l, Session *s, VizView *view, LessonBeatView *bv, ErrorMsg *err);
size_t lesson_check_done(const Lesson *l);

/* What the replay has done since the cache was (re)built: for tests that hold the
 * "work in proportion to the beat" promise without timing anything. */
typedef struct LessonReplayStats {
    long directives_applied;   /* lesson lines run */
    long restores;             /* beats shown from a snapshot */
    long branch_copies;        /* token arrays stored (unchanged branches are shared) */
} LessonReplayStats;
LessonReplayStats lesson_replay_stats(const Lesson *l);

#endif
