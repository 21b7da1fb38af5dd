/* cmd_attribute.c — `inferscope attribute`: direct logit attribution at one position:
 * how much the embeddings, every head, every MLP and the biases add to the logit of a
 * token (or to the difference of two), with the final LayerNorm's scale frozen, so the
 * parts add up to the model's own number. Only printing: the numbers are
 * engine/logit_attribution.h's Attribution, the same the window's panel reads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "parse_num.h"
#include "cli_model.h"
#include "cli_opts.h"
#include "logit_attribution.h"
#include "logit_lens.h"
#include "text_visible.h"

static const char *const CMD = "attribute";

static void usage(void) {
    printf("usage: inferscope attribute [options] (PROMPT | --prompt TEXT | --prompt-file P | --ids LIST)\n"
           "                            [--target TEXT] [--vs TEXT]\n"
           "\n"
           "Direct logit attribution: at one position, the logit of the target token (or, with\n"
           "--vs, the target's logit minus the other's: \"why ' time' and not ' day'?\") split\n"
           "into what each part of the model wrote into the residual stream, read out through\n"
           "the final LayerNorm with its scale frozen at its actual value there:\n"
           "  embed     the token and position embeddings (wte + wpe)\n"
           "  LbHh      head h of block b: its slice of z times its rows of attn.c_proj\n"
           "  Lb.mlp    block b's MLP output (hook_mlp_out, its c_proj bias included)\n"
           "  bias      every attn.c_proj bias plus the ln_final bias term\n"
           "The components add up to the total (the model's own logit or logit difference) up\n"
           "to float rounding. Blocks and heads count from 0, as in --ablate and TransformerLens.\n"
           "\n%s%s%s"
           "  --pos P           the position (default: the last; -1 = last, -2 = the one before)\n"
           "  --target TEXT     the token whose logit is explained; TEXT must be exactly one\n"
           "                    token, with its leading space (' time'). Default: the final\n"
           "                    token as in `inferscope lens` (the next token of the text, or\n"
           "                    at the last position the model's own most likely next token)\n"
           "  --vs TEXT         explain logit(target) - logit(this token) instead\n"
           "  --target-id N, --vs-id N   the same with token ids\n"
           "  --top N           rows of the table, largest |value| first (default 20; 0 = all)\n"
           "  --json            one JSON object: {\"pos\", \"target\", \"vs\", \"total\", \"sum\",\n"
           "                    \"components\": [{\"name\", \"value\", ...}] in model order, ...}\n"
           "  --help            this text\n",
           CLI_MODEL_USAGE_MODEL, CLI_MODEL_USAGE_PROMPT, CLI_MODEL_USAGE_ABLATE);
}

static const char *piece(const Tokenizer *tok, int id) {
    const char *t = tok_token_text(tok, id);
    return t ? t : "?";
}

static void print_table(const Session *s, const Attribution *at, int top, const char *abl) {
    const Tokenizer *tok = &s->tok;
    char name[256]; /* the folder's name: inert on the terminal */
    printf("direct logit attribution at position %d of %d (token %s), model %s\n", at->pos, session_len(s),
           piece(tok, session_ids(s)[at->pos]), TEXT_VISIBLE(name, s->model.name));
    if (abl[0]) printf("switched off (--ablate): %s\n", abl);
    if (at->vs >= 0)
        printf("logit of %s (id %d) minus logit of %s (id %d): %.6f\n", piece(tok, at->target), at->target,
               piece(tok, at->vs), at->vs, at->total);
    else printf("logit of %s (id %d): %.6f\n", piece(tok, at->target), at->target, at->total);
    printf("sum of the %d components: %.6f (differs by %.2g); ln_final scale frozen at 1/sigma = %.6g\n", at->n,
           at->sum, at->sum - at->total, at->inv_scale);
    int rows = top <= 0 || top > at->n ? at->n : top;
    printf("%4s  %-10s %12s\n", "rank", "component", "value");
    double rest = 0.0;
    for (int i = 0; i < at->n; i++) {
        const AttrComponent *c = &at->comp[at->order[i]];
        if (i < rows) printf("%4d  %-10s %+12.6f\n", i + 1, c->name, c->value);
        else rest += c->value;
    }
    if (rows < at->n) printf("      (%d more, together %+.6f)\n", at->n - rows, rest);
}

