/* resid_parts.c — see resid_parts.h. */
#include "resid_parts.h"

#include <stdlib.h>
#include <string.h>

#include "gpt2_ablation.h"
#include "kernels.h"
#include "free_all.h"

int resid_parts_init(ResidParts *rp, const Gpt2Config *cfg, ErrorMsg *err) {
    memset(rp, 0, sizeof *rp);
    if (cfg->n_layer <= 0 || cfg->n_head <= 0 || cfg->n_embd <= 0) return error_set(err, "resid parts: invalid config");
    rp->L = (size_t)cfg->n_layer;
    rp->NH = (size_t)cfg->n_head;
    rp->C = (size_t)cfg->n_embd;
    rp->pos = -1;
    const size_t LC = rp->L * rp->C;
    rp->resid = malloc((LC + rp->C) * sizeof(float));
    rp->z = malloc(LC * sizeof(float));
    rp->attn_out = malloc(LC * sizeof(float));
    rp->resid_mid = malloc(LC * sizeof(float));
    rp->mlp_out = malloc(LC * sizeof(float));
    if (!rp->resid || !rp->z || !rp->attn_out || !rp->resid_mid || !rp->mlp_out) {
        resid_parts_free(rp);
        return error_set(err, "resid parts: out of memory");
    }
    return 0;
}

void resid_parts_free(ResidParts *rp) {
    if (!rp) return;
    FREE_ALL(rp->resid, rp->z, rp->attn_out, rp->resid_mid, rp->mlp_out);
    memset(rp, 0, sizeof *rp);
}

/* Row pos of layer l of a captured (L, max_pos, C) activation. */
static const float *cap_row(const float *cap, const Gpt2Trace *tr, size_t l, int pos) {
    const size_t C = (size_t)tr->cfg.n_embd;
    return cap + (l * (size_t)tr->max_pos + (size_t)pos) * C;
}

int resid_parts_at(ResidParts *rp, const Gpt2Model *m, const Gpt2Trace *tr, int pos, ErrorMsg *err) {
    const size_t L = rp->L, NH = rp->NH, C = rp->C, HS = C / (NH ? NH : 1);
    const size_t T = (size_t)tr->max_pos, P = gpt2_tri_row(T);
    if (!rp->z || (size_t)m->config.n_layer != L || (size_t)m->config.n_head != NH || (size_t)m->config.n_embd != C ||
        tr->cfg.n_layer != m->config.n_layer || tr->cfg.n_embd != m->config.n_embd)
        return error_set(err, "resid parts: sizes do not match the model");
    if (!tr->resid) return error_set(err, "resid parts: the trace has no residual streams (capture GPT2_CAP_RESID)");
    if (pos < 0 || pos >= tr->n_pos)
        return error_set(err, "resid parts: position %d out of range 0..%d", pos, tr->n_pos - 1);
    const Gpt2Ablation *ab = &tr->ablation;
    const size_t t = (size_t)pos;
    for (size_t l = 0; l <= L; l++) memcpy(rp->resid + l * C, cap_row(tr->resid, tr, l, pos), C * sizeof(float));
    for (size_t l = 0; l < L; l++) {
        const Gpt2LayerWeights *lw = &m->w.layers[l];
        float *z = rp->z + l * C, *ao = rp->attn_out + l * C, *mid = rp->resid_mid + l * C, *mo = rp->mlp_out + l * C;
        if (tr->z) {
            memcpy(z, cap_row(tr->z, tr, l, pos), C * sizeof(float));
        } else {
            /* z_h = pattern[l, h, t, 0..t] @ V[l, h, 0..t]: exactly the forward's mix */
            for (size_t h = 0; h < NH; h++)
                kern_attn_mix(z + h * HS, gpt2_trace_layer_patterns(tr, l) + h * P + gpt2_tri_row(t),
                              tr->v + ((l * NH + h) * T) * HS, t + 1, HS);
            gpt2_ablation_apply_z(ab, l, z, 1, C);
        }
        if (tr->attn_out) {
            memcpy(ao, cap_row(tr->attn_out, tr, l, pos), C * sizeof(float));
        } else {
            kern_matmul_dt(ao, z, gpt2_mat(&m->w, lw->attn_proj_w, lw->attn_proj_h), m->w.dtype, lw->attn_proj_b, 1, C, C);
            gpt2_ablation_apply_out(ab, GPT2_ABL_ATTN, l, ao, 1, C);
        }
        if (tr->resid_mid) memcpy(mid, cap_row(tr->resid_mid, tr, l, pos), C * sizeof(float));
        else kern_add(mid, rp->resid + l * C, ao, C);
        if (tr->mlp_out) {
            memcpy(mo, cap_row(tr->mlp_out, tr, l, pos), C * sizeof(float));
        } else if (gpt2_ablation_is_off(ab, GPT2_ABL_MLP, (int)l, 0)) {
            memset(mo, 0, C * sizeof(float)); /* exactly what the forward added */
        } else {
            const float *post = rp->resid + (l + 1) * C;
            for (size_t i = 0; i < C; i++) mo[i] = post[i] - mid[i];
        }
    }
    rp->pos = pos;
    return 0;
}
