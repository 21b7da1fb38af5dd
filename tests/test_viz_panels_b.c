/* test_viz_panels_b.c — the attention and probability panels, headless (dummy video
 * driver + software renderer) on the reference tiny model:
 *   - heatmap cells have exactly the colour viridis(pattern) of the REFERENCE pattern
 *     (vectors/tiny_s4.safetensors, h.{i}.attn.probs), masked cells are grey (never
 *     viridis(0)), hide_sink rescales by the max over keys >= 1, hover outlines a cell;
 *   - hit regions: one per visible cell (a = query, b = key), one per head thumbnail,
 *     one per probability bar (a = token id, b = rank);
 *   - state changes change the picture (layer, head, hide_sink, temperature, top-k,
 *     greedy, hover, question card, highlight);
 *   - 1024 positions (synthetic trace) are max-pooled: a pooled cell shows the max;
 *   - the probability panel's text blocks never overlap or leave the panel, alone and
 *     inside the whole frame, from 800×450 to 3840×2160 at UI scale 1 – 2.5;
 *   - print figures (view.print) carry no interaction hints;
 *   - golden images (tests/golden/panel_*.png; INFERSCOPE_UPDATE_GOLDEN=1 rewrites). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "check_canvas.h"
#include "colormap.h"
#include "frame_fill.h"
#include "golden.h"
#include "offscreen.h"
#include "panel_probs_layout.h"
#include "panels.h"
#include "safetensors.h"
#include "session.h"
#include "viz.h"

#define W 1280
#define H 720


typedef int (*PanelFn)(Viz *, Rect, const VizFrame *, VizHits *);

/* Draws one panel filling the canvas and reads the pixels back; returns the draw rc. */
static int render(Canvas *c, PanelFn fn, const VizFrame *f, VizHits *hits) {
    if (hits) hits->n = 0;
    viz_clear_error(&c->viz);
    int rc = fn(&c->viz, rect_make(0, 0, c->w, c->h), f, hits);
    if (rc != 0) fprintf(stderr, "draw error: %s\n", c->viz.last_error.text);
    ErrorMsg err = {{0}};
    CHECK(offscreen_read_rgba(&c->off, c->px, offscreen_rgba_size(c->w, c->h), &err) == 0, "read back: %s",
          err.text);
    return rc;
}

static SDL_Color pixel(const Canvas *c, int x, int y) {
    const uint8_t *p = c->px + ((size_t)y * (size_t)c->w + (size_t)x) * 4;
    return (SDL_Color){p[0], p[1], p[2], p[3]};
}

static int same_color(SDL_Color a, SDL_Color b, int tol) {
    return abs(a.r - b.r) <= tol && abs(a.g - b.g) <= tol && abs(a.b - b.b) <= tol;
}

/* A copy of the pixels, to compare two renders. */
static uint8_t *snapshot(const Canvas *c) {
    size_t n = offscreen_rgba_size(c->w, c->h);
    uint8_t *s = malloc(n);
    if (s) memcpy(s, c->px, n);
    return s;
}

static size_t pixels_differing(const Canvas *c, const uint8_t *snap) {
    size_t n = (size_t)c->w * (size_t)c->h, d = 0;
    for (size_t i = 0; i < n; i++)
        if (memcmp(c->px + i * 4, snap + i * 4, 4) != 0) d++;
    return d;
}

static const VizHit *find_hit(const VizHits *h, VizHitKind kind, int a, int b) {
    for (int i = 0; i < h->n; i++)
        if (h->hit[i].kind == kind && h->hit[i].a == a && h->hit[i].b == b) return &h->hit[i];
    return NULL;
}

static int count_hits(const VizHits *h, VizHitKind kind) {
    int n = 0;
    for (int i = 0; i < h->n; i++) n += h->hit[i].kind == kind;
    return n;
}

static Session sess;
static VizHits hits;

/* ---- attention --------------------------------------------------------------- */

