/* tokenizer.c — loading GPT-2's encoder.json + vocab.bpe into flat tables, token
 * lookups, exact byte decoding and the streaming decoder (tokenizer.h). The encode side
 * (regex split, BPE, cache) lives in tok_encode.c and tok_bpe.c. */
#include "tokenizer.h"

#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file_read.h"
#include "json_whole.h"
#include "tok_internal.h"
#include "utf8.h"
#include "free_all.h"

/* Bigger than any sane encoder.json (1 MB) — a bound, so a wrong path to a huge file
 * fails fast instead of eating memory. */
#define TOK_MAX_FILE_BYTES ((size_t)64 << 20)

int tok_grow(void **p, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return 0;
    size_t nc = *cap ? *cap : 16;
    while (nc < need) {
        if (nc > SIZE_MAX / 2) return -1;
        nc *= 2;
    }
    if (nc > SIZE_MAX / elem) return -1;
    void *np = realloc(*p, nc * elem);
    if (!np) return -1;
    *p = np;
    *cap = nc;
    return 0;
}

/* Reads a whole file into a malloc'd, NUL-terminated buffer; errors name the path. A
 * FIFO or directory in its place is refused without blocking (file_read.h). */
static int read_file(const char *path, char **out, size_t *len, ErrorMsg *err) {
    uint8_t *raw;
    int rc = file_read_all(path, TOK_MAX_FILE_BYTES, &raw, len, err);
    *out = (char *)raw;
    return rc;
}


/* GPT-2's bytes_to_unicode(): every byte gets a printable code point so that BPE files
 * can be text. Printable Latin-1 bytes ('!'..'~', '¡'..'¬', '®'..'ÿ') map to themselves;
 * the other 68 (controls, space, DEL, NBSP, soft hyphen...) map to U+0100, U+0101, ... in
 * byte order. So ' ' (0x20, the 33rd non-printable) is U+0120 'Ġ' and '\n' is U+010A 'Ċ'.
 * Fills cp_of_byte[256] and its inverse byte_of_cp[512] (-1 = not a byte character). */
static void bytes_to_unicode(uint32_t cp_of_byte[256], int byte_of_cp[512]) {
    for (int i = 0; i < 512; i++) byte_of_cp[i] = -1;
    uint32_t n = 0;
    for (int b = 0; b < 256; b++) {
        int printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
        cp_of_byte[b] = printable ? (uint32_t)b : 256 + n++;
        byte_of_cp[cp_of_byte[b]] = b;
    }
}

/* Turns an encoder.json/vocab.bpe string (UTF-8 of byte characters) into raw bytes:
 * out must hold n bytes (a raw byte never takes more than its character). Returns the
 * raw length, or -1 if a character is not one of the 256 byte characters. */
static long text_to_bytes(const int byte_of_cp[512], const char *s, size_t n, uint8_t *out) {
    size_t i = 0, o = 0;
    while (i < n) {
        uint32_t cp;
        size_t k = utf8_decode_one((const uint8_t *)s + i, n - i, &cp);
        if (k == 0 || cp >= 512 || byte_of_cp[cp] < 0) return -1;
        out[o++] = (uint8_t)byte_of_cp[cp];
        i += k;
    }
    return (long)o;
}

int32_t tok_lookup_bytes(const Tokenizer *t, const uint8_t *s, size_t n) {
    if (!t->bytes_map_cap) return -1;
    size_t mask = t->bytes_map_cap - 1;
    for (size_t i = tok_hash_bytes(s, n) & mask;; i = (i + 1) & mask) {
        int32_t id = t->bytes_map[i];
        if (id < 0) return -1;
        size_t len = t->tok_off[id + 1] - t->tok_off[id];
        if (len == n && memcmp(t->tok_bytes + t->tok_off[id], s, n) == 0) return id;
    }
}

int32_t tok_pair_rank(const Tokenizer *t, int32_t left, int32_t right) {
    uint64_t key = tok_pair_key(left, right);
    size_t mask = t->pair_cap - 1;
    for (size_t i = tok_hash_pair(key) & mask;; i = (i + 1) & mask) {
        if (t->pair_keys[i] == key) return t->pair_ranks[i];
        if (t->pair_keys[i] == 0) return -1;
    }
}

