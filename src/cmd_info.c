/* cmd_info.c — `inferscope info [--json] [MODEL_DIR]`: loads a checkpoint and
 * describes it (config, parameter count, dtype, file size, load time, tied head, GELU,
 * which vocabulary it gets) and checks that every weight is finite. A quick way to check
 * a downloaded or converted model before opening the window. Computes nothing itself:
 * the numbers come from gpt2_model_load, model_vocab_open and gpt2_weights_check. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "gpt2_model.h"
#include "gpt2_weights_check.h"
#include "model_vocab.h"

static void usage(FILE *f) {
    fprintf(f,
            "usage: inferscope info [--json] [MODEL_DIR]\n\n"
            "Loads MODEL_DIR (config.json + model.safetensors; default: the bundled model)\n"
            "and prints its configuration, parameter count, storage dtype, file size,\n"
            "load time, whether the LM head is tied to the token embedding, the GELU, and\n"
            "its vocabulary: the GPT-2 tokenizer, a padded one (rows beyond the tokenizer's\n"
            "are never sampled or shown), or the model's own (a vocab.json beside it, or\n"
            "token ids only). Exits 2 naming the tensor when a weight is NaN or infinite.\n\n"
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
    printf("model        %s  (%s)\n", m->name, m->dir);
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

int cmd_info(int argc, char **argv) {
    int json = 0;
    const char *dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if (argv[i][0] == '-' && argv[i][1] != 0) {
            return cli_fail("info", "unknown option '%s' (see inferscope info --help)", argv[i]);
        } else if (dir) {
            return cli_fail("info", "only one MODEL_DIR expected, got '%s' and '%s'", dir, argv[i]);
        } else {
            dir = argv[i];
        }
    }
    if (!dir) dir = cli_default_model_dir();
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
