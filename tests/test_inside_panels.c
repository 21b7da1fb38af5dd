/* test_inside_panels.c — the numbers the lens, attribution and journey panels draw
 * (VizFrame fields filled by src/session/inside_fill.c for a shown panel) against the float64
 * forward of ref_gpt2_f64.h and against a fresh engine call, on the bundled model; the
 * window's ablation key restoring the original numbers bit for bit; clicks on the
 * attribution bars. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "action.h"
#include "app.h"
#include "check.h"
#include "check_canvas.h"
#include "check_run.h"
#include "session.h"
#include "frame_fill.h"
#include "inside_fill.h"
#include "lesson_run.h"
#include "panels.h"
#include "ref_gpt2_f64.h"

static const char PROMPT[] = "Once upon a time there was a little girl named Lily. She";

/* A frame of session s with panel p enlarged (what the I key shows). */
static void fill_focus(VizFrame *f, const Session *s, VizPanel p) {
    VizView v = frame_default_view();
    v.focus = p;
    frame_fill(f, s, &v);
}

/* Every lens cell of the frame vs the float64 lens of the float64 streams: the top-1 token
 * (or a tie within 1e-4 logits), its probability within 1e-5, the rank of the token that
 * came next (for the newest column: of the strip's target) inside the float64 rank band. */
static void test_lens_cells(Session *s) {
    VizFrame f;
    fill_focus(&f, s, VIZ_PANEL_LENS);
    const LensGrid *g = f.lens;
    CHECK(g != NULL, "lens panel shown: the frame has a grid (%s)", f.inside_missing ? f.inside_missing : "");
    if (!g) return;
    const int T = session_len(s), L = s->model.config.n_layer, C = s->model.config.n_embd;
    const int V = s->model.config.vocab_size;
    CHECK(g->n_pos == T && g->n_rows == L + 1, "grid %d x %d for %d positions, %d layers", g->n_pos, g->n_rows, T, L);
    CHECK(f.lens_strip && f.n_lens_strip == L + 1, "the strip has %d rows", f.n_lens_strip);
    CHECK(f.lens_target == s->next.chosen.id, "the strip ranks the pending pick %d (%d)", s->next.chosen.id,
          f.lens_target);
    Ref64 r;
    double *lg = malloc((size_t)V * sizeof *lg);
    CHECK(lg && ref64_forward(&s->model, session_ids(s), T, NULL, &r) == 0, "float64 forward");
    if (!lg) return;
    int bad_top = 0, bad_p = 0, bad_rank = 0, cells = 0;
    double worst_p = 0;
    for (int pos = 0; pos < T; pos++)
        for (int k = 0; k <= L; k++) {
            const size_t at = (size_t)pos * (size_t)g->n_rows + (size_t)k;
            ref64_unembed(&s->model, r.resid + ((size_t)k * T + pos) * C, lg);
            int lo, hi;
            double p = ref64_prob(lg, V, g->top_id[at], 1e-4, &lo, &hi);
            if (lo != 1) bad_top++;
            double d = fabs(p - g->top_p[at]);
            if (d > worst_p) worst_p = d;
            if (d > 1e-5) bad_p++;
            int fin = pos == T - 1 ? f.lens_target : session_ids(s)[pos + 1];
            int rank = pos == T - 1 ? f.lens_strip[k].target.rank : g->final_rank[at];
            ref64_prob(lg, V, fin, 1e-4, &lo, &hi);
            if (rank < lo || rank > hi) {
                if (bad_rank++ < 3) fprintf(stderr, "  pos %d depth %d: rank %d, float64 %d..%d\n", pos, k, rank, lo, hi);
            }
            if (pos == T - 1) {
                double q = ref64_prob(lg, V, fin, 0, NULL, NULL);
                if (fabs(q - f.lens_strip[k].target.p) > 1e-5) bad_p++;
            }
            cells++;
        }
    CHECK(bad_top == 0, "%d of %d cells: the top token is not the float64 top-1", bad_top, cells);
    CHECK(bad_p == 0, "%d cells: p off the float64 lens by more than 1e-5 (worst %.3g)", bad_p, worst_p);
    CHECK(bad_rank == 0, "%d cells: the rank printed is outside the float64 rank", bad_rank);
    printf("  lens: %d cells vs float64, worst |dp| %.3g\n", cells, worst_p);

    /* the frame's strip is what a fresh engine call gives (to 1e-12: a column computed
     * beside the grid's sums in another order than a cold one) */
    LogitLens lens = {0};
    LensRow rows[64];
    ErrorMsg err;
    CHECK(L + 1 <= 64 && logit_lens_init(&lens, &s->model.config, session_vocab(s), &err) == 0, "lens init");
    int n = logit_lens_at(&lens, &s->model, &s->trace, T - 1, f.lens_target, 0, JOURNEY_TOP, rows, &err);
    CHECK(n == L + 1, "engine lens rows %d", n);
    for (int k = 0; k < n && k < f.n_lens_strip; k++)
        CHECK(rows[k].target.rank == f.lens_strip[k].target.rank &&
                  fabs(rows[k].target.p - f.lens_strip[k].target.p) <= 1e-12 * rows[k].target.p &&
                  rows[k].top_id[0] == f.lens_strip[k].top_id[0],
              "depth %d: the strip is the engine's row (rank %d/%d p %.17g/%.17g top %d/%d)", k, rows[k].target.rank,
              f.lens_strip[k].target.rank, rows[k].target.p, f.lens_strip[k].target.p, rows[k].top_id[0],
              f.lens_strip[k].top_id[0]);
    logit_lens_free(&lens);
    free(lg);
    ref64_free(&r);
}

