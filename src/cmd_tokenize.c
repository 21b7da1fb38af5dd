/* cmd_tokenize.c — `inferscope tokenize` (placeholder until implemented). */
#include "cli.h"

int cmd_tokenize(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return cli_fail("tokenize", "not implemented yet");
}
