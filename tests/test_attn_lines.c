/* test_attn_lines.c — the attention-lines panel (BertViz head view) on the tiny reference
 * model and the s30 sequence:
 *   - its row in the panel table (name, needs, I cycles to it after attention-math);
 *   - the frame's lines (src/session/attn_fill.c) against a selection written here from the
 *     traced hook_pattern rows: for every layer, all heads, every query, the 3 strongest keys
 *     of at least 2 % (ties: the lower key), each line's weight the traced weight exactly,
 *     the share they carry in float64; one query alone: every key of at least 1 %; the heads
 *     drawn follow view.lines_heads (0: view.head alone); the full layout computes none;
 *   - ACT_HEADS sets the heads and refuses one the model lacks;
 *   - drawn offscreen at three looks: a hit per token row, the chosen query among them,
 *     a click on one isolates it; in the window the legend names every head, a click
 *     toggles that head;
 *   - exported: the PNG's provenance names the panel, the heads and the query, and reopens
 *     (figure_meta_read + figure_state_apply) to the same view. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "action.h"
#include "attn_fill.h"
#include "check.h"
#include "check_canvas.h"
#include "check_session.h"
#include "check_export.h"
#include "frame_fill.h"
#include "panel_table.h"
#include "panels.h"
#include "safetensors.h"
#include "session.h"

#define T30 30

/* 1 when the frame holds the line (h, q, k) with exactly weight w. */
static int has_line(const VizFrame *f, int h, int q, int k, float w) {
    for (size_t i = 0; i < f->n_attn_lines; i++) {
        const AttnLine *ln = &f->attn_lines[i];
        if (ln->head == h && ln->query == q && ln->key == k) return ln->weight == w;
    }
    return 0;
}

/* The reference selection of one (layer, head, query) row: top_k keys by weight (ties: lower
 * key first) of at least min_w; checks each is in the frame; returns how many, adds their
 * weight to *mass. */
static int expect_row(const VizFrame *f, const Gpt2Trace *tr, int l, int h, int q, int top_k, double min_w,
                      double *mass, int *missing) {
    int taken[T30] = {0}, n = 0;
    for (int t = 0; t < top_k; t++) {
        int best = -1;
        for (int k = 0; k <= q; k++) {
            double w = check_trace_pattern(tr, l, h, q, k);
            if (taken[k] || w < min_w) continue;
            if (best < 0 || w > check_trace_pattern(tr, l, h, q, best)) best = k;
        }
        if (best < 0) break;
        taken[best] = 1;
        n++;
        *mass += check_trace_pattern(tr, l, h, q, best);
        if (!has_line(f, h, q, best, check_trace_pattern(tr, l, h, q, best))) (*missing)++;
    }
    return n;
}

static void test_table(void) {
    CHECK(viz_panel_from_name("attention-lines") == VIZ_PANEL_ATTN_LINES, "named attention-lines");
    const VizPanelRow *r = viz_panel_row(VIZ_PANEL_ATTN_LINES);
    CHECK(r && r->draw == draw_attn_lines_panel && (r->needs & VIZ_NEEDS_ATTN_LINES) && r->inside && r->click,
          "its row: draw, needs, inside, click");
    CHECK(viz_panel_next_inside(VIZ_PANEL_ATTN_MATH) == VIZ_PANEL_ATTN_LINES, "I goes attention-math -> attention-lines");
}