/* The attribution bars: the frame's components vs the float64 decomposition (within 1e-4),
 * their sum vs the logit (1e-3), and a click on a head's bar selecting that head. */
static void test_attribution(Session *s) {
    VizFrame f;
    fill_focus(&f, s, VIZ_PANEL_ATTRIBUTION);
    const Attribution *a = f.attr;
    CHECK(a != NULL, "attribution shown: the frame has it (%s)", f.inside_missing ? f.inside_missing : "");
    CHECK(viz_panel_shows(VIZ_PANEL_ATTRIBUTION, VIZ_PANEL_ATTENTION), "the attention panel is shown beside it");
    if (!a) return;
    const int T = session_len(s);
    CHECK(a->target == s->next.chosen.id && a->pos == T - 1 && a->vs < 0, "of the pick %d at %d", a->target, a->pos);
    Ref64 r;
    double comp[1 + 64 * 65 + 1];
    CHECK(a->n <= (int)(sizeof comp / sizeof comp[0]), "components fit");
    CHECK(ref64_forward(&s->model, session_ids(s), T, NULL, &r) == 0, "float64 forward");
    double d = attribution64(&s->model, &r, NULL, T - 1, a->target, -1, comp);
    double worst = 0, sum = 0;
    for (int i = 0; i < a->n; i++) {
        double e = fabs(a->comp[i].value - comp[i]);
        if (e > worst) worst = e;
        sum += a->comp[i].value;
    }
    CHECK(worst < 1e-4, "components vs float64: worst %.3g", worst);
    CHECK(fabs(sum - a->total) < 1e-3 && fabs(a->total - d) < 1e-3, "sum %.6f = logit %.6f (float64 %.6f)", sum,
          a->total, d);
    printf("  attribution: %d parts vs float64, worst %.3g; sum %.6f, logit %.6f\n", a->n, worst, sum, a->total);
    ref64_free(&r);

    /* a head's bar: its hit names the head, the panel row turns it into "select that head" */
    Canvas c;
    if (canvas_open(&c, 1280, 720, 1.0f, THEME_LIGHT)) return;
    static VizHits hits;
    hits.n = 0;
    CHECK(draw_panel_figure(&c.viz, rect_make(0, 0, 1280, 720), &f, VIZ_PANEL_ATTRIBUTION, &hits) == 0, "draws");
    int heads = 0, mlps = 0;
    for (int i = 0; i < hits.n; i++) {
        const VizHit *h = &hits.hit[i];
        if (h->kind != VIZ_HIT_ATTR_BAR) continue;
        VizClick k = viz_panel_click(VIZ_PANEL_ATTRIBUTION, h, 0);
        const AttrComponent *ac =
            &a->comp[h->b >= 0 ? attribution_head_index(s->model.config.n_head, h->a, h->b)
                               : attribution_mlp_index(s->model.config.n_head, h->a)];
        if (h->b >= 0) {
            heads++;
            CHECK(k.kind == VIZ_CLICK_SELECT_HEAD && k.a == ac->layer && k.b == ac->head, "head bar %s selects it",
                  ac->name);
            VizClick ks = viz_panel_click(VIZ_PANEL_ATTRIBUTION, h, VIZ_CLICK_SHIFT);
            CHECK(ks.kind == VIZ_CLICK_TOGGLE_ABLATION, "Shift+click on %s switches it off", ac->name);
        } else {
            mlps++;
            CHECK(k.kind == VIZ_CLICK_SELECT_LAYER && k.a == ac->layer && ac->kind == ATTR_MLP, "MLP bar %s", ac->name);
        }
    }
    CHECK(heads > 0 && mlps > 0, "the bars have hits: %d heads, %d MLPs", heads, mlps);
    canvas_close(&c);
}

/* "Why the pick and not B": with view.attr_vs the bars split logit(pick) - logit(B). Each
 * component vs a float64 decomposition and vs `inferscope attribute --target-id A --vs-id B
 * --json` (same weights, same tokens); their sum vs the difference; B = the pick itself
 * falls back to the pick's logit alone; Shift+click on a probability bar asks for it. */
