/* golden.h — compare rendered pixels with a committed golden PNG, for any headless
 * drawing test: golden_compare(rgba, w, h, "tests/golden/x.png", 2) passes when at
 * least 99.9% of pixels have every channel within tol of the golden (anti-aliasing
 * may move by a level between FreeType builds; layout changes move far more).
 * INFERSCOPE_UPDATE_GOLDEN=1 (re)writes the golden instead — then LOOK at it.
 * On a mismatch the actual image is saved to /tmp/inferscope-golden-<name> for viewing.
 * Include in ONE .c per test program (it carries stb_image's implementation). */
#ifndef GOLDEN_H
#define GOLDEN_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG /* (not STB_IMAGE_STATIC: it leaves undefined static prototypes) */
#include <stb_image.h>

#include "png_write.h"

#define GOLDEN_MIN_MATCH 0.999 /* fraction of pixels that must be within tol */

/* Returns 0 on a match (or after updating), -1 on mismatch / unreadable golden, with
 * one explanatory line on stderr. rgba: tight R,G,B,A rows (pitch w*4). */
static int golden_compare(const uint8_t *rgba, int w, int h, const char *path, int tol) {
    const char *upd = getenv("INFERSCOPE_UPDATE_GOLDEN");
    if (upd && strcmp(upd, "1") == 0) {
        PngWriteOptions opt = {.overwrite = 1};
        PngText t[] = {{"Software", "inferscope golden image"}};
        ErrorMsg err;
        if (png_write_file(path, rgba, w, h, 4, (size_t)w * 4, t, 1, &opt, &err) != 0) {
            fprintf(stderr, "golden: %s\n", err.text);
            return -1;
        }
        fprintf(stderr, "golden: updated %s (%dx%d) - look at it before committing\n", path, w, h);
        return 0;
    }
    int gw = 0, gh = 0, gn = 0;
    unsigned char *g = stbi_load(path, &gw, &gh, &gn, 4);
    int rc = -1;
    if (!g) {
        fprintf(stderr, "golden: %s: cannot read (%s); run with INFERSCOPE_UPDATE_GOLDEN=1 to create\n",
                path, stbi_failure_reason());
    } else if (gw != w || gh != h) {
        fprintf(stderr, "golden: %s is %dx%d, rendered image is %dx%d\n", path, gw, gh, w, h);
    } else {
        size_t n = (size_t)w * (size_t)h, bad = 0, first_bad = n;
        int max_diff = 0;
        for (size_t i = 0; i < n; i++) {
            int worst = 0;
            for (int c = 0; c < 4; c++) {
                int d = abs((int)rgba[i * 4 + c] - (int)g[i * 4 + c]);
                if (d > worst) worst = d;
            }
            if (worst > max_diff) max_diff = worst;
            if (worst > tol) {
                if (first_bad == n) first_bad = i;
                bad++;
            }
        }
        double match = 1.0 - (double)bad / (double)n;
        if (match >= GOLDEN_MIN_MATCH) {
            rc = 0;
        } else {
            fprintf(stderr, "golden: %s: %zu of %zu pixels differ by more than %d (max %d, "
                    "first at x=%zu y=%zu)\n", path, bad, n, tol, max_diff,
                    first_bad % (size_t)w, first_bad / (size_t)w);
        }
    }
    if (rc != 0) {
        const char *base = strrchr(path, '/');
        char actual[512];
        snprintf(actual, sizeof actual, "/tmp/inferscope-golden-%s", base ? base + 1 : path);
        PngWriteOptions opt = {.overwrite = 1};
        ErrorMsg err;
        if (png_write_file(actual, rgba, w, h, 4, (size_t)w * 4, NULL, 0, &opt, &err) == 0)
            fprintf(stderr, "golden: actual image saved as %s\n", actual);
    }
    stbi_image_free(g);
    return rc;
}

#endif
