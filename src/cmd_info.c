/* cmd_info.c — `inferscope info` (placeholder until implemented). */
#include "cli.h"

int cmd_info(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return cli_fail("info", "not implemented yet");
}
