/* safetensors.c — open, validate and index a .safetensors file (see safetensors.h for
 * the format and the validation policy). Everything that can be wrong with the file is
 * detected here, once, so readers of SafeTensor.data never need bounds checks.
 * Not GPT-2 specific and not a writer. */
#include "safetensors.h"

#include <cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_read.h"
#include "json_whole.h"

/* The data is read in place as little-endian numbers: a big-endian host would need a
 * byte-swapping copy, which this loader does not do. Fail the build instead of
 * silently reading garbage. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "safetensors.c assumes a little-endian host"
#endif

typedef struct DtypeInfo {
    const char *name;
    size_t size;
} DtypeInfo;

/* Indexed by SafeDtype; names exactly as the safetensors spec spells them. */
static const DtypeInfo DTYPES[SAFE_DTYPE_COUNT] = {
    [SAFE_F32] = {"F32", 4},         [SAFE_F16] = {"F16", 2},     [SAFE_BF16] = {"BF16", 2},
    [SAFE_I32] = {"I32", 4},         [SAFE_I64] = {"I64", 8},     [SAFE_U8] = {"U8", 1},
    [SAFE_F64] = {"F64", 8},         [SAFE_I8] = {"I8", 1},       [SAFE_I16] = {"I16", 2},
    [SAFE_U16] = {"U16", 2},         [SAFE_U32] = {"U32", 4},     [SAFE_U64] = {"U64", 8},
    [SAFE_BOOL] = {"BOOL", 1},       [SAFE_F8_E4M3] = {"F8_E4M3", 1},
    [SAFE_F8_E5M2] = {"F8_E5M2", 1},
};

const char *safe_dtype_name(SafeDtype d) {
    return (unsigned)d < SAFE_DTYPE_COUNT ? DTYPES[d].name : "?";
}

size_t safe_dtype_size(SafeDtype d) {
    return (unsigned)d < SAFE_DTYPE_COUNT ? DTYPES[d].size : 0;
}

size_t safe_numel(const SafeTensor *t) {
    size_t n = 1;
    for (int i = 0; i < t->ndim; i++) n *= (size_t)t->shape[i];
    return n;
}

const SafeTensor *safe_find(const SafeFile *f, const char *name) {
    for (size_t i = 0; i < f->n_tensors; i++)
        if (strcmp(f->tensors[i].name, name) == 0) return &f->tensors[i];
    return NULL;
}

void safe_close(SafeFile *f) {
    if (f->map) munmap(f->map, f->map_len);
    if (f->fd_open) close(f->fd);
    free(f->tensors);
    free(f->metadata_json);
    memset(f, 0, sizeof *f);
}

/* JSON numbers are doubles: integers are exact up to 2^53 (9 PB), far beyond any
 * file, so accept only integral values in [0, 2^53]: 0, or -1 for anything else, -2 for
 * an integer above SIZE_MAX (a 32-bit build: WebAssembly). */
static int json_to_size(const cJSON *j, size_t *out) {
    if (!cJSON_IsNumber(j)) return -1;
    double v = j->valuedouble;
    if (!(v >= 0.0 && v <= 9007199254740992.0) || v != floor(v)) return -1;
    if (v > (double)SIZE_MAX) return -2; /* an integer this machine's sizes cannot hold (32-bit) */
    *out = (size_t)v;
    return 0;
}

/* a * b into *out, or -1 if it would not fit in size_t. */
static int mul_size(size_t a, size_t b, size_t *out) {
    if (a != 0 && b > SIZE_MAX / a) return -1;
    *out = a * b;
    return 0;
}

/* Byte range of one tensor, for the overlap check (sorted by begin). */
typedef struct Span {
    size_t begin, end, index;
} Span;

static int span_cmp(const void *a, const void *b) {
    const Span *x = a, *y = b;
    if (x->begin != y->begin) return x->begin < y->begin ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;
}

static int name_cmp(const void *a, const void *b) {
    const SafeTensor *const *x = a, *const *y = b;
    return strcmp((*x)->name, (*y)->name);
}