static void test_attention_reference(Canvas *c) {
    /* s4 = "Once upon a time": the reference file holds the true patterns */
    char path[600];
    snprintf(path, sizeof path, "%s/vectors/tiny_s4.safetensors", check_ref_dir());
    SafeFile ref;
    ErrorMsg err = {{0}};
    if (safe_open(&ref, path, &err) != 0) {
        CHECK(0, "%s", err.text);
        return;
    }
    static const uint8_t PROMPT[] = "Once upon a time";
    CHECK(session_set_prompt(&sess, PROMPT, sizeof PROMPT - 1, &err) == 0, "prompt: %s", err.text);
    VizView view = frame_default_view();
    VizFrame f;
    for (int layer = 0; layer < 2; layer++) {
        for (int head = 0; head < 4; head += 3) {
            view.layer = layer;
            view.head = head;
            frame_fill(&f, &sess, &view);
            CHECK(render(c, draw_attention_panel, &f, &hits) == 0, "draw L%d H%d", layer, head);
            char name[64];
            snprintf(name, sizeof name, "h.%d.attn.probs", layer);
            const SafeTensor *t = safe_find(&ref, name);
            CHECK(t && t->dtype == SAFE_F32 && t->ndim == 3 && t->shape[1] == 4, "%s in the reference", name);
            if (!t) continue;
            int bad = 0, masked_bad = 0;
            for (int q = 0; q < 4; q++) {
                for (int k = 0; k < 4; k++) {
                    const VizHit *hq = find_hit(&hits, VIZ_HIT_ATTN_CELL, q, 0);
                    const VizHit *hk = find_hit(&hits, VIZ_HIT_ATTN_CELL, k, k);
                    if (!hq || !hk) {
                        bad++;
                        continue;
                    }
                    /* the cell's top-left interior pixel: clear of the centred number */
                    int x = hk->r.x + 1, y = hq->r.y + 1;
                    SDL_Color got = pixel(c, x, y);
                    if (k > q) {
                        /* masked: grey (r = g = b), far from viridis(0) */
                        SDL_Color v0 = colormap_sample(COLORMAP_VIRIDIS, 0.0f);
                        if (!(got.r == got.g && got.g == got.b) || same_color(got, v0, 40)) masked_bad++;
                        CHECK(find_hit(&hits, VIZ_HIT_ATTN_CELL, q, k) == NULL, "no hit on masked (%d,%d)", q, k);
                        continue;
                    }
                    float want_v;
                    memcpy(&want_v, t->data + (((size_t)head * 4 + (size_t)q) * 4 + (size_t)k) * 4, 4);
                    SDL_Color want = colormap_sample(COLORMAP_VIRIDIS, want_v);
                    if (!same_color(got, want, 1)) {
                        bad++;
                        fprintf(stderr, "L%d H%d (%d,%d): ref %.6f want %d,%d,%d got %d,%d,%d\n", layer, head, q, k,
                                (double)want_v, want.r, want.g, want.b, got.r, got.g, got.b);
                    }
                }
            }
            CHECK(bad == 0, "L%d H%d: %d cells differ from viridis(reference pattern)", layer, head, bad);
            CHECK(masked_bad == 0, "L%d H%d: %d masked cells not neutral grey", layer, head, masked_bad);
            CHECK(count_hits(&hits, VIZ_HIT_ATTN_CELL) == 10, "4 tokens: 10 visible cells, got %d",
                  count_hits(&hits, VIZ_HIT_ATTN_CELL));
            CHECK(count_hits(&hits, VIZ_HIT_HEAD_THUMB) == 8, "2 layers x 4 heads of thumbnails");
            CHECK(find_hit(&hits, VIZ_HIT_HEAD_THUMB, 1, 3) != NULL, "thumbnail L1 H3");
        }
    }
    safe_close(&ref);
}

