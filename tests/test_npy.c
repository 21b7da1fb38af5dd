/* test_npy.c — the .npy writer (src/figure/npy_write.h): header bytes exactly as numpy writes
 * them (dict text, 64-byte alignment, 1-D trailing comma), data as little-endian floats,
 * streaming in pieces, and the error paths (wrong element count, unwritable folder)
 * leaving no file behind; a link planted at the old temporary name or at the final name,
 * and a FIFO there, are never written through. The CLI test (test_cli_engine.sh) parses dumps with Python. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "check_tmp.h"
#include "npy_write.h"

static size_t read_all(const char *path, uint8_t *buf, size_t cap) {
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t n = fread(buf, 1, cap, f);
    fclose(f);
    return n;
}

static int exists(const char *path) { return access(path, F_OK) == 0; }


int main(void) {
    char dir[] = "/tmp/test_npy_XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(0, "mkdtemp failed");
        return check_summary("test_npy");
    }
    char path[256];
    ErrorMsg err;

    /* header: the exact dict numpy writes, padded with spaces to 64 bytes, '\n' last */
    char h[256];
    size_t shape3[3] = {4, 4, 4};
    size_t hl = npy_header(h, sizeof h, shape3, 3);
    CHECK(hl == 128, "header length %zu, want 128 (as numpy writes it)", hl);
    CHECK(memcmp(h, "\x93NUMPY\x01\x00", 8) == 0, "magic and version 1.0");
    CHECK((uint8_t)h[8] == 118 && h[9] == 0, "HLEN little-endian = 118, got %d %d", (uint8_t)h[8], h[9]);
    const char *dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (4, 4, 4), }";
    CHECK(memcmp(h + 10, dict, strlen(dict)) == 0, "dict text: %.60s", h + 10);
    CHECK(h[10 + strlen(dict)] == ' ' && h[127] == '\n', "space padding then newline");
    size_t shape1[1] = {7};
    hl = npy_header(h, sizeof h, shape1, 1);
    CHECK(hl % 64 == 0 && strstr(h + 10, "'shape': (7,), }") != NULL, "1-D shape has the tuple comma");
    size_t big[2] = {1024, 50257};
    hl = npy_header(h, sizeof h, big, 2);
    CHECK(hl == 128, "header of (1024, 50257) aligned: %zu", hl);
    CHECK(strstr(h + 10, "'shape': (1024, 50257), }") != NULL, "2-D shape text");
    CHECK(npy_header(h, sizeof h, big, 9) == 0, "ndim 9 refused");

    /* round trip: values incl. -inf and a negative zero, bytes little-endian */
    float x[6] = {1.0f, -2.5f, 0.0f, -0.0f, 3.25e-8f, -1.0f / 0.0f};
    size_t shape2[2] = {2, 3};
    snprintf(path, sizeof path, "%s/a.npy", dir);
    CHECK(npy_save_f32(path, x, shape2, 2, &err) == 0, "save: %s", err.text);
    uint8_t buf[512];
    size_t n = read_all(path, buf, sizeof buf);
    CHECK(n == 128 + 24, "file size %zu", n);
    CHECK(buf[128] == 0x00 && buf[129] == 0x00 && buf[130] == 0x80 && buf[131] == 0x3F, "1.0f as 00 00 80 3f");
    CHECK(buf[128 + 4 + 3] == 0xC0 && buf[128 + 4 + 2] == 0x20, "-2.5f as 00 00 20 c0");
    CHECK(buf[128 + 12 + 3] == 0x80, "-0.0 keeps its sign bit");
    CHECK(buf[128 + 20 + 2] == 0x80 && buf[128 + 20 + 3] == 0xFF, "-inf as 00 00 80 ff");
    CHECK(check_tmpdir_temps(dir) == 0, "no temporary file left");

    /* streaming in pieces gives the same file */
    NpyWriter w;
    snprintf(path, sizeof path, "%s/b.npy", dir);
    CHECK(npy_open(&w, path, shape2, 2, &err) == 0, "open: %s", err.text);
    CHECK(!exists(path), "final name appears only at close");
    CHECK(npy_write_f32(&w, x, 4, &err) == 0 && npy_write_f32(&w, x + 4, 2, &err) == 0, "pieces");
    CHECK(npy_write_f32(&w, x, 1, &err) == -1 && strstr(err.text, "more elements") != NULL,
          "one too many refused: %s", err.text);
    CHECK(npy_close(&w, &err) == 0, "close: %s", err.text);
    uint8_t buf2[512];
    CHECK(read_all(path, buf2, sizeof buf2) == n && memcmp(buf, buf2, n) == 0, "streamed file == one-shot file");

    /* too few elements: close fails, nothing is left */
    snprintf(path, sizeof path, "%s/c.npy", dir);
    CHECK(npy_open(&w, path, shape2, 2, &err) == 0, "open c");
    CHECK(npy_write_f32(&w, x, 5, &err) == 0, "5 of 6");
    CHECK(npy_close(&w, &err) == -1 && strstr(err.text, "5 of 6 elements") != NULL, "short close: %s", err.text);
    CHECK(!exists(path) && check_tmpdir_temps(dir) == 0, "short file removed");

    /* an unwritable place: the error names the path; abort after an error is safe */
    snprintf(path, sizeof path, "%s/a.npy/inside.npy", dir);
    CHECK(npy_open(&w, path, shape2, 2, &err) == -1 && strstr(err.text, "inside.npy: ") != NULL &&
              strstr(err.text, "a.npy is a file, not a folder") != NULL,
          "unwritable: %s", err.text);
    npy_abort(&w);
    NpyWriter z = {0};
    npy_abort(&z);

    /* links planted at the names the writer used to take (NAME.npy.tmp.PID) and at the final
     * name: never written through; a dump replaces only a regular file */
    char precious[300], link_path[300];
    snprintf(precious, sizeof precious, "%s/precious", dir);
    FILE *pf = fopen(precious, "w");
    if (pf) fputs("precious", pf), fclose(pf);
    snprintf(path, sizeof path, "%s/d.npy", dir);
    snprintf(link_path, sizeof link_path, "%s.tmp.%ld", path, (long)getpid());
    CHECK(symlink(precious, link_path) == 0, "plant a link at %s", link_path);
    CHECK(npy_save_f32(path, x, shape2, 2, &err) == 0, "save beside a planted link: %s", err.text);
    uint8_t pb[64];
    size_t pn = read_all(precious, pb, sizeof pb);
    CHECK(pn == 8 && memcmp(pb, "precious", 8) == 0, "the link's target untouched (%zu bytes)", pn);
    struct stat st;
    CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode), "d.npy is a regular file, not the link");
    CHECK(npy_save_f32(path, x, shape2, 2, &err) == 0, "a second dump replaces the regular file: %s", err.text);
    remove(link_path);
    snprintf(path, sizeof path, "%s/e.npy", dir);
    CHECK(symlink(precious, path) == 0, "plant a link at the final name");
    CHECK(npy_save_f32(path, x, shape2, 2, &err) == -1 && strstr(err.text, "e.npy: exists and is a symbolic link") != NULL,
          "a link at the final name is refused: %s", err.text);
    pn = read_all(precious, pb, sizeof pb);
    CHECK(pn == 8 && lstat(path, &st) == 0 && S_ISLNK(st.st_mode), "the link and its target untouched");
    CHECK(check_tmpdir_temps(dir) == 0, "no temporary left after the refusal");
    remove(path);
    snprintf(path, sizeof path, "%s/f.npy", dir);
    CHECK(mkfifo(path, 0600) == 0, "a FIFO at the final name");
    CHECK(npy_save_f32(path, x, shape2, 2, &err) == -1 && strstr(err.text, "exists and is a FIFO") != NULL,
          "a FIFO at the final name is refused (no hang): %s", err.text);
    remove(path);
    remove(precious);

    for (const char *const *nm = (const char *const[]){"a.npy", "b.npy", "d.npy", NULL}; *nm; nm++) {
        snprintf(path, sizeof path, "%s/%s", dir, *nm);
        remove(path);
    }
    rmdir(dir);
    return check_summary("test_npy");
}
