/* web_main.c — the browser build's entry point: the window alone (app_main), with the
 * options the page passes as Module.arguments (web/index.html: the link's state).
 * Not src/main.c: the subcommands need a terminal and libraries the browser lacks
 * (the class room's HTTP server, cairo); and no threads_wait / heap setup (one
 * thread, the browser's allocator). */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "kernels.h"

int main(int argc, char **argv) {
    ErrorMsg err;
    if (kern_select_isa(getenv("INFERSCOPE_ISA"), &err)) { /* SIMD128 when built with it */
        fprintf(stderr, "inferscope: INFERSCOPE_ISA: %s\n", err.text);
        return 2;
    }
    return app_main(argc, argv);
}
