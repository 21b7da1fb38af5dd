/* test_attn_panels.c — the inside-attention panels' frame data (src/session/attn_fill.c),
 * their drawing and their clicks, on the tiny reference model and the s30 sequence:
 *   - attention-math: for every layer, head and query, what the frame hands the panel is
 *     that head and query; its pattern row is the session's traced hook_pattern row bit
 *     for bit; q.k_j, q.k_j / sqrt(d_head) and the softmax, z = sum_j p_j v_j computed
 *     here in float64 from nanoGPT's own q, k, v (tiny_s30 h.{l}.attn.q/k/v) agree within
 *     1e-5; keys after the query are -inf before the softmax and exactly 0 after it; the
 *     row sums to 1; the default query is the newest token; the full layout computes none
 *     of it;
 *   - the panel drawn offscreen: one hit per key row it shows (a = query, b = key), the
 *     masked future keys among them for an earlier query;
 *   - clicks: a heatmap cell asks for its row as the query, ACT_QUERY sets it and refuses
 *     a position that does not exist. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "action.h"
#include "attn_fill.h"
#include "check.h"
#include "check_model.h"
#include "check_canvas.h"
#include "check_session.h"
#include "frame_fill.h"
#include "panel_table.h"
#include "panels.h"
#include "safetensors.h"
#include "session.h"

#define T30 30

static void upd(double *worst, double d) {
    if (!(d <= *worst)) *worst = d != d ? INFINITY : d;
}

/* ---- attention-math: the frame's numbers against the trace and float64 ---- */

static void test_math(Session *s, const SafeFile *vec) {
    const Gpt2Config *cfg = &s->model.config;
    const int L = cfg->n_layer, NH = cfg->n_head, C = cfg->n_embd, HS = C / NH, T = T30;
    double worst_dot = 0, worst_scaled = 0, worst_p64 = 0, worst_trace = 0, worst_sum = 0, worst_z = 0;
    int n_rows = 0, masked_bad = 0, wrong_row = 0;
    for (int l = 0; l < L; l++) {
        char name[64];
        snprintf(name, sizeof name, "h.%d.attn.q", l);
        double *q = check_ref_f64(vec, name, (size_t)T * C); /* (NH, T, HS) */
        snprintf(name, sizeof name, "h.%d.attn.k", l);
        double *k = check_ref_f64(vec, name, (size_t)T * C);
        snprintf(name, sizeof name, "h.%d.attn.v", l);
        double *v = check_ref_f64(vec, name, (size_t)T * C);
        for (int h = 0; q && k && v && h < NH; h++)
            for (int i = 0; i < T; i++) {
                VizView view = frame_default_view();
                view.focus = VIZ_PANEL_ATTN_MATH;
                view.layer = l, view.head = h, view.query = i;
                VizFrame f;
                frame_fill(&f, s, &view);
                const AttnExplain *ex = f.attn_math;
                if (!ex || ex->query != i || ex->layer != l || ex->head != h || f.attn_query != i) {
                    if (wrong_row++ < 3)
                        fprintf(stderr, "  L%dH%d q%d: the frame explains %s\n", l, h, i,
                                ex ? "another head or query" : (f.attn_missing ? f.attn_missing : "nothing"));
                    continue;
                }
                /* float64 (Vaswani et al. eq. 1): s_j = q.k_j / sqrt(d), softmax over j <= i */
                const double *qi = q + ((size_t)h * T + (size_t)i) * HS;
                const double *K = k + (size_t)h * T * HS, *V = v + (size_t)h * T * HS;
                double sc[T30], mx = -INFINITY, sum = 0;
                for (int j = 0; j < T; j++) {
                    double dot = 0;
                    for (int d = 0; d < HS; d++) dot += qi[d] * K[(size_t)j * HS + d];
                    upd(&worst_dot, fabs(ex->dot[j] - dot) / fmax(1.0, fabs(dot))); /* |q.k| reaches ~50 */
                    sc[j] = dot / sqrt((double)HS);
                    upd(&worst_scaled, fabs(ex->scaled[j] - sc[j]));
                    if (j <= i) mx = fmax(mx, sc[j]);
                }
                for (int j = 0; j <= i; j++) sum += exp(sc[j] - mx);
                double z[128] = {0};
                for (int j = 0; j < T; j++) {
                    if (j <= i) {
                        double p = exp(sc[j] - mx) / sum;
                        upd(&worst_scaled, fabs(ex->masked[j] - sc[j]));
                        upd(&worst_p64, fabs(ex->pattern[j] - p));
                        for (int d = 0; d < HS; d++) z[d] += p * V[(size_t)j * HS + d];
                    } else {
                        masked_bad += !(isinf(ex->masked[j]) && ex->masked[j] < 0) || ex->pattern[j] != 0.0f;
                    }
                    upd(&worst_trace, fabs(ex->pattern[j] - check_trace_pattern(&s->trace, l, h, i, j)));
                }
                for (int d = 0; d < HS; d++) upd(&worst_z, fabs(ex->z[d] - z[d]));
                upd(&worst_sum, fabs(ex->pattern_sum - 1.0));
                n_rows++;
            }
        free(q), free(k), free(v);
    }
    printf("  attention-math over %d rows: q.k rel %.3g, q.k/sqrt(d) %.3g, softmax %.3g, z %.3g vs float64; "
           "pattern vs trace %.3g; |sum - 1| %.3g\n",
           n_rows, worst_dot, worst_scaled, worst_p64, worst_z, worst_trace, worst_sum);
    CHECK(wrong_row == 0, "%d rows: the frame does not explain the head and query asked for", wrong_row);
    CHECK(n_rows == L * NH * T, "every layer, head and query: %d rows", n_rows);
    CHECK(worst_dot < 1e-5, "q.k_j = float64 from the reference q, k (relative %.3g)", worst_dot);
    CHECK(worst_scaled < 1e-5, "q.k_j / sqrt(d_head) = float64 from the reference (%.3g)", worst_scaled);
    CHECK(worst_p64 < 1e-5, "softmax = float64 softmax of the reference scores (%.3g)", worst_p64);
    CHECK(worst_z < 1e-5, "z = float64 sum_j p_j v_j from the reference (%.3g)", worst_z);
    CHECK(worst_trace == 0.0, "the pattern row is the traced hook_pattern row exactly (%.3g)", worst_trace);
    CHECK(worst_sum < 1e-6, "every row sums to 1 (%.3g)", worst_sum);
    CHECK(masked_bad == 0, "%d keys after the query are not -inf before the softmax and 0 after it", masked_bad);

    /* the default query is the newest token; a query past the text is the newest too */
    VizView view = frame_default_view();
    view.focus = VIZ_PANEL_ATTN_MATH;
    VizFrame f;
    frame_fill(&f, s, &view);
    CHECK(f.attn_math && f.attn_math->query == T - 1, "default: the newest token");
    view.query = 99;
    frame_fill(&f, s, &view);
    CHECK(f.attn_math && f.attn_math->query == T - 1 && f.view.query == -1, "a query past the text: the newest");
    /* shown with the heatmap beside it; not shown: nothing computed */
    CHECK(viz_panel_shows(VIZ_PANEL_ATTN_MATH, VIZ_PANEL_ATTENTION), "attention-math is shown with the heatmap");
    view.focus = VIZ_PANEL_FRAME;
    frame_fill(&f, s, &view);
    CHECK(!f.attn_math, "the full layout computes none of it");
    view.focus = VIZ_PANEL_LENS;
    frame_fill(&f, s, &view);
    CHECK(!f.attn_math, "nor does another inside panel");
    /* a figure of the panel alone (export): frame_fill_needs computes it */
    frame_fill(&f, s, &view);
    frame_fill_needs(&f, s, viz_panel_row(VIZ_PANEL_ATTN_MATH)->needs);
    CHECK(f.attn_math && f.attn_math->query == T - 1, "frame_fill_needs fills it for a figure");
}

