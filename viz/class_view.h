/* class_view.h — what the class panel is given to draw (src/app/app_class.c fills it
 * from the class room under the server's lock, once per poll): the join address, the
 * room code and its QR modules, who answered, the round's guesses tallied by token and
 * set beside the model's favourites, the entropy of each, the truth at reveal, and the
 * running score. Plain values; the panel computes nothing about the model or the class
 * (viz/ draws what it is given). Not the room itself (src/class/class_room.h). */
#ifndef VIZ_CLASS_VIEW_H
#define VIZ_CLASS_VIEW_H

#define VIZ_CLASS_FAVS 8        /* the model's favourites listed (its top tokens) */
#define VIZ_CLASS_ROWS_MAX 16   /* favourites + the class's own picks outside them */
#define VIZ_CLASS_NAMES_MAX 5   /* top students by nickname (only when names are on) */

/* One token of the comparison: a favourite of the model (rank order) or a pick of the
 * class that is not one of them (most votes first). */
typedef struct VizClassRow {
    int id;          /* token id */
    int votes;       /* students whose guess became this token (0: nobody chose it) */
    double model_p;  /* the model's p of it at T = 1 */
    int model_rank;  /* 1-based rank in the model's distribution */
} VizClassRow;

/* The game so far, over the scored (revealed, answered) rounds: class_score.h's means. */
typedef struct VizClassScore {
    int rounds;
    long guesses, right;
    double class_top1, class_bits; /* class: share of right guesses, bits of its smoothed guesses */
    double model_top1, model_bits; /* the model on the same tokens */
} VizClassScore;

typedef struct VizClass {
    const char *url;             /* "http://192.168.1.20:8765/" */
    const char *code;            /* the room code, digits */
    const unsigned char *qr;     /* (qr_size x qr_size) modules of the url, 1 = dark; NULL = none */
    int qr_size;
    int game;                    /* 0 guess the text, 1 guess the model's pick */
    int phase;                   /* 0 no round yet, 1 open, 2 revealed */
    int round;                   /* 1-based number of the current round (0 = none) */
    int answered, joined, max_students;
    int locked;                  /* 1: nobody new may join */
    int truth;                   /* the revealed token, -1 before the reveal */
    int n_right;                 /* guesses equal to the truth (revealed) */
    double class_entropy;        /* bits of the class's guesses (as counted, unsmoothed); < 0 none */
    double model_entropy;        /* bits of the model's distribution at T = 1; < 0 none */
    const VizClassRow *rows;     /* (n_rows): [0, n_fav) the model's favourites by rank,
                                  * then the class's other picks by votes */
    int n_rows, n_fav;
    VizClassScore score;
    int names_on;                /* 1: the teacher shows the top students by nickname */
    const char *const *names;    /* (n_names) nicknames, most right answers first */
    const int *name_right;       /* (n_names) their right answers */
    int n_names;
} VizClass;

#endif
