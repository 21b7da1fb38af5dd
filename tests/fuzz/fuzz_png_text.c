/* fuzz_png_text.c — libFuzzer harness for the figure-provenance reader
 * png_read_text_chunks (viz/png_write.h) on arbitrary bytes. When the reader accepts a
 * file, its entries are written into a fresh 1x1 PNG with png_encode (if they are
 * acceptable text chunks) and read back: the same keywords and values must come out.
 * Not an image decoder test: pixels are never decoded. */
#include "fuzz.h"

#include "png_write.h"

/* Returns 1 if the reader accepted the input, 0 if it refused. */
static int fuzz_png_text_one(const uint8_t *data, size_t size) {
    static FuzzFile file, again;
    const char *path = fuzz_file_set(&file, data, size);
    PngTextChunks t = {0};
    ErrorMsg err = {{0}};
    if (png_read_text_chunks(path, &t, &err) != 0) {
        FUZZ_ASSERT_REFUSAL(err.text, path);
        FUZZ_ASSERT(t.items == NULL && t.count == 0, "chunks not empty after error");
        return 0;
    }
    for (size_t i = 0; i < t.count; i++)
        FUZZ_ASSERT(t.items[i].keyword && t.items[i].value, "entry %zu has NULL", i);

    /* Round trip through the writer. Entries the writer refuses (a keyword breaking the
     * rules, a Latin-1 value that is not UTF-8) end the check: that is a refusal, not
     * a bug. Values are NUL-terminated strings, so what is written is what was read. */
    PngText *texts = malloc((t.count ? t.count : 1) * sizeof *texts);
    FUZZ_ASSERT(texts != NULL, "out of memory");
    for (size_t i = 0; i < t.count; i++) texts[i] = (PngText){t.items[i].keyword, t.items[i].value};
    const uint8_t pixel[4] = {1, 2, 3, 255};
    uint8_t *png = NULL;
    size_t png_len = 0;
    if (png_encode(pixel, 1, 1, 4, 4, texts, t.count, 0.0, &png, &png_len, &err) == 0) {
        PngTextChunks back = {0};
        const char *p2 = fuzz_file_set(&again, png, png_len);
        FUZZ_ASSERT(png_read_text_chunks(p2, &back, &err) == 0, "own PNG unreadable: %s", err.text);
        FUZZ_ASSERT(back.count == t.count, "%zu entries written, %zu read", t.count, back.count);
        FUZZ_ASSERT(back.width == 1 && back.height == 1, "IHDR %ux%u", back.width, back.height);
        for (size_t i = 0; i < t.count; i++) {
            FUZZ_ASSERT(strcmp(back.items[i].keyword, t.items[i].keyword) == 0, "keyword %zu", i);
            FUZZ_ASSERT(strcmp(back.items[i].value, t.items[i].value) == 0, "value %zu", i);
        }
        png_text_chunks_free(&back);
        free(png);
    }
    free(texts);
    png_text_chunks_free(&t);
    return 1;
}

FUZZ_ENTRY(fuzz_png_text_one)
