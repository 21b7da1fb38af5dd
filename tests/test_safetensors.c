/* test_safetensors.c — the safetensors reader on the reference files (real values)
 * and on hand-made broken files (each must give one "PATH: problem" line, never a
 * crash or a huge allocation), plus the F16/BF16 bit conversions of half.h. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "check_model.h"
#include "check_tmp.h"
#include "half.h"
#include "safetensors.h"

static char tmpdir[64];

/* Writes [u64 len][header][data_len bytes of 0x11] to tmpdir/name; returns its path.
 * `len_field` overrides the length field when nonzero. */
static const char *write_raw(const char *name, const char *header, uint64_t len_field,
                             size_t data_len) {
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    if (!f) { perror(path); exit(1); }
    uint64_t n = len_field ? len_field : strlen(header);
    for (int i = 0; i < 8; i++) fputc((int)((n >> (8 * i)) & 0xFF), f);
    fwrite(header, 1, strlen(header), f);
    for (size_t i = 0; i < data_len; i++) fputc(0x11, f);
    fclose(f);
    return path;
}

/* Opens a file that must be rejected; checks the message names it and says why. */
static void expect_error(const char *path, const char *phrase, const char *what) {
    SafeFile f;
    ErrorMsg err = {{0}};
    int rc = safe_open(&f, path, &err);
    CHECK(rc == -1, "%s: rejected (rc %d)", what, rc);
    CHECK(strstr(err.text, path) != NULL, "%s: message names the file: %s", what, err.text);
    CHECK(strstr(err.text, phrase) != NULL, "%s: message says '%s': %s", what, phrase, err.text);
    CHECK(strchr(err.text, '\n') == NULL, "%s: one line", what);
    CHECK(f.map == NULL && f.tensors == NULL && f.n_tensors == 0, "%s: left zeroed", what);
    if (rc == 0) safe_close(&f);
}

static void test_reference_model(void) {
    SafeFile f;
    if (check_open_ref(&f, "models/tiny/model.safetensors")) return;
    CHECK(f.n_tensors == 28, "tiny has 28 tensors, got %zu", f.n_tensors);
    CHECK(f.map_len == 13301240, "file size %zu", f.map_len);
    CHECK(f.header_len % 8 == 0, "header padded to 8: %zu", f.header_len);
    CHECK(f.metadata_json && strstr(f.metadata_json, "\"format\":\"pt\""), "metadata %s",
          f.metadata_json ? f.metadata_json : "(null)");
    const SafeTensor *wte = safe_find(&f, "wte.weight");
    CHECK(wte && wte->dtype == SAFE_F32 && wte->ndim == 2 && wte->shape[0] == 50257 &&
              wte->shape[1] == 64,
          "wte.weight [50257, 64] F32");
    if (wte) {
        CHECK(safe_numel(wte) == 50257u * 64u, "numel %zu", safe_numel(wte));
        CHECK(wte->nbytes == 50257u * 64u * 4u, "nbytes %zu", wte->nbytes);
        /* inside the mapping, after the header */
        CHECK(wte->data >= f.map + 8 + f.header_len && wte->data + wte->nbytes <= f.map + f.map_len,
              "wte data inside the data section");
    }
    const SafeTensor *b = safe_find(&f, "h.0.attn.c_attn.bias");
    CHECK(b && b->ndim == 1 && b->shape[0] == 192, "c_attn.bias [192]");
    /* The header says it is first in the data (sorted names, offsets [0, 768]). */
    CHECK(b && b->data == f.map + 8 + f.header_len, "c_attn.bias at data offset 0");
    CHECK(safe_find(&f, "h.0.attn.bias") == NULL, "no mask buffer in our file");
    CHECK(safe_find(&f, "nope") == NULL, "absent name -> NULL");
    CHECK(strcmp(safe_dtype_name(SAFE_BF16), "BF16") == 0 && strcmp(safe_dtype_name(SAFE_I32), "I32") == 0,
          "dtype names");
    CHECK(safe_dtype_size(SAFE_F16) == 2 && safe_dtype_size(SAFE_I64) == 8, "dtype sizes");
    safe_close(&f);
    CHECK(f.map == NULL && f.tensors == NULL, "closed and zeroed");
    safe_close(&f); /* twice is harmless */
}