/* Fills t from one header entry {"dtype","shape","data_offsets"}; checks everything
 * that concerns this tensor alone. Returns 0 or -1 with err set. */
static int parse_entry(const SafeFile *f, const cJSON *e, size_t data_len, SafeTensor *t,
                       size_t *begin, size_t *end, ErrorMsg *err) {
    const char *path = f->path;
    const char *name = e->string;
    char shown[ERROR_QUOTE_CAP]; /* the name as it may be echoed: controls and bad bytes escaped */
    ERROR_QUOTE(shown, name);
    if (strlen(name) >= SAFE_MAX_NAME)
        return error_set(err, "%s: tensor name '%.40s...' is longer than %d bytes", path, shown,
                         SAFE_MAX_NAME - 1);
    memcpy(t->name, name, strlen(name) + 1);
    if (!cJSON_IsObject(e))
        return error_set(err, "%s: tensor '%s': header entry is not a JSON object", path, shown);

    const cJSON *dt = cJSON_GetObjectItemCaseSensitive(e, "dtype");
    if (!cJSON_IsString(dt))
        return error_set(err, "%s: tensor '%s': missing \"dtype\" string", path, shown);
    int found = 0;
    for (int d = 0; d < SAFE_DTYPE_COUNT; d++)
        if (strcmp(dt->valuestring, DTYPES[d].name) == 0) {
            t->dtype = (SafeDtype)d;
            found = 1;
        }
    char shown_dt[ERROR_QUOTE_CAP];
    if (!found)
        return error_set(err, "%s: tensor '%s': unknown dtype '%.20s'", path, shown, ERROR_QUOTE(shown_dt, dt->valuestring));

    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(e, "shape");
    if (!cJSON_IsArray(shape))
        return error_set(err, "%s: tensor '%s': missing \"shape\" array", path, shown);
    int nd = cJSON_GetArraySize(shape);
    if (nd > SAFE_MAX_DIMS)
        return error_set(err, "%s: tensor '%s': %d dimensions, at most %d supported", path, shown, nd,
                         SAFE_MAX_DIMS);
    t->ndim = nd;
    size_t numel = 1;
    int i = 0;
    const cJSON *dim;
    cJSON_ArrayForEach(dim, shape) {
        size_t v;
        int vrc = json_to_size(dim, &v);
        if (vrc == -2)
            return error_set(err, "%s: tensor '%s': shape is too large (entry %d overflows this machine's %zu-bit sizes)",
                             path, shown, i, sizeof(size_t) * 8);
        if (vrc != 0 || v > (size_t)INT64_MAX)
            return error_set(err, "%s: tensor '%s': shape entry %d is not a non-negative integer",
                             path, shown, i);
        t->shape[i++] = (int64_t)v;
        if (mul_size(numel, v, &numel) != 0)
            return error_set(err, "%s: tensor '%s': shape is too large (element count overflows)",
                             path, shown);
    }
    size_t nbytes;
    if (mul_size(numel, DTYPES[t->dtype].size, &nbytes) != 0)
        return error_set(err, "%s: tensor '%s': shape is too large (byte count overflows)", path,
                         shown);

    const cJSON *off = cJSON_GetObjectItemCaseSensitive(e, "data_offsets");
    if (!cJSON_IsArray(off) || cJSON_GetArraySize(off) != 2 ||
        json_to_size(cJSON_GetArrayItem(off, 0), begin) != 0 ||
        json_to_size(cJSON_GetArrayItem(off, 1), end) != 0)
        return error_set(err, "%s: tensor '%s': \"data_offsets\" must be [begin, end] integers",
                         path, shown);
    if (*end < *begin)
        return error_set(err, "%s: tensor '%s': data_offsets [%zu, %zu] end before begin", path,
                         shown, *begin, *end);
    if (*end > data_len)
        return error_set(err,
                         "%s: tensor '%s': data_offsets [%zu, %zu] out of range: the data "
                         "section has %zu bytes (file truncated?)",
                         path, shown, *begin, *end, data_len);
    if (*end - *begin != nbytes)
        return error_set(err,
                         "%s: tensor '%s': shape needs %zu elements x %zu bytes (%s) = %zu bytes "
                         "but data_offsets [%zu, %zu] span %zu",
                         path, shown, numel, DTYPES[t->dtype].size, DTYPES[t->dtype].name, nbytes,
                         *begin, *end, *end - *begin);
    t->nbytes = nbytes;
    return 0;
}

