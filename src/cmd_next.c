/* cmd_next.c — `inferscope next` (placeholder until implemented). */
#include "cli.h"

int cmd_next(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return cli_fail("next", "not implemented yet");
}