static void print_json(const Session *s, const Attribution *at, const char *abl) {
    const Tokenizer *tok = &s->tok;
    printf("{\"pos\": %d, \"n_tokens\": %d, \"token\": {", at->pos, session_len(s));
    cli_print_token_fields(tok, session_ids(s)[at->pos]);
    printf("},\n \"target\": %d, \"target_token\": {", at->target);
    cli_print_token_fields(tok, at->target);
    if (at->vs >= 0) {
        printf("}, \"vs\": %d, \"vs_token\": {", at->vs);
        cli_print_token_fields(tok, at->vs);
        printf("},\n");
    } else {
        printf("}, \"vs\": null, \"vs_token\": null,\n");
    }
    printf(" \"total\": %.9g, \"total_is\": \"%s\", \"sum\": %.9g, \"ln_final_inv_scale\": %.9g,\n \"ablate\": ",
           at->total, at->vs >= 0 ? "logit difference" : "logit", at->sum, at->inv_scale);
    if (abl[0]) cli_json_string(stdout, (const uint8_t *)abl, strlen(abl));
    else printf("null");
    printf(",\n \"bias_terms\": {\"ln_final\": %.9g, \"attn_c_proj\": [", at->ln_bias);
    for (int l = 0; l < s->model.config.n_layer; l++) printf(l ? ", %.9g" : "%.9g", at->attn_bias[l]);
    printf("]},\n \"components\": [");
    static const char *const kinds[] = {"embed", "head", "mlp", "bias"};
    for (int i = 0; i < at->n; i++) {
        const AttrComponent *c = &at->comp[i];
        printf("%s{\"name\": \"%s\", \"value\": %.9g, \"kind\": \"%s\"", i ? ",\n  " : "\n  ", c->name, c->value,
               kinds[c->kind]);
        if (c->layer >= 0) printf(", \"layer\": %d", c->layer);
        if (c->head >= 0) printf(", \"head\": %d", c->head);
        printf("}");
    }
    printf("]}\n");
}

/* --target TEXT / --target-id N, and --vs / --vs-id: one token, given once, by its text
 * (tokenized once the model is open) or by its id. */
typedef struct TokenArg {
    const char *text; /* NULL = not given as text */
    long id;          /* -1 = not given as an id */
    const char *name; /* "the target", "the other token": for the refusal of a second one */
} TokenArg;

static int token_arg_free(const TokenArg *t, const char *flag, ErrorMsg *err) {
    if (t->text || t->id >= 0) return error_set(err, "%s: %s was already given", flag, t->name);
    return 0;
}

static int take_token_text(void *ctx, const char *flag, const char *v, ErrorMsg *err) {
    TokenArg *t = ctx;
    if (token_arg_free(t, flag, err)) return -1;
    t->text = v;
    return 0;
}

static int take_token_id(void *ctx, const char *flag, const char *v, ErrorMsg *err) {
    TokenArg *t = ctx;
    if (token_arg_free(t, flag, err)) return -1;
    long long x = 0;
    if (parse_num_int(v, &x) != NUM_OK || x < 0 || x > 100000000) return error_set(err, "%s: '%s' is not a token id", flag, v);
    t->id = (long)x;
    return 0;
}

int cmd_attribute(int argc, char **argv) {
    CliModelArgs a = cli_model_args_default();
    ErrorMsg err;
    int json = 0;
    long pos_arg = -1, top = 20;
    TokenArg tg = {NULL, -1, "the target"}, other = {NULL, -1, "the other token"};
    const CliOpt opts[] = {
        CLI_FLAG("--json", &json),
        CLI_CALL("--target", take_token_text, &tg),
        CLI_CALL("--target-id", take_token_id, &tg),
        CLI_CALL("--vs", take_token_text, &other),
        CLI_CALL("--vs-id", take_token_id, &other),
        CLI_LONG("--pos", &pos_arg, -1000000, 1000000, CLI_WHAT_POS),
        CLI_LONG("--top", &top, 0, 1000000, "a whole number >= 0 (0 = all)"),
        CLI_END,
    };
    int r = cli_parse_prompt_command(argc, argv, opts, &a, CLI_OPT_ABLATE, usage, &err);
    if (r) return r == CLI_PARSE_HELP ? 0 : cli_fail(CMD, "%s", err.text);
    Session s;
    if (cli_model_start(&a, &s, GPT2_CAP_RESID, 0, &err)) return cli_fail(CMD, "%s", err.text);
    Attribution at = {0};
    int status = 0, pos = -1, target = -1, vs = -1;
    const int V = session_vocab(&s); /* the tokens that exist (not padding rows) */
    if ((pos = cli_model_resolve_pos("--pos", pos_arg, session_len(&s), &err)) < 0 ||
        (tg.text && (target = cli_model_one_token(&s.tok, "--target", tg.text, &err)) < 0) ||
        (other.text && (vs = cli_model_one_token(&s.tok, "--vs", other.text, &err)) < 0)) {
        status = cli_fail(CMD, "%s", err.text);
        goto done;
    }
    if (tg.id >= V || other.id >= V) {
        status = cli_fail(CMD, "%s %ld is outside the vocabulary 0..%d", tg.id >= V ? "--target-id" : "--vs-id",
                          tg.id >= V ? tg.id : other.id, V - 1);
        goto done;
    }
    if (tg.id >= 0) target = (int)tg.id;
    if (other.id >= 0) vs = (int)other.id;
    if (target < 0) target = logit_lens_final_token(&s.trace, pos, session_vocab(&s));
    if (vs == target) {
        status = cli_fail(CMD, "--vs: the other token is the target itself (%s, id %d)", piece(&s.tok, vs), vs);
        goto done;
    }
    if (attribution_init(&at, &s.model.config, &err) ||
        attribution_run(&at, &s.model, &s.trace, pos, target, vs, &err)) {
        status = cli_fail(CMD, "%s", err.text);
        goto done;
    }
    char abl[1024];
    gpt2_ablation_format(&s.trace.ablation, abl, sizeof abl);
    if (json) print_json(&s, &at, abl);
    else print_table(&s, &at, (int)top, abl);
done:
    attribution_free(&at);
    session_free(&s);
    return status;
}
