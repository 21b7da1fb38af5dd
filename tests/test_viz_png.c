/* test_viz_png.c — PNG export (viz/png_write): text chunks round-trip through our
 * reader AND an independent Python (zlib + struct) parser that re-checks every CRC;
 * atomic write (no temporary left after a failed write, never overwriting unless
 * asked); one-line errors naming the path; the reader rejects damaged files. */
#define _GNU_SOURCE /* mkdtemp, popen */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mount.h>
#endif
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "check_tmp.h"
#include "check_run.h"
#include "png_write.h"


/* a tmpfs at DIR (Linux, as root); elsewhere (WebAssembly under Node: no mount at all)
 * -1 with ENOSYS, and the checks that need one say they were skipped */
static int tmpfs_mount(const char *dir, int read_only, const char *opts) {
#if defined(__linux__)
    return mount("tmpfs", dir, "tmpfs", read_only ? MS_RDONLY : 0, opts);
#else
    (void)dir, (void)read_only, (void)opts;
    errno = ENOSYS;
    return -1;
#endif
}

static void tmpfs_unmount(const char *dir) {
#if defined(__linux__)
    umount(dir);
#else
    (void)dir;
#endif
}
static char g_dir[256];

static void path_in(char *buf, size_t cap, const char *name) {
    snprintf(buf, cap, "%s/%s", g_dir, name);
}

/* w×h RGBA test image: a gradient with an alpha ramp, every byte known. */
static uint8_t *make_image(int w, int h) {
    uint8_t *p = malloc((size_t)w * (size_t)h * 4);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint8_t *q = p + ((size_t)y * (size_t)w + (size_t)x) * 4;
            q[0] = (uint8_t)(x * 37), q[1] = (uint8_t)(y * 51), q[2] = (uint8_t)(x ^ y), q[3] = (uint8_t)(255 - x);
        }
    return p;
}

static long file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static const char *PY_READER =
    "import sys, struct, zlib\n"
    "d = open(sys.argv[1], 'rb').read()\n"
    "assert d[:8] == b'\\x89PNG\\r\\n\\x1a\\n', 'signature'\n"
    "p = 8; types = []\n"
    "while p < len(d):\n"
    "    n, t = struct.unpack('>I4s', d[p:p+8]); body = d[p+8:p+8+n]\n"
    "    crc, = struct.unpack('>I', d[p+8+n:p+12+n])\n"
    "    ok = zlib.crc32(t + body) & 0xffffffff == crc\n"
    "    print('CHUNK', t.decode(), n, 'crc-ok' if ok else 'crc-BAD')\n"
    "    types.append(t)\n"
    "    if t == b'IHDR': print('SIZE', *struct.unpack('>II', body[:8]), body[8], body[9])\n"
    "    if t == b'pHYs': print('PHYS', *struct.unpack('>IIB', body))\n"
    "    if t == b'tEXt':\n"
    "        k, v = body.split(b'\\0', 1); print('TEXT', k.decode('latin-1'), v.hex())\n"
    "    if t == b'iTXt':\n"
    "        k, r = body.split(b'\\0', 1); cf = r[0]; r = r[2:]\n"
    "        lang, r = r.split(b'\\0', 1); tk, v = r.split(b'\\0', 1)\n"
    "        print('ITXT', k.decode('latin-1'), cf, v.decode('utf-8').encode('utf-8').hex())\n"
    "    p += 12 + n\n"
    "print('ORDER', ' '.join(x.decode() for x in types))\n";

/* Runs the Python reader on path; returns its whole stdout (malloc'ed) or NULL. */
/* 1 once python3 could not be started at all (no processes: WebAssembly under Node) */
static int g_no_process;

static char *python_read(const char *path) {
    char script[300], cmd[700];
    path_in(script, sizeof script, "reader.py");
    FILE *f = fopen(script, "w");
    if (!f) return NULL;
    fputs(PY_READER, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "python3 '%s' '%s'", script, path);
    int st;
    char *out = check_run(cmd, &st);
    if (st == -1 && !out) { /* no processes (WebAssembly under Node) */
        printf("SKIPPED: PNG read back by python3: cannot start a process here\n");
        g_no_process = 1;
        return NULL;
    }
    if (st != 0) {
        fprintf(stderr, "python reader failed (status %d): %s\n", st, out ? out : "");
        free(out);
        return NULL;
    }
    return out;
}

static void hex_of(const char *s, char *out) {
    for (; *s; s++, out += 2) sprintf(out, "%02x", (unsigned char)*s);
    *out = '\0';
}