static void test_attribution_vs(Session *s) {
    const int T = session_len(s), pick = s->next.chosen.id;
    int vs = -1;
    for (int i = 0; i < s->next.n && vs < 0; i++)
        if (s->next.rows[i].id != pick) vs = s->next.rows[i].id;
    CHECK(vs >= 0, "a runner-up exists");
    if (vs < 0) return;
    VizView v = frame_default_view();
    ErrorMsg err = {{0}};
    Action act = {.kind = ACT_ATTR_VS, .id = vs};
    CHECK(action_apply(s, &v, &act, &err) == 0 && viz_view_attr_vs(&v) == vs, "ACT_ATTR_VS sets it: %s", err.text);
    Action bad = {.kind = ACT_ATTR_VS, .id = session_vocab(s)};
    CHECK(action_apply(s, &v, &bad, &err) != 0 && strstr(err.text, "vocabulary") && viz_view_attr_vs(&v) == vs,
          "a token outside the vocabulary is refused and changes nothing: %s", err.text);
    v.focus = VIZ_PANEL_ATTRIBUTION;
    VizFrame f;
    frame_fill(&f, s, &v);
    const Attribution *a = f.attr;
    CHECK(a && a->target == pick && a->vs == vs && a->pos == T - 1, "the frame explains %d vs %d", pick, vs);
    if (!a) return;
    Ref64 r;
    double comp[1 + 64 * 65 + 1];
    CHECK(ref64_forward(&s->model, session_ids(s), T, NULL, &r) == 0, "float64 forward");
    double d = attribution64(&s->model, &r, NULL, T - 1, pick, vs, comp);
    double worst = 0, sum = 0;
    for (int i = 0; i < a->n; i++) {
        worst = fmax(worst, fabs(a->comp[i].value - comp[i]));
        sum += a->comp[i].value;
    }
    const float *lg = gpt2_trace_logits(&s->trace, T - 1);
    double diff = lg ? (double)lg[pick] - (double)lg[vs] : NAN;
    CHECK(worst < 1e-4, "vs: components vs float64, worst %.3g", worst);
    CHECK(fabs(sum - a->total) < 1e-5, "vs: the components sum to the difference: %.7f vs %.7f", sum, a->total);
    CHECK(fabs(a->total - diff) < 1e-6 && fabs(a->total - d) < 1e-3,
          "vs: the total is logit(pick) - logit(vs) = %.6f (float64 %.6f)", diff, d);
    printf("  attribution vs: %d parts vs float64, worst %.3g; sum %.7f, difference %.7f\n", a->n, worst, sum, diff);
    ref64_free(&r);

    /* the CLI prints the same numbers */
    char bin[1024], cmd[8192], ids[4096];
    check_cli_bin(bin, sizeof bin);
    size_t len = 0;
    for (int i = 0; i < T; i++) len += (size_t)snprintf(ids + len, sizeof ids - len, i ? ",%d" : "%d", session_ids(s)[i]);
    snprintf(cmd, sizeof cmd, "%s attribute --model assets/models/stories16m --weights f32 --ids %s --target-id %d "
             "--vs-id %d --json 2>/dev/null", bin, ids, pick, vs);
    int st = -1;
    char *out = check_run(cmd, &st);
    cJSON *j = out ? cJSON_Parse(out) : NULL;
    CHECK(st == 0 && j, "attribute --vs-id --json ran (status %d)", st);
    if (j) {
        int n = 0, bad_n = 0;
        double cli_worst = 0;
        for (const cJSON *c = cJSON_GetObjectItem(j, "components")->child; c; c = c->next, n++) {
            if (n >= a->n || strcmp(cJSON_GetObjectItem(c, "name")->valuestring, a->comp[n].name) != 0) {
                bad_n++;
                continue;
            }
            cli_worst = fmax(cli_worst, fabs(cJSON_GetObjectItem(c, "value")->valuedouble - a->comp[n].value));
        }
        CHECK(n == a->n && bad_n == 0, "the CLI lists the same %d parts in the same order (%d, %d differ)", a->n, n,
              bad_n);
        CHECK(cli_worst < 1e-5, "each part equals the CLI's within 1e-5 (worst %.3g)", cli_worst);
        double ct = cJSON_GetObjectItem(j, "total")->valuedouble;
        CHECK(cJSON_GetObjectItem(j, "vs")->valueint == vs && fabs(ct - a->total) < 1e-5,
              "the CLI's total %.7f = the panel's %.7f", ct, a->total);
    }
    cJSON_Delete(j);
    free(out);

    /* drawn: it still has its hits */
    Canvas c;
    if (canvas_open(&c, 1280, 720, 1.0f, THEME_LIGHT) == 0) {
        static VizHits hits;
        hits.n = 0;
        CHECK(draw_panel_figure(&c.viz, rect_make(0, 0, 1280, 720), &f, VIZ_PANEL_ATTRIBUTION, &hits) == 0, "vs draws");
        int bars = 0;
        for (int i = 0; i < hits.n; i++) bars += hits.hit[i].kind == VIZ_HIT_ATTR_BAR;
        CHECK(bars > 0, "vs: %d bars to click", bars);
        canvas_close(&c);
    }
    /* the pick itself as the contrast: the pick's logit alone */
    Action self = {.kind = ACT_ATTR_VS, .id = pick};
    CHECK(action_apply(s, &v, &self, &err) == 0, "vs = the pick: %s", err.text);
    frame_fill(&f, s, &v);
    CHECK(f.attr && f.attr->vs < 0 && lg && fabs(f.attr->total - lg[pick]) < 1e-6,
          "vs = the pick: its logit alone (%.6f)", f.attr ? f.attr->total : 0.0);
    /* Shift+click on a probability bar: compare with its token; a plain click takes it */
    VizHit h = {.kind = VIZ_HIT_PROB_BAR, .a = vs, .b = 1};
    VizClick k = viz_panel_click(VIZ_PANEL_PROBS, &h, VIZ_CLICK_SHIFT), k0 = viz_panel_click(VIZ_PANEL_PROBS, &h, 0);
    CHECK(k.kind == VIZ_CLICK_ATTR_VS && k.a == vs && k0.kind == VIZ_CLICK_FORCE_TOKEN, "Shift+click a bar: vs %d",
          k.a);
}

