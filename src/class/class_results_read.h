/* class_results_read.h — a class-rounds-NNNN.json (class_results.h writes it) read back,
 * for the handout of a lesson played with a class (`export --lesson --handout
 * --class-results FILE`). The file comes from disk, so it is checked like any input: a
 * regular file of at most CLASS_RESULTS_MAX_BYTES, exactly one JSON value, the fields of
 * the writer's format with their types and ranges; anything else is a one-line error
 * naming the file and the field. Token texts are kept as written (UTF-8; the handout
 * escapes them for its format and shows control characters as \xNN). */
#ifndef CLASS_RESULTS_READ_H
#define CLASS_RESULTS_READ_H

#include "error.h"

#define CLASS_RESULTS_MAX_BYTES (8u << 20)
#define CLASS_RESULTS_MAX_ROUNDS 10000
#define CLASS_RESULTS_MAX_TOKEN 256 /* bytes of one token's text (GPT-2's longest is 128) */

typedef struct ClassResultRound {
    int round;          /* 1, 2, ... as the room numbered them */
    int model_game;     /* 1: guess the model's pick; 0: guess the text */
    int guesses;        /* how many students answered */
    char *truth;        /* owned: the token that came, or NULL when the round was not revealed */
    int scored;         /* 1: the class's figures below are present (revealed, >= 1 guess) */
    int right;          /* students who guessed the truth */
    double class_top1;  /* right / guesses */
    double class_bits;  /* the class's smoothed log-loss on the truth, bits */
    int has_model;      /* 1: the model's figures below are present (revealed) */
    double model_p;     /* the model's probability of the truth */
    char *model_top;    /* owned: the model's top-1 token */
    int model_hit;      /* 1: the model's top-1 was the truth */
} ClassResultRound;

typedef struct ClassResults {
    ClassResultRound *round; /* (n) owned */
    int n;
    char *smoothing;         /* owned: how the class's guesses became a distribution */
    /* the running score over the scored rounds */
    int rounds;
    long guesses, right;
    double class_top1, class_bits, model_top1, model_bits;
} ClassResults;

/* Reads path into *out (zeroed first). -1 with err ("PATH: rounds[3].guesses: ...");
 * then *out holds nothing. */
int class_results_read(const char *path, ClassResults *out, ErrorMsg *err);

/* Frees everything; safe on a zeroed value. */
void class_results_free(ClassResults *r);

#endif
