/* test_thumb_lean.c — the all-heads thumbnails of a lean trace (GPT2_CAP_LEAN keeps no
 * full patterns, only 8x8 block maxima) against the thumbnails of a full trace of the
 * same ids. With 192 positions a thumbnail has 24 cells a side of 8 positions each, so
 * a cell of the full thumbnail is exactly one block's maximum: the two must be the same
 * pixels, with and without the attention-sink scale. A thumbnail of another head must
 * differ (the comparison can fail). */
#include <stdlib.h>
#include <string.h>

#include "attn_heatmap.h"
#include "check.h"
#include "check_canvas.h"
#include "gpt2_forward.h"
#include "gpt2_model.h"
#include "gpt2_trace.h"

enum { SIDE = 120 };

/* Draws one thumbnail on a cleared canvas and reads it back into out (SIDE*SIDE*4). */
static int draw_one(Canvas *c, const Gpt2Trace *tr, int layer, int head, int n_pos, int hide_sink, int lean,
                    uint8_t *out) {
    ErrorMsg err = {{0}};
    SDL_SetRenderDrawColor(c->off.renderer, 255, 255, 255, 255);
    SDL_RenderClear(c->off.renderer);
    Rect r = {4, 4, SIDE - 8, SIDE - 8};
    int rc;
    if (lean) {
        Gpt2HeadBlocks hb;
        rc = gpt2_trace_head_blocks(tr, layer, head, &hb);
        if (rc == 0) rc = attn_draw_thumb_blocks(&c->viz, r, &hb, n_pos, hide_sink);
    } else {
        HeadPattern hp;
        rc = attn_head_pattern(&c->viz, tr, layer, head, &hp);
        hp.n = n_pos;
        if (rc == 0) rc = attn_draw_thumb(&c->viz, r, &hp, hide_sink);
    }
    if (rc == 0) rc = offscreen_read_rgba(&c->off, c->px, c->size, &err);
    if (rc == 0) memcpy(out, c->px, c->size);
    return rc;
}

int main(void) {
    ErrorMsg err = {{0}};
    const Gpt2Config cfg = {.n_layer = 2, .n_head = 3, .n_embd = 96, .n_positions = 200, .vocab_size = 333,
                            .ln_eps = 1e-5f};
    const int T = 192;
    Gpt2Model m = {0};
    Gpt2Trace lean = {0}, full = {0};
    int ids[192];
    for (int i = 0; i < T; i++) ids[i] = (i * 7919 + 13) % cfg.vocab_size;
    int rc = gpt2_model_init_random(&m, &cfg, 5, &err);
    if (rc == 0) rc = gpt2_trace_init(&lean, &cfg, T, GPT2_CAP_LEAN, &err);
    if (rc == 0) rc = gpt2_trace_init(&full, &cfg, T, GPT2_CAP_DEFAULT, &err);
    if (rc == 0) rc = gpt2_prefill(&m, &lean, ids, (size_t)T, &err) || gpt2_prefill(&m, &full, ids, (size_t)T, &err);
    CHECK(rc == 0, "model and traces: %s", err.text);
    Canvas c;
    if (rc == 0 && canvas_open(&c, SIDE, SIDE, 1.0f, THEME_LIGHT) == 0) {
        uint8_t *a = malloc(c.size), *b = malloc(c.size);
        CHECK(a && b, "buffers");
        for (int l = 0; a && b && l < cfg.n_layer; l++)
            for (int h = 0; h < cfg.n_head; h++)
                for (int sink = 0; sink < 2; sink++) {
                    int r1 = draw_one(&c, &full, l, h, T, sink, 0, a), r2 = draw_one(&c, &lean, l, h, T, sink, 1, b);
                    size_t differ = 0;
                    for (size_t i = 0; i < c.size; i++) differ += a[i] != b[i];
                    CHECK(r1 == 0 && r2 == 0 && differ == 0, "L%dH%d hide_sink %d: lean thumbnail differs in %zu bytes",
                          l, h, sink, differ);
                }
        if (a && b) {
            /* the comparison bites: another head's full thumbnail is other pixels */
            draw_one(&c, &full, 1, 1, T, 0, 0, a);
            draw_one(&c, &lean, 1, 2, T, 0, 1, b);
            CHECK(memcmp(a, b, c.size) != 0, "L1H1 and L1H2 thumbnails are the same pixels");
            /* a shorter view (stepping back to 100 positions) draws from the blocks too */
            CHECK(draw_one(&c, &lean, 0, 0, 100, 1, 1, b) == 0, "lean thumbnail of 100 positions");
        }
        free(a);
        free(b);
        canvas_close(&c);
    }
    gpt2_trace_free(&lean);
    gpt2_trace_free(&full);
    gpt2_model_free(&m);
    return check_summary("test_thumb_lean");
}