/* The header JSON (text: header_len bytes, from the mapping or read into a buffer) ->
 * tensor table. data points into the mapping when there is one, else stays NULL. */
static int parse_header(SafeFile *f, const char *text, ErrorMsg *err) {
    const char *path = f->path;
    const char *parse_end = NULL;
    /* cJSON copies nothing from the mapping; it builds its own tree (bounded by N,
     * which was checked against the file size and SAFE_MAX_HEADER). */
    cJSON *root = cJSON_ParseWithLengthOpts(text, f->header_len, &parse_end, 0);
    if (!root) {
        size_t at = parse_end && parse_end >= text ? (size_t)(parse_end - text) : 0;
        return error_set(err, "%s: header is not valid JSON (error near byte %zu of %zu)", path,
                         at, f->header_len);
    }
    /* a NUL inside a tensor name would cut it short (cJSON strings are C strings) */
    if (json_check_raw_bytes(text, (size_t)(parse_end - text), path, err)) {
        cJSON_Delete(root);
        return -1;
    }
    int rc = -1;
    SafeTensor **by_name = NULL;
    Span *spans = NULL;
    /* HF pads the header with spaces to a multiple of 8; anything else after the JSON
     * value means the length field and the text disagree. */
    for (const char *p = parse_end; p < text + f->header_len; p++)
        if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r' && *p != '\0') {
            error_set(err, "%s: unexpected text after the JSON header (byte %zu of %zu)", path,
                      (size_t)(p - text), f->header_len);
            goto done;
        }
    if (!cJSON_IsObject(root)) {
        error_set(err, "%s: header is JSON but not an object of tensors", path);
        goto done;
    }

    size_t n = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, root) if (strcmp(e->string, "__metadata__") != 0) n++;
    size_t data_len = f->map_len - 8 - f->header_len;
    f->tensors = calloc(n ? n : 1, sizeof *f->tensors);
    spans = malloc((n ? n : 1) * sizeof *spans);
    by_name = malloc((n ? n : 1) * sizeof *by_name);
    if (!f->tensors || !spans || !by_name) {
        error_set(err, "%s: out of memory for %zu tensor entries", path, n);
        goto done;
    }

    size_t k = 0;
    cJSON_ArrayForEach(e, root) {
        if (strcmp(e->string, "__metadata__") == 0) {
            if (!cJSON_IsObject(e)) {
                error_set(err, "%s: \"__metadata__\" is not a JSON object", path);
                goto done;
            }
            char *s = cJSON_PrintUnformatted(e);
            if (!s) {
                error_set(err, "%s: out of memory for __metadata__", path);
                goto done;
            }
            free(f->metadata_json);
            f->metadata_json = malloc(strlen(s) + 1);
            if (f->metadata_json) memcpy(f->metadata_json, s, strlen(s) + 1);
            cJSON_free(s);
            if (!f->metadata_json) {
                error_set(err, "%s: out of memory for __metadata__", path);
                goto done;
            }
            continue;
        }
        SafeTensor *t = &f->tensors[k];
        size_t begin = 0, end = 0;
        if (parse_entry(f, e, data_len, t, &begin, &end, err) != 0) goto done;
        t->offset = 8 + f->header_len + begin;
        t->data = f->map ? f->map + t->offset : NULL;
        spans[k] = (Span){begin, end, k};
        by_name[k] = t;
        k++;
    }
    f->n_tensors = n;

    /* Duplicate names: JSON allows repeated keys and cJSON keeps both, so the second
     * would be unreachable by name. Sort pointers by name and compare neighbours. */
    qsort(by_name, n, sizeof *by_name, name_cmp);
    for (size_t i = 1; i < n; i++)
        if (strcmp(by_name[i - 1]->name, by_name[i]->name) == 0) {
            char shown[ERROR_QUOTE_CAP];
            error_set(err, "%s: tensor name '%s' appears twice in the header", path,
                      ERROR_QUOTE(shown, by_name[i]->name));
            goto done;
        }

    /* Overlap: sort byte ranges by begin; each non-empty range must start at or after
     * the furthest end seen so far. Empty tensors (0 bytes) occupy nothing. */
    qsort(spans, n, sizeof *spans, span_cmp);
    size_t max_begin = 0, max_end = 0, max_idx = 0;
    int have = 0;
    for (size_t i = 0; i < n; i++) {
        if (spans[i].begin == spans[i].end) continue;
        if (have && spans[i].begin < max_end) {
            char a1[ERROR_QUOTE_CAP], a2[ERROR_QUOTE_CAP];
            error_set(err, "%s: tensors '%s' and '%s' overlap (bytes [%zu, %zu) and [%zu, %zu))",
                      path, ERROR_QUOTE(a1, f->tensors[max_idx].name), ERROR_QUOTE(a2, f->tensors[spans[i].index].name),
                      max_begin, max_end, spans[i].begin,
                      spans[i].end);
            goto done;
        }
        if (!have || spans[i].end > max_end) {
            max_begin = spans[i].begin;
            max_end = spans[i].end;
            max_idx = spans[i].index;
        }
        have = 1;
    }
    rc = 0;
