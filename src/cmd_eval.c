/* cmd_eval.c — `inferscope eval` (placeholder until implemented). */
#include "cli.h"

int cmd_eval(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return cli_fail("eval", "not implemented yet");
}
