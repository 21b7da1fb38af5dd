/* cmd_export.c — `inferscope export` (placeholder until implemented). */
#include "cli.h"

int cmd_export(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return cli_fail("export", "not implemented yet");
}
