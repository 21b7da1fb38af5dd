/* cli_opts.h — the one option loop of the subcommands. A command lists its own options
 * in a small table (flag, kind, where the value goes, range, once-only) and calls
 * cli_parse_command, which walks argv once: the options the model commands share
 * (--model, the prompt, the sampler flags, --trace-mb, --ablate) go to cli_model_parse
 * (cli_model.h, which alone parses them), the command's own to its table, "--help"/"-h"
 * ends the walk, "--" makes every later argument positional, and the rest go to the
 * command's positional handler. Every refusal is one line naming the flag:
 *   "--top: 'x' is not a whole number in [1, 20]", "--out needs a value (see --help)",
 *   "unknown option '--bogus' (see --help)", "--tensor: given twice".
 * Not the commands' meaning of their options, and not their --help texts. */
#ifndef CLI_OPTS_H
#define CLI_OPTS_H

#include "cli_model.h"
#include "error.h"

typedef enum {
    CLI_ARG_FLAG, /* no value: *(int *)target = lo (1 for CLI_FLAG) */
    CLI_ARG_TEXT, /* *(const char **)target = the value (borrowed from argv) */
    CLI_ARG_LONG, /* a whole number in [lo, hi] -> *(long *)target */
    CLI_ARG_CALL, /* call(ctx, flag, value, err): the value as given; 0 or -1 with err */
} CliArgKind;

typedef int (*CliArgFn)(void *ctx, const char *flag, const char *value, ErrorMsg *err);

/* One option of a command. A table ends with a row whose flag is NULL. */
typedef struct CliOpt {
    const char *flag;  /* "--top", matched exactly */
    CliArgKind kind;
    void *target;      /* int * (FLAG), const char ** (TEXT), long * (LONG), the ctx (CALL) */
    long lo, hi;       /* LONG: the accepted range; FLAG: lo is the value stored */
    const char *what;  /* LONG: what a bad value is not, NULL = "a whole number in [lo, hi]" */
    int once;          /* 1: given a second time is an error */
    CliArgFn call;     /* CALL: the handler */
} CliOpt;

/* The rows, by kind (designated initializers: the fields a kind does not use stay 0). */
#define CLI_FLAG(f, t) {.flag = (f), .kind = CLI_ARG_FLAG, .target = (t), .lo = 1}
#define CLI_FLAG_SET(f, t, v) {.flag = (f), .kind = CLI_ARG_FLAG, .target = (t), .lo = (v)}
#define CLI_TEXT(f, t) {.flag = (f), .kind = CLI_ARG_TEXT, .target = (t)}
#define CLI_TEXT_ONCE(f, t) {.flag = (f), .kind = CLI_ARG_TEXT, .target = (t), .once = 1}
#define CLI_LONG(f, t, lo_, hi_, what_) \
    {.flag = (f), .kind = CLI_ARG_LONG, .target = (t), .lo = (lo_), .hi = (hi_), .what = (what_)}
#define CLI_CALL(f, fn, ctx) {.flag = (f), .kind = CLI_ARG_CALL, .target = (ctx), .call = (fn)}
#define CLI_END {.flag = NULL}

/* The positional arguments (and a command's way of refusing them). */
typedef int (*CliPositionalFn)(void *ctx, const char *arg, ErrorMsg *err);

/* What a command accepts besides its own table. */
typedef struct CliArgs {
    CliModelArgs *model;        /* the shared options of `groups` (cli_model_parse), or NULL */
    unsigned groups;            /* CLI_OPT_MODEL | CLI_OPT_PROMPT | ... */
    CliPositionalFn positional; /* NULL: any positional argument is refused */
    void *ctx;                  /* the positional handler's */
    const char *refusal;        /* positional NULL: the refusal's tail, e.g. ": give the prompt
                                 * with --prompt TEXT" (NULL = " (see --help)") */
    void (*usage)(void);        /* prints the --help text on stdout */
} CliArgs;

/* The `what` of a --pos option (a position counted from either end, cli_model_resolve_pos). */
#define CLI_WHAT_POS "a position (0, 1, ... or -1 for the last)"

enum { CLI_PARSE_OK = 0, CLI_PARSE_HELP = 1, CLI_PARSE_ERROR = -1 };

/* Walks argv[1..argc). Returns CLI_PARSE_OK, CLI_PARSE_HELP when --help or -h was given
 * (args->usage has printed the help; the command exits 0), or CLI_PARSE_ERROR with err
 * set (the command prints it with cli_fail and exits 2). An
 * argument is an option when it starts with '-' and is not "-" alone (which is the usual
 * name of standard input), until "--". */
int cli_parse_command(int argc, char **argv, const CliOpt *opts, const CliArgs *args, ErrorMsg *err);

/* The positional handler of commands whose one positional argument is the prompt text
 * (ctx: the CliModelArgs): cli_model_set_positional. */
int cli_positional_prompt(void *ctx, const char *arg, ErrorMsg *err);

/* cli_parse_command for the commands that run the model on a prompt given as their one
 * positional argument or by the prompt flags: groups CLI_OPT_MODEL | CLI_OPT_PROMPT plus
 * `more` (CLI_OPT_SAMPLER, CLI_OPT_TRACE, CLI_OPT_ABLATE), positional = the prompt. */
int cli_parse_prompt_command(int argc, char **argv, const CliOpt *opts, CliModelArgs *a, unsigned more,
                             void (*usage)(void), ErrorMsg *err);

#endif