static void press(AppState *app, SDL_Keycode k, Uint16 mod) {
    AppInput in = {.kind = APP_INPUT_KEY, .key = k, .mod = mod};
    app_update(app, &in);
}

/* The window: X switches the head shown off (banner, KL, the original's p beside the bars),
 * Shift+X back on restores the logits and the bars bit for bit; I walks the inside panels. */
static void test_window_ablation(void) {
    AppOptions opt = app_default_options();
    opt.model_dir = "assets/models/stories16m";
    opt.tok_dir = "assets/tokenizer";
    opt.assets_dir = "assets";
    opt.prompt = PROMPT;
    opt.prompt_given = 1;
    static AppState app;
    memset(&app, 0, sizeof app);
    ErrorMsg err = {{0}};
    if (app_init(&app, &opt, &err)) {
        CHECK(0, "app_init: %s", err.text);
        return;
    }
    Session *s = &app.session;
    const int T = session_len(s), V = s->model.config.vocab_size;
    float *before = malloc((size_t)V * sizeof *before);
    SamplerRecord *rec = malloc(sizeof *rec);
    if (!before || !rec) return;
    memcpy(before, gpt2_trace_logits(&s->trace, T - 1), (size_t)V * sizeof *before);
    memcpy(rec, &s->next, sizeof *rec);
    app.view.layer = 1;
    app.view.head = 2;
    press(&app, SDLK_x, KMOD_NONE);
    VizFrame f;
    frame_fill(&f, s, &app.view);
    CHECK(gpt2_ablation_is_off(&s->trace.ablation, GPT2_ABL_HEAD, 1, 2) && s->trace.ablation.n_off == 1,
          "X switched L1H2 off");
    CHECK(f.ablated && strcmp(f.ablated, "1.2") == 0, "the banner names it: '%s'", f.ablated ? f.ablated : "(null)");
    CHECK(f.ablation_kl > 0 && f.p_orig, "KL %.4g and the original's p are in the frame", f.ablation_kl);
    if (f.p_orig) CHECK(fabs(f.p_orig[0] - rec->rows[0].p_raw) < 1e-12 || rec->rows[0].id != s->next.rows[0].id,
                        "p_orig of the top row is the original p %.9g (%.9g)", rec->rows[0].p_raw, f.p_orig[0]);
    CHECK(memcmp(before, gpt2_trace_logits(&s->trace, T - 1), (size_t)V * sizeof *before) != 0,
          "the ablated logits differ");
    press(&app, SDLK_x, KMOD_LSHIFT);
    frame_fill(&f, s, &app.view);
    CHECK(s->trace.ablation.n_off == 0 && (!f.ablated || !f.ablated[0]) && !f.p_orig, "Shift+X: all back on");
    CHECK(memcmp(before, gpt2_trace_logits(&s->trace, T - 1), (size_t)V * sizeof *before) == 0,
          "the logits are bit for bit the original's");
    int same = s->next.n == rec->n && s->next.chosen.id == rec->chosen.id;
    for (int i = 0; same && i < rec->n; i++)
        same = s->next.rows[i].id == rec->rows[i].id && s->next.rows[i].p_raw == rec->rows[i].p_raw &&
               s->next.rows[i].p_final == rec->rows[i].p_final;
    CHECK(same, "the bars are bit for bit the original's");
    /* X twice on the same head: off, then on again, the same numbers */
    press(&app, SDLK_x, KMOD_NONE);
    press(&app, SDLK_x, KMOD_NONE);
    CHECK(s->trace.ablation.n_off == 0 &&
              memcmp(before, gpt2_trace_logits(&s->trace, T - 1), (size_t)V * sizeof *before) == 0,
          "X twice restores the original");
    /* I: lens -> attribution -> (the rest) -> the full layout */
    press(&app, SDLK_i, KMOD_NONE);
    CHECK(app.view.focus == VIZ_PANEL_LENS, "I shows the lens (%d)", (int)app.view.focus);
    press(&app, SDLK_i, KMOD_NONE);
    CHECK(app.view.focus == VIZ_PANEL_ATTRIBUTION, "I again: attribution");
    press(&app, SDLK_i, KMOD_NONE);
    CHECK(app.view.focus == VIZ_PANEL_JOURNEY, "I again: journey");
    for (int k = 0; k < VIZ_PANEL_COUNT && app.view.focus != VIZ_PANEL_FRAME; k++) press(&app, SDLK_i, KMOD_NONE);
    CHECK(app.view.focus == VIZ_PANEL_FRAME, "I after the last: the full layout");
    /* V: why the pick and not the runner-up (the attribution enlarged); V again: none */
    int runner = s->next.rows[0].id != s->next.chosen.id ? s->next.rows[0].id : s->next.rows[1].id;
    press(&app, SDLK_v, KMOD_NONE);
    CHECK(viz_view_attr_vs(&app.view) == runner && app.view.focus == VIZ_PANEL_ATTRIBUTION,
          "V: vs the runner-up %d (%d), attribution shown", runner, viz_view_attr_vs(&app.view));
    press(&app, SDLK_v, KMOD_NONE);
    CHECK(viz_view_attr_vs(&app.view) == -1, "V again: the pick's logit alone");
    free(before);
    free(rec);
    app_free(&app);
}

