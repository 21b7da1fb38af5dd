/* cmd_dump.c — `inferscope dump` (placeholder until implemented). */
#include "cli.h"

int cmd_dump(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return cli_fail("dump", "not implemented yet");
}
