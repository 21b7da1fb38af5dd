/* cmd_compare.c — `inferscope compare SPEC SPEC [SPEC [SPEC]]`: the prompt continued N
 * tokens under each setting with the same dice (session_compare.h), printed as text or,
 * with --json, one object per column: spec, ids, text, distinct-n, repeated n-grams, mean
 * surprisal and the first token that leaves the greedy continuation. The numbers the
 * compare panel and `export --compare` draw, for scripts and tests. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_model.h"
#include "cli_opts.h"
#include "text_visible.h"

static const char *const CMD = "compare";

static void usage(void) {
    char keys[256];
    settings_spec_keys(keys, sizeof keys);
    printf("usage: inferscope compare [options] (--prompt TEXT | --prompt-file P | --ids LIST) SPEC SPEC [SPEC [SPEC]]\n"
           "\n"
           "Continues the prompt N tokens under each of 2 to 4 sampler settings with the same dice\n"
           "(the draw for position p depends on --seed and p only, as in generate), so the columns\n"
           "differ by their settings alone. A SPEC is comma-separated KEY=VALUE items on top of the\n"
           "defaults, or a bare on/off word: \"greedy\", \"T=0.7\", \"top-k=40\", \"top-p=0.9,T=1.5\".\n"
           "Keys: %s (each setting's flag\n"
           "name without the dashes works too). Per column it prints the text, distinct-1/2/3\n"
           "(different n-grams / n-grams), the repeated 2- and 3-grams, the mean surprisal in bits\n"
           "of the chosen tokens under the model's own distribution (softmax of the logits at\n"
           "T = 1, whatever the column's settings) and the first token (1 = the first generated)\n"
           "where the column leaves the greedy continuation.\n"
           "\n%s%s"
           "  --seed S          the dice (default: clock; the JSON says which)\n"
           "  -n N              tokens per column (default %d, at most %d; cut to the context)\n"
           "  --json            one JSON object: prompt_ids, seed, n, greedy_ids and columns[] with\n"
           "                    spec, settings, greedy, ids, text, p_raw, distinct_1..3, repeated_2,\n"
           "                    repeated_3, mean_surprisal_bits, first_divergence (null: never)\n"
           "  --help            this text\n"
           "\n"
           "A bad SPEC is refused with one line naming it (exit 2).\n",
           keys, CLI_MODEL_USAGE_MODEL, CLI_MODEL_USAGE_PROMPT, SESSION_COMPARE_DEFAULT_NEW, SEQ_COMPARE_MAX_NEW);
}

typedef struct CompareArgs {
    CliModelArgs *model;
    const char *spec[SEQ_COMPARE_MAX_COLS];
    int n_specs;
} CompareArgs;

static int take_spec(void *ctx, const char *arg, ErrorMsg *err) {
    CompareArgs *ca = ctx;
    if (ca->n_specs >= SEQ_COMPARE_MAX_COLS)
        return error_set(err, "'%.60s': at most %d settings side by side", arg, SEQ_COMPARE_MAX_COLS);
    ca->spec[ca->n_specs++] = arg;
    return 0;
}

static void print_text(const Tokenizer *tok, const int *ids, int n) {
    uint8_t *text = NULL;
    size_t len = 0;
    ErrorMsg err;
    if (tok_decode(tok, ids, (size_t)n, &text, &len, &err) == 0) cli_json_string(stdout, text, len);
    else printf("null");
    free(text);
}

static void print_json(const Session *s, const SeqCompare *c) {
    printf("{\"model\": ");
    cli_json_string(stdout, (const uint8_t *)s->model.name, strlen(s->model.name));
    printf(", \"seed\": %llu, \"n\": %d,\n \"prompt_ids\": [", (unsigned long long)c->seed, c->n_new);
    for (int i = 0; i < c->n_prompt; i++) printf(i ? ", %d" : "%d", c->prompt[i]);
    printf("],\n \"greedy_ids\": [");
    for (int i = 0; i < c->n_new; i++) printf(i ? ", %d" : "%d", c->greedy_ids[i]);
    printf("],\n \"surprisal\": \"mean -log2 p of the chosen tokens under the model's own distribution (T=1)\",\n"
           " \"columns\": [");
    for (int k = 0; k < c->n_cols; k++) {
        const SeqCompareColumn *col = &c->col[k];
        char settings[1024];
        settings_json(&col->settings, col->settings.greedy, settings, sizeof settings);
        printf(k ? ",\n  {" : "\n  {");
        printf("\"spec\": ");
        cli_json_string(stdout, (const uint8_t *)col->spec, strlen(col->spec));
        printf(", \"settings\": %s, \"greedy\": %s,\n   \"ids\": [", settings, col->greedy ? "true" : "false");
        for (int i = 0; i < c->n_new; i++) printf(i ? ", %d" : "%d", col->ids[i]);
        printf("],\n   \"text\": ");
        print_text(&s->tok, col->ids, c->n_new);
        printf(",\n   \"p_raw\": [");
        for (int i = 0; i < c->n_new; i++) printf(i ? ", %.9g" : "%.9g", col->p_raw[i]);
        printf("],\n   \"distinct_1\": %.9g, \"distinct_2\": %.9g, \"distinct_3\": %.9g, \"repeated_2\": %zu, "
               "\"repeated_3\": %zu, \"mean_surprisal_bits\": ",
               col->ngrams[0].distinct_ratio, col->ngrams[1].distinct_ratio, col->ngrams[2].distinct_ratio,
               col->ngrams[1].repeated, col->ngrams[2].repeated);
        if (isfinite(col->mean_surprisal_bits)) printf("%.9g", col->mean_surprisal_bits);
        else printf("null");
        printf(", \"first_divergence\": ");
        if (col->diverge < 0) printf("null}");
        else printf("%ld}", col->diverge + 1); /* 1 = the first generated token, as the panel says */
    }
    printf("]}\n");
}

