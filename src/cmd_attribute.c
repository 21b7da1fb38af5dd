/* cmd_attribute.c — `inferscope attribute`: direct logit attribution at one position:
 * how much the embeddings, every head, every MLP and the biases add to the logit of a
 * token (or to the difference of two), with the final LayerNorm's scale frozen, so the
 * parts add up to the model's own number. Only printing: the numbers are
 * engine/logit_attribution.h's Attribution, the same the window's panel reads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_model.h"
#include "logit_attribution.h"
#include "logit_lens.h"

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

/* The one token TEXT encodes to, or -1 with err. */
static int one_token(Tokenizer *tok, const char *flag, const char *text, ErrorMsg *err) {
    TokEncoding enc = {0};
    if (!*text) return error_set(err, "%s: empty text (give one token, e.g. ' time')", flag);
    if (tok_encode(tok, (const uint8_t *)text, strlen(text), NULL, &enc, err)) {
        char msg[sizeof err->text];
        snprintf(msg, sizeof msg, "%s", err->text);
        return error_set(err, "%s: %s", flag, msg);
    }
    int id = enc.n_ids == 1 ? enc.ids[0] : -1;
    if (enc.n_ids != 1) {
        char list[256] = "";
        size_t len = 0;
        for (size_t i = 0; i < enc.n_ids && i < 6 && len < sizeof list; i++)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? " " : "", piece(tok, enc.ids[i]));
        error_set(err, "%s '%s' is %zu tokens (%s%s), not one: give a single token, with its leading space", flag,
                  text, enc.n_ids, list, enc.n_ids > 6 ? " ..." : "");
    }
    tok_encoding_free(&enc);
    return id;
}

static void print_table(const Session *s, const Attribution *at, int top, const char *abl) {
    const Tokenizer *tok = &s->tok;
    printf("direct logit attribution at position %d of %d (token %s), model %s\n", at->pos, session_len(s),
           piece(tok, session_ids(s)[at->pos]), s->model.name);
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

/* Parses a token id flag value. */
static int parse_id(const char *flag, const char *v, long *out) {
    char *end;
    long x = strtol(v, &end, 10);
    if (*v == 0 || *end || x < 0 || x > 100000000) return cli_fail(CMD, "%s: '%s' is not a token id", flag, v);
    *out = x;
    return 0;
}

int cmd_attribute(int argc, char **argv) {
    CliModelArgs a;
    cli_model_args_init(&a);
    ErrorMsg err;
    int json = 0, only_positional = 0;
    long pos_arg = -1, top = 20, target_id = -1, vs_id = -1;
    const char *target_text = NULL, *vs_text = NULL;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (!only_positional && o[0] == '-' && o[1] != 0) {
            int r = cli_model_parse(&a, CLI_OPT_MODEL | CLI_OPT_PROMPT | CLI_OPT_ABLATE, argc, argv, &i, &err);
            if (r < 0) return cli_fail(CMD, "%s", err.text);
            if (r > 0) continue;
            if (strcmp(o, "--help") == 0 || strcmp(o, "-h") == 0) {
                usage();
                return 0;
            } else if (strcmp(o, "--") == 0) {
                only_positional = 1;
            } else if (strcmp(o, "--json") == 0) {
                json = 1;
            } else if (i + 1 >= argc && (!strcmp(o, "--pos") || !strcmp(o, "--top") || !strcmp(o, "--target") ||
                                         !strcmp(o, "--vs") || !strcmp(o, "--target-id") || !strcmp(o, "--vs-id"))) {
                return cli_fail(CMD, "%s needs a value (see --help)", o);
            } else if (strcmp(o, "--target") == 0 || strcmp(o, "--target-id") == 0) {
                if (target_text || target_id >= 0) return cli_fail(CMD, "%s: the target was already given", o);
                if (o[8] == 0) target_text = argv[++i];
                else if (parse_id(o, argv[++i], &target_id)) return 2;
            } else if (strcmp(o, "--vs") == 0 || strcmp(o, "--vs-id") == 0) {
                if (vs_text || vs_id >= 0) return cli_fail(CMD, "%s: the other token was already given", o);
                if (o[4] == 0) vs_text = argv[++i];
                else if (parse_id(o, argv[++i], &vs_id)) return 2;
            } else if (strcmp(o, "--pos") == 0 || strcmp(o, "--top") == 0) {
                char *end;
                const char *v = argv[++i];
                long x = strtol(v, &end, 10);
                if (*v == 0 || *end || x < -1000000 || x > 1000000 || (o[2] == 't' && x < 0))
                    return cli_fail(CMD, "%s: '%s' is not a %s", o, v,
                                    o[2] == 't' ? "whole number >= 0 (0 = all)" : "position (0, 1, ... or -1 for the last)");
                if (o[2] == 't') top = x;
                else pos_arg = x;
            } else {
                return cli_fail(CMD, "unknown option '%s' (see --help)", o);
            }
        } else if (cli_model_set_positional(&a, o, &err)) {
            return cli_fail(CMD, "%s", err.text);
        }
    }
    Session s;
    if (cli_model_open(&a, &s, 0, GPT2_CAP_RESID, &err)) return cli_fail(CMD, "%s", err.text);
    s.track_original = 0; /* no comparison with the unablated model here: one forward pass */
    Attribution at = {0};
    int status = 0, pos = -1, target = -1, vs = -1;
    const int V = session_vocab(&s); /* the tokens that exist (not padding rows) */
    if (cli_model_run_prompt(&a, &s, &err) || (pos = cli_model_resolve_pos("--pos", pos_arg, session_len(&s), &err)) < 0 ||
        (target_text && (target = one_token(&s.tok, "--target", target_text, &err)) < 0) ||
        (vs_text && (vs = one_token(&s.tok, "--vs", vs_text, &err)) < 0)) {
        status = cli_fail(CMD, "%s", err.text);
        goto done;
    }
    if (target_id >= V || vs_id >= V) {
        status = cli_fail(CMD, "%s %ld is outside the vocabulary 0..%d", target_id >= V ? "--target-id" : "--vs-id",
                          target_id >= V ? target_id : vs_id, V - 1);
        goto done;
    }
    if (target_id >= 0) target = (int)target_id;
    if (vs_id >= 0) vs = (int)vs_id;
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
