/* cmd_generate.c — `inferscope generate`: runs a prompt and appends N sampled tokens,
 * printing the text as it is produced (or, with --json, one object at the end with
 * every token's id, text, probability, rank and draw). Drives a Session like the
 * window does, so the same --seed and settings give the same tokens there and here.
 * Not the sampler (engine/sampler.h) and not the dice (session_dice). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_model.h"
#include "cli_opts.h"
#include "text_visible.h"

static const char *const CMD = "generate";

static void usage(void) {
    printf("usage: inferscope generate [options] (--prompt TEXT | --prompt-file P | --ids LIST)\n"
           "\n"
           "Runs the prompt, then appends N tokens one at a time, printing the prompt and the\n"
           "new text as it is produced (a character split across tokens, like half an emoji,\n"
           "is held back until it is complete). Output ends with a newline. The text keeps its\n"
           "newlines and tabs; any other control character (ESC, BEL, CSI) or byte that is\n"
           "not UTF-8 is printed as \\xNN, so a token cannot drive the terminal.\n"
           "\n%s%s%s%s%s"
           "  -n N              tokens to generate (default 50)\n"
           "  --stop-at-eot     stop after the model writes <|endoftext|> (the end of a story\n"
           "                    for the bundled model); the token is still printed\n"
           "  --json            print one JSON object at the end: prompt ids, every generated\n"
           "                    token (id, text, p_raw, p_final, rank, u), settings and seed\n"
           "  --help            this text\n"
           "\n"
           "When the context fills up before N tokens, generation stops there: a note goes to\n"
           "stderr and the exit status is 0 if at least one token was generated (2 if the\n"
           "prompt alone already fills the context).\n",
           CLI_MODEL_USAGE_MODEL, CLI_MODEL_USAGE_PROMPT, CLI_MODEL_USAGE_SAMPLER, CLI_MODEL_USAGE_TRACE,
           CLI_MODEL_USAGE_ABLATE);
}

/* One generated token and the draw that chose it. */
typedef struct GenToken {
    SamplerRow row; /* the chosen token's row of the sampler record */
    double u;       /* the draw (unused when greedy) */
    int greedy;     /* 1 if argmax chose it (no draw) */
} GenToken;

/* Pushes one token through the streaming decoder and prints what is safe to print. */
static int stream_token(TokStream *ts, const Tokenizer *tok, int id, ErrorMsg *err) {
    const uint8_t *out;
    size_t len;
    if (tok_stream_push(ts, tok, id, &out, &len, err)) return -1;
    text_visible_write(stdout, out, len, TEXT_KEEP_LINES); /* a token's ESC or BEL reads \x1B */
    /* one token at a time: the user watches it appear, and a lost write stops us here */
    return cli_output_check(err);
}

static void print_json(const Session *s, const GenToken *g, int n, int stopped_early, int stopped_at_eot) {
    const Tokenizer *tok = &s->tok;
    const SamplerSettings *set = &s->settings;
    printf("{\"model\": ");
    cli_json_string(stdout, (const uint8_t *)s->model.name, strlen(s->model.name));
    printf(", \"prompt_ids\": [");
    for (int i = 0; i < s->n_prompt; i++) printf(i ? ", %d" : "%d", session_ids(s)[i]);
    char settings[1024]; /* the settings table's one JSON writer */
    settings_json(set, set->greedy, settings, sizeof settings);
    printf("],\n \"settings\": %s,\n", settings);
    char abl[1024];
    gpt2_ablation_format(&s->trace.ablation, abl, sizeof abl);
    printf(" \"ablate\": ");
    if (abl[0]) cli_json_string(stdout, (const uint8_t *)abl, strlen(abl));
    else printf("null");
    printf(",\n \"seed\": %llu, \"context\": %d, \"stopped_at_context_end\": %s, \"stopped_at_eot\": %s,\n"
           " \"tokens\": [",
           (unsigned long long)s->seed, s->trace.max_pos, stopped_early ? "true" : "false",
           stopped_at_eot ? "true" : "false");
    for (int i = 0; i < n; i++) {
        size_t len;
        const uint8_t *b = tok_token_bytes(tok, g[i].row.id, &len);
        printf(i ? ",\n  " : "\n  ");
        printf("{\"id\": %d, \"text\": ", g[i].row.id);
        cli_json_string(stdout, b ? b : (const uint8_t *)"", len);
        printf(", \"p_raw\": %.9g, \"p_final\": %.9g, \"rank\": %d, \"u\": ", g[i].row.p_raw, g[i].row.p_final,
               g[i].row.rank + 1); /* 1-based, as everywhere the user reads a rank */
        if (g[i].greedy) printf("null}"); /* argmax: no draw was used */
        else printf("%.17g}", g[i].u);
    }
    printf("],\n \"ids\": [");
    for (int i = 0; i < n; i++) printf(i ? ", %d" : "%d", g[i].row.id);
    uint8_t *text = NULL;
    size_t tlen = 0;
    ErrorMsg err;
    printf("],\n \"text\": ");
    if (session_text(s, s->n_prompt, session_len(s), &text, &tlen, &err) == 0) cli_json_string(stdout, text, tlen);
    else printf("null");
    free(text);
    printf("}\n");
}