static const PngText TEXTS[] = {
    {"Software", "inferscope"},
    {"inferscope:prompt", "Once upon a time \xE2\x80\x94 caf\xC3\xA9 \xC4\xA0the"}, /* UTF-8 → iTXt */
    {"inferscope:settings", "temperature=0.8\ntop_k=40"},
    {"Comment", ""},
};
#define N_TEXTS (sizeof TEXTS / sizeof TEXTS[0])

static void test_crc(void) {
    CHECK(png_crc32(0, (const uint8_t *)"123456789", 9) == 0xCBF43926u, "CRC-32 check value");
    CHECK(png_crc32(0, (const uint8_t *)"IEND", 4) == 0xAE426082u, "CRC of IEND");
    uint32_t c = png_crc32(0, (const uint8_t *)"1234", 4);
    CHECK(png_crc32(c, (const uint8_t *)"56789", 5) == 0xCBF43926u, "chained CRC");
}

static void test_round_trip(void) {
    char path[300];
    path_in(path, sizeof path, "fig.png");
    uint8_t *img = make_image(7, 5);
    ErrorMsg err = {{0}};
    PngWriteOptions opt = {.dpi = 300.0};
    int rc = png_write_file(path, img, 7, 5, 4, 7 * 4, TEXTS, N_TEXTS, &opt, &err);
    CHECK(rc == 0, "write: %s", err.text);
    CHECK(check_tmpdir_temps(g_dir) == 0, "no temporary left after success");

    PngTextChunks t = {0};
    CHECK(png_read_text_chunks(path, &t, &err) == 0, "read back: %s", err.text);
    CHECK(t.count == N_TEXTS, "count %zu", t.count);
    CHECK(t.width == 7 && t.height == 5, "IHDR %ux%u", t.width, t.height);
    for (size_t i = 0; i < N_TEXTS && i < t.count; i++) {
        CHECK(strcmp(t.items[i].keyword, TEXTS[i].keyword) == 0, "keyword %zu: %s", i, t.items[i].keyword);
        CHECK(strcmp(t.items[i].value, TEXTS[i].value) == 0, "value %zu: %s", i, t.items[i].value);
    }
    const char *pv = png_text_find(&t, "inferscope:prompt");
    CHECK(pv && strcmp(pv, TEXTS[1].value) == 0, "find prompt");
    CHECK(png_text_find(&t, "nope") == NULL, "find missing keyword");
    png_text_chunks_free(&t);
    png_text_chunks_free(&t); /* twice is safe */

    char *py = python_read(path);
    CHECK(py != NULL || g_no_process, "python reader ran");
    if (py) {
        char want[600], hex[400];
        CHECK(strstr(py, "crc-BAD") == NULL, "python: every CRC verifies\n%s", py);
        CHECK(strstr(py, "SIZE 7 5 8 6") != NULL, "python: IHDR 7x5 8-bit RGBA\n%s", py);
        /* 300 dpi = 300 / 0.0254 = 11811.02 px/m */
        CHECK(strstr(py, "PHYS 11811 11811 1") != NULL, "python: pHYs 300 dpi\n%s", py);
        CHECK(strstr(py, "ORDER IHDR pHYs tEXt iTXt tEXt tEXt IDAT") != NULL &&
                  strstr(py, " IEND\n") != NULL,
              "python: chunk order\n%s", py);
        hex_of(TEXTS[0].value, hex);
        snprintf(want, sizeof want, "TEXT Software %s\n", hex);
        CHECK(strstr(py, want) != NULL, "python: Software tEXt\n%s", py);
        hex_of(TEXTS[1].value, hex);
        snprintf(want, sizeof want, "ITXT inferscope:prompt 0 %s\n", hex);
        CHECK(strstr(py, want) != NULL, "python: prompt iTXt (valid UTF-8)\n%s", py);
        hex_of(TEXTS[2].value, hex);
        snprintf(want, sizeof want, "TEXT inferscope:settings %s\n", hex);
        CHECK(strstr(py, want) != NULL, "python: settings with newline\n%s", py);
        CHECK(strstr(py, "TEXT Comment \n") != NULL, "python: empty value\n%s", py);
        free(py);
    }
    free(img);
}

