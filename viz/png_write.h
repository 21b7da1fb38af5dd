/* png_write.h — figure export: RGBA/RGB pixels → PNG bytes (stb_image_write) with
 * provenance text chunks (model, prompt, step, settings…) inserted after IHDR, written
 * atomically (file_write.h), and the matching
 * reader that lists those text chunks back when a figure is reopened.
 * Not an image decoder: png_read_text_chunks never touches the pixel data.
 *
 * Text chunks: a pure-ASCII value becomes a tEXt chunk (PNG spec 11.3.4.3); a value
 * with any byte >= 0x80 must be valid UTF-8 and becomes an uncompressed iTXt chunk
 * (tEXt is Latin-1 only, and prompts are UTF-8). Keywords: 1–79 printable ASCII
 * characters, no leading, trailing or double spaces. Suggested provenance set: the
 * PNG-registered "Software" (inferscope + version), "Source" (model name), "Creation
 * Time", plus our own "inferscope:prompt", "inferscope:step", "inferscope:settings".
 *
 * Pixel layout for the encoder: rows top to bottom, each row `stride` bytes apart
 * (SDL's pitch), `channels` = 4 for R,G,B,A bytes (SDL_PIXELFORMAT_RGBA32) or 3 for
 * R,G,B. */
#ifndef VIZ_PNG_WRITE_H
#define VIZ_PNG_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "file_write.h"

#define PNG_MAX_SIDE 65535 /* far below PNG's 2^31-1; keeps w*h*4 well inside size_t */

typedef struct PngText {
    const char *keyword; /* borrowed; see the keyword rules above */
    const char *value;   /* borrowed; ASCII → tEXt, UTF-8 → iTXt */
} PngText;

/* Test seam: a replacement for write(2) (file_write.h). */
typedef FileWriteFn PngWriteFn;

typedef struct PngWriteOptions {
    int overwrite;       /* 0 (default): refuse if the file exists; 1: replace it */
    double dpi;          /* > 0: add a pHYs chunk (pixels per metre) for print size */
    PngWriteFn write_fn; /* NULL: write(2) */
    void *write_ctx;     /* passed to write_fn */
} PngWriteOptions;

/* Encodes the image and inserts the text chunks (and pHYs if dpi > 0) after IHDR.
 * *out is malloc'ed (caller frees with free()), *out_len its size. Returns 0, or -1
 * with err (bad size/channels/keyword/UTF-8, out of memory). */
int png_encode(const uint8_t *pixels, int w, int h, int channels, size_t stride,
               const PngText *texts, size_t n_texts, double dpi, uint8_t **out, size_t *out_len,
               ErrorMsg *err);

/* png_encode + file_write_atomic (a temporary created new in the same folder, fsync, then
 * link/rename onto path; without opt->overwrite an existing path is never replaced, and a
 * name that is not a regular file never is). opt may be NULL (defaults). */
int png_write_file(const char *path, const uint8_t *pixels, int w, int h, int channels,
                   size_t stride, const PngText *texts, size_t n_texts,
                   const PngWriteOptions *opt, ErrorMsg *err);

/* 1 if keyword is acceptable for a text chunk (rules above), else 0. */
int png_keyword_valid(const char *keyword);

/* CRC-32 as PNG uses it (ISO 3309 / ITU-T V.42, polynomial 0xEDB88320), over the
 * chunk type and data. crc starts at 0; chain calls by passing the previous result. */
uint32_t png_crc32(uint32_t crc, const uint8_t *buf, size_t len);

typedef struct PngTextEntry {
    char *keyword; /* owned, NUL-terminated */
    char *value;   /* owned, NUL-terminated (a value with an embedded NUL is cut there) */
} PngTextEntry;

typedef struct PngTextChunks {
    PngTextEntry *items; /* owned array of count entries, in file order */
    size_t count;
    uint32_t width, height; /* from IHDR */
} PngTextChunks;

/* Reads path's chunk list: checks the signature, that IHDR comes first, every chunk
 * length against the file size, the CRC of IHDR and of every tEXt/iTXt chunk, and
 * that IEND is present; collects tEXt and uncompressed iTXt entries (compressed
 * zTXt/iTXt are skipped). Pixel data is skipped, not read. out must be zeroed or
 * freed. Returns 0, or -1 with err naming the file and the problem (out left empty). */
int png_read_text_chunks(const char *path, PngTextChunks *out, ErrorMsg *err);

/* Frees everything; safe on a zeroed struct and twice. */
void png_text_chunks_free(PngTextChunks *t);

/* The value of the first entry with this keyword, or NULL. Borrowed from t. */
const char *png_text_find(const PngTextChunks *t, const char *keyword);

#endif