static size_t pow2_at_least(size_t n) {
    size_t c = 16;
    while (c < n) c *= 2;
    return c;
}

int tok_index_bytes(Tokenizer *t, const char *path, ErrorMsg *err) {
    const size_t V = t->n_vocab;
    t->bytes_map_cap = pow2_at_least(V * 2);
    t->bytes_map = malloc(t->bytes_map_cap * sizeof *t->bytes_map);
    if (!t->bytes_map) {
        t->bytes_map_cap = 0;
        return error_set(err, "%s: out of memory", path);
    }
    for (size_t i = 0; i < t->bytes_map_cap; i++) t->bytes_map[i] = -1;
    size_t mask = t->bytes_map_cap - 1;
    for (size_t id = 0; id < V; id++) {
        const uint8_t *s = t->tok_bytes + t->tok_off[id];
        size_t n = t->tok_off[id + 1] - t->tok_off[id];
        if (tok_lookup_bytes(t, s, n) >= 0)
            return error_set(err, "%s: token %zu \"%.40s\" has the same bytes as another token", path, id,
                             t->tok_text + t->text_off[id]);
        size_t i = tok_hash_bytes(s, n) & mask;
        while (t->bytes_map[i] >= 0) i = (i + 1) & mask;
        t->bytes_map[i] = (int32_t)id;
    }
    return 0;
}

/* encoder.json: {"!": 0, "\"": 1, ..., "<|endoftext|>": 50256}. The ids must be exactly
 * 0..V-1 (each once): the model's embedding rows are indexed by them. */
