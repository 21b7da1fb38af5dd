/* token_journey.c — see token_journey.h. Shapes use TransformerLens names and llm.c
 * letters: T positions, C = n_embd, NH heads of HS = C / NH, V vocabulary, NP context. */
#include "token_journey.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "free_all.h"

static void add_tensor(JourneyStage *s, int is_weight, const char *shape, const char *fmt, int block) {
    if (s->n_tensors >= JOURNEY_MAX_TENSORS) return;
    JourneyTensor *t = &s->tensors[s->n_tensors++];
    snprintf(t->name, sizeof t->name, fmt, block);
    snprintf(t->shape, sizeof t->shape, "%s", shape);
    t->is_weight = is_weight;
}

/* The tensors of each stage and their shapes, from the config alone. */
static void fill_shapes(TokenJourney *j, const Gpt2Config *cfg) {
    const int C = cfg->n_embd, NH = cfg->n_head, HS = C / NH, V = cfg->vocab_size, L = cfg->n_layer;
    char tc[32], tc4[32], heads[32], att[32], w_c3[32], w_cc[32], w_c4[32], w_4c[32], vc[32], npc[32],
        tv[32], c1[32];
    snprintf(tc, sizeof tc, "[T, %d]", C);
    snprintf(tc4, sizeof tc4, "[T, %d]", 4 * C);
    snprintf(heads, sizeof heads, "[%d, T, %d]", NH, HS);
    snprintf(att, sizeof att, "[%d, T, T]", NH);
    snprintf(w_c3, sizeof w_c3, "[%d, %d]", C, 3 * C);
    snprintf(w_cc, sizeof w_cc, "[%d, %d]", C, C);
    snprintf(w_c4, sizeof w_c4, "[%d, %d]", C, 4 * C);
    snprintf(w_4c, sizeof w_4c, "[%d, %d]", 4 * C, C);
    snprintf(vc, sizeof vc, "[%d, %d]", V, C);
    snprintf(npc, sizeof npc, "[%d, %d]", cfg->n_positions, C);
    snprintf(tv, sizeof tv, "[T, %d]", V);
    snprintf(c1, sizeof c1, "[%d]", C);
    for (int k = 0; k < j->n_stages; k++) {
        JourneyStage *s = &j->stage[k];
        memset(s, 0, sizeof *s);
        s->block = -1;
        s->n_top = JOURNEY_TOP;
        snprintf(s->out_shape, sizeof s->out_shape, "%s", tc);
        if (k == 0) {
            s->kind = JOURNEY_EMBED;
            snprintf(s->label, sizeof s->label, "embed");
            snprintf(s->out_name, sizeof s->out_name, "blocks.0.hook_resid_pre");
            add_tensor(s, 1, vc, "wte.weight", 0);
            add_tensor(s, 1, npc, "wpe.weight", 0);
            add_tensor(s, 0, tc, "hook_embed", 0);
            add_tensor(s, 0, tc, "hook_pos_embed", 0);
            add_tensor(s, 0, tc, "blocks.0.hook_resid_pre", 0);
        } else if (k <= L) {
            const int b = k - 1;
            s->kind = JOURNEY_BLOCK;
            s->block = b;
            snprintf(s->label, sizeof s->label, "block %d", b);
            snprintf(s->out_name, sizeof s->out_name, "blocks.%d.hook_resid_post", b);
            add_tensor(s, 0, tc, "blocks.%d.ln1.hook_normalized", b);
            add_tensor(s, 1, w_c3, "blocks.%d.attn.c_attn.weight", b);
            add_tensor(s, 0, heads, "blocks.%d.attn.hook_q", b);
            add_tensor(s, 0, heads, "blocks.%d.attn.hook_k", b);
            add_tensor(s, 0, heads, "blocks.%d.attn.hook_v", b);
            add_tensor(s, 0, att, "blocks.%d.attn.hook_attn_scores", b);
            add_tensor(s, 0, att, "blocks.%d.attn.hook_pattern", b);
            add_tensor(s, 0, tc, "blocks.%d.attn.hook_z", b);
            add_tensor(s, 1, w_cc, "blocks.%d.attn.c_proj.weight", b);
            add_tensor(s, 0, tc, "blocks.%d.hook_attn_out", b);
            add_tensor(s, 0, tc, "blocks.%d.hook_resid_mid", b);
            add_tensor(s, 0, tc, "blocks.%d.ln2.hook_normalized", b);
            add_tensor(s, 1, w_c4, "blocks.%d.mlp.c_fc.weight", b);
            add_tensor(s, 0, tc4, "blocks.%d.mlp.hook_pre", b);
            add_tensor(s, 0, tc4, "blocks.%d.mlp.hook_post", b);
            add_tensor(s, 1, w_4c, "blocks.%d.mlp.c_proj.weight", b);
            add_tensor(s, 0, tc, "blocks.%d.hook_mlp_out", b);
            add_tensor(s, 0, tc, "blocks.%d.hook_resid_post", b);
        } else if (k == L + 1) {
            s->kind = JOURNEY_LN_FINAL;
            snprintf(s->label, sizeof s->label, "ln_final");
            snprintf(s->out_name, sizeof s->out_name, "ln_final.hook_normalized");
            add_tensor(s, 1, c1, "ln_f.weight", 0);
            add_tensor(s, 1, c1, "ln_f.bias", 0);
            add_tensor(s, 0, tc, "ln_final.hook_normalized", 0);
        } else {
            s->kind = JOURNEY_LOGITS;
            snprintf(s->label, sizeof s->label, "logits");
            snprintf(s->out_name, sizeof s->out_name, "logits");
            snprintf(s->out_shape, sizeof s->out_shape, "%s", tv);
            add_tensor(s, 1, vc, "lm_head.weight (= wte when tied)", 0);
            add_tensor(s, 0, tv, "logits", 0);
        }
    }
}