static void test_fill(Session *s) {
    const Gpt2Trace *tr = &s->trace;
    const int T = session_len(s), L = tr->cfg.n_layer, NH = tr->cfg.n_head;
    VizView view = frame_default_view();
    view.focus = VIZ_PANEL_ATTN_LINES;
    view.lines_heads = (1ULL << NH) - 1ULL;
    VizFrame f;
    for (int l = 0; l < L; l++) {
        view.layer = l;
        frame_fill(&f, s, &view);
        CHECK(f.attn_lines != NULL, "layer %d: lines filled (%s)", l, f.attn_missing ? f.attn_missing : "");
        if (!f.attn_lines) continue;
        double mass = 0.0;
        int want = 0, missing = 0;
        for (int h = 0; h < NH; h++)
            for (int q = 0; q < T; q++) want += expect_row(&f, tr, l, h, q, ATTN_LINES_TOP_K, ATTN_LINES_MIN_WEIGHT, &mass, &missing);
        mass /= (double)(NH * T);
        CHECK((size_t)want == f.n_attn_lines && missing == 0, "layer %d: %zu lines, the reference %d, %d missing or "
              "of another weight", l, f.n_attn_lines, want, missing);
        CHECK(fabs(f.lines_res.mass_shown - mass) < 1e-9, "layer %d: share %.9f, float64 %.9f", l,
              f.lines_res.mass_shown, mass);
        int order = 1;
        for (size_t i = 1; i < f.n_attn_lines; i++) order &= f.attn_lines[i - 1].weight <= f.attn_lines[i].weight;
        CHECK(order, "layer %d: weakest first (strong lines drawn on top)", l);
    }
    /* one query alone: every key of at least 1 % of the heads asked for */
    view.layer = 1;
    view.query = 7;
    view.lines_heads = (1ULL << 0) | (1ULL << 2);
    frame_fill(&f, s, &view);
    double mass = 0.0;
    int want = 0, missing = 0, other = 0;
    for (int h = 0; h < NH; h++)
        if ((view.lines_heads >> h) & 1u) want += expect_row(&f, tr, 1, h, 7, T, ATTN_LINES_MIN_WEIGHT_ONE, &mass, &missing);
    for (size_t i = 0; f.attn_lines && i < f.n_attn_lines; i++) other += f.attn_lines[i].query != 7 || f.attn_lines[i].head == 1 || f.attn_lines[i].head == 3;
    CHECK(f.attn_lines && (size_t)want == f.n_attn_lines && missing == 0 && other == 0,
          "query 7, heads 0 and 2: %zu lines, the reference %d (%d missing, %d of another query or head)", f.n_attn_lines,
          want, missing, other);
    CHECK(fabs(f.lines_res.mass_shown - mass / 2.0) < 1e-9, "query 7: share %.9f, float64 %.9f", f.lines_res.mass_shown, mass / 2.0);
    /* no heads asked for: view.head alone */
    view.query = -1;
    view.lines_heads = 0;
    view.head = 3;
    frame_fill(&f, s, &view);
    int heads_bad = 0;
    for (size_t i = 0; f.attn_lines && i < f.n_attn_lines; i++) heads_bad += f.attn_lines[i].head != 3;
    CHECK(f.attn_lines && f.n_attn_lines > 0 && heads_bad == 0, "lines_heads 0: head 3 alone (%d others)", heads_bad);
    view.focus = VIZ_PANEL_FRAME;
    frame_fill(&f, s, &view);
    CHECK(!f.attn_lines, "the full layout computes none of it");
}

static void test_heads_action(Session *s) {
    VizView view = frame_default_view();
    ErrorMsg err = {{0}};
    Action a = {.kind = ACT_HEADS, .heads = 5};
    CHECK(action_apply(s, &view, &a, &err) == 0 && view.lines_heads == 5, "heads 0,2: %s", err.text);
    a.heads = 1ULL << s->model.config.n_head;
    CHECK(action_apply(s, &view, &a, &err) == -1 && view.lines_heads == 5 && strstr(err.text, "does not exist"),
          "a head past the model refused: %s", err.text);
    CHECK(strcmp(action_name(ACT_HEADS), "heads") == 0, "named 'heads'");
}

