/* cmd_lens.c — `inferscope lens`: the logit lens at one position of a prompt: what the
 * model would predict if it stopped after the embeddings, after each block (and with
 * --mid after each block's attention half), with the rank and probability of the token
 * that finally came. Only printing: the numbers are engine/logit_lens.h's LensRow, the
 * same the window's lens panel reads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_model.h"
#include "cli_opts.h"
#include "logit_lens.h"
#include "text_visible.h"

static const char *const CMD = "lens";

static void usage(void) {
    printf("usage: inferscope lens [options] (PROMPT | --prompt TEXT | --prompt-file P | --ids LIST)\n"
           "\n"
           "The logit lens (nostalgebraist 2020): the residual stream at one position, taken\n"
           "after the embeddings and after every block, is pushed through the final LayerNorm\n"
           "and the unembedding, as if the model stopped there. Each row shows the most likely\n"
           "next tokens at that depth and the rank (1 = most likely) and probability of the\n"
           "FINAL token, which is:\n"
           "  - at the last position: the model's own most likely next token (its argmax);\n"
           "  - at an earlier position (--pos): the token that comes next in the text.\n"
           "\n"
           "Rows: layer 0 = the embeddings (wte + wpe, blocks.0.hook_resid_pre); layer l =\n"
           "after l blocks (blocks.{l-1}.hook_resid_post; blocks count from 0 as in\n"
           "TransformerLens and --ablate), so the last layer is the model's real output.\n"
           "\n%s%s%s"
           "  --pos P           the position to look at (default: the last; -1 = last,\n"
           "                    -2 = the one before ...)\n"
           "  --top N           tokens per row (default 5, at most %d)\n"
           "  --mid             also a row after each block's attention half\n"
           "                    (blocks.{l-1}.hook_resid_mid, where = \"resid_mid\")\n"
           "  --json            one JSON object: {\"pos\", \"token\", \"final\", \"layers\": [{\"layer\",\n"
           "                    \"where\", \"hook\", \"top\": [{\"id\", \"piece\", \"text\", \"p\"}],\n"
           "                    \"final_rank\", \"final_p\", \"entropy_bits\"}], \"ablate\"}\n"
           "  --help            this text\n"
           "\n"
           "Probabilities are the softmax over the vocabulary's tokens at temperature 1 (the\n"
           "padding rows of a padded checkpoint are no tokens and never ranked).\n",
           CLI_MODEL_USAGE_MODEL, CLI_MODEL_USAGE_PROMPT, CLI_MODEL_USAGE_ABLATE, LENS_MAX_TOP);
}

static const char *piece(const Tokenizer *tok, int id) {
    const char *t = tok_token_text(tok, id);
    return t ? t : "?";
}

static void print_table(const Session *s, const LensRow *rows, int n, int pos, int final, const char *abl) {
    const Tokenizer *tok = &s->tok;
    const int last = session_len(s) - 1;
    char name[256]; /* the folder's name: inert on the terminal */
    printf("logit lens at position %d of %d (token %s, id %d), model %s\n", pos, last + 1,
           piece(tok, session_ids(s)[pos]), session_ids(s)[pos], TEXT_VISIBLE(name, s->model.name));
    printf("final token: %s (id %d), %s\n", piece(tok, final), final,
           pos < last ? "the next token of the text" : "the model's own most likely next token");
    if (abl[0]) printf("switched off (--ablate): %s\n", abl);
    printf("%5s  %-26s %10s %11s %8s  %s\n", "layer", "stream", "final rank", "final p", "H bits", "top tokens (p)");
    for (int k = 0; k < n; k++) {
        const LensRow *r = &rows[k];
        char hook[64];
        logit_lens_row_hook(r, hook, sizeof hook);
        printf("%5d  %-26s %10d %11.4e %8.3f ", r->layer, r->where == LENS_EMBED ? "embed (wte + wpe)" : hook,
               r->target.rank, r->target.p, r->target.entropy_bits);
        for (int i = 0; i < r->n_top; i++) printf("  '%s' %.3g", piece(tok, r->top_id[i]), (double)r->top_p[i]);
        printf("\n");
    }
}

