/* app_main.c — what `inferscope` with no command does. Until the window exists it
 * shows the tokenizer on a sample text, so `make run` always does something useful. */
#include "cli.h"

int app_main(int argc, char **argv) {
    (void)argc;
    (void)argv;
    char *args[] = {"tokenize", "--explain", "Once upon a time, there was a little robot.", NULL};
    return cmd_tokenize(3, args);
}