static double norm64(const double *x, int C) {
    double s = 0;
    for (int i = 0; i < C; i++) s += x[i] * x[i];
    return sqrt(s);
}

/* The journey's lengths vs the float64 streams (relative 1e-4), its shapes, its top-1. */
static void test_journey(Session *s) {
    VizFrame f;
    fill_focus(&f, s, VIZ_PANEL_JOURNEY);
    const TokenJourney *j = f.journey;
    CHECK(j != NULL, "journey shown: the frame has it (%s)", f.inside_missing ? f.inside_missing : "");
    if (!j) return;
    const int T = session_len(s), L = s->model.config.n_layer, C = s->model.config.n_embd;
    CHECK(j->pos == T - 1 && j->n_pos == T && j->n_stages == L + 3, "pos %d, T %d, %d stages", j->pos, j->n_pos,
          j->n_stages);
    Ref64 r;
    CHECK(ref64_forward(&s->model, session_ids(s), T, NULL, &r) == 0, "float64 forward");
    const size_t TC = (size_t)T * (size_t)C, at = (size_t)(T - 1) * (size_t)C;
    double worst = 0;
    for (int b = -1; b < L; b++) {
        const JourneyStage *st = &j->stage[b + 1];
        double want[3] = {norm64(r.resid + (size_t)(b + 1) * TC + at, C), 0, 0};
        double got[3] = {st->norm, st->attn_norm, st->mlp_norm};
        if (b >= 0) {
            want[1] = norm64(r.attn_out + (size_t)b * TC + at, C);
            want[2] = norm64(r.mlp_out + (size_t)b * TC + at, C);
        }
        for (int k = 0; k < 3; k++) {
            double e = fabs(got[k] - want[k]) / (want[k] > 1 ? want[k] : 1);
            if (e > worst) worst = e;
        }
    }
    CHECK(worst < 1e-4, "journey norms vs float64: worst relative %.3g", worst);
    char shape[32];
    snprintf(shape, sizeof shape, "[T, %d]", C);
    CHECK(strcmp(j->stage[1].out_shape, shape) == 0, "block 0 leaves %s (%s)", shape, j->stage[1].out_shape);
    CHECK(j->stage[L + 2].top_id[0] == s->next.rows[0].id, "the logits' top-1 is the bars' first");
    printf("  journey: %d stages vs float64, worst relative %.3g\n", j->n_stages, worst);
    ref64_free(&r);
}

/* A lesson's `ablate`: in force from its line on, restored exactly when a beat is shown
 * again out of order (the snapshot keeps it), `ablate none` gives the original logits. */
