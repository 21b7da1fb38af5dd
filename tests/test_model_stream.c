/* test_model_stream.c — an F32 checkpoint loaded as F16 without its 4-byte image in
 * memory (what a browser needs for GPT-2 124M: engine/safetensors.h safe_open_header,
 * safe_read; gpt2_model_load_as). Checks: a header-only open indexes the same tensors as
 * the mapping and reads the same bytes; the F16 model is the rounding of the F32 one;
 * nothing stays mapped; where malloc grows the heap by sbrk (WebAssembly) the load grows
 * it by less than the file's size (an mmap there is a copy in the heap: 1.5x the file
 * before this loader); folders that cannot load say so in one line. The file is written
 * a block at a time, so nothing big was allocated and freed before the load. Engine only, so it
 * runs under Node in make test-wasm too. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "gpt2_model.h"
#include "half.h"
#include "safetensors.h"

static char g_dir[64];

/* Removes what the test wrote (no rm -rf: WebAssembly under Node has no processes). */
static void remove_files(void) {
    static const char *names[] = {"m/model.safetensors", "m/config.json", "bad/config.json", "m", "bad", ""};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char p[128];
        snprintf(p, sizeof p, "%s/%s", g_dir, names[i]);
        if (unlink(p) != 0) rmdir(p);
    }
}

static void test_header_only(const char *path) {
    SafeFile a = {0}, b = {0};
    ErrorMsg err = {{0}};
    CHECK(safe_open(&a, path, &err) == 0, "mapped: %s", err.text);
    CHECK(safe_open_header(&b, path, &err) == 0, "header only: %s", err.text);
    CHECK(b.map == NULL && b.fd_open, "header only: nothing mapped, the file open");
    CHECK(a.n_tensors == b.n_tensors && a.n_tensors > 10 && a.map_len == b.map_len, "%zu and %zu tensors",
          a.n_tensors, b.n_tensors);
    int same = 1, null_data = 1;
    for (size_t i = 0; i < a.n_tensors && i < b.n_tensors; i++) {
        const SafeTensor *x = &a.tensors[i], *y = &b.tensors[i];
        same &= strcmp(x->name, y->name) == 0 && x->nbytes == y->nbytes && x->offset == y->offset &&
                x->data == a.map + x->offset;
        null_data &= y->data == NULL;
    }
    CHECK(same, "same names, sizes and offsets");
    CHECK(null_data, "header only: no data pointers");
    const SafeTensor *t = safe_find(&b, "h.1.mlp.c_fc.weight");
    CHECK(t != NULL, "c_fc of layer 1");
    if (t) {
        uint8_t got[300];
        CHECK(safe_read(&b, t, t->nbytes - 300, got, 300, &err) == 0, "read: %s", err.text);
        const SafeTensor *u = safe_find(&a, t->name);
        CHECK(u && memcmp(got, u->data + u->nbytes - 300, 300) == 0, "the last 300 bytes as mapped");
        CHECK(safe_read(&b, t, t->nbytes - 8, got, 16, &err) == -1 && strstr(err.text, path) &&
                  strstr(err.text, "outside"),
              "a read past the tensor is refused: %s", err.text);
    }
    safe_close(&a);
    safe_close(&b);
    CHECK(b.fd_open == 0 && b.tensors == NULL, "closed and zeroed");
}

/* Tensor k's element i: a fixed function, so the file can be written a block at a time
 * (no model in memory before the load: the heap's growth then is the load's own) and
 * every weight checked against its F16 rounding afterwards. */
static float weight_value(unsigned k, size_t i) {
    uint32_t x = (uint32_t)(k * 2654435761u) ^ (uint32_t)(i * 2246822519u);
    x ^= x >> 15, x *= 2654435761u, x ^= x >> 13;
    return ((float)(x & 0xffff) - 32768.0f) / 327680.0f; /* [-0.1, 0.1) */
}

/* The weights a GPT-2 of this shape has (engine/gpt2_model.c make_slots), in file order. */
typedef struct Tensor {
    char name[48];
    size_t d0, d1; /* d1 0: a vector */
} Tensor;

