/* model_probe.c — the browser end of tests/web/model_source.sh: built with emcc against
 * the engine (no window), started by tests/web/model_page.html after model_source.js's
 * prepare() wrote a stored model into MEMFS. Reads its arguments as the app does
 * (--model DIR --weights f16), lists what is in DIR and loads it with the engine, then
 * prints one line "probe: ..." for the driver to read. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpt2_model.h"

int main(int argc, char **argv) {
    const char *dir = NULL, *weights = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--model") == 0) dir = argv[i + 1];
        else if (strcmp(argv[i], "--weights") == 0) weights = argv[i + 1];
    }
    if (!dir) {
        printf("probe: no --model\n");
        return 0;
    }
    char files[512] = "";
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char p[1200];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (e->d_name[0] == '.' || stat(p, &st) != 0) continue;
        size_t n = strlen(files);
        snprintf(files + n, sizeof files - n, " %s=%lld", e->d_name, (long long)st.st_size);
    }
    if (d) closedir(d);
    Gpt2Model m;
    ErrorMsg err = {{0}};
    int as = weights && strcmp(weights, "f16") == 0 ? KERN_F16 : GPT2_WEIGHTS_AS_STORED;
    if (gpt2_model_load_as(&m, dir, as, &err) != 0) {
        printf("probe: %s:%s; load failed: %s\n", dir, files, err.text);
        return 0;
    }
    /* the heap's end: what the page's WebAssembly memory had to grow to (the peak of the load) */
    printf("probe: %s:%s; loaded %zu parameters, stored %s, kept %s (%zu bytes), heap %zu MB\n", dir, files,
           m.n_params, m.dtype, gpt2_model_weights_name(&m), gpt2_model_weight_bytes(&m),
           (size_t)(uintptr_t)sbrk(0) >> 20);
    gpt2_model_free(&m);
    return 0;
}