done:
    free(spans);
    free(by_name);
    cJSON_Delete(root);
    return rc;
}

/* Opens path for reading (regular files only: a FIFO in place of the weights must not
 * hang) and checks its size can hold the 8-byte length. Returns the descriptor or -1. */
static int open_sized(SafeFile *f, const char *path, size_t *size, ErrorMsg *err) {
    memset(f, 0, sizeof *f);
    if (strlen(path) >= sizeof f->path)
        return error_set(err, "%.200s...: path too long", path);
    memcpy(f->path, path, strlen(path) + 1);
    struct stat st;
    int fd = file_open_regular(path, &st, err);
    if (fd < 0) return -1;
    if ((uint64_t)st.st_size > (uint64_t)SIZE_MAX) { /* only possible on 32-bit hosts */
        close(fd);
        return error_set(err, "%s: file too large to map on this machine", path);
    }
    *size = (size_t)st.st_size;
    if (*size == 0) {
        close(fd);
        return error_set(err, "%s: empty file (0 bytes), not a safetensors file", path);
    }
    if (*size < 8) {
        close(fd);
        return error_set(err, "%s: file is %zu bytes, too short for the 8-byte header length", path, *size);
    }
    return fd;
}

/* N from the 8 first bytes, little-endian, assembled byte by byte (no alignment or
 * endianness assumption). It is compared with the file size BEFORE anything depends on
 * it, so a corrupt 10 GB claim costs nothing. */
static int header_length(const SafeFile *f, const uint8_t first8[8], size_t size, size_t *len, ErrorMsg *err) {
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--) n = (n << 8) | first8[i];
    if (n > (uint64_t)(size - 8))
        return error_set(err, "%s: header length %llu exceeds the %zu bytes after the length field", f->path,
                         (unsigned long long)n, size - 8);
    if (n > SAFE_MAX_HEADER)
        return error_set(err, "%s: header length %llu is above the %zu-byte limit", f->path, (unsigned long long)n,
                         SAFE_MAX_HEADER);
    if (n < 2)
        return error_set(err, "%s: header length %llu is too small for a JSON object", f->path,
                         (unsigned long long)n);
    *len = (size_t)n;
    return 0;
}

