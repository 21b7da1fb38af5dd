/* check_model.h — the reference tiny model (tests/reference/models/tiny, 2 layers of 4
 * heads) and its reference files, opened the way most model tests begin. Not a fixture
 * framework: two helpers. */
#ifndef CHECK_MODEL_H
#define CHECK_MODEL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gpt2_model.h"
#include "safetensors.h"

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

/* Opens the reference file check_ref_dir()/rel (a .safetensors: the tiny model's weights
 * or its vectors). Returns 0, or -1 after a failed check naming it. */
static inline int check_open_ref(SafeFile *f, const char *rel) {
    char path[1024];
    ErrorMsg err = {{0}};
    snprintf(path, sizeof path, "%s/%s", check_ref_dir(), rel);
    int rc = safe_open(f, path, &err);
    CHECK(rc == 0, "open %s: %s", rel, err.text);
    return rc;
}

/* A reference tensor as doubles (exactly `numel` F32 values), malloc'd; NULL after a
 * failed check naming what is missing. */
static inline double *check_ref_f64(const SafeFile *f, const char *name, size_t numel) {
    const SafeTensor *t = safe_find(f, name);
    int ok = t && t->dtype == SAFE_F32 && t->nbytes == numel * sizeof(float);
    CHECK(ok, "%s: %s missing or not %zu F32 values", f->path, name, numel);
    double *d = ok ? malloc(numel * sizeof *d) : NULL;
    for (size_t i = 0; d && i < numel; i++) {
        float x;
        memcpy(&x, t->data + 4 * i, 4);
        d[i] = x;
    }
    return d;
}

#endif
