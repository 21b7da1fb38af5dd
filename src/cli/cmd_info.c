/* cmd_info.c — `inferscope info [--json] [MODEL_DIR]`: loads a checkpoint and
 * describes it (config, parameter count, dtype, file size, load time, tied head, GELU,
 * which vocabulary it gets) and checks that every weight is finite. A quick way to check
 * a downloaded or converted model before opening the window. Computes nothing itself:
 * the numbers come from gpt2_model_load, model_vocab_open and gpt2_weights_check. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_model.h"
#include "cli_opts.h"
#include "gpt2_config.h"
#include "gpt2_memory.h"
#include "gpt2_trace.h"
#include "gpt2_model.h"
#include "gpt2_weights_check.h"
#include "kernels.h"
#include "model_vocab.h"
#include "threads_wait.h"
#include "text_visible.h"

static void usage(void) {
    fprintf(stdout,
            "usage: inferscope info [--json] [MODEL_DIR]\n\n"
            "Loads MODEL_DIR (config.json + model.safetensors; default: the bundled model)\n"
            "and prints its configuration, parameter count, storage dtype, file size,\n"
            "load time, whether the LM head is tied to the token embedding, the GELU, and\n"
            "its vocabulary: the GPT-2 tokenizer, a padded one (rows beyond the tokenizer's\n"
            "are never sampled or shown), or the model's own (a vocab.json beside it, or\n"
            "token ids only). Exits 2 naming the tensor when a weight is NaN or infinite.\n\n"
            "  --memory   predict the memory the window will need, from config.json alone\n"
            "             (nothing else is read): weights in f32 and f16, the trace of the\n"
            "             default views, and with --trace-mb what a budget keeps and drops\n"
            "  --ctx N    context for --memory (default min(n_positions, 1024))\n"
            "  --trace-mb N|auto  the trace budget --memory plans for (auto: what the window\n"
            "             would pick on this machine for f16 weights, and why)\n"
            "  --json     one JSON object instead of the table\n"
            "  -h, --help this text\n");
}

/* "124.44 M" / "1.56 B": the way model sizes are usually quoted. */
static void format_count(char *buf, size_t n, size_t count) {
    if (count >= 1000000000u)
        snprintf(buf, n, "%.2f B", (double)count / 1e9);
    else
        snprintf(buf, n, "%.2f M", (double)count / 1e6);
}

static void format_bytes(char *buf, size_t n, size_t bytes) {
    if (bytes >= ((size_t)1 << 30))
        snprintf(buf, n, "%.2f GiB", (double)bytes / (double)((size_t)1 << 30));
    else
        snprintf(buf, n, "%.2f MiB", (double)bytes / (double)((size_t)1 << 20));
}

/* What `info` reports besides the model itself. */
typedef struct InfoVocab {
    size_t tokens, padding; /* real tokens; model rows beyond them */
    const char *kind;       /* "gpt2", "bpe", "vocab.json", "ids" */
    char desc[192];         /* model_vocab_open's line */
} InfoVocab;

static const char *vocab_kind(const Tokenizer *t, const char *desc) {
    if (t->kind == TOK_KIND_IDS) return "ids";
    if (t->kind == TOK_KIND_VOCAB) return "vocab.json";
    return strncmp(desc, "GPT-2", 5) == 0 ? "gpt2" : "bpe";
}

static void print_table(const Gpt2Model *m, const InfoVocab *v) {
    const Gpt2Config *c = &m->config;
    char params[32], size[32];
    format_count(params, sizeof params, m->n_params);
    format_bytes(size, sizeof size, m->file_bytes);
    char dir[1024];
    char name[256];
    printf("model        %s  (%s)\n", TEXT_VISIBLE(name, m->name), TEXT_VISIBLE(dir, m->dir));
    printf("n_layer      %d\n", c->n_layer);
    printf("n_head       %d  (head size %d)\n", c->n_head, c->n_embd / c->n_head);
    printf("n_embd       %d\n", c->n_embd);
    printf("n_positions  %d\n", c->n_positions);
    printf("vocab_size   %d\n", c->vocab_size);
    printf("vocabulary   %s\n", v->desc);
    printf("ln_eps       %g\n", (double)c->ln_eps);
    printf("parameters   %s  (%zu)\n", params, m->n_params);
    printf("dtype        %s\n", m->dtype);
    printf("file         %s  (%zu bytes)\n", size, m->file_bytes);
    printf("load time    %.3f ms\n", m->load_seconds * 1e3);
    printf("lm_head      %s\n", m->tied ? "tied to wte" : "separate (untied)");
    printf("gelu         %s\n", c->gelu_exact ? "exact (erf), activation_function \"gelu\"" : "tanh approximation (gelu_new)");
    printf("weights      all finite\n");
    int threads = kern_get_threads();
    char wait[64];
    threads_wait_describe(wait, sizeof wait);
    if (threads == 1) printf("kernels      %s, 1 thread; OpenMP idle threads: %s\n", kern_isa_name(), wait);
    else /* the session's ThreadGovernor (thread_governor.h) */
        printf("kernels      %s, up to %d threads (a decode step runs on 1 when that is faster); OpenMP idle "
               "threads: %s\n", kern_isa_name(), threads, wait);
}