static void test_attention_states(Canvas *c) {
    ErrorMsg err = {{0}};
    static const uint8_t PROMPT[] = "Once upon a time there was a little girl";
    CHECK(session_set_prompt(&sess, PROMPT, sizeof PROMPT - 1, &err) == 0, "prompt: %s", err.text);
    session_set_seed(&sess, 7);
    SamplerSettings set = {.temperature = 0.8f, .top_k = 5, .top_p = 0.95f, .repetition_penalty = 1.0f};
    CHECK(session_set_settings(&sess, &set, &err) == 0, "settings: %s", err.text);
    for (int i = 0; i < 3; i++) CHECK(session_step(&sess, &err) == 0, "step: %s", err.text);
    int T = session_len(&sess);
    VizView view = frame_default_view();
    view.layer = 1;
    view.head = 2;
    VizFrame f;
    frame_fill(&f, &sess, &view);
    CHECK(render(c, draw_attention_panel, &f, &hits) == 0, "draw");
    CHECK(golden_compare(c->px, c->w, c->h, "tests/golden/panel_attention.png", 2) == 0, "attention golden");
    CHECK(count_hits(&hits, VIZ_HIT_ATTN_CELL) == T * (T + 1) / 2, "%d tokens: one hit per visible cell", T);
    uint8_t *base = snapshot(c);
    if (!base) return;

    /* the selected thumbnail is outlined in the accent colour just outside it */
    const VizHit *th = find_hit(&hits, VIZ_HIT_HEAD_THUMB, 1, 2);
    CHECK(th && same_color(pixel(c, th->r.x - 2, th->r.y + th->r.h / 2), c->viz.theme->accent, 0),
          "selected thumbnail outlined");

    struct {
        const char *what;
        int layer, head, hide_sink, mx, my;
    } cases[] = {{"another layer", 0, 2, 0, -1, -1}, {"another head", 1, 0, 0, -1, -1},
                 {"hide_sink", 1, 2, 1, -1, -1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        view.layer = cases[i].layer;
        view.head = cases[i].head;
        view.hide_sink = cases[i].hide_sink;
        frame_fill(&f, &sess, &view);
        render(c, draw_attention_panel, &f, &hits);
        CHECK(pixels_differing(c, base) > 1000, "%s changes the picture (%zu px)", cases[i].what,
              pixels_differing(c, base));
    }

    /* hide_sink: a cell with k >= 1 is coloured by value / max over keys >= 1 */
    view.layer = 1;
    view.head = 2;
    view.hide_sink = 1;
    frame_fill(&f, &sess, &view);
    render(c, draw_attention_panel, &f, &hits);
    float *sq = malloc(sizeof(float) * (size_t)T * (size_t)T);
    if (sq) {
        gpt2_trace_copy_pattern(&sess.trace, 1, 2, sq);
        float vmax = 0;
        for (int q = 1; q < T; q++)
            for (int k = 1; k <= q; k++) vmax = sq[q * T + k] > vmax ? sq[q * T + k] : vmax;
        int q = T - 1, k = T / 2;
        const VizHit *hq = find_hit(&hits, VIZ_HIT_ATTN_CELL, q, k);
        SDL_Color want = colormap_sample(COLORMAP_VIRIDIS, sq[q * T + k] / vmax);
        CHECK(hq && same_color(pixel(c, hq->r.x + 1, hq->r.y + 1), want, 1),
              "hide_sink: cell (%d,%d) = viridis(%.4f / %.4f)", q, k, (double)sq[q * T + k], (double)vmax);
        CHECK(vmax < 1.0f, "the tiny model's max over keys >= 1 is below 1 (%.4f)", (double)vmax);
        free(sq);
    }

    /* hover: the hovered cell gets a highlight outline just outside it */
    view.hide_sink = 0;
    frame_fill(&f, &sess, &view);
    render(c, draw_attention_panel, &f, &hits);
    const VizHit *cell = find_hit(&hits, VIZ_HIT_ATTN_CELL, 5, 2);
    if (cell) {
        view.mouse_x = cell->r.x + cell->r.w / 2;
        view.mouse_y = cell->r.y + cell->r.h / 2;
        frame_fill(&f, &sess, &view);
        render(c, draw_attention_panel, &f, &hits);
        CHECK(pixels_differing(c, base) > 500, "hover changes the picture");
        CHECK(same_color(pixel(c, cell->r.x - 1, cell->r.y + cell->r.h / 2), c->viz.theme->highlight, 0),
              "hovered cell outlined in the highlight colour");
        CHECK(golden_compare(c->px, c->w, c->h, "tests/golden/panel_attention_hover.png", 2) == 0,
              "hover golden");
    } else {
        CHECK(0, "hit for cell (5,2)");
    }
    free(base);
}

/* 1024 positions: a synthetic trace with a previous-token head. The heatmap is
 * max-pooled (4×4 positions per cell) so the one-cell-wide line stays visible. */
static void test_attention_many(Canvas *c) {
    Gpt2Config cfg = sess.model.config;
    cfg.n_positions = 1024;
    Gpt2Trace tr;
    ErrorMsg err = {{0}};
    if (gpt2_trace_init(&tr, &cfg, 1024, 0, &err) != 0) {
        CHECK(0, "trace: %s", err.text);
        return;
    }
    int T = 1024;
    size_t P = (size_t)T * (T + 1) / 2;
    for (int l = 0; l < cfg.n_layer; l++)
        for (int h = 0; h < cfg.n_head; h++) {
            float *base = tr.pattern + ((size_t)l * (size_t)cfg.n_head + (size_t)h) * P;
            for (int q = 0; q < T; q++) {
                float *row = base + gpt2_tri_row((size_t)q);
                for (int k = 0; k <= q; k++) row[k] = 0.2f / (float)(q + 1);
                row[q > 0 ? q - 1 : 0] += 0.8f; /* previous-token head */
            }
        }
    for (int i = 0; i < T; i++) tr.ids[i] = 100 + i % 500;
    tr.n_pos = T;
    VizView view = frame_default_view();
    VizFrame f = {0};
    f.cfg = &cfg;
    f.tok = &sess.tok;
    f.trace = &tr;
    f.ids = tr.ids;
    f.n_pos = T;
    f.view = view;
    CHECK(render(c, draw_attention_panel, &f, &hits) == 0, "draw 1024 positions");
    canvas_dump(c, "INFERSCOPE_DUMP_DIR", "attention_1024.png");
    int rows = count_hits(&hits, VIZ_HIT_ATTN_CELL);
    CHECK(rows == 256, "pooled to 256 rows of hits (b = -1), got %d", rows);
    const VizHit *r100 = find_hit(&hits, VIZ_HIT_ATTN_CELL, 400, -1);
    CHECK(r100 != NULL, "row hit for bucket 100 (queries 400..403)");
    if (r100) {
        /* bucket (100, 99) holds k = q-1 for q = 400: its max is 0.8 + 0.2/401 */
        int cw = r100->r.h; /* square cells */
        int x = r100->r.x + 99 * r100->r.w / 256 + cw / 2, y = r100->r.y + r100->r.h / 2;
        SDL_Color want = colormap_sample(COLORMAP_VIRIDIS, 0.8f + 0.2f / 401.0f);
        CHECK(same_color(pixel(c, x, y), want, 2), "pooled diagonal cell shows the max (got %d,%d,%d)",
              pixel(c, x, y).r, pixel(c, x, y).g, pixel(c, x, y).b);
    }
    gpt2_trace_free(&tr);
}

/* ---- probabilities ------------------------------------------------------------ */

static void test_probs_layout_sizes(const SamplerRecord *peaked);

static void test_probs_session(Canvas *c) {
    VizView view = frame_default_view();
    VizFrame f;
    frame_fill(&f, &sess, &view);
    CHECK(f.rec != NULL, "a pending draw");
    if (!f.rec) return;
    CHECK(render(c, draw_probs_panel, &f, &hits) == 0, "draw probs");
    CHECK(golden_compare(c->px, c->w, c->h, "tests/golden/panel_probs_tiny.png", 2) == 0, "probs golden (tiny)");
    CHECK(count_hits(&hits, VIZ_HIT_PROB_BAR) == 15, "15 bars, got %d", count_hits(&hits, VIZ_HIT_PROB_BAR));
    int ok = 1;
    for (int i = 0; i < 15; i++) ok &= find_hit(&hits, VIZ_HIT_PROB_BAR, f.rec->rows[i].id, i) != NULL;
    CHECK(ok, "bar hits carry (token id, rank)");
    uint8_t *base = snapshot(c);
    if (!base) return;

    ErrorMsg err = {{0}};
    SamplerSettings hot = {.temperature = 1.6f, .top_k = 5, .top_p = 0.95f, .repetition_penalty = 1.0f};
    session_set_settings(&sess, &hot, &err);
    frame_fill(&f, &sess, &view);
    render(c, draw_probs_panel, &f, &hits);
    CHECK(pixels_differing(c, base) > 300, "temperature changes the picture");
    SamplerSettings k10 = {.temperature = 0.8f, .top_k = 10, .top_p = 0.95f, .repetition_penalty = 1.0f};
    session_set_settings(&sess, &k10, &err);
    frame_fill(&f, &sess, &view);
    render(c, draw_probs_panel, &f, &hits);
    CHECK(pixels_differing(c, base) > 300, "top-k changes the picture");
    SamplerSettings greedy = {.temperature = 0.8f, .greedy = 1, .repetition_penalty = 1.0f};
    session_set_settings(&sess, &greedy, &err);
    frame_fill(&f, &sess, &view);
    render(c, draw_probs_panel, &f, &hits);
    CHECK(pixels_differing(c, base) > 300, "greedy changes the picture");
    canvas_dump(c, "INFERSCOPE_DUMP_DIR", "probs_greedy.png");
    free(base);
}

/* A peaked distribution (the tiny model's is flat): synthetic logits through the real
 * sampler, so the bars show a real shape and the cut falls inside the shown rows. */
static void test_probs_peaked(Canvas *c) {
    int V = sess.model.config.vocab_size;
    float *logits = malloc(sizeof(float) * (size_t)V);
    Sampler smp = {0};
    ErrorMsg err = {{0}};
    if (!logits || sampler_init(&smp, V, &err) != 0) {
        CHECK(0, "setup: %s", err.text);
        free(logits);
        return;
    }
    for (int i = 0; i < V; i++) logits[i] = -6.0f + 0.5f * (float)((i * 7919) % 1000) / 1000.0f;
    /* " the", " a", " time", " day", " little", " big", " girl", " dog" */
    const int ids[] = {262, 257, 640, 1110, 1310, 1263, 2576, 3290};
    const float lg[] = {7.0f, 6.4f, 5.6f, 5.1f, 4.3f, 3.9f, 3.0f, 2.5f};
    for (int i = 0; i < 8; i++) logits[ids[i]] = lg[i];
    SamplerSettings set = {.temperature = 0.8f, .top_k = 40, .top_p = 0.9f, .repetition_penalty = 1.0f};
    SamplerRecord rec;
    CHECK(sampler_run(&smp, &set, logits, NULL, 0, 0.62, 20, &rec, &err) == 0, "sampler: %s", err.text);
    CHECK(rec.kept_after_p < 8 && rec.kept_after_p >= 2, "top-p cuts inside the shown rows (%d)", rec.kept_after_p);

    VizView view = frame_default_view();
    view.top_n = 12;
    VizFrame f;
    frame_fill(&f, &sess, &view);
    f.rec = &rec;
    f.view.top_n = 12;
    CHECK(render(c, draw_probs_panel, &f, &hits) == 0, "draw peaked");
    CHECK(golden_compare(c->px, c->w, c->h, "tests/golden/panel_probs_peaked.png", 2) == 0, "probs golden (peaked)");
    /* the chosen row is tinted and outlined; a cut row's label is in the cut colour */
    const VizHit *chosen = find_hit(&hits, VIZ_HIT_PROB_BAR, rec.chosen.id, rec.chosen.rank);
    CHECK(chosen && same_color(pixel(c, chosen->r.x, chosen->r.y + chosen->r.h / 2), c->viz.theme->accent, 0),
          "chosen row outlined in the accent colour");
    uint8_t *base = snapshot(c);
    if (base) {
        f.view.highlight_bar = 2;
        render(c, draw_probs_panel, &f, &hits);
        const VizHit *second = find_hit(&hits, VIZ_HIT_PROB_BAR, rec.rows[1].id, 1);
        CHECK(second && same_color(pixel(c, second->r.x + 1, second->r.y + second->r.h / 2),
                                   c->viz.theme->highlight, 0),
              "highlight_bar 2 outlines rank 2");
        f.view.highlight_bar = 0;
        f.view.hide_probs = 1;
        f.question = "Which word comes after \"Once upon a\"?";
        render(c, draw_probs_panel, &f, &hits);
        canvas_dump(c, "INFERSCOPE_DUMP_DIR", "probs_question.png");
        CHECK(count_hits(&hits, VIZ_HIT_PROB_BAR) == 0, "question card: no bars to click");
        CHECK(pixels_differing(c, base) > 5000, "question card hides the bars");
        free(base);
    }
    /* print-resolution render at 2x: no error, bars scale */
    Canvas big;
    if (canvas_open(&big, 2 * W, 2 * H, 2.0f, THEME_DARK) == 0) {
        f.view.hide_probs = 0;
        CHECK(render(&big, draw_probs_panel, &f, &hits) == 0, "2x dark probs");
        canvas_dump(&big, "INFERSCOPE_DUMP_DIR", "probs_2x_dark.png");
        const VizHit *b0 = find_hit(&hits, VIZ_HIT_PROB_BAR, rec.rows[0].id, 0);
        CHECK(b0 && b0->r.h >= 40, "2x rows are tall (%d px)", b0 ? b0->r.h : 0);
        frame_fill(&f, &sess, &view);
        view.hide_sink = 1;
        frame_fill(&f, &sess, &view);
        CHECK(render(&big, draw_attention_panel, &f, &hits) == 0, "2x dark attention");
        canvas_dump(&big, "INFERSCOPE_DUMP_DIR", "attention_2x_dark_sink.png");
    }
    canvas_close(&big);
    test_probs_layout_sizes(&rec);
    sampler_free(&smp);
    free(logits);
}


/* ---- layout at every size ------------------------------------------------------ */

/* Checks one probability-panel layout in panel rect r: every text block inside r, no
 * two overlapping, rows at least PROBS_MIN_ROW_PX tall, the chosen token named when it
 * has no bar. Returns the number of problems (each printed). */
static int check_probs_layout(Viz *viz, Rect r, const VizFrame *f, const char *what) {
    ProbsLayout L;
    if (probs_panel_layout(viz, r, f, &L) != 0) {
        fprintf(stderr, "%s: no layout\n", what);
        return 1;
    }
    if (L.too_small) { /* title + message only; counted by the caller */
        fprintf(stderr, "%s: too small for one bar\n", what);
        return 0;
    }
    Rect box[16];
    const char *name[16];
    int n = 0;
    box[n] = L.title, name[n++] = "title";
    if (L.subtitle.h > 0) box[n] = L.subtitle, name[n++] = "subtitle";
    for (int i = 0; i < PROBS_LEGEND_ITEMS; i++)
        if (L.legend_item[i].w > 0) box[n] = L.legend_item[i], name[n++] = L.legend_text[i];
    box[n] = (Rect){L.rows.x, L.rows.y, L.rows.w, L.rows.h + L.axis.h}, name[n++] = "rows+axis";
    for (int i = 0; i < L.n_summary; i++) box[n] = L.summary[i], name[n++] = L.summary_text[i];
    if (L.strip.h > 0) box[n] = L.strip, name[n++] = "strip";
    int bad = 0;
    for (int i = 0; i < n; i++) {
        Rect in = rect_intersect(box[i], r);
        if (box[i].w > 0 && box[i].h > 0 && (in.w != box[i].w || in.h != box[i].h)) {
            fprintf(stderr, "%s: '%s' (%d,%d %dx%d) leaves the panel (%d,%d %dx%d)\n", what, name[i], box[i].x,
                    box[i].y, box[i].w, box[i].h, r.x, r.y, r.w, r.h);
            bad++;
        }
        for (int j = i + 1; j < n; j++) {
            Rect o = rect_intersect(box[i], box[j]);
            if (o.w > 0 && o.h > 0) {
                fprintf(stderr, "%s: '%s' overlaps '%s'\n", what, name[i], name[j]);
                bad++;
            }
        }
    }
    if (L.row_h < viz_px(viz, PROBS_MIN_ROW_PX)) {
        fprintf(stderr, "%s: rows %d px, below one line of text\n", what, L.row_h);
        bad++;
    }
    int named = 0;
    for (int i = 0; i < L.n_summary; i++) named |= L.summary_is_chosen[i];
    if (f->rec->chosen.rank >= L.shown && !named) {
        fprintf(stderr, "%s: the chosen token (rank %d) has no bar and no line\n", what, f->rec->chosen.rank + 1);
        bad++;
    }
    return bad;
}

/* Renders the whole frame and the probability panel alone at window sizes from
 * 800×450 to 3840×2160 and UI scales 1 – 2.5, for a record with its chosen token
 * among "all other" (the tiny model's flat distribution) and one cut inside the rows. */
static void test_probs_layout_sizes(const SamplerRecord *peaked) {
    static const int sizes[][2] = {{800, 450}, {960, 540}, {1280, 720}, {1920, 1080}, {2560, 1440}, {3840, 2160}};
    static const float scales[] = {1.0f, 1.5f, 2.0f, 2.5f};
    Canvas big;
    if (canvas_open(&big, 3840, 2160, 1.0f, THEME_LIGHT) != 0) return;
    /* T = 1, no cut: the tiny model's flat distribution draws far down the ranks */
    SamplerSettings flat = {.temperature = 1.0f, .top_k = 0, .top_p = 1.0f, .repetition_penalty = 1.0f};
    ErrorMsg serr = {{0}};
    CHECK(session_set_settings(&sess, &flat, &serr) == 0, "settings: %s", serr.text);
    VizView view = frame_default_view();
    VizFrame f;
    frame_fill(&f, &sess, &view);
    int checked = 0, problems = 0, frames_bad = 0, with_probs = 0;
    for (int rec_i = 0; rec_i < 2; rec_i++) {
        frame_fill(&f, &sess, &view);
        if (rec_i == 1) f.rec = peaked;
        if (!f.rec) continue;
        for (size_t si = 0; si < sizeof scales / sizeof scales[0]; si++) {
            ErrorMsg err = {{0}};
            CHECK(viz_set_scale(&big.viz, scales[si], 1.0f, &err) == 0, "scale %.1f: %s", (double)scales[si], err.text);
            for (size_t zi = 0; zi < sizeof sizes / sizeof sizes[0]; zi++) {
                char what[96];
                Rect r = rect_make(0, 0, sizes[zi][0], sizes[zi][1]);
                viz_clear_error(&big.viz);
                hits.n = 0;
                if (draw_frame(&big.viz, r, &f, &hits) != 0 || big.viz.has_error) {
                    fprintf(stderr, "frame %dx%d at %.1f: %s\n", r.w, r.h, (double)scales[si], big.viz.last_error.text);
                    frames_bad++;
                }
                for (int i = 0; i < hits.n; i++) {
                    if (hits.hit[i].kind != VIZ_HIT_PANEL || hits.hit[i].a != VIZ_PANEL_PROBS) continue;
                    snprintf(what, sizeof what, "%s record, frame %dx%d, scale %.1f", rec_i ? "peaked" : "tiny", r.w,
                             r.h, (double)scales[si]);
                    problems += check_probs_layout(&big.viz, hits.hit[i].r, &f, what);
                    checked++;
                    with_probs++;
                }
                viz_clear_error(&big.viz);
                if (draw_probs_panel(&big.viz, r, &f, NULL) != 0) frames_bad++;
                snprintf(what, sizeof what, "%s record, panel %dx%d, scale %.1f", rec_i ? "peaked" : "tiny", r.w, r.h,
                         (double)scales[si]);
                problems += check_probs_layout(&big.viz, r, &f, what);
                checked++;
            }
        }
    }
    CHECK(frames_bad == 0, "%d draws failed across sizes and scales", frames_bad);
    CHECK(problems == 0, "%d layout problems in %d probability-panel layouts", problems, checked);
    CHECK(with_probs == 48, "every frame (6 sizes x 4 scales x 2 records) has a probability panel, got %d",
          with_probs);
    /* the tiny model's draw really is among "all other" at 1280×720, so the chosen
     * line and the mass line both had to find room */
    ErrorMsg err = {{0}};
    viz_set_scale(&big.viz, 1.0f, 1.0f, &err);
    frame_fill(&f, &sess, &view);
    ProbsLayout L;
    if (f.rec && probs_panel_layout(&big.viz, rect_make(720, 8, 552, 462), &f, &L) == 0) {
        CHECK(f.rec->chosen.rank >= L.shown, "tiny record: chosen rank %d beyond the bars", f.rec->chosen.rank + 1);
        CHECK(L.n_summary == 2, "1280x720 frame: both summary lines kept (%d)", L.n_summary);
    }
    canvas_close(&big);
}

/* Print figures: no "click to show", no "Hover a cell"; the window keeps them. The
 * pixels that change must all lie in the two hint lines. */
static void test_print_hints(Canvas *c) {
    VizView view = frame_default_view();
    VizFrame f;
    frame_fill(&f, &sess, &view);
    render(c, draw_attention_panel, &f, &hits);
    const VizHit *t0 = find_hit(&hits, VIZ_HIT_HEAD_THUMB, 0, 0);
    uint8_t *win = snapshot(c);
    if (!win || !t0) {
        CHECK(0, "setup");
        free(win);
        return;
    }
    f.view.print = 1;
    CHECK(render(c, draw_attention_panel, &f, &hits) == 0, "print attention");
    canvas_dump(c, "INFERSCOPE_DUMP_DIR", "attention_print.png");
    /* the hints live in the side column (the thumbnails' title, the readout under the
     * legend): the heatmap, its labels and the title row stay the same */
    int side_x = t0->r.x - viz_px(&c->viz, 60);
    size_t in_hints = 0, elsewhere = 0;
    for (int y = 0; y < c->h; y++)
        for (int x = 0; x < c->w; x++) {
            size_t i = ((size_t)y * (size_t)c->w + (size_t)x) * 4;
            if (memcmp(c->px + i, win + i, 4) == 0) continue;
            if (x >= side_x && y >= t0->r.y - 3 * viz_line_height(&c->viz, VIZ_FONT_SANS, VIZ_TEXT_SMALL)) in_hints++;
            else elsewhere++;
        }
    CHECK(in_hints > 200, "print mode rewrites the hint lines (%zu px)", in_hints);
    CHECK(elsewhere == 0, "print mode changes nothing but the hint lines (%zu px elsewhere)", elsewhere);
    /* the question card: "press → to reveal" only in the window */
    f.view.hide_probs = 1;
    f.view.print = 0;
    render(c, draw_probs_panel, &f, &hits);
    memcpy(win, c->px, offscreen_rgba_size(c->w, c->h));
    f.view.print = 1;
    render(c, draw_probs_panel, &f, &hits);
    CHECK(pixels_differing(c, win) > 100, "print question card drops the key hint");
    free(win);
}

static void test_empty(Canvas *c) {
    VizFrame f;
    memset(&f, 0, sizeof f);
    f.view = frame_default_view();
    CHECK(render(c, draw_attention_panel, &f, &hits) == 0, "attention with no data draws a message");
    CHECK(render(c, draw_probs_panel, &f, &hits) == 0, "probs with no record draws a message");
    CHECK(hits.n == 0, "no hits without data");
}

int main(void) {
    setenv("SDL_VIDEODRIVER", "dummy", 1);
    setenv("INFERSCOPE_FALLBACK_FONTS", "", 1); /* goldens: the same fonts on every machine */
    setenv("SDL_RENDER_DRIVER", "software", 1);
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        CHECK(0, "SDL_Init: %s", SDL_GetError());
        return check_summary("test_viz_panels_b");
    }
    char model[600];
    snprintf(model, sizeof model, "%s/models/tiny", check_ref_dir());
    ErrorMsg err = {{0}};
    Canvas c;
    if (session_open(&sess, model, "assets/tokenizer", 0, GPT2_CAP_DEFAULT, &err) != 0) {
        CHECK(0, "session_open: %s", err.text);
    } else if (canvas_open(&c, W, H, 1.0f, THEME_LIGHT) == 0) {
        test_attention_reference(&c);
        test_attention_states(&c);
        test_attention_many(&c);
        test_probs_session(&c);
        test_probs_peaked(&c);
        test_print_hints(&c);
        test_empty(&c);
        canvas_close(&c);
    }
    session_free(&sess);
    SDL_Quit();
    return check_summary("test_viz_panels_b");
}
