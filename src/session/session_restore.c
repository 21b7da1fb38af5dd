/* session_restore.c — a session's state as a value (session_get_state) and putting
 * it back (session_restore): the prompt, the branches, the tokens on screen, the
 * settings, seed and pending salt. Rows the trace still holds are kept, the rest are
 * stepped again, so a restore costs only what changed. Used by lesson beats (their
 * snapshots) and by figure replay. */
#include <stdlib.h>
#include <string.h>

#include "session.h"
#include "session_internal.h"

void session_get_state(const Session *s, SessionState *st) {
    *st = (SessionState){.prompt = s->prompt, .prompt_len = s->prompt_len, .branch = s->branch,
                         .n_branches = s->n_branches, .cur = s->cur, .n_pos = s->trace.n_pos,
                         .n_prompt = s->n_prompt, .pending_salt = s->pending_salt,
                         .settings = s->settings, .seed = s->seed};
}

/* 1 if the session already runs st's prompt, with its rows intact from the prefill. */
static int same_prompt(const Session *s, const SessionState *st) {
    if (s->n_branches == 0 || s->n_prompt != st->n_prompt || s->prefill_len != s->n_prompt ||
        s->memo_len < s->n_prompt)
        return 0;
    if (memcmp(s->trace.ids, st->branch[st->cur].ids, (size_t)st->n_prompt * sizeof(int)) != 0) return 0;
    if (!st->prompt) return s->prompt == NULL;
    return s->prompt && s->prompt_len == st->prompt_len && memcmp(s->prompt, st->prompt, st->prompt_len) == 0;
}

/* Replaces the session's branches by deep copies of st's (copied first: st may
 * point into the session itself). */
static int install_branches(Session *s, const SessionState *st, ErrorMsg *err) {
    SessionBranch copy[SESSION_MAX_BRANCHES];
    memset(copy, 0, sizeof copy);
    for (int i = 0; i < st->n_branches; i++) {
        const SessionBranch *from = &st->branch[i];
        if (session_branch_reserve(&copy[i], from->len + 64)) {
            for (int j = 0; j <= i; j++) session_branch_free(&copy[j]);
            return error_set(err, "out of memory");
        }
        memcpy(copy[i].ids, from->ids, (size_t)from->len * sizeof *from->ids);
        memcpy(copy[i].salt, from->salt, (size_t)from->len * sizeof *from->salt);
        memcpy(copy[i].forced, from->forced, (size_t)from->len);
        copy[i].len = from->len;
    }
    for (int i = 0; i < s->n_branches; i++) session_branch_free(&s->branch[i]);
    memcpy(s->branch, copy, (size_t)st->n_branches * sizeof copy[0]);
    s->n_branches = st->n_branches;
    s->cur = st->cur;
    return 0;
}

int session_restore(Session *s, const SessionState *st, ErrorMsg *err) {
    if (st->n_branches < 1 || st->n_branches > SESSION_MAX_BRANCHES || st->cur < 0 || st->cur >= st->n_branches)
        return error_set(err, "restore: %d branches, current %d: not a session state", st->n_branches, st->cur);
    const SessionBranch *tb = &st->branch[st->cur];
    if (st->n_prompt < 1 || st->n_pos < st->n_prompt || st->n_pos > tb->len || st->n_pos > s->trace.max_pos)
        return error_set(err, "restore: %d tokens on screen do not fit the branch of %d or the context of %d",
                         st->n_pos, tb->len, s->trace.max_pos);
    if (sampler_settings_validate(&st->settings, err)) return -1;
    session_batch_begin(s);
    int rc = 0;
    if (!same_prompt(s, st)) {
        rc = st->prompt ? session_set_prompt(s, st->prompt, st->prompt_len, err)
                        : session_set_prompt_ids(s, tb->ids, (size_t)st->n_prompt, err);
        if (rc == 0 && s->n_prompt != st->n_prompt)
            rc = error_set(err, "restore: the prompt gives %d tokens, the state has %d", s->n_prompt, st->n_prompt);
    }
    if (rc == 0) rc = install_branches(s, st, err);
    if (rc == 0) {
        /* keep the longest prefix the trace still holds (redo rows included), step the rest */
        const int *want = s->branch[s->cur].ids;
        int lim = s->memo_len < st->n_pos ? s->memo_len : st->n_pos, common = 0;
        while (common < lim && s->trace.ids[common] == want[common]) common++;
        if (common < s->trace.n_pos) gpt2_trace_truncate(&s->trace, common);
        for (int p = s->trace.n_pos; p < st->n_pos && rc == 0; p++) rc = session_forward_one(s, want[p], err);
    }
    if (rc == 0) {
        s->settings = st->settings;
        s->seed = st->seed;
        s->pending_salt = st->pending_salt;
    }
    s->stale = 3;
    session_batch_end(s);
    return rc;
}

