/* frame_fill.c — Session + VizView -> VizFrame (see frame_fill.h). */
#include "frame_fill.h"

#include <string.h>

#include "attn_fill.h"
#include "inside_fill.h"
#include "text_marks.h"

VizView frame_default_view(void) {
    VizView v;
    memset(&v, 0, sizeof v);
    v.layer = 0;
    v.head = 0;
    v.mouse_x = v.mouse_y = -1;
    v.selected_token = -1;
    v.bpe_step = -1;
    v.focus = VIZ_PANEL_FRAME;
    v.highlight_panel = -1;
    v.highlight_token = -1;
    v.top_n = 15;
    v.prob_axis = VIZ_AXIS_AUTO;
    v.prob_axis_max = 1.0f;
    v.query = -1;
    return v;
}

void frame_fill_needs(VizFrame *f, const Session *s, unsigned needs) {
    inside_fill(f, s, needs);
    attn_fill(f, s, needs);
}

void frame_fill(VizFrame *f, const Session *s, const VizView *view) {
    memset(f, 0, sizeof *f);
    f->cfg = &s->model.config;
    f->tok = &s->tok;
    f->trace = &s->trace;
    f->ids = s->trace.ids;
    f->n_pos = s->trace.n_pos;
    f->n_prompt = s->n_prompt;
    f->prompt_enc = s->prompt_enc.n_ids ? &s->prompt_enc : NULL;
    f->rec = s->has_next ? &s->next : NULL;
    f->prev_rec = s->has_prev ? &s->prev : NULL;
    f->draws = s->has_next && s->has_draws ? &s->draws : NULL;
    f->model_name = s->model.name;
    f->n_params = s->model.n_params;
    f->weights = gpt2_model_weights_name(&s->model);
    f->seed = s->seed;
    f->step = s->trace.n_pos - s->n_prompt;
    f->last_step_ms = s->last_step_ms;
    f->n_branches = s->n_branches;
    f->branch = s->cur;
    f->view = *view;
    /* clamp the view to the model so a stale layer/head can never index out of range */
    if (f->view.layer >= s->model.config.n_layer) f->view.layer = s->model.config.n_layer - 1;
    if (f->view.layer < 0) f->view.layer = 0;
    if (f->view.head >= s->model.config.n_head) f->view.head = s->model.config.n_head - 1;
    if (f->view.head < 0) f->view.head = 0;
    if (f->view.selected_token >= f->n_pos) f->view.selected_token = -1;
    if (f->view.top_n > SESSION_TOP_N) f->view.top_n = SESSION_TOP_N;
    if (f->view.top_n < 1) f->view.top_n = 1;
    if ((int)f->view.text_mode < 0 || f->view.text_mode >= VIZ_TEXT_MODE_COUNT) f->view.text_mode = VIZ_TEXT_PLAIN;
    text_marks_fill(f, s); /* the Text panel's numbers, only when its mode shows them */
    if (f->view.query < -1 || f->view.query >= f->n_pos) f->view.query = -1;
    if (f->view.attr_vs1 < 0 || f->view.attr_vs1 > session_vocab(s)) f->view.attr_vs1 = 0;
    inside_fill(f, s, inside_needs_of_view(&f->view)); /* lens, attribution, journey: when shown */
    attn_fill(f, s, inside_needs_of_view(&f->view));   /* attention math: when shown */
    /* the compare columns when they are the current prompt's (session_compare.h) */
    if (session_compare_current(s)) f->compare = &s->cmp.result;
    else f->compare_note = s->cmp.failed ? s->cmp.err.text : "not computed for this prompt yet (C computes it)";
}
