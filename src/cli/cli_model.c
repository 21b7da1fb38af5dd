/* cli_model.c — shared option parsing and session opening for the model commands (see
 * cli_model.h). Every numeric flag is parsed in full by parse_num.h (no trailing junk,
 * no NaN) and range-checked, the sampler flags by the settings table, so a typo never
 * silently becomes "0" and every reader of a setting has the same limits. */
#include "cli_model.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "parse_num.h"

const char CLI_MODEL_USAGE_MODEL[] =
    "  --model DIR       model folder (config.json + model.safetensors);\n"
    "                    default: the bundled model (assets/models/stories16m)\n"
    "  --tokenizer DIR   GPT-2 tokenizer (encoder.json + vocab.bpe) for models without their\n"
    "                    own vocabulary file (default: assets/tokenizer)\n"
    "  --weights P       f32, f16 or bf16: the precision the matrices run in (default: as\n"
    "                    stored in the file; an F32 file is rounded once at load; f16/bf16\n"
    "                    read half the bytes per token)\n";

const char CLI_MODEL_USAGE_PROMPT[] =
    "  --prompt TEXT     the prompt text\n"
    "  --prompt-file P   read the prompt from a file ('-' = standard input)\n"
    "  --ids LIST        the prompt as token ids, e.g. 7454,2402,257\n";

/* The sampler flags come from the settings table (every row's flag and help), then
 * --seed; built once into static storage because the commands pass it to printf as
 * text. */
const char *cli_model_usage_sampler(void) {
    static char text[4096];
    if (!text[0]) {
        int n = settings_usage(text, sizeof text, 20);
        if (n >= 0 && (size_t)n < sizeof text)
            snprintf(text + n, sizeof text - (size_t)n, "%s",
                     "  --seed S          the dice: the draw for position p is a function of (S, p) only,\n"
                     "                    so the same seed and settings give the same tokens (default 0)\n");
    }
    return text;
}

const char CLI_MODEL_USAGE_TRACE[] =
    "  --trace-mb N      memory for the trace in MB (or 'auto': free RAM less the weights):\n"
    "                    what does not fit is dropped or recomputed on demand, and said so\n"
    "                    on stderr (default: keep everything)\n";

const char CLI_MODEL_USAGE_ABLATE[] =
    "  --ablate LIST     switch parts of the model off (zero ablation), comma-separated;\n"
    "                    blocks and heads count from 0 (as TransformerLens):\n"
    "                      L.H     head H of block L: its slice of z is zeroed before\n"
    "                              attn.c_proj (the c_proj bias is still added)\n"
    "                      L.attn  block L's whole attention output, bias included\n"
    "                              (resid_mid = resid_pre: the sublayer adds nothing)\n"
    "                      L.mlp   block L's MLP output, bias included\n"
    "                    e.g. --ablate 0.3,1.attn,2.mlp\n";

CliModelArgs cli_model_args_default(void) {
    /* Seed 0, as the window's: the same command gives the same tokens (the README's
     * examples can be replayed); --seed S for other dice. The commands print it. */
    return (CliModelArgs){.settings = sampler_settings_default(), .weights = GPT2_WEIGHTS_AS_STORED, .seed = 0};
}

int cli_parse_weights(const char *v, int *out, ErrorMsg *err) {
    static const struct { const char *name; int value; } table[] = {
        {"f32", KERN_F32}, {"f16", KERN_F16}, {"bf16", KERN_BF16}, {"stored", GPT2_WEIGHTS_AS_STORED}};
    for (size_t i = 0; v && i < sizeof table / sizeof table[0]; i++)
        if (strcasecmp(v, table[i].name) == 0) {
            *out = table[i].value;
            return 0;
        }
    return error_set(err, "--weights: '%.40s' is not f32, f16, bf16 or stored", v ? v : "");
}

int cli_parse_trace_mb(const char *v, size_t *out, ErrorMsg *err) {
    long long l = 0;
    if (v && strcasecmp(v, "auto") == 0) {
        *out = SESSION_TRACE_AUTO;
        return 0;
    }
    if (parse_num_int(v, &l) != NUM_OK || l < 1 || l > 16777216LL)
        return error_set(err, "--trace-mb: '%.40s' is not a whole number of MB in 1..16777216 or 'auto'", v ? v : "");
    *out = (size_t)l * 1000000u;
    return 0;
}

static int prompt_given(const CliModelArgs *a) {
    return (a->prompt != NULL) + (a->prompt_file != NULL) + (a->ids != NULL);
}