static void test_lesson_ablate(Session *s) {
    static const char TEXT[] = "title t\nmodel bundled\nprompt Once upon a\npanel lens\n"
                               "expect lens \" time\" 1 <= 1\ncaption whole\npause\n"
                               "ablate 0.mlp\nexpect attribution L0.mlp <= 0\nexpect attribution L0.mlp >= 0\n"
                               "caption off\npause\nablate none\nexpect next \" time\"\ncaption on\n";
    Lesson l;
    ErrorMsg err = {{0}};
    CHECK(lesson_parse(&l, "t.lesson", TEXT, strlen(TEXT), &err) == 0, "parses: %s", err.text);
    VizView v = frame_default_view();
    LessonBeatView bv;
    CHECK(lesson_check(&l, s, &v, &bv, &err) == 0, "runs (the claims hold): %s", err.text);
    const int V = s->model.config.vocab_size;
    float *orig = malloc((size_t)V * sizeof *orig);
    if (!orig) return;
    memcpy(orig, gpt2_trace_logits(&s->trace, session_len(s) - 1), (size_t)V * sizeof *orig);
    CHECK(s->trace.ablation.n_off == 0 && v.focus == VIZ_PANEL_LENS, "beat 1: the whole model, the lens");
    CHECK(lesson_goto_beat(&l, 1, s, &v, &bv, &err) == 0 && gpt2_ablation_is_off(&s->trace.ablation, GPT2_ABL_MLP, 0, 0),
          "beat 2: block 0's MLP off (%s)", err.text);
    CHECK(lesson_goto_beat(&l, 0, s, &v, &bv, &err) == 0 && s->trace.ablation.n_off == 0 &&
              memcmp(orig, gpt2_trace_logits(&s->trace, session_len(s) - 1), (size_t)V * sizeof *orig) == 0,
          "back to beat 1: nothing off, the logits bit for bit (%s)", err.text);
    CHECK(lesson_goto_beat(&l, 1, s, &v, &bv, &err) == 0 && s->trace.ablation.n_off == 1, "beat 2 again: off");
    CHECK(lesson_goto_beat(&l, 2, s, &v, &bv, &err) == 0 && s->trace.ablation.n_off == 0 &&
              memcmp(orig, gpt2_trace_logits(&s->trace, session_len(s) - 1), (size_t)V * sizeof *orig) == 0,
          "beat 3 (ablate none): the original logits bit for bit");
    lesson_free(&l);
    /* a part the model lacks: FILE:LINE */
    static const char BAD[] = "title t\nmodel bundled\nprompt Once upon a\nablate 7.mlp\ncaption x\n";
    CHECK(lesson_parse(&l, "b.lesson", BAD, strlen(BAD), &err) == 0, "parses (checked when run)");
    CHECK(lesson_check(&l, s, &v, &bv, &err) == -1 && strstr(err.text, "b.lesson:4:") && strstr(err.text, "blocks 0..3"),
          "7.mlp: %s", err.text);
    CHECK(strstr(err.text, "b.lesson:4: ablate 7.mlp: '7.mlp': block 7") && !strstr(err.text, "--ablate"),
          "the lesson line, not the CLI flag, is named: %s", err.text);
    lesson_free(&l);
    free(orig);
}

/* A long text: only the newest 64 columns are computed, and they equal a full grid's. */
static void test_lens_window(Session *s) {
    char text[4096] = "";
    for (int i = 0; i < 12; i++) strcat(text, "Once upon a time there was a little girl. ");
    ErrorMsg err = {{0}};
    CHECK(session_set_prompt(s, (const uint8_t *)text, strlen(text), &err) == 0, "long prompt: %s", err.text);
    const int n = session_len(s);
    VizFrame f;
    fill_focus(&f, s, VIZ_PANEL_LENS);
    const LensGrid *g = f.lens;
    CHECK(n > 64 && g && g->n_pos == n && g->from_done == n - 64, "%d tokens: columns from %d", n, g ? g->from_done : -1);
    if (!g) return;
    LogitLens lens = {0};
    LensGrid full = {0};
    CHECK(logit_lens_init(&lens, &s->model.config, session_vocab(s), &err) == 0 &&
              logit_lens_grid_init(&full, &s->model.config, s->trace.max_pos, 0, &err) == 0 &&
              logit_lens_grid_update(&lens, &full, &s->model, &s->trace, &err) == n,
          "full grid: %s", err.text);
    int diff = 0;
    for (int p = 0; p < n; p++)
        for (int k = 0; k < g->n_rows; k++) {
            size_t at = (size_t)p * (size_t)g->n_rows + (size_t)k;
            if (p < g->from_done) diff += g->top_id[at] != -1 || g->final_rank[at] != 0;
            else diff += g->top_id[at] != full.top_id[at] || g->final_rank[at] != full.final_rank[at] ||
                         g->top_p[at] != full.top_p[at];
        }
    CHECK(diff == 0, "%d cells differ from the full grid (or are not placeholders)", diff);
    /* one more token: one column more, the window moves on */
    CHECK(session_step(s, &err) == 0, "step");
    fill_focus(&f, s, VIZ_PANEL_LENS);
    CHECK(f.lens && f.lens->n_pos == n + 1 && f.lens->from_done == n - 64, "after a step: %d columns",
          f.lens ? f.lens->n_pos : -1);
    logit_lens_grid_free(&full);
    logit_lens_free(&lens);
}

