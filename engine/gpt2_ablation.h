/* gpt2_ablation.h — knocking parts of GPT-2 out: which attention heads, whole attention
 * sublayers and MLPs the forward pass replaces by zeros ("zero ablation"). A plain mask
 * the trace owns a copy of (Gpt2Trace.ablation); gpt2_forward.c asks it at the three
 * points where z, attn_out and mlp_out are formed, and an empty mask costs one test per
 * layer. Not the forward pass and not the comparison with the original (logit_kl.h).
 *
 * SEMANTICS (what is zeroed, for rows of every position):
 *   L.H     head H of block L: its HS-wide slice of hook_z, BEFORE attn.c_proj, so the
 *           head adds nothing through c_proj; the c_proj bias is still added.
 *   L.attn  the whole attention sublayer of block L: hook_attn_out = 0, bias included,
 *           so resid_mid == resid_pre exactly ("the sublayer contributes nothing").
 *   L.mlp   the MLP of block L: hook_mlp_out = 0 (its c_proj bias too), so
 *           resid_post == resid_mid exactly.
 * The attention pattern, q, k, v and mlp_pre/post are still computed and kept: the
 * viewer can show what a switched-off head would have looked at. The trace's hook_z /
 * hook_attn_out / hook_mlp_out hold the zeroed values the rest of the model saw.
 *
 * SPEC strings (the CLI's --ablate, lessons): comma-separated parts "L.H", "L.attn",
 * "L.mlp", blocks and heads numbered from 0 as in TransformerLens ("0.3,2.attn,5.mlp").
 * The canonical form (gpt2_ablation_format) lists them sorted by block: heads, attn, mlp. */
#ifndef GPT2_ABLATION_H
#define GPT2_ABLATION_H

#include <stddef.h>
#include <string.h>

#include "error.h"
#include "gpt2_model.h"

typedef struct Gpt2Ablation {
    int n_layer, n_head;  /* sizes of the mask (0, 0 when empty and never sized) */
    unsigned char *off;   /* (L, NH + 2) 1 = zeroed: [l*(NH+2) + h] head h of block l,
                           * [.. + NH] block l's attention sublayer, [.. + NH + 1] its MLP */
    int n_off;            /* entries set; 0 = nothing ablated (the forward skips every check) */
} Gpt2Ablation;

/* Kinds of part in a mask entry. */
typedef enum { GPT2_ABL_HEAD, GPT2_ABL_ATTN, GPT2_ABL_MLP } Gpt2AblationKind;

/* Sizes an empty mask for a model of this config. -1 with err on out of memory. */
int gpt2_ablation_init(Gpt2Ablation *ab, const Gpt2Config *cfg, ErrorMsg *err);
/* Safe on a zeroed struct; leaves it zeroed (an empty mask). */
void gpt2_ablation_free(Gpt2Ablation *ab);
/* Switches everything back on (keeps the sizes). */
void gpt2_ablation_clear(Gpt2Ablation *ab);

/* Sets (on = 1) or clears one part: head h of block l (kind HEAD), or block l's
 * attention / MLP (h ignored). -1 with err naming the model's ranges when out of range. */
int gpt2_ablation_set(Gpt2Ablation *ab, Gpt2AblationKind kind, int layer, int head, int on, ErrorMsg *err);

/* Parses a SPEC list into *ab (sized for cfg; replaces what it held). Strict: every part
 * must be L.H, L.attn or L.mlp with decimal numbers inside the model's ranges, no empty
 * part, no part twice. On error *ab is an empty mask and err is one line naming the part
 * and the real ranges ("--ablate: '12.3': block 12 does not exist (blocks 0..11)"). */
int gpt2_ablation_parse(Gpt2Ablation *ab, const Gpt2Config *cfg, const char *spec, ErrorMsg *err);

/* The canonical SPEC of the mask ("" when empty), truncated to fit cap. Returns the
 * length it needed (like snprintf). */
size_t gpt2_ablation_format(const Gpt2Ablation *ab, char *buf, size_t cap);

/* 1 when both masks switch off the same parts (an empty mask equals any unset one). */
int gpt2_ablation_equal(const Gpt2Ablation *a, const Gpt2Ablation *b);

/* *dst = a copy of src (dst's old entries are replaced). -1 with err on out of memory. */
int gpt2_ablation_copy(Gpt2Ablation *dst, const Gpt2Ablation *src, ErrorMsg *err);

/* 1 when the part is switched off (0 for an empty or unsized mask, or out of range). */
static inline int gpt2_ablation_is_off(const Gpt2Ablation *ab, Gpt2AblationKind kind, int layer, int head) {
    if (!ab || ab->n_off == 0 || layer < 0 || layer >= ab->n_layer) return 0;
    size_t row = (size_t)layer * (size_t)(ab->n_head + 2);
    if (kind == GPT2_ABL_HEAD) return head >= 0 && head < ab->n_head && ab->off[row + (size_t)head];
    return ab->off[row + (size_t)ab->n_head + (kind == GPT2_ABL_MLP)];
}

/* ---- the forward pass's three hooks (rows [0, R) of one block's activations) ---------- */

/* z (R, C): zeroes the HS-wide slice of every switched-off head of block l. */
static inline void gpt2_ablation_apply_z(const Gpt2Ablation *ab, size_t l, float *z, size_t R, size_t C) {
    if (!ab || ab->n_off == 0) return;
    const size_t NH = (size_t)ab->n_head, HS = C / NH;
    for (size_t h = 0; h < NH; h++)
        if (gpt2_ablation_is_off(ab, GPT2_ABL_HEAD, (int)l, (int)h))
            for (size_t r = 0; r < R; r++) memset(z + r * C + h * HS, 0, HS * sizeof *z);
}

/* attn_out or mlp_out (R, C) of block l: all zeros when that sublayer is switched off. */
static inline void gpt2_ablation_apply_out(const Gpt2Ablation *ab, Gpt2AblationKind kind, size_t l, float *out,
                                           size_t R, size_t C) {
    if (gpt2_ablation_is_off(ab, kind, (int)l, 0)) memset(out, 0, R * C * sizeof *out);
}

#endif