int cli_parse_setting(int argc, char **argv, int *i, SamplerSettings *set, ErrorMsg *err) {
    const SettingRow *r = settings_by_flag(argv[*i]);
    if (!r) return 0;
    if (r->kind == SETTING_BOOL) /* a switch: --greedy */
        return settings_parse(r, r->flag, "on", set, err) ? -1 : 1;
    if (*i + 1 >= argc) return error_set(err, "%s needs a value (see --help)", r->flag);
    return settings_parse(r, r->flag, argv[++*i], set, err) ? -1 : 1;
}

int cli_model_parse(CliModelArgs *a, unsigned groups, int argc, char **argv, int *i, ErrorMsg *err) {
    const char *o = argv[*i];
    static const char *const with_value[] = {"--model", "--tokenizer", "--prompt", "--prompt-file", "--ids",
                                             "--seed", "--weights", "--trace-mb", "--ablate"};
    static const unsigned value_group[] = {CLI_OPT_MODEL, CLI_OPT_MODEL, CLI_OPT_PROMPT, CLI_OPT_PROMPT,
                                           CLI_OPT_PROMPT, CLI_OPT_SAMPLER, CLI_OPT_MODEL, CLI_OPT_TRACE,
                                           CLI_OPT_ABLATE};
    if (groups & CLI_OPT_SAMPLER) {
        int r = cli_parse_setting(argc, argv, i, &a->settings, err);
        if (r) return r;
    }
    size_t k = 0, nk = sizeof with_value / sizeof with_value[0];
    while (k < nk && strcmp(o, with_value[k]) != 0) k++;
    if (k == nk || !(groups & value_group[k])) return 0;
    if (*i + 1 >= argc) return error_set(err, "%s needs a value (see --help)", o);
    const char *v = argv[++*i];
    if (value_group[k] == CLI_OPT_PROMPT && prompt_given(a))
        return error_set(err, "%s: a prompt was already given (use one of TEXT, --prompt, --prompt-file, --ids)", o);
    switch (k) {
    case 0: a->model_dir = v; break;
    case 1: a->tok_dir = v; break;
    case 2: a->prompt = v; break;
    case 3: a->prompt_file = v; break;
    case 4: a->ids = v; break;
    case 5:
        if (settings_parse_seed("--seed", v, &a->seed, err)) return -1;
        a->has_seed = 1;
        break;
    case 6:
        if (cli_parse_weights(v, &a->weights, err)) return -1;
        break;
    case 7:
        if (cli_parse_trace_mb(v, &a->trace_budget, err)) return -1;
        break;
    case 8:
        if (a->ablate) return error_set(err, "--ablate: given twice (list every part once: --ablate 0.3,1.mlp)");
        a->ablate = v;
        break;
    }
    return 1;
}

int cli_model_set_positional(CliModelArgs *a, const char *text, ErrorMsg *err) {
    if (prompt_given(a))
        return error_set(err, "extra argument '%.40s': give the prompt once, as ONE argument (quote it)", text);
    a->prompt = text;
    return 0;
}

int cli_model_open(const CliModelArgs *a, Session *s, int max_pos, unsigned capture, ErrorMsg *err) {
    if (sampler_settings_validate(&a->settings, err)) return -1;
    SessionConfig sc = session_config_default();
    sc.max_pos = max_pos;
    sc.capture = capture;
    sc.weights = a->weights;
    sc.trace_budget = a->trace_budget;
    if (session_open_cfg(s, a->model_dir ? a->model_dir : cli_default_model_dir(),
                         a->tok_dir ? a->tok_dir : cli_tokenizer_dir(), &sc, err))
        return -1;
    if (s->trace_dropped) fprintf(stderr, "inferscope: %s\n", s->trace_note);
    session_set_seed(s, a->seed);
    if (session_set_settings(s, &a->settings, err) || cli_model_apply_ablation(a->ablate, s, err)) {
        session_free(s);
        return -1;
    }
    return 0;
}

int cli_model_apply_ablation(const char *spec, Session *s, ErrorMsg *err) {
    if (!spec) return 0;
    Gpt2Ablation ab = {0};
    int rc = gpt2_ablation_parse(&ab, &s->model.config, spec, err);
    if (rc == 0) rc = session_set_ablation(s, &ab, err);
    gpt2_ablation_free(&ab);
    return rc;
}

