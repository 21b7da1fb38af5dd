/* check_model.h — the reference tiny model (tests/reference/models/tiny, 2 layers of 4
 * heads) loaded the way most model tests begin. Not a fixture framework: one helper. */
#ifndef CHECK_MODEL_H
#define CHECK_MODEL_H

#include <stdio.h>

#include "check.h"
#include "gpt2_model.h"

/* Writes the tiny model's folder into dir and loads it into m (zeroed first). Returns 0,
 * or -1 after a failed check naming the problem (m is then empty). */
static inline int check_load_tiny(Gpt2Model *m, char *dir, size_t cap) {
    ErrorMsg err = {{0}};
    snprintf(dir, cap, "%s/models/tiny", check_ref_dir());
    *m = (Gpt2Model){0};
    int rc = gpt2_model_load(m, dir, &err);
    CHECK(rc == 0, "load tiny: %s", err.text);
    return rc;
}

#endif
