/* main.c — entry point: `inferscope COMMAND ...` runs a CLI command (src/cmd_*.c);
 * `inferscope [--model DIR] [--prompt TEXT] ...` with no command opens the window. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "heap_setup.h"
#include "kernels.h"
#include "threads_wait.h"

typedef struct Command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} Command;

#define COMMAND_ROW(name, summary) {#name, cmd_##name, summary},
static const Command COMMANDS[] = {CLI_COMMANDS(COMMAND_ROW)};
#undef COMMAND_ROW

static void usage(FILE *f) {
    fprintf(f,
            "inferscope — watch GPT-2 think, one token at a time\n\n"
            "usage: inferscope [--model DIR] [--prompt TEXT] [--seed S] ...   open the window\n"
            "       inferscope COMMAND [options]                             run a command\n\n"
            "commands:\n");
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        fprintf(f, "  %-10s %s\n", COMMANDS[i].name, COMMANDS[i].summary);
    fprintf(f, "\n`inferscope COMMAND --help` describes each command.\n"
               "Environment: INFERSCOPE_ISA=avx512|avx2|neon|scalar forces the SIMD kernels\n"
               "(default: the best this CPU has; `inferscope info` says which run).\n"
               "OMP_NUM_THREADS=N sets the most threads a step uses (one when that is faster);\n"
               "idle threads spin briefly, then sleep (OMP_WAIT_POLICY or GOMP_SPINCOUNT overrides).\n");
}

/* Whatever a command printed must have reached standard output: a full disk or a closed
 * pipe turns a success into exit 2 with one line naming the problem (a command that
 * failed already said why, perhaps this very write, and keeps its status). */
static int output_checked(const char *name, int status) {
    ErrorMsg err;
    if (cli_output_check(&err) == 0 || status != 0) return status;
    fprintf(stderr, "inferscope%s%s: %s\n", name ? " " : "", name ? name : "", err.text);
    return 2;
}

int main(int argc, char **argv) {
    threads_wait_briefly(argv); /* may re-execute once: see threads_wait.c */
    heap_keep_large_blocks_apart(); /* memory stays flat over hours (heap_setup.c) */
    /* the kernels are chosen from the CPU at run time; a forced choice that cannot run
     * here is refused before anything else (never a silent fallback) */
    ErrorMsg err;
    if (kern_select_isa(getenv("INFERSCOPE_ISA"), &err)) {
        fprintf(stderr, "inferscope: INFERSCOPE_ISA: %s\n", err.text);
        return 2;
    }
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        fputc('\n', stdout);
        char *help[] = {argv[0], "--help", NULL};
        return output_checked(NULL, app_main(2, help)); /* the window's own options */
    }
    if (argc >= 2 && argv[1][0] != '-') {
        for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
            if (strcmp(argv[1], COMMANDS[i].name) == 0)
                return output_checked(COMMANDS[i].name, COMMANDS[i].run(argc - 1, argv + 1));
        char q[ERROR_QUOTE_CAP];
        fprintf(stderr, "inferscope: unknown command '%s' (see inferscope --help)\n", ERROR_QUOTE(q, argv[1]));
        return 2;
    }
    return output_checked(NULL, app_main(argc, argv));
}