static int load_encoder(Tokenizer *t, const char *path, const int byte_of_cp[512], ErrorMsg *err) {
    char *data;
    size_t len;
    if (read_file(path, &data, &len, err)) return -1;
    cJSON *root = json_parse_whole(data, len, path, err);
    free(data);
    if (!root) return -1;
    int rc = -1;
    if (!cJSON_IsObject(root)) {
        error_set(err, "%s: expected a JSON object {token: id}", path);
        goto done;
    }
    size_t V = (size_t)cJSON_GetArraySize(root);
    if (V < 256 || V > (size_t)INT32_MAX) {
        error_set(err, "%s: %zu entries; a byte-level BPE vocabulary has at least 256", path, V);
        goto done;
    }
    /* the 256 single-byte tokens first: without one, every later id shifts past V and the
     * message would blame whichever token then falls outside [0, V) (<|endoftext|>) */
    for (int cp = 0; cp < 512; cp++) {
        if (byte_of_cp[cp] < 0) continue;
        char key[3] = {(char)cp, 0, 0}; /* the byte characters are U+0021..U+0143: 1 or 2 UTF-8 bytes */
        if (cp >= 0x80) key[0] = (char)(0xC0 | (cp >> 6)), key[1] = (char)(0x80 | (cp & 0x3F));
        if (!cJSON_GetObjectItemCaseSensitive(root, key)) {
            error_set(err, "%s: no token \"%s\" for the single byte 0x%02X (byte-level BPE needs all 256)", path,
                      key, byte_of_cp[cp]);
            goto done;
        }
    }
    /* pass 1: sizes, ranges, duplicates */
    size_t text_total = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, root) {
        double d = it->valuedouble;
        if (!cJSON_IsNumber(it) || !(d >= 0 && d < (double)V) || d != (double)(int32_t)d) {
            error_set(err, "%s: token \"%.40s\": id is not an integer in [0, %zu) (the %zu entries are numbered "
                      "0..%zu: is one missing?)", path, it->string ? it->string : "", V, V, V - 1);
            goto done;
        }
        text_total += strlen(it->string) + 1;
    }
    t->n_vocab = V;
    t->tok_off = calloc(V + 1, sizeof *t->tok_off);
    t->text_off = calloc(V, sizeof *t->text_off);
    t->tok_text = malloc(text_total);
    size_t *raw_len = calloc(V, sizeof *raw_len);
    uint8_t *raw = malloc(text_total);
    size_t *raw_at = calloc(V, sizeof *raw_at);
    char *seen = calloc(V, 1);
    if (!t->tok_off || !t->text_off || !t->tok_text || !raw_len || !raw || !raw_at || !seen) {
        error_set(err, "%s: out of memory", path);
        goto pass_done;
    }
    /* pass 2: keys -> raw bytes, stored by id */
    size_t text_at = 0, raw_total = 0;
    cJSON_ArrayForEach(it, root) {
        int32_t id = (int32_t)it->valuedouble;
        size_t klen = strlen(it->string);
        if (seen[id]) {
            error_set(err, "%s: id %d appears twice (second time for \"%.40s\")", path, id, it->string);
            goto pass_done;
        }
        seen[id] = 1;
        memcpy(t->tok_text + text_at, it->string, klen + 1);
        t->text_off[id] = text_at;
        text_at += klen + 1;
        long r = text_to_bytes(byte_of_cp, it->string, klen, raw + raw_total);
        if (r <= 0) {
            error_set(err, "%s: token \"%.40s\" is not made of GPT-2 byte characters", path, it->string);
            goto pass_done;
        }
        raw_at[id] = raw_total;
        raw_len[id] = (size_t)r;
        raw_total += (size_t)r;
    }
    /* every id in [0,V) was seen once: V entries, each in range, no duplicate */
    t->tok_bytes = malloc(raw_total ? raw_total : 1);
    if (!t->tok_bytes) {
        error_set(err, "%s: out of memory", path);
        goto pass_done;
    }
    size_t off = 0;
    for (size_t id = 0; id < V; id++) {
        t->tok_off[id] = off;
        memcpy(t->tok_bytes + off, raw + raw_at[id], raw_len[id]);
        off += raw_len[id];
    }
    t->tok_off[V] = off;
    if (tok_index_bytes(t, path, err)) goto pass_done;
    for (int b = 0; b < 256; b++) {
        uint8_t byte = (uint8_t)b;
        t->byte_token[b] = tok_lookup_bytes(t, &byte, 1);
        if (t->byte_token[b] < 0) {
            error_set(err, "%s: no token for the single byte 0x%02X (byte-level BPE needs all 256)",
                      path, b);
            goto pass_done;
        }
    }
    rc = 0;
pass_done:
    FREE_ALL(raw_len, raw, raw_at, seen);
done:
    cJSON_Delete(root);
    return rc;
}

/* vocab.bpe: "#version: 0.2" then one merge per line, "Ġ t" = merge 'Ġ' and 't'. Rank =
 * position after the header (encoder.py: dict(zip(bpe_merges, range(len(bpe_merges))))). */