int safe_open(SafeFile *f, const char *path, ErrorMsg *err) {
    size_t size = 0;
    int fd = open_sized(f, path, &size, err);
    if (fd < 0) {
        memset(f, 0, sizeof *f);
        return -1;
    }
    /* Map the whole file: weights are then used in place, and pages are only read from
     * disk when touched. MAP_PRIVATE + PROT_READ: nobody can write through it. */
    void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    int map_errno = errno;
    close(fd); /* the mapping keeps its own reference to the file */
    if (map == MAP_FAILED) {
        memset(f, 0, sizeof *f);
        return error_set(err, "%s: cannot mmap %zu bytes: %s", path, size, strerror(map_errno));
    }
    f->map = map;
    f->map_len = size;
    if (header_length(f, f->map, size, &f->header_len, err) != 0 ||
        parse_header(f, (const char *)f->map + 8, err) != 0) {
        safe_close(f);
        return -1;
    }
    return 0;
}

/* pread until n bytes or the end: 0, or -1 with err (a read error, or the file ended,
 * e.g. cut short by another program since it was opened). */
static int read_at(int fd, const char *path, size_t off, uint8_t *buf, size_t n, ErrorMsg *err) {
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, buf + got, n - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return error_set(err, "%s: read error at byte %zu: %s", path, off + got, strerror(errno));
        if (r == 0)
            return error_set(err, "%s: the file ends at byte %zu, before the %zu bytes its header promised "
                             "(changed while loading?)", path, off + got, off + n);
        got += (size_t)r;
    }
    return 0;
}

int safe_open_header(SafeFile *f, const char *path, ErrorMsg *err) {
    size_t size = 0;
    int fd = open_sized(f, path, &size, err);
    if (fd < 0) {
        memset(f, 0, sizeof *f);
        return -1;
    }
    f->fd = fd;
    f->fd_open = 1;
    f->map_len = size;
    uint8_t first8[8];
    char *text = NULL;
    int rc = -1;
    if (read_at(fd, path, 0, first8, 8, err) != 0 || header_length(f, first8, size, &f->header_len, err) != 0)
        goto done;
    text = malloc(f->header_len);
    if (!text) {
        error_set(err, "%s: out of memory for a %zu-byte header", path, f->header_len);
        goto done;
    }
    if (read_at(fd, path, 8, (uint8_t *)text, f->header_len, err) != 0 || parse_header(f, text, err) != 0) goto done;
    rc = 0;
done:
    free(text);
    if (rc != 0) safe_close(f);
    return rc;
}

int safe_map(SafeFile *f, ErrorMsg *err) {
    if (f->map) return 0;
    if (!f->fd_open) return error_set(err, "%s: not open", f->path);
    struct stat st;
    if (fstat(f->fd, &st) != 0 || (uint64_t)st.st_size != (uint64_t)f->map_len)
        return error_set(err, "%s: the file changed size while loading (was %zu bytes)", f->path, f->map_len);
    void *map = mmap(NULL, f->map_len, PROT_READ, MAP_PRIVATE, f->fd, 0);
    if (map == MAP_FAILED) return error_set(err, "%s: cannot mmap %zu bytes: %s", f->path, f->map_len, strerror(errno));
    f->map = map;
    for (size_t i = 0; i < f->n_tensors; i++) f->tensors[i].data = f->map + f->tensors[i].offset;
    return 0;
}

int safe_read(const SafeFile *f, const SafeTensor *t, size_t off, void *buf, size_t n, ErrorMsg *err) {
    if (off > t->nbytes || n > t->nbytes - off)
        return error_set(err, "%s: tensor '%.80s': bytes [%zu, %zu) outside its %zu", f->path, t->name, off, off + n,
                         t->nbytes);
    if (t->data) {
        memcpy(buf, t->data + off, n);
        return 0;
    }
    if (!f->fd_open) return error_set(err, "%s: not open", f->path);
    return read_at(f->fd, f->path, t->offset + off, buf, n, err);
}
