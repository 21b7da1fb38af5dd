/* check_session.h — a Session (src/session/session.h) on the bundled model (assets/models/
 * stories16m with the GPT-2 tokenizer, every default view captured), opened the way the
 * app-side tests begin. Not for engine-only tests (it needs the app library). */
#ifndef CHECK_SESSION_H
#define CHECK_SESSION_H

#include "check.h"
#include "session.h"

/* Opens s on the bundled model. Returns 0, or -1 after a failed check naming the problem. */
static inline int check_open_bundled(Session *s) {
    ErrorMsg err = {{0}};
    int rc = session_open(s, "assets/models/stories16m", "assets/tokenizer", 0, GPT2_CAP_DEFAULT, &err);
    CHECK(rc == 0, "bundled model: %s", err.text);
    return rc;
}

#endif