static size_t tensor_list(Tensor *t, size_t L, size_t C, size_t V, size_t NP) {
    static const struct { const char *suffix; size_t a, b; } layer[] = {
        {"ln_1.weight", 1, 0}, {"ln_1.bias", 1, 0}, {"attn.c_attn.weight", 1, 3}, {"attn.c_attn.bias", 3, 0},
        {"attn.c_proj.weight", 1, 1}, {"attn.c_proj.bias", 1, 0}, {"ln_2.weight", 1, 0}, {"ln_2.bias", 1, 0},
        {"mlp.c_fc.weight", 1, 4}, {"mlp.c_fc.bias", 4, 0}, {"mlp.c_proj.weight", 4, 1}, {"mlp.c_proj.bias", 1, 0}};
    size_t n = 0;
    t[n++] = (Tensor){"wte.weight", V, C};
    t[n++] = (Tensor){"wpe.weight", NP, C};
    for (size_t l = 0; l < L; l++)
        for (size_t j = 0; j < sizeof layer / sizeof layer[0]; j++, n++) {
            snprintf(t[n].name, sizeof t[n].name, "h.%zu.%s", l, layer[j].suffix);
            t[n].d0 = layer[j].a * C;
            t[n].d1 = layer[j].b * C;
        }
    t[n++] = (Tensor){"ln_f.weight", C, 0};
    t[n++] = (Tensor){"ln_f.bias", C, 0};
    return n;
}

/* Writes dir/config.json and dir/model.safetensors (F32, weight_value) a block at a time.
 * Returns the file's size, 0 on failure. */
static size_t write_model(const char *dir, size_t L, size_t H, size_t C, size_t V, size_t NP) {
    char path[160];
    snprintf(path, sizeof path, "%s/config.json", dir);
    FILE *f = fopen(path, "w");
    if (!f) return 0;
    fprintf(f, "{\"n_layer\": %zu, \"n_head\": %zu, \"n_embd\": %zu, \"n_positions\": %zu, \"vocab_size\": %zu}\n", L,
            H, C, NP, V);
    fclose(f);
    Tensor t[2 + 12 * 8 + 2];
    size_t n = tensor_list(t, L, C, V, NP), off = 0, len = 0;
    static char head[16384];
    len += (size_t)snprintf(head + len, sizeof head - len, "{");
    for (size_t i = 0; i < n; i++) {
        size_t bytes = t[i].d0 * (t[i].d1 ? t[i].d1 : 1) * 4;
        if (t[i].d1)
            len += (size_t)snprintf(head + len, sizeof head - len,
                                    "%s\"%s\":{\"dtype\":\"F32\",\"shape\":[%zu,%zu],\"data_offsets\":[%zu,%zu]}",
                                    i ? "," : "", t[i].name, t[i].d0, t[i].d1, off, off + bytes);
        else
            len += (size_t)snprintf(head + len, sizeof head - len,
                                    "%s\"%s\":{\"dtype\":\"F32\",\"shape\":[%zu],\"data_offsets\":[%zu,%zu]}",
                                    i ? "," : "", t[i].name, t[i].d0, off, off + bytes);
        off += bytes;
    }
    len += (size_t)snprintf(head + len, sizeof head - len, "}");
    while (len % 8) head[len++] = ' ';
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    f = fopen(path, "wb");
    if (!f) return 0;
    uint8_t n8[8];
    for (int i = 0; i < 8; i++) n8[i] = (uint8_t)((uint64_t)len >> (8 * i));
    int ok = fwrite(n8, 1, 8, f) == 8 && fwrite(head, 1, len, f) == len;
    static float block[4096];
    for (size_t k = 0; ok && k < n; k++) {
        size_t numel = t[k].d0 * (t[k].d1 ? t[k].d1 : 1);
        for (size_t i0 = 0; ok && i0 < numel; i0 += 4096) {
            size_t m = numel - i0 < 4096 ? numel - i0 : 4096;
            for (size_t i = 0; i < m; i++) block[i] = weight_value((unsigned)k, i0 + i);
            ok = fwrite(block, sizeof(float), m, f) == m;
        }
    }
    ok &= fclose(f) == 0;
    return ok ? 8 + len + off : 0;
}

/* The F16 load of an F32 file: the rounding of every weight, nothing mapped, and where
 * malloc grows the heap by sbrk (WebAssembly: nothing allocated before, so the growth
 * is the load's peak) less growth than the file's size. */
