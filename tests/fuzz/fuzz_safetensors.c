/* fuzz_safetensors.c — libFuzzer harness for safe_open (engine/safetensors.h): the
 * 8-byte length, the JSON header and the tensor table of arbitrary bytes. Checks the
 * promise the loader makes (every SafeTensor's bytes lie inside the mapping, names are
 * findable) by reading the first and last byte of each tensor. Not the GPT-2 shape
 * checks: that is fuzz_model.c. */
#include "fuzz.h"

#include "safetensors.h"

/* Returns 1 if the input was accepted as a safetensors file, 0 if refused. */
static int fuzz_safetensors_one(const uint8_t *data, size_t size) {
    static FuzzFile file;
    const char *path = fuzz_file_set(&file, data, size);
    SafeFile f;
    ErrorMsg err = {{0}};
    if (safe_open(&f, path, &err) != 0) {
        /* A refusal must explain itself in one line that names the file. */
        FUZZ_ASSERT_REFUSAL(err.text, path);
        FUZZ_ASSERT(f.map == NULL && f.tensors == NULL, "SafeFile not zeroed after error");
        return 0;
    }
    FUZZ_ASSERT(f.map_len == size, "map_len %zu != input %zu", f.map_len, size);
    const uint8_t *data_start = f.map + 8 + f.header_len, *map_end = f.map + f.map_len;
    unsigned sum = 0;
    for (size_t i = 0; i < f.n_tensors; i++) {
        const SafeTensor *t = &f.tensors[i];
        FUZZ_ASSERT(t->ndim >= 0 && t->ndim <= SAFE_MAX_DIMS, "ndim %d", t->ndim);
        FUZZ_ASSERT(safe_numel(t) * safe_dtype_size(t->dtype) == t->nbytes, "nbytes of '%s'", t->name);
        FUZZ_ASSERT(t->data >= data_start && t->data + t->nbytes <= map_end, "'%s' outside data",
                    t->name);
        /* safe_find returns the first tensor of that name; names are unique. */
        FUZZ_ASSERT(safe_find(&f, t->name) == t, "safe_find('%s') wrong", t->name);
        if (t->nbytes) sum += t->data[0] + t->data[t->nbytes - 1]; /* ASan/SEGV if out of map */
    }
    (void)sum;
    safe_close(&f);
    return 1;
}

FUZZ_ENTRY(fuzz_safetensors_one)