/* The pixels survive too: decode with Python's zlib and undo PNG filters. */
static void test_pixels_python(void) {
    char path[300], script[300], cmd[800];
    path_in(path, sizeof path, "pix.png");
    path_in(script, sizeof script, "pix.py");
    uint8_t *img = make_image(9, 4);
    ErrorMsg err;
    CHECK(png_write_file(path, img, 9, 4, 4, 9 * 4, TEXTS, 1, NULL, &err) == 0, "write: %s", err.text);
    FILE *f = fopen(script, "w");
    fputs("import sys, struct, zlib\n"
          "d = open(sys.argv[1], 'rb').read(); p = 8; idat = b''\n"
          "while p < len(d):\n"
          "    n, t = struct.unpack('>I4s', d[p:p+8])\n"
          "    if t == b'IDAT': idat += d[p+8:p+8+n]\n"
          "    p += 12 + n\n"
          "raw = zlib.decompress(idat); w, h, bpp = 9, 4, 4; s = w * bpp; out = []; prev = bytearray(s)\n"
          "for y in range(h):\n"
          "    f = raw[y*(s+1)]; line = bytearray(raw[y*(s+1)+1:(y+1)*(s+1)])\n"
          "    for i in range(s):\n"
          "        a = line[i-bpp] if i >= bpp else 0; b = prev[i]; c = prev[i-bpp] if i >= bpp else 0\n"
          "        pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2*c)\n"
          "        pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)\n"
          "        line[i] = (line[i] + [0, a, b, (a + b) // 2, pr][f]) & 255\n"
          "    out.append(bytes(line)); prev = line\n"
          "print(b''.join(out).hex())\n", f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "python3 '%s' '%s'", script, path);
    int st;
    char *hex = check_run(cmd, &st);
    if (st == -1 && !hex) { /* no processes (WebAssembly under Node) */
        printf("SKIPPED: PNG pixels decoded by python3: cannot start a process here\n");
        free(img);
        return;
    }
    char want[9 * 4 * 4 * 2 + 8] = {0};
    for (size_t i = 0; i < 9 * 4 * 4; i++) sprintf(want + 2 * i, "%02x", img[i]);
    CHECK(st == 0 && hex && strlen(hex) >= 9 * 4 * 4 * 2 && strncmp(hex, want, 9 * 4 * 4 * 2) == 0,
          "python-decoded pixels equal the input\n got %.80s\nwant %.80s", hex ? hex : "", want);
    free(hex);
    free(img);
}

static void test_no_overwrite(void) {
    char path[300];
    path_in(path, sizeof path, "keep.png");
    uint8_t *img = make_image(4, 4);
    ErrorMsg err = {{0}};
    CHECK(png_write_file(path, img, 4, 4, 4, 16, TEXTS, 1, NULL, &err) == 0, "first write: %s", err.text);
    long size1 = file_size(path);
    CHECK(png_write_file(path, img, 4, 4, 4, 16, TEXTS, N_TEXTS, NULL, &err) == -1, "second write refused");
    CHECK(strstr(err.text, path) && strstr(err.text, "already exists"), "message: %s", err.text);
    CHECK(file_size(path) == size1, "file unchanged");
    CHECK(check_tmpdir_temps(g_dir) == 0, "no temporary left after refusal");
    PngWriteOptions opt = {.overwrite = 1};
    CHECK(png_write_file(path, img, 4, 4, 4, 16, TEXTS, N_TEXTS, &opt, &err) == 0, "overwrite: %s", err.text);
    CHECK(file_size(path) > size1, "file replaced (more text chunks): %ld vs %ld", file_size(path), size1);
    free(img);
}

static void test_bad_folders(void) {
    uint8_t *img = make_image(4, 4);
    ErrorMsg err = {{0}};
    char path[300], file[300];
    path_in(path, sizeof path, "missing/sub/a.png");
    CHECK(png_write_file(path, img, 4, 4, 4, 16, NULL, 0, NULL, &err) == -1, "missing folder fails");
    CHECK(strstr(err.text, path) && strstr(err.text, "does not exist"), "message: %s", err.text);

    path_in(file, sizeof file, "plainfile");
    FILE *f = fopen(file, "w");
    fputs("x", f);
    fclose(f);
    path_in(path, sizeof path, "plainfile/a.png");
    CHECK(png_write_file(path, img, 4, 4, 4, 16, NULL, 0, NULL, &err) == -1, "folder-is-a-file fails");
    CHECK(strstr(err.text, path) && strstr(err.text, "is a file"), "message: %s", err.text);

    CHECK(png_write_file(g_dir, img, 4, 4, 4, 16, NULL, 0, NULL, &err) == -1, "path that is a folder fails");
    CHECK(strstr(err.text, g_dir) && strstr(err.text, "is a folder"), "message: %s", err.text);

    /* an unwritable folder: permission bits do not stop root, so as root use a
     * read-only tmpfs when the kernel lets us mount one */
    char ro[300];
    path_in(ro, sizeof ro, "ro");
    mkdir(ro, 0555);
    int mounted = 0, tested = 0;
    if (geteuid() != 0) {
        tested = 1;
    } else if (tmpfs_mount(ro, 1, "size=16k") == 0) {
        tested = mounted = 1;
    }
    if (tested) {
        path_in(path, sizeof path, "ro/a.png");
        CHECK(png_write_file(path, img, 4, 4, 4, 16, NULL, 0, NULL, &err) == -1, "read-only folder fails");
        CHECK(strstr(err.text, path) && strstr(err.text, "not writable"), "message: %s", err.text);
    } else {
        printf("note: cannot mount a read-only tmpfs here (%s); unwritable-folder check skipped\n",
               strerror(errno));
    }
    if (mounted) tmpfs_unmount(ro);
    rmdir(ro);
    free(img);
}