static void print_json(const Session *s, const LensRow *rows, int n, int pos, int final, const char *abl) {
    const Tokenizer *tok = &s->tok;
    printf("{\"pos\": %d, \"n_tokens\": %d, \"token\": {", pos, session_len(s));
    cli_print_token_fields(tok, session_ids(s)[pos]);
    printf("},\n \"final\": {");
    cli_print_token_fields(tok, final);
    printf("}, \"final_is\": \"%s\",\n \"ablate\": ", pos < session_len(s) - 1 ? "next_token" : "model_argmax");
    if (abl[0]) cli_json_string(stdout, (const uint8_t *)abl, strlen(abl));
    else printf("null");
    printf(",\n \"layers\": [");
    for (int k = 0; k < n; k++) {
        const LensRow *r = &rows[k];
        char hook[64];
        logit_lens_row_hook(r, hook, sizeof hook);
        printf("%s{\"layer\": %d, \"where\": \"%s\", \"hook\": \"%s\", \"top\": [", k ? ",\n  " : "\n  ", r->layer,
               logit_lens_where_name(r->where), hook);
        for (int i = 0; i < r->n_top; i++) {
            printf(i ? ", {" : "{");
            cli_print_token_fields(tok, r->top_id[i]);
            printf(", \"p\": %.9g}", (double)r->top_p[i]);
        }
        printf("], \"final_rank\": %d, \"final_p\": %.9g, \"entropy_bits\": %.9g}", r->target.rank, r->target.p,
               r->target.entropy_bits);
    }
    printf("]}\n");
}

int cmd_lens(int argc, char **argv) {
    CliModelArgs a = cli_model_args_default();
    ErrorMsg err;
    int json = 0, mid = 0;
    long top = 5, pos_arg = -1;
    const CliOpt opts[] = {
        CLI_FLAG("--json", &json),
        CLI_FLAG("--mid", &mid),
        CLI_LONG("--top", &top, 1, LENS_MAX_TOP, NULL),
        CLI_LONG("--pos", &pos_arg, -1000000, 1000000, CLI_WHAT_POS),
        CLI_END,
    };
    int r = cli_parse_prompt_command(argc, argv, opts, &a, CLI_OPT_ABLATE, usage, &err);
    if (r) return r == CLI_PARSE_HELP ? 0 : cli_fail(CMD, "%s", err.text);
    Session s;
    unsigned capture = GPT2_CAP_RESID | (mid ? GPT2_CAP_RESID_MID : 0u);
    if (cli_model_start(&a, &s, capture, 0, &err)) return cli_fail(CMD, "%s", err.text);
    LogitLens lens = {0};
    LensRow *rows = NULL;
    int status = 0, pos;
    if ((pos = cli_model_resolve_pos("--pos", pos_arg, session_len(&s), &err)) < 0 ||
        logit_lens_init(&lens, &s.model.config, session_vocab(&s), &err)) {
        status = cli_fail(CMD, "%s", err.text);
        goto done;
    }
    rows = calloc((size_t)logit_lens_n_rows(&s.model.config, mid), sizeof *rows);
    if (!rows) {
        status = cli_fail(CMD, "out of memory");
        goto done;
    }
    int n = logit_lens_at(&lens, &s.model, &s.trace, pos, -1, mid, (size_t)top, rows, &err);
    if (n < 0) {
        status = cli_fail(CMD, "%s", err.text);
        goto done;
    }
    int final = rows[0].target.id;
    char abl[1024];
    gpt2_ablation_format(&s.trace.ablation, abl, sizeof abl);
    if (json) print_json(&s, rows, n, pos, final, abl);
    else print_table(&s, rows, n, pos, final, abl);
done:
    free(rows);
    logit_lens_free(&lens);
    session_free(&s);
    return status;
}
