/* session_internal.h — the steps session.c shares with the files that hold the rest of
 * the Session's operations (session_ablation.c, session_restore.c). Not for callers
 * outside src/session/session*.c: they use session.h, which keeps the Session's rules
 * (one path, redo rows, records in step with the trace). */
#ifndef SESSION_INTERNAL_H
#define SESSION_INTERNAL_H

#include "session.h"

/* Milliseconds on a monotonic clock (differences only). */
double session_now_ms(void);

/* A branch's buffers: free (then zeroed), or grown to at least cap tokens (0 / -1). */
void session_branch_free(SessionBranch *b);
int session_branch_reserve(SessionBranch *b, int cap);

/* The record of the pending draw (s->next) from the newest logits. */
void session_compute_next(Session *s);

/* Both records up to date, or (inside a batch) marked for the batch end. */
void session_refresh_records(Session *s);

/* Row q of the trace was (re)written: forget remembered picks after it. */
void session_picks_forget_after(Session *s, int q);

/* The pending salt for position n_pos: the branch's if it already has that position. */
void session_sync_pending_salt(Session *s);

/* After a forward pass: -1 (err says model.safetensors changed on disk since the load,
 * or names the damaged tensor, or the overflow) unless the weights file is the one
 * loaded and the newest logits are all finite. */
int session_check_forward(Session *s, ErrorMsg *err);

/* Token id at the current position: from the redo rows when the trace still holds it
 * there, else one forward step; the records follow. */
int session_forward_one(Session *s, int id, ErrorMsg *err);

#endif
