/* safetensors.h — read-only access to a .safetensors file (HuggingFace's format):
 *   [8 bytes: little-endian u64 N] [N bytes: JSON header] [raw little-endian data]
 * The header maps each tensor name to {"dtype", "shape", "data_offsets": [begin, end]}
 * (offsets relative to the first data byte) plus an optional "__metadata__" object.
 * The file is mmap'ed read-only and the header validated completely at open, so a
 * SafeTensor's `data` can be read without further checks. Not a writer, and it knows
 * nothing about GPT-2 (that is gpt2_model.c).
 *
 * Usage:
 *   SafeFile f; ErrorMsg err;
 *   if (safe_open(&f, "model.safetensors", &err)) { puts(err.text); return; }
 *   const SafeTensor *t = safe_find(&f, "wte.weight");   // NULL when absent
 *   ... t->data, t->shape[0..ndim), t->dtype ...
 *   safe_close(&f);
 *
 * Policy (validated at open, each failure one "PATH: problem" line): header length
 * within the file and <= 100 MB; header a JSON object; every dtype known; shape
 * entries non-negative integers, at most 8 dims; numel x dtype size == end - begin
 * (overflow-checked); offsets within the data; no two tensors' bytes overlap; no
 * duplicate names. Gaps between tensors and trailing bytes are ALLOWED: HF files are
 * contiguous, but unused bytes cannot make us read wrong values, so refusing them
 * would only reject files that load fine elsewhere. */
#ifndef SAFETENSORS_H
#define SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

typedef enum SafeDtype {
    SAFE_F32,
    SAFE_F16,
    SAFE_BF16,
    SAFE_I32,
    SAFE_I64,
    SAFE_U8,
    SAFE_F64,
    SAFE_I8,
    SAFE_I16,
    SAFE_U16,
    SAFE_U32,
    SAFE_U64,
    SAFE_BOOL,
    SAFE_F8_E4M3,
    SAFE_F8_E5M2,
    SAFE_DTYPE_COUNT
} SafeDtype;

#define SAFE_MAX_DIMS 8
#define SAFE_MAX_NAME 160
/* Largest header we accept (the reference Rust implementation uses the same limit):
 * a claimed length above it is refused before anything is allocated. */
#define SAFE_MAX_HEADER ((size_t)100 * 1000 * 1000)

typedef struct SafeTensor {
    char name[SAFE_MAX_NAME];       /* as in the header, NUL-terminated */
    SafeDtype dtype;
    int ndim;                       /* 0 (scalar) .. SAFE_MAX_DIMS */
    int64_t shape[SAFE_MAX_DIMS];   /* shape[0..ndim), each >= 0 */
    size_t nbytes;                  /* == numel * dtype size == end - begin */
    const uint8_t *data;            /* points into the mapping; valid until safe_close;
                                       alignment is whatever the file gives. NULL when
                                       opened by safe_open_header (read with safe_read) */
    size_t offset;                  /* where the data starts in the file */
} SafeTensor;

typedef struct SafeFile {
    char path[1024];                /* as passed to safe_open (for messages) */
    uint8_t *map;                   /* whole file, read-only mapping (owned), or NULL */
    size_t map_len;                 /* file size in bytes (also when not mapped) */
    int fd, fd_open;                /* the open file after safe_open_header (fd_open 1) */
    size_t header_len;              /* N; data starts at map + 8 + header_len */
    SafeTensor *tensors;            /* (n_tensors) in header order (owned) */
    size_t n_tensors;
    char *metadata_json;            /* __metadata__ as compact JSON text, or NULL (owned) */
} SafeFile;

/* Maps PATH read-only, parses and validates the header. On error returns -1, *f is
 * zeroed (nothing to close) and err holds "PATH: problem". */
int safe_open(SafeFile *f, const char *path, ErrorMsg *err);

/* The same checks without mapping the file: only the header is read (into a buffer
 * freed before returning), the file stays open and every SafeTensor.data is NULL. For a
 * loader that converts every weight anyway: on WebAssembly an mmap is a full copy in
 * the heap, so a 498 MB F32 file converted to F16 would cost 498 + 249 MB at once; read
 * block by block with safe_read it costs 249 MB. */
int safe_open_header(SafeFile *f, const char *path, ErrorMsg *err);

/* Maps a file opened by safe_open_header after all (data then points into the mapping);
 * 0 at once when mapped. -1 with err when it cannot, or the file changed size. */
int safe_map(SafeFile *f, ErrorMsg *err);

/* Copies bytes [off, off + n) of t's data into buf: from the mapping, or read from the
 * file. -1 with err naming the file when the range is outside t, on a read error, or
 * when the file has become shorter than its header says. Safe from several threads. */
int safe_read(const SafeFile *f, const SafeTensor *t, size_t off, void *buf, size_t n, ErrorMsg *err);

/* The tensor called `name`, or NULL. Linear scan: a GPT-2 file has < 600 tensors and
 * lookups happen once at load time. */
const SafeTensor *safe_find(const SafeFile *f, const char *name);

/* Number of elements (product of the shape; 1 for a scalar). Cannot overflow: it was
 * checked at open. */
size_t safe_numel(const SafeTensor *t);

/* "F32", "BF16", ... as written in headers; "?" for an out-of-range value. */
const char *safe_dtype_name(SafeDtype d);

/* Bytes per element (1, 2, 4 or 8); 0 for an out-of-range value. */
size_t safe_dtype_size(SafeDtype d);

/* Unmaps, closes and frees; safe on a zeroed SafeFile; leaves it zeroed. If the caller took
 * over `map` (set it to NULL), only the tables are freed. */
void safe_close(SafeFile *f);

#endif