int token_journey_init(TokenJourney *j, const Gpt2Config *cfg, ErrorMsg *err) {
    memset(j, 0, sizeof *j);
    if (resid_parts_init(&j->parts, cfg, err)) return -1;
    j->n_stages = cfg->n_layer + 3;
    j->stage = calloc((size_t)j->n_stages, sizeof *j->stage);
    j->rows = calloc((size_t)cfg->n_layer + 1, sizeof *j->rows);
    if (!j->stage || !j->rows) {
        token_journey_free(j);
        return error_set(err, "journey: out of memory");
    }
    fill_shapes(j, cfg);
    j->pos = j->token = -1;
    return 0;
}

void token_journey_free(TokenJourney *j) {
    if (!j) return;
    resid_parts_free(&j->parts);
    FREE_ALL(j->stage, j->rows);
    memset(j, 0, sizeof *j);
}

static double norm2(const float *x, size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; i++) s += (double)x[i] * (double)x[i];
    return sqrt(s);
}

static void copy_top(JourneyStage *s, const LensRow *r) {
    s->n_top = r->n_top < JOURNEY_TOP ? r->n_top : JOURNEY_TOP;
    for (int i = 0; i < s->n_top; i++) s->top_id[i] = r->top_id[i], s->top_p[i] = r->top_p[i];
}

int token_journey_at(TokenJourney *j, LogitLens *lens, const Gpt2Model *m, const Gpt2Trace *tr, int pos,
                     ErrorMsg *err) {
    if (!j->stage || j->n_stages != m->config.n_layer + 3) return error_set(err, "journey: not sized for this model");
    if (resid_parts_at(&j->parts, m, tr, pos, err)) return -1;
    if (logit_lens_at(lens, m, tr, pos, -1, 0, JOURNEY_TOP, j->rows, err) < 0) return -1;
    const ResidParts *rp = &j->parts;
    const size_t L = rp->L, C = rp->C;
    for (size_t k = 0; k <= L; k++) {
        JourneyStage *s = &j->stage[k];
        s->norm = norm2(rp->resid + k * C, C);
        copy_top(s, &j->rows[k]);
        if (k > 0) {
            s->attn_norm = norm2(rp->attn_out + (k - 1) * C, C);
            s->mlp_norm = norm2(rp->mlp_out + (k - 1) * C, C);
        }
    }
    /* ln_final: the normalised vector the unembedding reads (lens->x row L of the last
     * column is exactly ln_final of resid_post of the last block) */
    JourneyStage *lnf = &j->stage[L + 1], *out = &j->stage[L + 2];
    lnf->norm = norm2(lens->x + L * C, C);
    copy_top(lnf, &j->rows[L]);
    const float *lg = gpt2_trace_logits(tr, pos);
    out->norm = norm2(lg ? lg : lens->logits + L * lens->V, lens->V);
    copy_top(out, &j->rows[L]);
    j->pos = pos;
    j->token = tr->ids[pos];
    j->n_pos = tr->n_pos;
    return 0;
}