static void print_json(const Gpt2Model *m, const InfoVocab *v) {
    const Gpt2Config *c = &m->config;
    printf("{\"name\": ");
    cli_json_string(stdout, (const uint8_t *)m->name, strlen(m->name));
    printf(", \"dir\": ");
    cli_json_string(stdout, (const uint8_t *)m->dir, strlen(m->dir));
    printf(", \"n_layer\": %d, \"n_head\": %d, \"n_embd\": %d, \"n_positions\": %d, "
           "\"vocab_size\": %d, \"ln_eps\": %.7g, \"n_params\": %zu, \"dtype\": \"%s\", "
           "\"file_bytes\": %zu, \"load_seconds\": %.6f, \"tied\": %s, \"gelu\": \"%s\",\n"
           " \"vocab\": {\"kind\": \"%s\", \"tokens\": %zu, \"padding_rows\": %zu, \"desc\": ",
           c->n_layer, c->n_head, c->n_embd, c->n_positions, c->vocab_size, (double)c->ln_eps,
           m->n_params, m->dtype, m->file_bytes, m->load_seconds, m->tied ? "true" : "false",
           c->gelu_exact ? "gelu" : "gelu_new", v->kind, v->tokens, v->padding);
    cli_json_string(stdout, (const uint8_t *)v->desc, strlen(v->desc));
    printf("}, \"weights_finite\": true}\n");
}

/* info --memory: the prediction, from the config alone (before any weight is read). */
static int print_memory(const char *dir, int ctx, size_t budget) {
    char path[1200];
    Gpt2Config c;
    ErrorMsg err;
    snprintf(path, sizeof path, "%s/config.json", dir);
    if (gpt2_config_load(&c, path, &err)) return cli_fail("info", "%s", err.text);
    int T = ctx > 0 ? ctx : c.n_positions < 1024 ? c.n_positions : 1024;
    if (T > c.n_positions)
        return cli_fail("info", "--ctx: %d positions exceed the model's context of %d", T, c.n_positions);
    size_t w32 = gpt2_weights_bytes(&c, KERN_F32), w16 = gpt2_weights_bytes(&c, KERN_F16);
    size_t tr = gpt2_trace_bytes(&c, T, GPT2_CAP_DEFAULT), use = tr;
    char note[256] = "", why[256] = "";
    if (budget) { /* planned first: a refusal is the only line printed */
        if (budget == SESSION_TRACE_AUTO) { /* the window's default, for f16 weights */
            size_t total, avail;
            budget = gpt2_meminfo(&total, &avail) ? 0 : gpt2_trace_budget_for(total, avail, w16);
            gpt2_trace_budget_why(total, avail, w16, why, sizeof why);
        }
        Gpt2TracePlan plan;
        if (gpt2_trace_plan(&c, T, GPT2_CAP_DEFAULT, budget, &plan, &err)) return cli_fail("info", "%s", err.text);
        gpt2_trace_plan_describe(&plan, budget, note, sizeof note);
        use = plan.bytes;
    }
    printf("memory       predicted for %d positions (config.json only; weights not read)\n", T);
    printf("weights      %.0f MB as f32, %.0f MB as f16/bf16\n", w32 / 1e6, w16 / 1e6);
    printf("trace        %.0f MB with the default views (KV cache %.0f MB)\n", tr / 1e6,
           2.0 * c.n_layer * T * c.n_embd * sizeof(float) / 1e6);
    if (*why) printf("auto (f16)   %s\n", why);
    if (*note) printf("budget       %s\n", note);
    printf("total        %.0f MB with f32 weights, %.0f MB with f16 (plus up to %.0f MB for the program)\n",
           (w32 + use) / 1e6, (w16 + use) / 1e6, GPT2_PROGRAM_BYTES / 1e6);
    return 0;
}

static int take_trace_mb(void *ctx, const char *flag, const char *v, ErrorMsg *err) {
    (void)flag;
    return cli_parse_trace_mb(v, ctx, err);
}

/* The one positional argument: MODEL_DIR (ctx: const char **). */
static int take_dir(void *ctx, const char *arg, ErrorMsg *err) {
    const char **dir = ctx;
    if (*dir) return error_set(err, "only one MODEL_DIR expected, got '%s' and '%s'", *dir, arg);
    *dir = arg;
    return 0;
}

int cmd_info(int argc, char **argv) {
    int json = 0, memory = 0;
    long ctx = 0;
    size_t budget = 0;
    ErrorMsg perr;
    const char *dir = NULL;
    const CliOpt opts[] = {
        CLI_FLAG("--json", &json),
        CLI_FLAG("--memory", &memory),
        CLI_LONG("--ctx", &ctx, 1, 1L << 20, "a whole number of positions >= 1"),
        CLI_CALL("--trace-mb", take_trace_mb, &budget),
        CLI_END,
    };
    const CliArgs args = {.positional = take_dir, .ctx = &dir, .usage = usage};
    int r = cli_parse_command(argc, argv, opts, &args, &perr);
    if (r) return r == CLI_PARSE_HELP ? 0 : cli_fail("info", "%s", perr.text);
    if (!dir) dir = cli_default_model_dir();
    if (memory) return print_memory(dir, (int)ctx, budget);
    Gpt2Model m;
    ErrorMsg err;
    if (gpt2_model_load(&m, dir, &err) != 0) return cli_fail("info", "%s", err.text);
    InfoVocab v = {0};
    Tokenizer tok;
    int rc = model_vocab_open(&tok, dir, m.config.vocab_size, cli_tokenizer_dir(), v.desc, sizeof v.desc, &err);
    if (rc == 0) {
        v.tokens = tok_vocab_size(&tok);
        v.padding = (size_t)m.config.vocab_size - v.tokens;
        v.kind = vocab_kind(&tok, v.desc);
        tok_free(&tok);
        rc = gpt2_weights_check_finite(&m, &err);
    }
    if (rc == 0 && json) print_json(&m, &v);
    else if (rc == 0) print_table(&m, &v);
    gpt2_model_free(&m);
    return rc ? cli_fail("info", "%s", err.text) : 0;
}