static void test_draw(Session *s) {
    const int T = session_len(s);
    static VizHits hits;
    for (int n = 0; n < CHECK_N_LOOKS; n++) {
        const CanvasLook *lk = &CHECK_LOOKS[n];
        Canvas c;
        if (canvas_open(&c, lk->w, lk->h, lk->ui, lk->th)) return;
        const int queries[] = {-1, 3, 17};
        for (size_t qi = 0; qi < 3; qi++) {
            int q = queries[qi];
            VizView view = frame_default_view();
            view.focus = VIZ_PANEL_ATTN_LINES;
            view.layer = 1, view.query = q, view.lines_heads = 0xF;
            view.print = 1;
            VizFrame f;
            check_draw_panel(&c, lk, s, &view, VIZ_PANEL_ATTN_LINES, &f, &hits);
            int chips = 0, focus = 0, bad = 0, want = q >= 0 ? q : T - 1;
            for (int k = 0; k < hits.n; k++) {
                const VizHit *h = &hits.hit[k];
                if (h->kind != VIZ_HIT_TOKEN_CHIP) continue;
                chips++;
                focus += h->a == want;
                VizClick ck = viz_panel_click(VIZ_PANEL_ATTN_LINES, h, 0);
                bad += h->a < 0 || h->a >= T || ck.kind != VIZ_CLICK_ISOLATE_QUERY || ck.a != h->a;
            }
            CHECK(chips >= 8 && focus == 2 && bad == 0, "%dx%d @%.1f query %d: %d token hits, the focus in both "
                  "columns (%d), %d bad", lk->w, lk->h, (double)lk->ui, q, chips, focus, bad);
        }
        /* in the window (not print) the legend names every head of the layer, a click toggles it */
        VizView view = frame_default_view();
        view.focus = VIZ_PANEL_ATTN_LINES;
        view.layer = 1, view.head = 2;
        VizFrame f;
        frame_fill(&f, s, &view);
        hits.n = 0;
        draw_panel_figure(&c.viz, rect_make(0, 0, lk->w, lk->h), &f, VIZ_PANEL_ATTN_LINES, &hits);
        int legend = 0, lbad = 0;
        for (int k = 0; k < hits.n; k++) {
            const VizHit *h = &hits.hit[k];
            if (h->kind != VIZ_HIT_HEAD_THUMB) continue;
            VizClick ck = viz_panel_click(VIZ_PANEL_ATTN_LINES, h, 0);
            lbad += h->a != 1 || h->b != legend || ck.kind != VIZ_CLICK_TOGGLE_LINES_HEAD || ck.b != h->b;
            legend++;
        }
        CHECK(legend == s->model.config.n_head && lbad == 0, "%dx%d @%.1f: legend of %d heads (%d bad)", lk->w,
              lk->h, (double)lk->ui, legend, lbad);
        canvas_close(&c);
    }
}

static void test_export(Session *s) {
    char dir[64], path[512];
    snprintf(dir, sizeof dir, "/tmp/test_attn_lines.%d", (int)getpid());
    VizView v = frame_default_view();
    v.layer = 1;
    v.query = 9;
    v.lines_heads = (1ULL << 1) | (1ULL << 3);
    ExportOptions o = check_export_opts(dir, VIZ_PANEL_ATTN_LINES, 960, 540);
    ErrorMsg err = {{0}};
    CHECK(export_png(s, &v, &o, path, sizeof path, &err) == 0, "export: %s", err.text);
    CHECK(strstr(path, "attention-lines-L1") != NULL, "file name %s", path);
    FigureState fs = {0};
    CHECK(figure_meta_read(path, &fs, &err) == 0, "read back: %s", err.text);
    CHECK(fs.panel == VIZ_PANEL_ATTN_LINES && fs.view.layer == 1 && fs.view.query == 9 &&
              fs.view.lines_heads == v.lines_heads, "provenance: panel %d layer %d query %d heads %llx", (int)fs.panel,
          fs.view.layer, fs.view.query, fs.view.lines_heads);
    VizView back = frame_default_view();
    CHECK(figure_state_apply(&fs, s, &back, &err) == 0 && back.lines_heads == v.lines_heads && back.query == 9 &&
              back.layer == 1, "reopened to the same view: %s", err.text);
    figure_state_free(&fs);
    unlink(path);
    rmdir(dir);
}

int main(void) {
    Session s;
    SafeFile vec;
    test_table();
    if (check_open_tiny_s30(&s, &vec) == 0) {
        test_fill(&s);
        test_heads_action(&s);
        test_draw(&s);
        test_export(&s);
    }
    safe_close(&vec);
    session_free(&s);
    return check_summary("test_attn_lines");
}