static void test_reference_vectors(void) {
    SafeFile f;
    if (check_open_ref(&f, "vectors/tiny_s4.safetensors")) return;
    const SafeTensor *ids = safe_find(&f, "input_ids");
    CHECK(ids && ids->dtype == SAFE_I32 && ids->ndim == 1 && ids->shape[0] == 4, "input_ids I32 [4]");
    if (ids) {
        int32_t v[4];
        memcpy(v, ids->data, sizeof v);
        CHECK(v[0] == 7454 && v[1] == 2402 && v[2] == 257 && v[3] == 640, "ids %d %d %d %d", v[0],
              v[1], v[2], v[3]);
    }
    const SafeTensor *lg = safe_find(&f, "logits");
    CHECK(lg && lg->dtype == SAFE_F32 && lg->shape[0] == 4 && lg->shape[1] == 50257, "logits [4, 50257]");
    const SafeTensor *loss = safe_find(&f, "loss");
    if (loss) {
        float l;
        memcpy(&l, loss->data, sizeof l);
        /* README §4.1: loss of the near-uniform random model is about ln 50257 = 10.82 */
        CHECK(l > 10.5f && l < 11.2f, "loss %g near ln V", (double)l);
    }
    CHECK(f.metadata_json && strstr(f.metadata_json, "tanh"), "metadata records the GELU variant");
    safe_close(&f);
}