/* Not shown, not computed: the whole layout asks for no lens. */
static void test_only_when_shown(Session *s) {
    VizFrame f;
    fill_focus(&f, s, VIZ_PANEL_FRAME);
    CHECK(f.lens == NULL && f.attr == NULL && f.journey == NULL, "the full layout computes no inside data");
    fill_focus(&f, s, VIZ_PANEL_PROBS);
    CHECK(f.lens == NULL, "probs enlarged: no lens");
}

/* The panel draws at both ends of the size range without an error. */
static void test_draw(Session *s, VizPanel p) {
    Canvas c;
    if (canvas_open(&c, 1280, 720, 1.0f, THEME_LIGHT)) return;
    VizFrame f;
    fill_focus(&f, s, p);
    CHECK(draw_panel_figure(&c.viz, rect_make(0, 0, 1280, 720), &f, p, NULL) == 0, "%s draws: %s",
          viz_panel_name(p), c.viz.last_error.text);
    CHECK(draw_panel_figure(&c.viz, rect_make(0, 0, 200, 120), &f, p, NULL) == 0, "%s draws small",
          viz_panel_name(p));
    canvas_close(&c);
}

/* A frame of session s showing the three inside panels' data (lens + attribution + journey). */
static void fill_all(VizFrame *f, const Session *s) {
    memset(f, 0, sizeof *f);
    inside_fill(f, s, VIZ_NEEDS_LENS | VIZ_NEEDS_ATTRIBUTION | VIZ_NEEDS_JOURNEY);
}

/* Cells of two frames' lens grids, strips, attributions and journeys that differ (exactly). */
static int inside_differ(const VizFrame *a, const VizFrame *b) {
    int bad = 0;
    if (!a->lens || !b->lens || a->lens->n_pos != b->lens->n_pos || a->lens->n_rows != b->lens->n_rows) return 1;
    const LensGrid *x = a->lens, *y = b->lens;
    for (int i = 0; i < x->n_pos; i++) bad += x->ids[i] != y->ids[i] || x->final_id[i] != y->final_id[i];
    for (size_t i = 0; i < (size_t)x->n_pos * (size_t)x->n_rows; i++)
        bad += x->top_id[i] != y->top_id[i] || x->top_p[i] != y->top_p[i] || x->final_rank[i] != y->final_rank[i] ||
               x->final_p[i] != y->final_p[i];
    if (!a->lens_strip || !b->lens_strip || a->n_lens_strip != b->n_lens_strip) return bad + 1;
    for (int k = 0; k < a->n_lens_strip; k++) {
        const LensRow *r = &a->lens_strip[k], *q = &b->lens_strip[k];
        bad += r->n_top != q->n_top || r->target.p != q->target.p || r->target.rank != q->target.rank;
        for (int t = 0; t < r->n_top && t < q->n_top; t++) bad += r->top_id[t] != q->top_id[t] || r->top_p[t] != q->top_p[t];
    }
    if (!a->attr || !b->attr || a->attr->n != b->attr->n) return bad + 1;
    bad += a->attr->total != b->attr->total || a->attr->target != b->attr->target;
    for (int i = 0; i < a->attr->n; i++) bad += a->attr->comp[i].value != b->attr->comp[i].value;
    if (!a->journey || !b->journey || a->journey->n_stages != b->journey->n_stages) return bad + 1;
    for (int i = 0; i < a->journey->n_stages; i++) {
        const JourneyStage *u = &a->journey->stage[i], *v = &b->journey->stage[i];
        bad += u->norm != v->norm || u->attn_norm != v->attn_norm || u->mlp_norm != v->mlp_norm || u->n_top != v->n_top;
        for (int t = 0; t < u->n_top && t < v->n_top; t++) bad += u->top_id[t] != v->top_id[t] || u->top_p[t] != v->top_p[t];
    }
    return bad;
}

static int compute_main(void *arg) {
    Session *s = arg;
    inside_compute(s->inside, s, VIZ_NEEDS_LENS | VIZ_NEEDS_ATTRIBUTION | VIZ_NEEDS_JOURNEY, -1);
    return 0;
}

/* The window's way (src/app/app_jobs.c): a draw-time fill (async) only reads; the numbers
 * come from inside_compute on a worker thread, and equal the synchronous fill's cell for cell. */
