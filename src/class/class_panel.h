/* class_panel.h — what the class panel draws (viz/class_view.h's VizClass), made from a
 * class room and the session's model: the room copied under the server's lock (who
 * answered, the round's guesses tallied by token, the truth, the score, the top
 * students), then the model's side from the session (its favourites with the class's
 * votes, the class's other picks with the model's p and rank, both entropies). One
 * maker for the window (src/app/app_class.c) and `inferscope class`'s export. */
#ifndef CLASS_PANEL_H
#define CLASS_PANEL_H

#include "class_server.h"
#include "frame.h"
#include "session.h"

typedef struct ClassPanel {
    VizClass view;                        /* what the panel draws; its pointers point here */
    VizClassRow rows[VIZ_CLASS_ROWS_MAX];
    char names[VIZ_CLASS_NAMES_MAX][CLASS_TEXT_MAX + 1];
    const char *name_ptr[VIZ_CLASS_NAMES_MAX];
    int name_right[VIZ_CLASS_NAMES_MAX];
    int *tally_id, *tally_n; /* (max_students) owned scratch: the round's tokens and votes */
    int *right;              /* (max_students) owned scratch: right answers per student */
    int max_students;
} ClassPanel;

/* Scratch for a room of max_students. -1 with err on no memory (*p safe to free). */
int class_panel_init(ClassPanel *p, int max_students, ErrorMsg *err);
/* Frees; safe on a zeroed ClassPanel. */
void class_panel_free(ClassPanel *p);

/* Fills p->view from the room (taking srv's lock; srv NULL: the room is not served, no
 * lock) and the session s (read: no job may be running on it). game: the game of the
 * next round (shown while none is open); names_on: the top students by nickname;
 * with_logits 0: the model's p of the class's other picks and its entropy are left out
 * (something else reads the trace now). url, code and the QR modules are borrowed. */
void class_panel_fill(ClassPanel *p, ClassServer *srv, const ClassRoom *room, Session *s, ClassGame game,
                      int names_on, int with_logits, const char *url, const char *code, const unsigned char *qr,
                      int qr_size);

#endif
