/* gpt2_memory.c — predicted bytes of weights and traces, and fitting a trace into a
 * budget (gpt2_memory.h). Pure arithmetic on the config, plus one read of
 * /proc/meminfo for the default budget. */
#include "gpt2_memory.h"

#include <stdio.h>
#include <string.h>

#include "gpt2_trace.h"

size_t gpt2_weights_bytes(const Gpt2Config *cfg, KernDtype dtype) {
    const size_t L = (size_t)cfg->n_layer, C = (size_t)cfg->n_embd, V = (size_t)cfg->vocab_size;
    const size_t NP = (size_t)cfg->n_positions;
    /* matrices: wte (+ lm_head when untied), per layer c_attn 3C^2, c_proj C^2, c_fc and
     * mlp c_proj 4C^2 each; vectors and wpe always float */
    size_t mat = V * C * (cfg->untied ? 2 : 1) + L * 12 * C * C;
    size_t vec = NP * C + L * (2 * C + 3 * C + C + 2 * C + 4 * C + C) + 2 * C;
    size_t el = dtype == KERN_F32 ? sizeof(float) : sizeof(uint16_t);
    return mat * el + vec * sizeof(float);
}

/* The drop order: what the default views miss least first. */
static const struct {
    unsigned bit;
    const char *what;
} DROPS[] = {
    {GPT2_CAP_SCORES, "pre-softmax scores"}, {GPT2_CAP_MLP, "MLP activations"},
    {GPT2_CAP_LN, "LayerNorm outputs"},      {GPT2_CAP_Z, "hook_z"},
    {GPT2_CAP_ATTN_OUT, "attn_out"},         {GPT2_CAP_MLP_OUT, "mlp_out"},
    {GPT2_CAP_RESID_MID, "resid_mid"},       {GPT2_CAP_EMBED, "embeddings"},
    {GPT2_CAP_Q, "hook_q"},                  {GPT2_CAP_LEAN, "patterns recomputed per layer"},
    {GPT2_CAP_LOGITS, "past logits recomputed"}, {GPT2_CAP_RESID, "residual streams (no logit lens)"},
};
#define N_DROPS (sizeof DROPS / sizeof DROPS[0])

/* Applies drop step i to a mask (the LEAN step adds a bit instead of removing one). */
static unsigned apply_drop(unsigned cap, size_t i) {
    return DROPS[i].bit == GPT2_CAP_LEAN ? cap | GPT2_CAP_LEAN : cap & ~DROPS[i].bit;
}

int gpt2_trace_plan(const Gpt2Config *cfg, int max_pos, unsigned want, size_t budget, Gpt2TracePlan *out,
                    ErrorMsg *err) {
    memset(out, 0, sizeof *out);
    unsigned cap = want & GPT2_CAP_ALL;
    out->want_bytes = gpt2_trace_bytes(cfg, max_pos, cap);
    size_t bytes = out->want_bytes;
    for (size_t i = 0; budget && bytes > budget && i < N_DROPS; i++) {
        unsigned next = apply_drop(cap, i);
        if (next == cap) continue;
        cap = next;
        bytes = gpt2_trace_bytes(cfg, max_pos, cap);
    }
    if (budget && bytes > budget)
        return error_set(err, "trace budget %.0f MB: %d positions of this model need at least %.0f MB "
                         "(the KV cache alone is %.0f MB); raise --trace-mb or shorten the context",
                         (double)budget / 1e6, max_pos, (double)bytes / 1e6,
                         2.0 * cfg->n_layer * max_pos * cfg->n_embd * sizeof(float) / 1e6);
    out->capture = cap;
    out->bytes = bytes;
    out->dropped = (want & GPT2_CAP_ALL) & ~cap;
    if (cap & GPT2_CAP_LEAN) out->dropped |= GPT2_CAP_LEAN;
    return 0;
}

void gpt2_trace_plan_describe(const Gpt2TracePlan *p, size_t budget, char *buf, size_t n) {
    if (!n) return;
    int k = snprintf(buf, n, "trace %.0f MB", (double)p->bytes / 1e6);
    if (!p->dropped) {
        if (k > 0 && (size_t)k < n) snprintf(buf + k, n - (size_t)k, ": everything asked for is kept");
        return;
    }
    if (k > 0 && (size_t)k < n)
        k += snprintf(buf + k, n - (size_t)k, " (budget %.0f MB, all %.0f MB); dropped:", (double)budget / 1e6,
                      (double)p->want_bytes / 1e6);
    const char *sep = " ";
    for (size_t i = 0; i < N_DROPS && k > 0 && (size_t)k < n; i++)
        if (p->dropped & DROPS[i].bit) {
            k += snprintf(buf + k, n - (size_t)k, "%s%s", sep, DROPS[i].what);
            sep = ", ";
        }
}

size_t gpt2_trace_budget_default(size_t weight_bytes_to_load) {
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    unsigned long long kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) break;
    if (f) fclose(f);
    size_t avail = (size_t)kb * 1024, reserve = weight_bytes_to_load + ((size_t)512 << 20);
    if (!kb) return 0;
    /* never 0 (that would mean "no limit"): the plan then refuses with a clear line */
    return avail > reserve + ((size_t)64 << 20) ? avail - reserve : (size_t)64 << 20;
}