int cmd_generate(int argc, char **argv) {
    CliModelArgs a = cli_model_args_default();
    ErrorMsg err;
    int json = 0, stop_at_eot = 0;
    long n_new = 50;
    const CliOpt opts[] = {
        CLI_FLAG("--json", &json),
        CLI_FLAG("--stop-at-eot", &stop_at_eot),
        CLI_LONG("-n", &n_new, 0, 1000000, "a whole number >= 0"),
        CLI_END,
    };
    const CliArgs args = {.model = &a,
                          .groups = CLI_OPT_MODEL | CLI_OPT_PROMPT | CLI_OPT_SAMPLER | CLI_OPT_TRACE | CLI_OPT_ABLATE,
                          .refusal = ": give the prompt with --prompt TEXT", .usage = usage};
    int r = cli_parse_command(argc, argv, opts, &args, &err);
    if (r) return r == CLI_PARSE_HELP ? 0 : cli_fail(CMD, "%s", err.text);
    Session s;
    if (cli_model_start(&a, &s, 0, 0, &err)) return cli_fail(CMD, "%s", err.text);
    if (stop_at_eot && s.tok.eot < 0) {
        int st = cli_fail(CMD, "--stop-at-eot: this model's vocabulary (%s) has no <|endoftext|> token", s.vocab_desc);
        session_free(&s);
        return st;
    }
    int room = s.trace.max_pos - session_len(&s);
    if (n_new > 0 && room <= 0) {
        int st = cli_fail(CMD, "the prompt (%d tokens) fills the whole context of %d tokens: nothing to generate",
                          session_len(&s), s.trace.max_pos);
        session_free(&s);
        return st;
    }
    int n_gen = n_new < room ? (int)n_new : room;
    GenToken *g = malloc(((size_t)n_gen + 1) * sizeof *g);
    TokStream ts = {0};
    int status = 0;
    if (!g) {
        status = cli_fail(CMD, "out of memory");
        goto done;
    }
    if (!json)
        for (int p = 0; p < s.n_prompt; p++)
            if (stream_token(&ts, &s.tok, session_ids(&s)[p], &err)) {
                status = cli_fail(CMD, "%s", err.text);
                goto done;
            }
    int done_n = 0, hit_eot = 0;
    for (; done_n < n_gen && !hit_eot; done_n++) {
        /* the pending record is the draw for this position: keep its chosen row */
        g[done_n].row = s.next.chosen;
        g[done_n].u = s.next.u;
        g[done_n].greedy = s.next.greedy;
        if (session_step(&s, &err)) {
            if (!json) putchar('\n');
            status = cli_fail(CMD, "%s", err.text);
            goto done;
        }
        if (!json && stream_token(&ts, &s.tok, g[done_n].row.id, &err)) {
            putchar('\n');
            status = cli_fail(CMD, "%s", err.text);
            goto done;
        }
        hit_eot = stop_at_eot && g[done_n].row.id == s.tok.eot;
    }
    const int hit_context_end = !hit_eot && n_gen < n_new;
    if (json) {
        print_json(&s, g, done_n, hit_context_end, hit_eot);
    } else {
        const uint8_t *out;
        size_t len;
        tok_stream_flush(&ts, &out, &len);
        text_visible_write(stdout, out, len, TEXT_KEEP_LINES);
        putchar('\n');
        fflush(stdout);
    }
    if (hit_eot)
        fprintf(stderr, "inferscope %s: stopped at <|endoftext|> after %d of %ld tokens\n", CMD, done_n, n_new);
    if (hit_context_end)
        fprintf(stderr, "inferscope %s: stopped at the context end (%d tokens) after %d of %ld tokens\n", CMD,
                s.trace.max_pos, n_gen, n_new);
    if (status == 0) cli_report_seed(s.seed);
done:
    tok_stream_free(&ts);
    free(g);
    session_free(&s);
    return status;
}