/* ---- drawn offscreen: the rows and their hits ---- */

static void test_draw(Session *s) {
    const int T = session_len(s);
    static VizHits hits;
    for (int n = 0; n < CHECK_N_LOOKS; n++) {
        const CanvasLook *lk = &CHECK_LOOKS[n];
        Canvas c;
        if (canvas_open(&c, lk->w, lk->h, lk->ui, lk->th)) return;
        for (int q = T - 1; q >= T - 8; q -= 7) {
            VizView view = frame_default_view();
            view.focus = VIZ_PANEL_ATTN_MATH;
            view.layer = 1, view.head = 2, view.query = q;
            view.print = 1;
            VizFrame f;
            check_draw_panel(&c, lk, s, &view, VIZ_PANEL_ATTN_MATH, &f, &hits);
            int rows = 0, query_row = 0, future = 0, bad = 0;
            for (int k = 0; k < hits.n; k++) {
                const VizHit *h = &hits.hit[k];
                if (h->kind != VIZ_HIT_ATTN_CELL) continue;
                rows++;
                bad += h->a != q || h->b < 0 || h->b >= T;
                query_row += h->b == q;
                future += h->b > q;
                VizClick ck = viz_panel_click(VIZ_PANEL_ATTN_MATH, h, 0);
                bad += ck.kind != VIZ_CLICK_HIGHLIGHT_TOKEN || ck.a != h->b || ck.b != -1;
            }
            CHECK(rows >= 2 && query_row == 1 && bad == 0, "%dx%d @%.1f query %d: %d key rows (the query's among "
                  "them: %d), %d bad hits", lk->w, lk->h, (double)lk->ui, q, rows, query_row, bad);
            if (q < T - 1) CHECK(future >= 1, "query %d: a masked future key is drawn (%d)", q, future);
        }
        canvas_close(&c);
    }
}

/* ---- clicks and the query action ---- */

static void test_query_action(Session *s) {
    VizHit cell = {.r = {0, 0, 4, 4}, .kind = VIZ_HIT_ATTN_CELL, .a = 7, .b = 3};
    VizClick c = viz_panel_click(VIZ_PANEL_ATTENTION, &cell, 0);
    CHECK(c.kind == VIZ_CLICK_HIGHLIGHT_TOKEN && c.a == 3 && c.b == 7, "a heatmap cell: key %d outlined, query %d",
          c.a, c.b);
    VizView view = frame_default_view();
    ErrorMsg err = {{0}};
    Action a = {.kind = ACT_QUERY, .n = 5};
    CHECK(action_apply(s, &view, &a, &err) == 0 && view.query == 5, "query 5: %s", err.text);
    a.n = session_len(s);
    CHECK(action_apply(s, &view, &a, &err) == -1 && view.query == 5 && strstr(err.text, "query"),
          "query past the text refused: %s", err.text);
    a.n = -1;
    CHECK(action_apply(s, &view, &a, &err) == 0 && view.query == -1, "query -1: the newest again");
    CHECK(strcmp(action_name(ACT_QUERY), "query") == 0, "named 'query'");
}

int main(void) {
    Session s;
    SafeFile vec;
    if (check_open_tiny_s30(&s, &vec) == 0) {
        test_math(&s, &vec);
        test_draw(&s);
        test_query_action(&s);
    }
    safe_close(&vec);
    session_free(&s);
    return check_summary("test_attn_panels");
}