/* write(2) replacement: lets `budget` bytes through (in short writes of at most 100),
 * then fails with ENOSPC — a disk filling up mid-file. */
typedef struct FullDisk {
    size_t budget, written;
    int calls;
} FullDisk;

static long full_disk_write(int fd, const void *buf, size_t len, void *ctx) {
    FullDisk *d = ctx;
    d->calls++;
    if (d->written >= d->budget) {
        errno = ENOSPC;
        return -1;
    }
    size_t n = len < 100 ? len : 100;
    if (n > d->budget - d->written) n = d->budget - d->written;
    long w = (long)write(fd, buf, n);
    if (w > 0) d->written += (size_t)w;
    return w;
}

static long zero_write(int fd, const void *buf, size_t len, void *ctx) {
    (void)fd, (void)buf, (void)len;
    ++*(int *)ctx;
    return 0;
}

static void test_disk_full(void) {
    uint8_t *img = make_image(64, 64);
    ErrorMsg err = {{0}};
    char path[300];
    path_in(path, sizeof path, "full.png");
    FullDisk d = {.budget = 250};
    PngWriteOptions opt = {.write_fn = full_disk_write, .write_ctx = &d};
    CHECK(png_write_file(path, img, 64, 64, 4, 256, TEXTS, N_TEXTS, &opt, &err) == -1, "disk full fails");
    CHECK(d.written == 250 && d.calls >= 4, "short writes were continued: %zu bytes in %d calls",
          d.written, d.calls);
    CHECK(strstr(err.text, path) && strstr(err.text, "disk full"), "message: %s", err.text);
    CHECK(file_size(path) == -1, "no final file after a failed write");
    CHECK(check_tmpdir_temps(g_dir) == 0, "no temporary left after a failed write");

    int calls = 0;
    PngWriteOptions z = {.write_fn = zero_write, .write_ctx = &calls};
    CHECK(png_write_file(path, img, 64, 64, 4, 256, NULL, 0, &z, &err) == -1, "zero-progress write fails");
    CHECK(calls == 1, "no endless retry on zero-byte writes (%d calls)", calls);
    CHECK(check_tmpdir_temps(g_dir) == 0, "no temporary left");

    /* a real full file system, when we may mount a tiny tmpfs (root in most CI) */
    char tiny[300];
    path_in(tiny, sizeof tiny, "tiny");
    mkdir(tiny, 0755);
    if (tmpfs_mount(tiny, 0, "size=16k") == 0) {
        uint8_t *noise = malloc(200 * 200 * 4);
        uint32_t s = 12345;
        for (size_t i = 0; i < 200 * 200 * 4; i++) noise[i] = (uint8_t)((s = s * 1103515245u + 12345u) >> 24);
        path_in(path, sizeof path, "tiny/big.png");
        CHECK(png_write_file(path, noise, 200, 200, 4, 800, NULL, 0, NULL, &err) == -1, "tmpfs full fails");
        CHECK(strstr(err.text, path) && (strstr(err.text, "disk full") || strstr(err.text, "flush")),
              "message: %s", err.text);
        CHECK(check_tmpdir_temps(tiny) == 0, "no temporary left on the full tmpfs");
        CHECK(file_size(path) == -1, "no final file on the full tmpfs");
        free(noise);
        tmpfs_unmount(tiny);
    } else {
        printf("note: cannot mount a tmpfs here (%s); real disk-full check skipped (hook covers it)\n",
               strerror(errno));
    }
    rmdir(tiny);
    free(img);
}

