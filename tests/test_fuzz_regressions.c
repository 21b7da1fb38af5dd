/* test_fuzz_regressions.c — replays, without libFuzzer, every input that once broke a
 * harness (tests/fuzz/regressions/HARNESS/NAME.accept|.reject) plus every seed of the
 * corpora (every file under tests/fuzz/corpus/HARNESS), through the very same harness code (the
 * fuzz_*.c files are included below with their libFuzzer entry point compiled out).
 * A regression must be accepted or refused as its suffix says; any input must not
 * trip a harness invariant (abort) or, in the ASan build, a sanitizer.
 * Not a fuzzer: `make fuzz` runs the harnesses on new inputs. */
#define _GNU_SOURCE
#define FUZZ_NO_ENTRY
#include "fuzz/fuzz_class_request.c"
#include "fuzz/fuzz_config.c"
#include "fuzz/fuzz_encoder.c"
#include "fuzz/fuzz_figure.c"
#include "fuzz/fuzz_lesson.c"
#include "fuzz/fuzz_model.c"
#include "fuzz/fuzz_png_text.c"
#include "fuzz/fuzz_safetensors.c"
#include "fuzz/fuzz_tokenizer.c"
#include "fuzz/fuzz_vocab.c"

#include <dirent.h>

#include "check.h"
#include "cli.h"

typedef struct Harness {
    const char *name;
    int (*one)(const uint8_t *data, size_t size); /* 1 accepted, 0 refused */
} Harness;

static const Harness HARNESSES[] = {
    {"fuzz_class_request", fuzz_class_request_one},
    {"fuzz_config", fuzz_config_one},       {"fuzz_encoder", fuzz_encoder_one},
    {"fuzz_figure", fuzz_figure_one},       {"fuzz_lesson", fuzz_lesson_one},
    {"fuzz_model", fuzz_model_one},         {"fuzz_png_text", fuzz_png_text_one},
    {"fuzz_safetensors", fuzz_safetensors_one}, {"fuzz_tokenizer", fuzz_tokenizer_one},
    {"fuzz_vocab", fuzz_vocab_one},
};

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int name_cmp(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs every file of dir through h, in name order (stable output). With
 * `expect_suffix`, each name must end in .accept or .reject and the outcome must match.
 * Returns the number of files replayed. */
static size_t replay_dir(const Harness *h, const char *dir, int expect_suffix) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            char **grown = realloc(names, cap * sizeof *names);
            if (!grown) break;
            names = grown;
        }
        names[n] = strdup(e->d_name);
        if (names[n]) n++;
    }
    closedir(d);
    qsort(names, n, sizeof *names, name_cmp);
    for (size_t i = 0; i < n; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        CliBytes b = {0};
        ErrorMsg err;
        if (cli_read_file(path, &b, &err) != 0) {
            CHECK(0, "%s", err.text);
            free(names[i]);
            continue;
        }
        int accepted = h->one(b.data, b.len);
        if (expect_suffix) {
            int want_accept = ends_with(names[i], ".accept");
            CHECK(want_accept || ends_with(names[i], ".reject"),
                  "%s: regression files end in .accept or .reject", path);
            CHECK(accepted == want_accept, "%s: %s, expected %s", path,
                  accepted ? "accepted" : "refused", want_accept ? "accepted" : "refused");
        } else {
            CHECK(accepted == 0 || accepted == 1, "%s: harness result %d", path, accepted);
        }
        cli_bytes_free(&b);
        free(names[i]);
    }
    free(names);
    return n;
}

int main(void) {
    size_t n_reg = 0;
    for (size_t i = 0; i < sizeof HARNESSES / sizeof HARNESSES[0]; i++) {
        const Harness *h = &HARNESSES[i];
        char dir[256];
        snprintf(dir, sizeof dir, "tests/fuzz/corpus/%s", h->name);
        size_t n_seed = replay_dir(h, dir, 0);
        /* Every harness has seeds: an empty or missing corpus would make this test and
         * the fuzzer's start both meaningless. */
        CHECK(n_seed >= 2, "%s: only %zu seed files", dir, n_seed);
        snprintf(dir, sizeof dir, "tests/fuzz/regressions/%s", h->name);
        n_reg += replay_dir(h, dir, 1);
    }
    CHECK(n_reg >= 1, "no regression inputs found under tests/fuzz/regressions");
    printf("replayed %zu regression inputs\n", n_reg);
    return check_summary("test_fuzz_regressions");
}