static int load_merges(Tokenizer *t, const char *path, const int byte_of_cp[512], ErrorMsg *err) {
    char *data;
    size_t len;
    if (read_file(path, &data, &len, err)) return -1;
    int rc = -1;
    size_t lines = 1;
    for (size_t i = 0; i < len; i++) lines += data[i] == '\n';
    t->merge_left = malloc(lines * sizeof *t->merge_left);
    t->merge_right = malloc(lines * sizeof *t->merge_right);
    t->merge_result = malloc(lines * sizeof *t->merge_result);
    t->pair_cap = pow2_at_least(lines * 2);
    t->pair_keys = calloc(t->pair_cap, sizeof *t->pair_keys);
    t->pair_ranks = malloc(t->pair_cap * sizeof *t->pair_ranks);
    uint8_t *buf = malloc(len + 1);
    if (!t->merge_left || !t->merge_right || !t->merge_result || !t->pair_keys || !t->pair_ranks || !buf) {
        t->pair_cap = 0;
        error_set(err, "%s: out of memory", path);
        goto done;
    }
    if (memchr(data, 0, len)) {
        error_set(err, "%s: contains a NUL byte; not a vocab.bpe text file", path);
        goto done;
    }
    size_t n = 0, line_no = 0;
    char *p = data, *end = data + len;
    while (p < end) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        char *le = nl ? nl : end;
        line_no++;
        size_t ll = (size_t)(le - p);
        if (ll && p[ll - 1] == '\r') ll--;
        if (ll == 0 || (line_no == 1 && p[0] == '#')) { /* header / blank line */
            p = le + 1;
            continue;
        }
        char *sp = memchr(p, ' ', ll);
        if (!sp || sp == p || sp == p + ll - 1 || memchr(sp + 1, ' ', (size_t)(p + ll - sp - 1))) {
            error_set(err, "%s:%zu: expected two tokens separated by one space", path, line_no);
            goto done;
        }
        size_t la = (size_t)(sp - p), lb = ll - la - 1;
        long ra = text_to_bytes(byte_of_cp, p, la, buf);
        long rb = ra > 0 ? text_to_bytes(byte_of_cp, sp + 1, lb, buf + ra) : -1;
        if (ra <= 0 || rb <= 0) {
            error_set(err, "%s:%zu: not made of GPT-2 byte characters", path, line_no);
            goto done;
        }
        int32_t a = tok_lookup_bytes(t, buf, (size_t)ra);
        int32_t b = tok_lookup_bytes(t, buf + ra, (size_t)rb);
        int32_t ab = tok_lookup_bytes(t, buf, (size_t)(ra + rb));
        if (a < 0 || b < 0 || ab < 0) {
            error_set(err, "%s:%zu: merge \"%.*s\" uses or makes a token missing from encoder.json",
                      path, line_no, (int)(ll > 60 ? 60 : ll), p);
            goto done;
        }
        if (tok_pair_rank(t, a, b) >= 0) {
            error_set(err, "%s:%zu: duplicate merge \"%.*s\"", path, line_no, (int)(ll > 60 ? 60 : ll), p);
            goto done;
        }
        uint64_t key = tok_pair_key(a, b);
        size_t mask = t->pair_cap - 1, i = tok_hash_pair(key) & mask;
        while (t->pair_keys[i]) i = (i + 1) & mask;
        t->pair_keys[i] = key;
        t->pair_ranks[i] = (int32_t)n;
        t->merge_left[n] = a;
        t->merge_right[n] = b;
        t->merge_result[n] = ab;
        n++;
        p = le + 1;
    }
    if (n == 0) {
        error_set(err, "%s: no merges", path);
        goto done;
    }
    t->n_merges = n;
    rc = 0;
done:
    FREE_ALL(buf, data);
    return rc;
}

int tok_load_files(Tokenizer *t, const char *encoder_json, const char *merges, ErrorMsg *err) {
    memset(t, 0, sizeof *t);
    uint32_t cp_of_byte[256];
    int byte_of_cp[512];
    bytes_to_unicode(cp_of_byte, byte_of_cp);
    int rc = load_encoder(t, encoder_json, byte_of_cp, err);
    if (rc == 0) rc = load_merges(t, merges, byte_of_cp, err);
    if (rc == 0) rc = tok_encode_init_regex(t, err);
    if (rc) {
        tok_free(t);
        return rc;
    }
    t->kind = TOK_KIND_BPE;
    t->eot = tok_lookup_bytes(t, (const uint8_t *)"<|endoftext|>", 13);
    for (size_t id = 0; id < t->n_vocab; id++)
        if (t->tok_off[id + 1] - t->tok_off[id] > t->max_token_len) t->max_token_len = t->tok_off[id + 1] - t->tok_off[id];
    return 0;
}

int tok_load(Tokenizer *t, const char *dir, ErrorMsg *err) {
    size_t dl = strlen(dir);
    char *enc = malloc(dl + 32), *bpe = malloc(dl + 32);
    int rc = -1;
    if (!enc || !bpe) {
        memset(t, 0, sizeof *t);
        error_set(err, "%s: out of memory", dir);
    } else {
        snprintf(enc, dl + 32, "%s/encoder.json", dir);
        snprintf(bpe, dl + 32, "%s/vocab.bpe", dir);
        rc = tok_load_files(t, enc, bpe, err);
    }
    FREE_ALL(enc, bpe);
    return rc;
}