static void test_f16_from_f32(const char *dir, size_t file_bytes, size_t C, size_t V) {
    ErrorMsg err = {{0}};
    Gpt2Model h;
    char *before = sbrk(0);
    int rc = gpt2_model_load_as(&h, dir, KERN_F16, &err);
    char *after = sbrk(0);
    CHECK(rc == 0, "load as F16: %s", err.text);
    if (rc) return;
    CHECK(h.w.dtype == KERN_F16 && strcmp(h.dtype, "F32") == 0, "runs in %s, stored as %s",
          gpt2_model_weights_name(&h), h.dtype);
    CHECK(h.map == NULL && h.w.wte == NULL && h.w.wte_h != NULL, "nothing mapped, the matrices in 16 bits");
    int rounded = 1;
    for (size_t i = 0; i < V * C; i++) rounded &= h.w.wte_h[i] == half_f32_to_f16(weight_value(0, i));
    CHECK(rounded, "wte: every element the F16 rounding of the F32 one");
    rounded = 1;
    for (size_t i = 0; i < C * 4 * C; i++) /* layer 1's c_fc: tensor 2 + 12 + 8 */
        rounded &= h.w.layers[1].fc_h[i] == half_f32_to_f16(weight_value(22, i));
    CHECK(rounded, "layer 1 c_fc: the rounding too");
    int exact = 1;
    for (size_t i = 0; i < C; i++) exact &= h.w.lnf_b[i] == weight_value(2 + 12 * 4 + 1, i);
    CHECK(exact, "ln_f.bias: a vector stays float, exactly");
    CHECK(gpt2_model_weight_bytes(&h) < file_bytes * 6 / 10, "%zu bytes of weights kept from a %zu-byte file",
          gpt2_model_weight_bytes(&h), file_bytes);
    size_t grew = after > before ? (size_t)(after - before) : 0;
    printf("F16 load of a %zu-byte F32 file: the heap's end moved %zu bytes\n", file_bytes, grew);
    CHECK(grew < file_bytes, "the load never held the F32 image: heap grew %zu bytes for a %zu-byte file", grew,
          file_bytes);
    gpt2_model_free(&h);
}

static void test_refusals(void) {
    ErrorMsg err = {{0}};
    Gpt2Model m;
    char dir[128], path[160];
    snprintf(dir, sizeof dir, "%s/bad", g_dir);
    CHECK(mkdir(dir, 0755) == 0, "mkdir %s", dir);
    CHECK(gpt2_model_load_as(&m, dir, KERN_F16, &err) == -1 && strstr(err.text, dir) && !strchr(err.text, '\n'),
          "empty folder, one line naming it: %s", err.text);
    snprintf(path, sizeof path, "%s/config.json", dir);
    FILE *c = fopen(path, "w");
    if (c) {
        fputs("{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 64, \"n_positions\": 32, \"vocab_size\": 97}", c);
        fclose(c);
    }
    CHECK(gpt2_model_load_as(&m, dir, KERN_F16, &err) == -1 && strstr(err.text, "model.safetensors") &&
              !strchr(err.text, '\n'),
          "no weights, one line naming the file: %s", err.text);
}

int main(void) {
    if (snprintf(g_dir, sizeof g_dir, "/tmp/test_model_stream.XXXXXX") < 0 || !mkdtemp(g_dir)) {
        perror("mkdtemp");
        return 2;
    }
    /* 4 layers of 256 and 4,096 tokens: 4.2 M parameters, a 17 MB F32 file */
    const size_t L = 4, H = 4, C = 256, V = 4096, NP = 64;
    char dir[128], path[160];
    snprintf(dir, sizeof dir, "%s/m", g_dir);
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    CHECK(mkdir(dir, 0755) == 0, "mkdir %s", dir);
    size_t bytes = write_model(dir, L, H, C, V, NP);
    CHECK(bytes > 16 * 1000 * 1000, "the F32 file is written (%zu bytes)", bytes);
    if (bytes) {
        test_f16_from_f32(dir, bytes, C, V); /* first: nothing freed before it to hide a copy */
        test_header_only(path);
    }
    test_refusals();
    remove_files();
    return check_summary("test_model_stream");
}