void cli_print_token_fields(const Tokenizer *tok, int id) {
    const char *t = tok_token_text(tok, id);
    size_t len = 0;
    const uint8_t *b = tok_token_bytes(tok, id, &len);
    printf("\"id\": %d, \"piece\": ", id);
    cli_json_string(stdout, (const uint8_t *)(t ? t : ""), t ? strlen(t) : 0);
    printf(", \"text\": ");
    cli_json_string(stdout, b ? b : (const uint8_t *)"", b ? len : 0);
}

int cli_model_resolve_pos(const char *flag, long p, int n, ErrorMsg *err) {
    long q = p < 0 ? p + n : p;
    if (q < 0 || q >= n)
        return error_set(err, "%s %ld: the text has %d tokens: positions 0..%d (or -1..-%d from the end)", flag, p, n,
                         n - 1, n);
    return (int)q;
}

/* The prompt's bytes from --prompt-file or the --prompt/positional text (not --ids), with
 * the name errors should give it. in->data is owned only for a file. */
static int prompt_bytes(const CliModelArgs *a, CliBytes *in, const char **what, ErrorMsg *err) {
    if (a->prompt_file) {
        *what = strcmp(a->prompt_file, "-") ? a->prompt_file : "stdin";
        return cli_read_file(a->prompt_file, in, err);
    }
    /* argv strings cannot hold NUL bytes, so strlen is the whole text here */
    *what = NULL;
    in->data = (uint8_t *)(uintptr_t)a->prompt;
    in->len = strlen(a->prompt);
    return 0;
}

/* Prefixes err with "WHAT: " when what is not NULL. */
static void name_source(const char *what, ErrorMsg *err) {
    if (!what) return;
    char msg[sizeof err->text];
    snprintf(msg, sizeof msg, "%s", err->text);
    error_set(err, "%s: %s", what, msg);
}

int cli_model_run_prompt(const CliModelArgs *a, Session *s, ErrorMsg *err) {
    if (!prompt_given(a)) return error_set(err, "no prompt: give TEXT, --prompt, --prompt-file or --ids (see --help)");
    if (a->ids) {
        int *ids = NULL;
        size_t n = 0;
        if (cli_parse_ids(a->ids, session_vocab(s), &ids, &n, err)) return -1;
        int rc = session_set_prompt_ids(s, ids, n, err);
        free(ids);
        return rc;
    }
    CliBytes in = {0};
    const char *what;
    if (prompt_bytes(a, &in, &what, err)) return -1;
    int rc = session_set_prompt(s, in.data, in.len, err);
    if (rc) name_source(what, err);
    if (a->prompt_file) cli_bytes_free(&in);
    return rc;
}

int cli_model_prompt_ids(const CliModelArgs *a, Tokenizer *tok, int vocab, int **ids, size_t *n, ErrorMsg *err) {
    *ids = NULL;
    *n = 0;
    if (!prompt_given(a)) return error_set(err, "no prompt: give TEXT, --prompt, --prompt-file or --ids (see --help)");
    if (a->ids) return cli_parse_ids(a->ids, vocab, ids, n, err);
    CliBytes in = {0};
    const char *what;
    if (prompt_bytes(a, &in, &what, err)) return -1;
    TokEncoding enc = {0};
    int rc = tok_encode(tok, in.data, in.len, NULL, &enc, err);
    if (rc) name_source(what, err);
    if (a->prompt_file) cli_bytes_free(&in);
    if (rc) return -1;
    if (enc.n_ids == 0) {
        tok_encoding_free(&enc);
        return error_set(err, "the prompt is empty");
    }
    *ids = enc.ids; /* take the ids; free the rest */
    *n = enc.n_ids;
    enc.ids = NULL;
    tok_encoding_free(&enc);
    return 0;
}

int cli_model_start(const CliModelArgs *a, Session *s, unsigned capture, int compare_original, ErrorMsg *err) {
    if (cli_model_open(a, s, 0, capture, err)) return -1;
    s->track_original = compare_original;
    if (cli_model_run_prompt(a, s, err)) {
        session_free(s);
        return -1;
    }
    return 0;
}

int cli_model_one_token(Tokenizer *tok, const char *flag, const char *text, ErrorMsg *err) {
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
        for (size_t i = 0; i < enc.n_ids && i < 6 && len < sizeof list; i++) {
            const char *t = tok_token_text(tok, enc.ids[i]);
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? " " : "", t ? t : "?");
        }
        error_set(err, "%s '%s' is %zu tokens (%s%s), not one: give a single token, with its leading space", flag,
                  text, enc.n_ids, list, enc.n_ids > 6 ? " ..." : "");
    }
    tok_encoding_free(&enc);
    return id;
}