void tok_bytes_to_text(const uint8_t *s, size_t n, char *out) {
    uint32_t cp_of_byte[256];
    int byte_of_cp[512];
    bytes_to_unicode(cp_of_byte, byte_of_cp);
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t cp = cp_of_byte[s[i]]; /* < 0x200: one or two UTF-8 bytes */
        if (cp < 0x80) {
            out[o++] = (char)cp;
        } else {
            out[o++] = (char)(0xC0 | (cp >> 6));
            out[o++] = (char)(0x80 | (cp & 0x3F));
        }
    }
    out[o] = 0;
}

void tok_free(Tokenizer *t) {
    if (!t) return;
    FREE_ALL(t->tok_bytes, t->tok_off, t->tok_text, t->text_off, t->bytes_map, t->merge_left, t->merge_right,
             t->merge_result, t->pair_keys, t->pair_ranks);
    tok_encode_free_regex(t);
    tok_cache_free(&t->cache);
    memset(t, 0, sizeof *t);
}

const uint8_t *tok_token_bytes(const Tokenizer *t, int32_t id, size_t *len) {
    if (id < 0 || (size_t)id >= t->n_vocab) {
        *len = 0;
        return NULL;
    }
    *len = t->tok_off[id + 1] - t->tok_off[id];
    return t->tok_bytes + t->tok_off[id];
}

const char *tok_token_text(const Tokenizer *t, int32_t id) {
    if (id < 0 || (size_t)id >= t->n_vocab) return NULL;
    return t->tok_text + t->text_off[id];
}

int tok_decode(const Tokenizer *t, const int32_t *ids, size_t n, uint8_t **out, size_t *out_len,
               ErrorMsg *err) {
    *out = NULL;
    *out_len = 0;
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        if (ids[i] < 0 || (size_t)ids[i] >= t->n_vocab)
            return error_set(err, "token id %d (position %zu) is outside the vocabulary [0, %zu)",
                             ids[i], i, t->n_vocab);
        total += t->tok_off[ids[i] + 1] - t->tok_off[ids[i]];
    }
    uint8_t *buf = malloc(total + 1);
    if (!buf) return error_set(err, "decode: out of memory");
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        size_t len;
        const uint8_t *b = tok_token_bytes(t, ids[i], &len);
        memcpy(buf + o, b, len);
        o += len;
    }
    buf[o] = 0;
    *out = buf;
    *out_len = o;
    return 0;
}

int tok_stream_push(TokStream *s, const Tokenizer *t, int32_t id, const uint8_t **out,
                    size_t *out_len, ErrorMsg *err) {
    *out = NULL;
    *out_len = 0;
    size_t len;
    const uint8_t *b = tok_token_bytes(t, id, &len);
    if (!b) return error_set(err, "token id %d is outside the vocabulary [0, %zu)", id, t->n_vocab);
    size_t total = s->n_held + len;
    if (tok_grow((void **)&s->buf, &s->cap, total, 1)) return error_set(err, "decode: out of memory");
    memcpy(s->buf, s->held, s->n_held);
    memcpy(s->buf + s->n_held, b, len);
    /* hold back a trailing character that has started but not finished */
    size_t tail = utf8_incomplete_tail(s->buf, total);
    memcpy(s->held, s->buf + total - tail, tail);
    s->n_held = tail;
    *out = s->buf;
    *out_len = total - tail;
    return 0;
}

void tok_stream_flush(TokStream *s, const uint8_t **out, size_t *out_len) {
    *out = s->held; /* never NULL, so callers may memcpy even when *out_len is 0 */
    *out_len = 0;
    if (s->n_held == 0) return;
    if (tok_grow((void **)&s->buf, &s->cap, s->n_held, 1) == 0) {
        memcpy(s->buf, s->held, s->n_held);
        *out = s->buf;
        *out_len = s->n_held;
    }
    s->n_held = 0;
}

void tok_stream_free(TokStream *s) {
    if (!s) return;
    free(s->buf);
    memset(s, 0, sizeof *s);
}
