/* fuzz_config.c — libFuzzer harness for gpt2_config_load (engine/gpt2_config.h) on
 * arbitrary config.json bytes. An accepted config must pass gpt2_config_check and give
 * a parameter count without overflow; a refused one a single line naming the file.
 * Not the weights (fuzz_model.c). */
#include "fuzz.h"

#include "gpt2_config.h"

/* Returns 1 if the config was accepted, 0 if refused. */
static int fuzz_config_one(const uint8_t *data, size_t size) {
    static FuzzFile file;
    const char *path = fuzz_file_set(&file, data, size);
    Gpt2Config c;
    ErrorMsg err = {{0}};
    if (gpt2_config_load(&c, path, &err) != 0) {
        FUZZ_ASSERT_REFUSAL(err.text, path);
        FUZZ_ASSERT(c.n_layer == 0 && c.n_embd == 0, "config not zeroed after error");
        return 0;
    }
    FUZZ_ASSERT(gpt2_config_check(&c, path, &err) == 0, "accepted but check fails: %s", err.text);
    /* Untied count >= tied count, and both exceed the embedding alone: catches a
     * wrapped-around size_t product. */
    size_t tied = gpt2_config_n_params(&c, 1), untied = gpt2_config_n_params(&c, 0);
    size_t wte = (size_t)c.vocab_size * (size_t)c.n_embd;
    FUZZ_ASSERT(untied == tied + wte && tied > wte, "n_params wrapped: %zu %zu", tied, untied);
    return 1;
}

FUZZ_ENTRY(fuzz_config_one)
