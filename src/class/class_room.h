/* class_room.h — the class room as a plain struct: who joined (device tokens, nicknames),
 * the rounds (open, revealed, with the true token and the model's numbers), and every
 * guess. Pure: no network, no clock, no randomness (the caller brings the device token
 * and the room code), so each rule is tested directly (tests/test_class_room.c). The HTTP
 * layer (class_http.c) and the teacher's commands call these under one lock.
 * Nothing here touches the disk: the room lives and dies in memory. */
#ifndef CLASS_ROOM_H
#define CLASS_ROOM_H

#include <stddef.h>
#include <stdint.h>

#include "class_text.h"
#include "error.h"
#include "tokenizer.h"

#define CLASS_CODE_LEN 4            /* digits of the room code */
#define CLASS_DEVICE_LEN 32         /* hex digits of a device token (128 random bits) */
#define CLASS_MAX_STUDENTS 300      /* default room size (--class-max-students) */
#define CLASS_MAX_STUDENTS_LIMIT 2000
#define CLASS_MAX_ROUNDS 1000       /* a lesson plays a handful; a class period a few dozen */
#define CLASS_CONTEXT_MAX 2048      /* bytes of the text so far kept (its tail) for the page */

typedef enum ClassGame {
    CLASS_GAME_TEXT = 0,  /* guess the next token of a real text */
    CLASS_GAME_MODEL = 1, /* guess the token the model will pick (its seeded dice) */
} ClassGame;

typedef enum ClassPhase {
    CLASS_PHASE_WAITING = 0,  /* no round yet */
    CLASS_PHASE_OPEN = 1,     /* the current round takes guesses */
    CLASS_PHASE_REVEALED = 2, /* the current round's truth is shown */
} ClassPhase;

typedef struct ClassStudent {
    char device[CLASS_DEVICE_LEN + 1]; /* hex, the cookie's value */
    char nick[CLASS_TEXT_MAX + 1];     /* "" = none, or cleared by the teacher */
} ClassStudent;

typedef struct ClassGuess {
    int student;        /* index into ClassRoom.students */
    ClassGuessToken g;  /* what was typed, as encoded, and its first token */
} ClassGuess;

typedef struct ClassRound {
    ClassGame game;
    int pos;            /* the position in the text whose token is guessed */
    ClassGuess *guesses;/* (n_guesses) in arrival order; owned */
    int n_guesses, cap;
    int truth;          /* the true token, -1 until revealed */
    double model_p;     /* the model's p(truth) at T = 1 (revealed rounds) */
    int model_top;      /* the model's most likely token (revealed rounds) */
} ClassRound;

typedef struct ClassRoom {
    char code[CLASS_CODE_LEN + 1];  /* the room code, digits */
    int locked;                     /* 1: no new joins */
    int max_students;
    ClassStudent *students;         /* (max_students) owned; [0, n_students) joined */
    int n_students;
    ClassRound *rounds;             /* (CLASS_MAX_ROUNDS) owned; [0, n_rounds) played,
                                     * the last is the current one */
    int n_rounds;
    ClassPhase phase;
    uint8_t context[CLASS_CONTEXT_MAX + 1]; /* the text so far (its tail), NUL after */
    size_t context_len;
    Tokenizer *tok;                 /* borrowed: the model's tokenizer (guesses) */
    size_t n_vocab;                 /* V for the scores */
} ClassRoom;

/* Sets up an empty room with the given code (CLASS_CODE_LEN digits) and size
 * (1..CLASS_MAX_STUDENTS_LIMIT). -1 with err on a bad code/size or no memory. */
int class_room_init(ClassRoom *r, Tokenizer *tok, size_t n_vocab, const char *code, int max_students,
                    ErrorMsg *err);
/* Frees everything; safe on a zeroed room. */
void class_room_free(ClassRoom *r);

/* The student index of a device token, or -1 (a token of the wrong form is unknown). */
int class_room_find(const ClassRoom *r, const char *device);

/* Joins device (CLASS_DEVICE_LEN hex digits, new) with code[0..code_len) and an optional
 * nickname nick[0..nick_len) (empty = none). CLASS_OK with *student set; CLASS_ERR_CODE,
 * LOCKED, FULL, or the nickname's refusal. A device already joined just gets its index
 * (and its new nickname, if one is given). */
ClassError class_room_join(ClassRoom *r, const char *device, const uint8_t *code, size_t code_len,
                           const uint8_t *nick, size_t nick_len, int *student);

/* One guess of device in the open round: CLASS_OK with *out (may be NULL) filled, or
 * NOT_JOINED, NOT_OPEN, ALREADY (one guess per device per round: the first stands), the
 * text's refusal, NOMEM. */
ClassError class_room_guess(ClassRoom *r, const char *device, const uint8_t *text, size_t len,
                            ClassGuessToken *out);

/* The guess of student in the current round, or NULL. */
const ClassGuess *class_room_guess_of(const ClassRoom *r, int student);

/* Opens a new round at position pos of game after context[0..cn) (its last
 * CLASS_CONTEXT_MAX bytes are kept). -1 with err while a round is open or after
 * CLASS_MAX_ROUNDS rounds. */
int class_room_open(ClassRoom *r, ClassGame game, int pos, const uint8_t *context, size_t cn, ErrorMsg *err);
/* Reveals the open round: its true token and the model's p(truth) and top token. -1 with
 * err when no round is open or truth is out of the vocabulary. */
int class_room_reveal(ClassRoom *r, int truth, double model_p, int model_top, ErrorMsg *err);

/* The teacher's controls. */
void class_room_lock(ClassRoom *r, int locked);
void class_room_clear_names(ClassRoom *r);

/* The current round, or NULL before the first. */
static inline const ClassRound *class_room_current(const ClassRoom *r) {
    return r->n_rounds ? &r->rounds[r->n_rounds - 1] : NULL;
}

#endif
