/* gpt2_memory.c — predicted bytes of weights and traces, and fitting a trace into a
 * budget (gpt2_memory.h). Pure arithmetic on the config and on RAM sizes, plus one
 * read of /proc/meminfo for the default budget. */
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

/* The whole process (weights + trace + GPT2_PROGRAM_BYTES) may take GPT2_RAM_SHARE_PCT %
 * of the RAM and no more than is free now less 512 MB. Free RAM alone was the rule before:
 * on an 8 GB laptop it gave GPT-2 XL F16 a 2.9 GB trace, ~6 GB in all, while the OS, the
 * desktop and a browser with the slides want ~3.5 GB however large the model is: 45 % of
 * 8 GB. A fixed reserve of that size would refuse XL at 1024 positions on the 7.6 GiB an
 * 8 GB laptop reports; 55 % still fits its smallest plan there (1123 MB of trace), and
 * models up to 124M F32 keep their full trace from 4 GB up. */
size_t gpt2_trace_budget_for(size_t mem_total, size_t mem_avail, size_t weight_bytes) {
    const size_t floor = (size_t)64 << 20, keep_free = (size_t)512 << 20;
    if (!mem_total && !mem_avail) return 0; /* nothing known: no limit */
    size_t cap = (size_t)-1;
    if (mem_total) {
        size_t share = mem_total / 100 * GPT2_RAM_SHARE_PCT;
        cap = share > GPT2_PROGRAM_BYTES ? share - GPT2_PROGRAM_BYTES : 0;
    }
    if (mem_avail) {
        size_t free_cap = mem_avail > keep_free ? mem_avail - keep_free : 0;
        if (free_cap < cap) cap = free_cap;
    }
    /* never 0 (that would mean "no limit"): the plan then refuses with a clear line */
    return cap > weight_bytes + floor ? cap - weight_bytes : floor;
}

void gpt2_trace_budget_why(size_t mem_total, size_t mem_avail, size_t weight_bytes, char *buf, size_t n) {
    if (!n) return;
    size_t budget = gpt2_trace_budget_for(mem_total, mem_avail, weight_bytes);
    double share = (double)(mem_total / 100 * GPT2_RAM_SHARE_PCT) - (double)GPT2_PROGRAM_BYTES;
    double free_cap = (double)mem_avail - (double)((size_t)512 << 20);
    int by_share = mem_total && (!mem_avail || share <= free_cap);
    char why[160];
    if (by_share)
        snprintf(why, sizeof why, "%d %% of %.0f MB RAM less %.0f MB program", GPT2_RAM_SHARE_PCT,
                 (double)mem_total / 1e6, GPT2_PROGRAM_BYTES / 1e6);
    else
        snprintf(why, sizeof why, "%.0f MB RAM free now less 512 MB", (double)mem_avail / 1e6);
    if (!budget)
        snprintf(buf, n, "no limit (/proc/meminfo unreadable)");
    else if ((by_share ? share : free_cap) < (double)(weight_bytes + budget))
        snprintf(buf, n, "%.0f MB, the least: %.0f MB weights leave no room in %s", (double)budget / 1e6,
                 (double)weight_bytes / 1e6, why);
    else
        snprintf(buf, n, "%.0f MB: %s, %.0f MB weights%s", (double)budget / 1e6, why, (double)weight_bytes / 1e6,
                 by_share ? " (the rest: OS, slides, browser)" : "");
}

int gpt2_meminfo(size_t *mem_total, size_t *mem_avail) {
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    unsigned long long kb = 0;
    *mem_total = *mem_avail = 0;
    while (f && fgets(line, sizeof line, f)) {
        if (sscanf(line, "MemTotal: %llu kB", &kb) == 1) *mem_total = (size_t)kb * 1024;
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) *mem_avail = (size_t)kb * 1024;
    }
    if (f) fclose(f);
    return *mem_total || *mem_avail ? 0 : -1;
}

size_t gpt2_trace_budget_default(size_t weight_bytes, size_t resident_bytes) {
    size_t total, avail;
    if (gpt2_meminfo(&total, &avail)) return 0;
    /* weights already in RAM are out of MemAvailable: counted back, then once as weights */
    if (avail) avail += resident_bytes;
    return gpt2_trace_budget_for(total, avail, weight_bytes);
}