static void test_bad_files(void) {
    char p[256];
    /* 0-byte file */
    snprintf(p, sizeof p, "%s/empty.safetensors", tmpdir);
    fclose(fopen(p, "wb"));
    expect_error(p, "empty file", "0 bytes");
    /* shorter than the length field */
    snprintf(p, sizeof p, "%s/short.safetensors", tmpdir);
    FILE *f = fopen(p, "wb");
    fwrite("abcde", 1, 5, f);
    fclose(f);
    expect_error(p, "too short", "5 bytes");
    /* missing file, directory */
    snprintf(p, sizeof p, "%s/absent.safetensors", tmpdir);
    expect_error(p, "cannot open", "missing file");
    expect_error(tmpdir, "is a directory", "directory");

    const char *ok = "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}";
    /* header length larger than the file; a 10 GB claim must be refused before any
     * allocation (under ASan a 10 GB malloc would abort the test) */
    expect_error(write_raw("hlen.safetensors", ok, 1000, 8), "exceeds", "header length > file");
    expect_error(write_raw("h10g.safetensors", ok, 10000000000ull, 8), "exceeds", "10 GB header");
    expect_error(write_raw("hmax.safetensors", ok, UINT64_MAX, 8), "exceeds", "u64 max header");
    /* header text */
    expect_error(write_raw("notjson.safetensors", "this is not json", 0, 0), "not valid JSON", "not JSON");
    expect_error(write_raw("array.safetensors", "[1, 2, 3]", 0, 0), "not an object", "JSON array");
    expect_error(write_raw("trail.safetensors", "{} xyz", 0, 0), "after the JSON", "garbage after header");
    /* per tensor */
    expect_error(write_raw("dtype.safetensors",
                           "{\"a\":{\"dtype\":\"F128\",\"shape\":[2],\"data_offsets\":[0,8]}}", 0, 8),
                 "unknown dtype 'F128'", "unknown dtype");
    expect_error(write_raw("span.safetensors",
                           "{\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}", 0, 12),
                 "span 8", "shape x size != span");
    expect_error(write_raw("f16span.safetensors",
                           "{\"a\":{\"dtype\":\"F16\",\"shape\":[4],\"data_offsets\":[0,16]}}", 0, 16),
                 "= 8 bytes", "F16 span uses 2-byte size");
    expect_error(write_raw("range.safetensors",
                           "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,16]}}", 0, 8),
                 "out of range", "offsets past the data");
    expect_error(write_raw("trunc.safetensors", ok, 0, 7), "out of range", "truncated data");
    expect_error(write_raw("backw.safetensors",
                           "{\"a\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[8,0]}}", 0, 8),
                 "end before begin", "end < begin");
    expect_error(write_raw("overlap.safetensors",
                           "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                           "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}",
                           0, 12),
                 "overlap", "overlapping tensors");
    expect_error(write_raw("overlap2.safetensors", /* listed out of order, b inside a */
                           "{\"b\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[10,11]},"
                           "\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}",
                           0, 16),
                 "overlap", "contained tensor");
    expect_error(write_raw("dup.safetensors",
                           "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                           "\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}",
                           0, 8),
                 "appears twice", "duplicate name");
    expect_error(write_raw("neg.safetensors",
                           "{\"a\":{\"dtype\":\"F32\",\"shape\":[-2],\"data_offsets\":[0,8]}}", 0, 8),
                 "non-negative integer", "negative dim");
    expect_error(write_raw("frac.safetensors",
                           "{\"a\":{\"dtype\":\"F32\",\"shape\":[2.5],\"data_offsets\":[0,8]}}", 0, 8),
                 "non-negative integer", "fractional dim");
    expect_error(write_raw("ovf.safetensors",
                           "{\"a\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296,16],"
                           "\"data_offsets\":[0,8]}}",
                           0, 8),
                 "overflows", "shape product overflow");
    expect_error(write_raw("ovf2.safetensors", /* numel fits, numel * 8 bytes does not */
                           "{\"a\":{\"dtype\":\"F64\",\"shape\":[1099511627776,8388608],"
                           "\"data_offsets\":[0,8]}}",
                           0, 8),
                 "overflows", "byte count overflow");
    expect_error(write_raw("noshape.safetensors", "{\"a\":{\"dtype\":\"F32\",\"data_offsets\":[0,8]}}", 0, 8),
                 "missing \"shape\"", "no shape");
    expect_error(write_raw("nooff.safetensors", "{\"a\":{\"dtype\":\"F32\",\"shape\":[2]}}", 0, 8),
                 "data_offsets", "no offsets");
    expect_error(write_raw("meta.safetensors", "{\"__metadata__\":[1]}", 0, 0), "__metadata__",
                 "metadata not an object");

    /* What is accepted: a gap and trailing bytes (documented policy), an empty
     * tensor, a scalar, and metadata kept. */
    const char *path = write_raw("gap.safetensors",
                                 "{\"__metadata__\":{\"k\":\"v\"},"
                                 "\"s\":{\"dtype\":\"I32\",\"shape\":[],\"data_offsets\":[0,4]},"
                                 "\"z\":{\"dtype\":\"F32\",\"shape\":[0,3],\"data_offsets\":[4,4]},"
                                 "\"a\":{\"dtype\":\"BF16\",\"shape\":[2],\"data_offsets\":[8,12]}}",
                                 0, 20);
    SafeFile sf;
    ErrorMsg err;
    int rc = safe_open(&sf, path, &err);
    CHECK(rc == 0, "gap/trailing/scalar/empty accepted: %s", rc ? err.text : "");
    if (rc == 0) {
        CHECK(sf.n_tensors == 3, "3 tensors, got %zu", sf.n_tensors);
        const SafeTensor *s = safe_find(&sf, "s"), *z = safe_find(&sf, "z"), *a = safe_find(&sf, "a");
        CHECK(s && s->ndim == 0 && safe_numel(s) == 1, "scalar numel 1");
        CHECK(z && safe_numel(z) == 0 && z->nbytes == 0, "empty tensor");
        CHECK(a && a->data == sf.map + 8 + sf.header_len + 8, "offset honoured");
        CHECK(sf.metadata_json && strcmp(sf.metadata_json, "{\"k\":\"v\"}") == 0, "metadata %s",
              sf.metadata_json ? sf.metadata_json : "(null)");
        safe_close(&sf);
    }

    /* no read permission. Root reads everything, so when running as root the open is
     * tried in a child process that has dropped to user "nobody" (65534). */
    path = write_raw("noperm.safetensors", ok, 0, 8);
    char copy[256];
    snprintf(copy, sizeof copy, "%s", path);
    chmod(copy, 0);
    if (geteuid() != 0) {
        expect_error(copy, "Permission denied", "no read permission");
    } else {
        chmod(tmpdir, 0755); /* let nobody reach the file, just not read it */
        pid_t pid = fork();
        if (pid < 0 && errno == ENOSYS) {
            printf("SKIPPED: no read permission as nobody: this platform has no fork()\n");
            return;
        }
        if (pid == 0) {
            if (setgid(65534) != 0 || setuid(65534) != 0) _exit(3);
            SafeFile nf;
            ErrorMsg nerr = {{0}};
            int nrc = safe_open(&nf, copy, &nerr);
            if (nrc == 0) safe_close(&nf);
            _exit(nrc == -1 && strstr(nerr.text, copy) && strstr(nerr.text, "Permission denied") ? 0 : 1);
        }
        int status = 0;
        CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "no read permission (as nobody): child status %d", status);
    }
}