static void test_bad_input(void) {
    uint8_t *img = make_image(4, 4);
    uint8_t *out = NULL;
    size_t len = 0;
    ErrorMsg err = {{0}};
    const char *bad_keys[] = {"", " lead", "trail ", "a  b", "tab\tkey", "caf\xC3\xA9",
                              "0123456789012345678901234567890123456789012345678901234567890123456789012345678X9"};
    for (size_t i = 0; i < sizeof bad_keys / sizeof bad_keys[0]; i++) {
        PngText t = {bad_keys[i], "v"};
        CHECK(png_encode(img, 4, 4, 4, 16, &t, 1, 0, &out, &len, &err) == -1, "bad keyword %zu rejected", i);
        CHECK(strstr(err.text, "keyword"), "message: %s", err.text);
        CHECK(out == NULL, "no output on error");
    }
    CHECK(png_keyword_valid("inferscope:model") && png_keyword_valid("Creation Time"), "good keywords");
    PngText bad_utf8 = {"Comment", "\xC0\xAF"}; /* overlong '/' */
    CHECK(png_encode(img, 4, 4, 4, 16, &bad_utf8, 1, 0, &out, &len, &err) == -1, "invalid UTF-8 rejected");
    CHECK(strstr(err.text, "UTF-8"), "message: %s", err.text);
    CHECK(png_encode(img, 0, 4, 4, 16, NULL, 0, 0, &out, &len, &err) == -1, "zero width rejected");
    CHECK(png_encode(img, 4, 4, 2, 16, NULL, 0, 0, &out, &len, &err) == -1, "2 channels rejected");
    CHECK(png_encode(img, 4, 4, 4, 15, NULL, 0, 0, &out, &len, &err) == -1, "short stride rejected");
    /* RGB with a padded stride (like an SDL surface pitch) works */
    CHECK(png_encode(img, 3, 4, 3, 16, NULL, 0, 0, &out, &len, &err) == 0, "RGB padded stride: %s", err.text);
    free(out);
    free(img);
}

static void write_bytes(const char *path, const uint8_t *b, size_t n) {
    FILE *f = fopen(path, "wb");
    fwrite(b, 1, n, f);
    fclose(f);
}

static void test_reader_rejects(void) {
    uint8_t *img = make_image(6, 6), *png = NULL;
    size_t len = 0;
    ErrorMsg err = {{0}};
    PngTextChunks t = {0};
    CHECK(png_encode(img, 6, 6, 4, 24, TEXTS, N_TEXTS, 0, &png, &len, &err) == 0, "encode: %s", err.text);
    char path[300];
    path_in(path, sizeof path, "damaged.png");

    CHECK(png_read_text_chunks(path, &t, &err) == -1 && strstr(err.text, path), "missing file: %s", err.text);

    /* flip one byte inside the first tEXt value: its CRC must catch it */
    uint8_t *copy = malloc(len);
    memcpy(copy, png, len);
    uint8_t *hit = memmem(copy, len, "inferscope", 10);
    CHECK(hit != NULL, "text present in the encoded bytes");
    if (hit) hit[0] ^= 0x20;
    write_bytes(path, copy, len);
    CHECK(png_read_text_chunks(path, &t, &err) == -1, "corrupt text rejected");
    CHECK(strstr(err.text, path) && strstr(err.text, "CRC mismatch in chunk tEXt"), "message: %s", err.text);
    CHECK(t.count == 0 && t.items == NULL, "nothing returned on error");

    /* a chunk length pointing past the end of the file */
    memcpy(copy, png, len);
    copy[33] = 0x7F; /* first chunk after IHDR: length high byte */
    write_bytes(path, copy, len);
    CHECK(png_read_text_chunks(path, &t, &err) == -1 && strstr(err.text, "past the end"),
          "huge length: %s", err.text);

    memcpy(copy, png, len);
    copy[1] = 'Q';
    write_bytes(path, copy, len);
    CHECK(png_read_text_chunks(path, &t, &err) == -1 && strstr(err.text, "signature"), "bad signature: %s",
          err.text);

    /* every truncation is an error, never a crash (ASan run checks the bounds) */
    int all_fail = 1;
    for (size_t cut = 0; cut < len; cut++) {
        write_bytes(path, png, cut);
        if (png_read_text_chunks(path, &t, &err) != -1) all_fail = 0;
    }
    CHECK(all_fail, "all %zu truncations rejected", len);
    write_bytes(path, png, len);
    CHECK(png_read_text_chunks(path, &t, &err) == 0 && t.count == N_TEXTS, "intact copy reads: %s", err.text);
    png_text_chunks_free(&t);
    free(copy);
    free(png);
    free(img);
}

int main(void) {
    if (check_tmpdir_make(g_dir, sizeof g_dir, "inferscope-test-png")) return 1;
    test_crc();
    test_round_trip();
    test_pixels_python();
    test_no_overwrite();
    test_bad_folders();
    test_disk_full();
    test_bad_input();
    test_reader_rejects();
    check_tmpdir_remove(g_dir);
    return check_summary("test_viz_png");
}
