/* inside_data.c — the lifetime of the inside panels' data (inside_data.h). */
#include "inside_data.h"

#include <stdlib.h>

InsideData *inside_new(void) { return calloc(1, sizeof(InsideData)); }

void inside_free(InsideData *d) {
    if (!d) return;
    logit_lens_free(&d->lens);
    logit_lens_grid_free(&d->grid);
    free(d->strip);
    attribution_free(&d->attr);
    token_journey_free(&d->journey);
    free(d);
}

