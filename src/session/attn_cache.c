/* attn_cache.c — the lifetime of the inside-attention panels' data (attn_cache.h). */
#include "attn_cache.h"

#include <stdlib.h>

AttnFill *attn_fill_new(void) { return calloc(1, sizeof(AttnFill)); }

void attn_fill_free(AttnFill *a) {
    if (!a) return;
    attn_explain_free(&a->ex);
    head_probe_free(&a->probe);
    head_scores_free(&a->scores);
    free(a->lines);
    free(a);
}

