/* cli_opts.c — see cli_opts.h. One pass over argv; the table is searched linearly (a
 * command has a handful of options). */
#include "cli_opts.h"

#include "parse_num.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CLI_MAX_OPTS 32 /* options in one command's table (for the once-only bookkeeping) */

static int parse_long_arg(const CliOpt *o, const char *v, ErrorMsg *err) {
    long long x = 0;
    if (parse_num_int(v, &x) != NUM_OK || x < o->lo || x > o->hi) { /* the one number parser */
        if (o->what) return error_set(err, "%s: '%s' is not %s", o->flag, v, o->what);
        return error_set(err, "%s: '%s' is not a whole number in [%ld, %ld]", o->flag, v, o->lo, o->hi);
    }
    *(long *)o->target = (long)x;
    return 0;
}

/* Applies option o (argv[*i]), taking its value from argv[*i + 1] when it has one. */
static int take_option(const CliOpt *o, int argc, char **argv, int *i, ErrorMsg *err) {
    if (o->kind == CLI_ARG_FLAG) {
        *(int *)o->target = (int)o->lo;
        return 0;
    }
    if (*i + 1 >= argc) return error_set(err, "%s needs a value (see --help)", o->flag);
    const char *v = argv[++*i];
    switch (o->kind) {
    case CLI_ARG_TEXT: *(const char **)o->target = v; return 0;
    case CLI_ARG_LONG: return parse_long_arg(o, v, err);
    case CLI_ARG_CALL: return o->call(o->target, o->flag, v, err);
    default: return error_set(err, "%s: internal: unknown option kind", o->flag);
    }
}

int cli_parse_command(int argc, char **argv, const CliOpt *opts, const CliArgs *args, ErrorMsg *err) {
    unsigned char seen[CLI_MAX_OPTS] = {0};
    int only_positional = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_positional || a[0] != '-' || a[1] == 0) {
            if (args->positional) {
                if (args->positional(args->ctx, a, err)) return CLI_PARSE_ERROR;
                continue;
            }
            error_set(err, "unexpected argument '%.40s'%s", a, args->refusal ? args->refusal : " (see --help)");
            return CLI_PARSE_ERROR;
        }
        if (args->model) {
            int r = cli_model_parse(args->model, args->groups, argc, argv, &i, err);
            if (r < 0) return CLI_PARSE_ERROR;
            if (r > 0) continue;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            if (args->usage) args->usage();
            return CLI_PARSE_HELP;
        }
        if (strcmp(a, "--") == 0) {
            only_positional = 1;
            continue;
        }
        size_t k = 0;
        while (opts[k].flag && strcmp(opts[k].flag, a) != 0) k++;
        if (!opts[k].flag) {
            error_set(err, "unknown option '%s' (see --help)", a);
            return CLI_PARSE_ERROR;
        }
        if (opts[k].once && k < CLI_MAX_OPTS && seen[k]++) {
            error_set(err, "%s: given twice (give it once)", a);
            return CLI_PARSE_ERROR;
        }
        if (take_option(&opts[k], argc, argv, &i, err)) return CLI_PARSE_ERROR;
    }
    return CLI_PARSE_OK;
}

int cli_positional_prompt(void *ctx, const char *arg, ErrorMsg *err) {
    return cli_model_set_positional(ctx, arg, err);
}

int cli_parse_prompt_command(int argc, char **argv, const CliOpt *opts, CliModelArgs *a, unsigned more,
                             void (*usage)(void), ErrorMsg *err) {
    const CliArgs args = {.model = a, .groups = CLI_OPT_MODEL | CLI_OPT_PROMPT | more,
                          .positional = cli_positional_prompt, .ctx = a, .usage = usage};
    return cli_parse_command(argc, argv, opts, &args, err);
}
