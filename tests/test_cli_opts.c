/* test_cli_opts.c — the one option loop (src/cli/cli_opts.h): a command's table, the shared
 * model options routed to cli_model_parse, positionals, "--", --help, and the one-line
 * refusals naming the flag. */
#include <string.h>

#include "check.h"
#include "cli_opts.h"

static int helped;
static void fake_usage(void) { helped++; }

typedef struct Parsed {
    int json, mode;
    long top;
    const char *out;
    const char *words[4];
    int n_words;
    char called[64];
} Parsed;

static int take_word(void *ctx, const char *arg, ErrorMsg *err) {
    Parsed *p = ctx;
    if (p->n_words == 4) return error_set(err, "too many words ('%s')", arg);
    p->words[p->n_words++] = arg;
    return 0;
}

static int take_call(void *ctx, const char *flag, const char *v, ErrorMsg *err) {
    Parsed *p = ctx;
    if (strcmp(v, "bad") == 0) return error_set(err, "%s: '%s' is bad", flag, v);
    snprintf(p->called, sizeof p->called, "%s=%s", flag, v);
    return 0;
}

/* Parses the NULL-terminated words after a command name; returns cli_parse_command's result. */
static int run(Parsed *p, CliModelArgs *ma, ErrorMsg *err, const char *const *words) {
    char *argv[16] = {"cmd"};
    int argc = 1;
    while (words[argc - 1] && argc < 15) {
        argv[argc] = (char *)words[argc - 1];
        argc++;
    }
    memset(p, 0, sizeof *p);
    p->top = 5;
    *ma = cli_model_args_default();
    const CliOpt opts[] = {
        CLI_FLAG("--json", &p->json),
        CLI_FLAG_SET("--ids-only", &p->mode, 7),
        CLI_LONG("--top", &p->top, 1, 20, NULL),
        CLI_LONG("--pos", &p->top, -9, 9, CLI_WHAT_POS),
        CLI_TEXT_ONCE("--out", &p->out),
        CLI_CALL("--call", take_call, p),
        CLI_END,
    };
    const CliArgs args = {.model = ma, .groups = CLI_OPT_MODEL | CLI_OPT_SAMPLER, .positional = take_word, .ctx = p,
                          .usage = fake_usage};
    return cli_parse_command(argc, argv, opts, &args, err);
}

#define WORDS(...) ((const char *const[]){__VA_ARGS__, NULL})

static void test_accepts(void) {
    Parsed p;
    CliModelArgs ma;
    ErrorMsg err = {{0}};
    int r = run(&p, &ma, &err, WORDS("--json", "a", "--top", "12", "--out", "d", "-", "--ids-only", "--call", "x"));
    CHECK(r == CLI_PARSE_OK, "plain: %d %s", r, err.text);
    CHECK(p.json == 1 && p.mode == 7 && p.top == 12 && p.out && strcmp(p.out, "d") == 0, "values");
    CHECK(p.n_words == 2 && strcmp(p.words[0], "a") == 0 && strcmp(p.words[1], "-") == 0, "'-' is positional");
    CHECK(strcmp(p.called, "--call=x") == 0, "handler got flag and value: %s", p.called);
    /* the shared options go to cli_model_parse, values that look like options included */
    r = run(&p, &ma, &err, WORDS("--model", "m", "--temperature", "0.5", "--greedy", "--pos", "-3", "--seed", "9"));
    CHECK(r == CLI_PARSE_OK && ma.model_dir && strcmp(ma.model_dir, "m") == 0, "--model routed: %s", err.text);
    CHECK(ma.settings.temperature == 0.5f && ma.settings.greedy == 1 && ma.has_seed && ma.seed == 9,
          "sampler flags routed to cli_model_parse");
    CHECK(p.top == -3, "a negative value is a value, not an option");
    /* after "--" everything is positional */
    r = run(&p, &ma, &err, WORDS("--", "--json", "-x"));
    CHECK(r == CLI_PARSE_OK && p.json == 0 && p.n_words == 2 && strcmp(p.words[0], "--json") == 0, "after --");
    /* --help and -h stop and print the usage */
    helped = 0;
    CHECK(run(&p, &ma, &err, WORDS("--json", "--help", "--bogus")) == CLI_PARSE_HELP && helped == 1, "--help");
    CHECK(run(&p, &ma, &err, WORDS("-h")) == CLI_PARSE_HELP && helped == 2, "-h");
    /* a group the command does not take is an unknown option */
    CHECK(run(&p, &ma, &err, WORDS("--prompt", "x")) == CLI_PARSE_ERROR &&
              strcmp(err.text, "unknown option '--prompt' (see --help)") == 0,
          "--prompt without CLI_OPT_PROMPT: %s", err.text);
}

static void test_refusals(void) {
    const struct { const char *const *words; const char *want; } cases[] = {
        {WORDS("--bogus"), "unknown option '--bogus' (see --help)"},
        {WORDS("--top"), "--top needs a value (see --help)"},
        {WORDS("--top", "0"), "--top: '0' is not a whole number in [1, 20]"},
        {WORDS("--top", "21"), "--top: '21' is not a whole number in [1, 20]"},
        {WORDS("--top", "3x"), "--top: '3x' is not a whole number in [1, 20]"},
        {WORDS("--top", ""), "--top: '' is not a whole number in [1, 20]"},
        {WORDS("--top", "99999999999999999999"), "--top: '99999999999999999999' is not a whole number in [1, 20]"},
        {WORDS("--pos", "10"), "--pos: '10' is not a position (0, 1, ... or -1 for the last)"},
        {WORDS("--out", "a", "--out", "b"), "--out: given twice (give it once)"},
        {WORDS("--call", "bad"), "--call: 'bad' is bad"},
        {WORDS("a", "b", "c", "d", "e"), "too many words ('e')"},
        {WORDS("--top-p", "1.5"), "--top-p"}, /* cli_model_parse's own message, whatever its words */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        Parsed p;
        CliModelArgs ma;
        ErrorMsg err = {{0}};
        int r = run(&p, &ma, &err, cases[k].words);
        int exact = strcmp(cases[k].want, "--top-p") != 0;
        CHECK(r == CLI_PARSE_ERROR && (exact ? strcmp(err.text, cases[k].want) == 0
                                             : strncmp(err.text, cases[k].want, strlen(cases[k].want)) == 0),
              "case %zu: rc %d, '%s' (want '%s')", k, r, err.text, cases[k].want);
        CHECK(strchr(err.text, '\n') == NULL, "case %zu: one line", k);
    }
}

static void test_no_positional(void) {
    char *argv[] = {"cmd", "--json", "extra"};
    int json = 0;
    const CliOpt opts[] = {CLI_FLAG("--json", &json), CLI_END};
    ErrorMsg err = {{0}};
    CliArgs args = {.refusal = ": give the prompt with --prompt TEXT"};
    CHECK(cli_parse_command(3, argv, opts, &args, &err) == CLI_PARSE_ERROR &&
              strcmp(err.text, "unexpected argument 'extra': give the prompt with --prompt TEXT") == 0,
          "refusal with a hint: %s", err.text);
    args.refusal = NULL;
    CHECK(cli_parse_command(3, argv, opts, &args, &err) == CLI_PARSE_ERROR &&
              strcmp(err.text, "unexpected argument 'extra' (see --help)") == 0,
          "default refusal: %s", err.text);
    CHECK(cli_parse_command(2, argv, opts, &args, &err) == CLI_PARSE_OK && json == 1, "no model args needed");
}

int main(void) {
    test_accepts();
    test_refusals();
    test_no_positional();
    return check_summary("test_cli_opts");
}