static void test_async_fill(Session *s) {
    VizFrame sync, f;
    InsideData *own = s->inside, *sd = inside_new(), *d = inside_new();
    CHECK(d && sd, "two fresh caches");
    if (!d || !sd) return;
    s->inside = sd;
    fill_all(&sync, s); /* the synchronous result, in a cache of its own */
    s->inside = d;
    d->async = 1;
    fill_all(&f, s);
    CHECK(!f.lens && !f.lens_strip && !f.attr && !f.journey && f.inside_missing &&
              strcmp(f.inside_missing, INSIDE_COMPUTING) == 0,
          "an async fill before the worker: placeholders, \"%s\"", f.inside_missing ? f.inside_missing : "(null)");
    CHECK(inside_wanted(d) == (VIZ_NEEDS_LENS | VIZ_NEEDS_ATTRIBUTION | VIZ_NEEDS_JOURNEY), "it asks for %u",
          inside_wanted(d));
    CHECK(d->lens.n_columns == 0, "and computed no lens column on the draw path (%lu)", d->lens.n_columns);
    /* a worker stopped before its first column lands nothing */
    atomic_store(&d->cancel, 1);
    inside_compute(d, s, VIZ_NEEDS_LENS | VIZ_NEEDS_ATTRIBUTION | VIZ_NEEDS_JOURNEY, -1);
    atomic_store(&d->cancel, 0);
    fill_all(&f, s);
    CHECK(!f.lens && f.inside_missing && strcmp(f.inside_missing, INSIDE_COMPUTING) == 0,
          "a cancelled worker: still placeholders");
    /* the worker on its own thread, the fill reading placeholders meanwhile */
    d->running = 1;
    SDL_Thread *t = SDL_CreateThread(compute_main, "test-inside", s);
    CHECK(t != NULL, "worker thread: %s", SDL_GetError());
    fill_all(&f, s);
    CHECK(!f.lens && !f.attr && !f.journey, "while it runs the fill reads none of the caches");
    if (t) SDL_WaitThread(t, NULL);
    else compute_main(s);
    d->running = 0;
    d->want_needs = 0;
    unsigned long cols = d->lens.n_columns;
    fill_all(&f, s);
    CHECK(f.inside_missing && f.inside_missing[0] == 0, "landed: nothing missing (%s)", f.inside_missing);
    CHECK(inside_differ(&f, &sync) == 0, "the async result equals the synchronous one (%d cells differ)",
          inside_differ(&f, &sync));
    CHECK(d->lens.n_columns == cols && inside_wanted(d) == 0, "reading it computed nothing more");
    /* another token: the old numbers are not shown for it */
    ErrorMsg err;
    CHECK(session_step(s, &err) == 0, "a step: %s", err.text);
    fill_all(&f, s);
    CHECK(!f.lens && !f.attr && inside_wanted(d) != 0, "after a step: placeholders until the worker runs again");
    inside_compute(d, s, inside_wanted(d), d->want_vs);
    d->want_needs = 0;
    fill_all(&f, s);
    s->inside = sd;
    fill_all(&sync, s);
    CHECK(inside_differ(&f, &sync) == 0, "after the step too (%d cells differ)", inside_differ(&f, &sync));
    s->inside = own;
    inside_free(d);
    inside_free(sd);
    session_back(s, 1);
}

int main(void) {
    setenv("SDL_VIDEODRIVER", "dummy", 1);
    setenv("INFERSCOPE_FALLBACK_FONTS", "", 1);
    Session s = {0};
    ErrorMsg err = {{0}};
    /* the float64 reference reads float32 matrices: the bundled model widened at load */
    SessionConfig cfg = session_config_default();
    cfg.weights = KERN_F32;
    if (session_open_cfg(&s, "assets/models/stories16m", "assets/tokenizer", &cfg, &err)) {
        CHECK(0, "bundled model: %s", err.text);
        return check_summary("test_inside_panels");
    }
    CHECK(session_set_prompt(&s, (const uint8_t *)PROMPT, strlen(PROMPT), &err) == 0, "prompt: %s", err.text);
    CHECK(session_step(&s, &err) == 0 && session_step(&s, &err) == 0, "two steps: %s", err.text);
    test_only_when_shown(&s);
    test_lens_cells(&s);
    test_draw(&s, VIZ_PANEL_LENS);
    test_attribution(&s);
    test_draw(&s, VIZ_PANEL_ATTRIBUTION);
    test_attribution_vs(&s);
    test_journey(&s);
    test_draw(&s, VIZ_PANEL_JOURNEY);
    test_lesson_ablate(&s);
    test_lens_window(&s);
    test_async_fill(&s);
    session_free(&s);
    test_window_ablation();
    return check_summary("test_inside_panels");
}
