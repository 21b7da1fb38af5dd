/* gpt2_memory.h — what a model and its trace will need in RAM, before anything is
 * loaded (`inferscope info`), and fitting a trace into a budget (--trace-mb): which
 * GPT2_CAP_* bits to keep so that gpt2_trace_bytes() <= budget, dropping in a fixed
 * order what the views can do without or recompute, and one line saying what went.
 * Not the layout (gpt2_trace.c) nor the recomputation (gpt2_lean.h). */
#ifndef GPT2_MEMORY_H
#define GPT2_MEMORY_H

#include <stddef.h>

#include "error.h"
#include "gpt2_model.h"

/* Bytes of weights gpt2_model_load_as keeps for this config with the matrices in dtype
 * (== gpt2_model_weight_bytes after loading; untied: lm_head counted separately). */
size_t gpt2_weights_bytes(const Gpt2Config *cfg, KernDtype dtype);

typedef struct Gpt2TracePlan {
    unsigned capture;   /* for gpt2_trace_init (may include GPT2_CAP_LEAN) */
    size_t bytes;       /* gpt2_trace_bytes of it */
    size_t want_bytes;  /* what the requested mask needs */
    unsigned dropped;   /* requested GPT2_CAP_* bits not kept */
} Gpt2TracePlan;

/* The largest part of `want` that fits in budget bytes (0 = no limit). Drops, in order:
 * SCORES, MLP, LN, Z, ATTN_OUT, MLP_OUT, RESID_MID, EMBED, Q; then every head's pattern
 * (GPT2_CAP_LEAN: recomputed exactly per layer); then the logits of past positions
 * (recomputed from the final residual row); then RESID (the logit lens). -1 with err
 * naming the smallest budget that works when even that does not fit. */
int gpt2_trace_plan(const Gpt2Config *cfg, int max_pos, unsigned want, size_t budget, Gpt2TracePlan *out,
                    ErrorMsg *err);

/* "trace 1446 MB (budget 1500 MB, full 3731 MB): patterns recomputed per layer, ..."
 * or "trace 120 MB: everything kept". */
void gpt2_trace_plan_describe(const Gpt2TracePlan *p, size_t budget, char *buf, size_t n);

/* The "auto" trace budget (--trace-mb auto): weights + trace + GPT2_PROGRAM_BYTES within
 * GPT2_RAM_SHARE_PCT % of mem_total, and weights + trace within mem_avail less 512 MB
 * (mem_avail as if the weights were not loaded yet); a size of 0 is unknown and sets no
 * cap. Never 0 when either is known: at least 64 MB, which the plan then refuses with
 * a clear line when the weights leave no room. 0 (no limit) when both are unknown. */
#define GPT2_RAM_SHARE_PCT 55
/* the rest of the program: fonts, SDL, OpenBLAS, the views' caches (the bundled model's
 * window peaks at 84 MB with 32 MB of weights; XL's stayed under weights + trace) */
#define GPT2_PROGRAM_BYTES ((size_t)200000000u)
size_t gpt2_trace_budget_for(size_t mem_total, size_t mem_avail, size_t weight_bytes);

/* Why that budget, in one line for `info --memory`: "1404 MB: 55 % of 8590 MB RAM less
 * 200 MB program, 3121 MB weights (...)" or "...: 2147 MB RAM free now less 512 MB, ...". */
void gpt2_trace_budget_why(size_t mem_total, size_t mem_avail, size_t weight_bytes, char *buf, size_t n);

/* MemTotal and MemAvailable from /proc/meminfo in bytes (0 for one not found); -1 when
 * neither could be read. */
int gpt2_meminfo(size_t *mem_total, size_t *mem_avail);

/* gpt2_trace_budget_for with this machine's RAM (0 = no limit when /proc/meminfo cannot
 * be read). resident_bytes: the part of the weights already in RAM (converted on load,
 * so out of MemAvailable); the rest is a mapped file still to be read. */
size_t gpt2_trace_budget_default(size_t weight_bytes, size_t resident_bytes);

#endif
