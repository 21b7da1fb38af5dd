/* cmd_generate.c — `inferscope generate` (placeholder until implemented). */
#include "cli.h"

int cmd_generate(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return cli_fail("generate", "not implemented yet");
}