static void print_plain(const Session *s, const SeqCompare *c) {
    for (int k = 0; k < c->n_cols; k++) {
        const SeqCompareColumn *col = &c->col[k];
        uint8_t *text = NULL;
        size_t len = 0;
        ErrorMsg err;
        printf("%s== %s\n", k ? "\n" : "", col->spec);
        if (tok_decode(&s->tok, col->ids, (size_t)c->n_new, &text, &len, &err) == 0)
            text_visible_write(stdout, text, len, TEXT_KEEP_LINES); /* controls read \xNN */
        free(text);
        printf("\n-- distinct-2 %.2f, distinct-3 %.2f, repeated 2-grams %zu, 3-grams %zu, mean surprisal %.2f bits, ",
               col->ngrams[1].distinct_ratio, col->ngrams[2].distinct_ratio, col->ngrams[1].repeated,
               col->ngrams[2].repeated, col->mean_surprisal_bits);
        if (col->diverge < 0) printf("same as greedy\n");
        else printf("leaves greedy at token %ld\n", col->diverge + 1);
    }
}

int cmd_compare(int argc, char **argv) {
    CliModelArgs a = cli_model_args_default();
    ErrorMsg err;
    int json = 0;
    long n_new = SESSION_COMPARE_DEFAULT_NEW;
    CompareArgs ca = {.model = &a};
    const CliOpt opts[] = {
        CLI_FLAG("--json", &json),
        CLI_LONG("-n", &n_new, 1, SEQ_COMPARE_MAX_NEW, NULL),
        CLI_END,
    };
    /* the seed only: every other sampler setting comes from the specs */
    const CliArgs args = {.model = &a, .groups = CLI_OPT_MODEL | CLI_OPT_PROMPT | CLI_OPT_SAMPLER | CLI_OPT_ABLATE,
                          .positional = take_spec, .ctx = &ca, .usage = usage};
    int r = cli_parse_command(argc, argv, opts, &args, &err);
    if (r) return r == CLI_PARSE_HELP ? 0 : cli_fail(CMD, "%s", err.text);
    SamplerSettings def = sampler_settings_default();
    if (!settings_equal(&a.settings, &def))
        return cli_fail(CMD, "the settings come from the SPECs (\"T=0.7\", \"top-k=40\"): drop the sampler flags");
    if (ca.n_specs < SEQ_COMPARE_MIN_COLS)
        return cli_fail(CMD, "give %d to %d SPECs side by side, e.g. greedy T=0.7 (the prompt goes with --prompt)",
                        SEQ_COMPARE_MIN_COLS, SEQ_COMPARE_MAX_COLS);
    for (int i = 0; i < ca.n_specs; i++) { /* every spec checked before the model loads */
        SamplerSettings set;
        if (settings_spec_parse(ca.spec[i], &set, &err)) return cli_fail(CMD, "%s", err.text);
    }
    Session s;
    if (cli_model_start(&a, &s, 0, 0, &err)) return cli_fail(CMD, "%s", err.text);
    int status = 0;
    if (session_compare_set(&s, ca.spec, ca.n_specs, (int)n_new, &err) || session_compare_update(&s, &err)) {
        status = cli_fail(CMD, "%s", err.text);
    } else {
        if (s.cmp.result.n_new < n_new)
            fprintf(stderr, "inferscope %s: %d of %ld tokens per column: the context ends there\n", CMD,
                    s.cmp.result.n_new, n_new);
        if (json) print_json(&s, &s.cmp.result);
        else print_plain(&s, &s.cmp.result);
    }
    session_free(&s);
    return status;
}