static void test_half(void) {
    /* exact bit patterns from the IEEE 754 binary16 table */
    CHECK(half_f16_to_f32(0x3C00) == 1.0f, "f16 1.0");
    CHECK(half_f16_to_f32(0xC000) == -2.0f, "f16 -2.0");
    CHECK(half_f16_to_f32(0x7BFF) == 65504.0f, "f16 max 65504");
    CHECK(half_f16_to_f32(0x3555) == 0.333251953125f, "f16 1/3 rounded");
    CHECK(half_f16_to_f32(0x0001) == ldexpf(1.0f, -24), "f16 smallest subnormal 2^-24");
    CHECK(half_f16_to_f32(0x03FF) == ldexpf(1023.0f, -24), "f16 largest subnormal");
    CHECK(half_f16_to_f32(0x0400) == ldexpf(1.0f, -14), "f16 smallest normal 2^-14");
    CHECK(isinf(half_f16_to_f32(0x7C00)) && half_f16_to_f32(0xFC00) < 0, "f16 +-inf");
    CHECK(isnan(half_f16_to_f32(0x7E00)), "f16 NaN");
    CHECK(half_f16_to_f32(0x8000) == 0.0f && signbit(half_f16_to_f32(0x8000)), "f16 -0");
    CHECK(half_bf16_to_f32(0x3F80) == 1.0f, "bf16 1.0");
    CHECK(half_bf16_to_f32(0x4049) == 3.140625f, "bf16 pi rounded");
    CHECK(half_bf16_to_f32(0xC2F7) == -123.5f, "bf16 -123.5");
    /* narrowing: round to nearest even */
    CHECK(half_f32_to_f16(1.0f) == 0x3C00 && half_f32_to_f16(-2.0f) == 0xC000, "f32->f16 exact");
    CHECK(half_f32_to_f16(65504.0f) == 0x7BFF && half_f32_to_f16(65520.0f) == 0x7C00, "f16 overflow edge");
    CHECK(half_f32_to_f16(1.0f + ldexpf(1.0f, -11)) == 0x3C00, "f16 tie to even (down)");
    CHECK(half_f32_to_f16(1.0f + 3 * ldexpf(1.0f, -11)) == 0x3C02, "f16 tie to even (up)");
    CHECK(half_f32_to_f16(ldexpf(1.0f, -24)) == 0x0001, "f16 subnormal out");
    CHECK(half_f32_to_f16(ldexpf(1.0f, -26)) == 0x0000, "f16 underflow to 0");
    CHECK(half_f32_to_bf16(3.14159265f) == 0x4049, "f32->bf16 pi");
    CHECK(half_f32_to_bf16(1.0f + ldexpf(1.0f, -8)) == 0x3F80, "bf16 tie to even");
    /* round trip error bounds over a range: F16 rel 2^-11, BF16 rel 2^-8 */
    double worst16 = 0, worstbf = 0;
    for (int i = 1; i < 20000; i++) {
        float x = (float)((i % 2 ? -1 : 1) * i * 0.0123457);
        worst16 = fmax(worst16, fabs(half_f16_to_f32(half_f32_to_f16(x)) - x) / fabs(x));
        worstbf = fmax(worstbf, fabs(half_bf16_to_f32(half_f32_to_bf16(x)) - x) / fabs(x));
    }
    CHECK(worst16 <= ldexp(1.0, -11) && worst16 > 0, "f16 round trip rel err %g", worst16);
    CHECK(worstbf <= ldexp(1.0, -8) && worstbf > 0, "bf16 round trip rel err %g", worstbf);
}

int main(void) {
    if (check_tmpdir_make(tmpdir, sizeof tmpdir, "test_safetensors")) return 1;
    test_reference_model();
    test_reference_vectors();
    test_bad_files();
    test_half();
    check_tmpdir_remove(tmpdir);
    return check_summary("test_safetensors");
}
