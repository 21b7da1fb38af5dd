/* tok_vocab.c — the vocabularies that are not GPT-2's BPE (tokenizer.h, TokKind): a
 * model's own list of token strings (vocab.json beside the model, e.g. nanoGPT's 65
 * Shakespeare characters) and ids only (no vocabulary file: token i reads "⟨i⟩").
 * Both fill the same flat tables as encoder.json (bytes per id, encoder.json-style text,
 * the bytes -> id map), so decoding, streaming and the viewer need no special case.
 * Encoding is greedy longest match; ids-only text is a list of ids. No merges, no regex. */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file_read.h"
#include "json_whole.h"
#include "tok_internal.h"
#include "utf8.h"

#define VOCAB_MAX_FILE_BYTES ((size_t)64 << 20)
#define ANGLE_OPEN "\xE2\x9F\xA8"  /* ⟨ U+27E8 (in DejaVu Sans, Bold and Mono) */
#define ANGLE_CLOSE "\xE2\x9F\xA9" /* ⟩ U+27E9 */

/* Allocates the per-id tables for n tokens of `bytes` raw bytes / `text` text bytes. */
static int alloc_tables(Tokenizer *t, size_t n, size_t bytes, size_t text, const char *what, ErrorMsg *err) {
    t->n_vocab = n;
    t->tok_off = calloc(n + 1, sizeof *t->tok_off);
    t->text_off = calloc(n ? n : 1, sizeof *t->text_off);
    t->tok_bytes = malloc(bytes ? bytes : 1);
    t->tok_text = malloc(text ? text : 1);
    if (!t->tok_off || !t->text_off || !t->tok_bytes || !t->tok_text) return error_set(err, "%s: out of memory", what);
    return 0;
}

/* Fills max_token_len and eot once the tables are complete. */
static void finish(Tokenizer *t, TokKind kind) {
    t->kind = kind;
    for (size_t id = 0; id < t->n_vocab; id++) {
        size_t len = t->tok_off[id + 1] - t->tok_off[id];
        if (len > t->max_token_len) t->max_token_len = len;
    }
    t->eot = kind == TOK_KIND_VOCAB ? tok_lookup_bytes(t, (const uint8_t *)"<|endoftext|>", 13) : -1;
}

/* The string of id i in a parsed vocab.json (array, or object keyed "0".."V-1"); NULL with
 * err set when the entry is missing or not a string. */
static const char *vocab_entry(const cJSON *root, size_t i, const char *path, ErrorMsg *err) {
    const cJSON *e;
    if (cJSON_IsArray(root)) {
        e = cJSON_GetArrayItem(root, (int)i);
    } else {
        char key[24];
        snprintf(key, sizeof key, "%zu", i);
        e = cJSON_GetObjectItemCaseSensitive(root, key);
        if (!e) {
            error_set(err, "%s: no entry for id %zu (the keys must be the ids 0..%d)", path, i,
                      cJSON_GetArraySize(root) - 1);
            return NULL;
        }
    }
    if (!cJSON_IsString(e)) {
        error_set(err, "%s: the entry of id %zu is not a string (vocab.json maps id -> token text)", path, i);
        return NULL;
    }
    return e->valuestring;
}

int tok_load_vocab_json(Tokenizer *t, const char *path, ErrorMsg *err) {
    memset(t, 0, sizeof *t);
    uint8_t *raw;
    size_t len;
    if (file_read_all(path, VOCAB_MAX_FILE_BYTES, &raw, &len, err)) return -1;
    char *data = (char *)raw;
    cJSON *root = json_parse_whole(data, len, path, err);
    free(data);
    if (!root) return -1;
    int rc = -1;
    size_t n = cJSON_IsArray(root) || cJSON_IsObject(root) ? (size_t)cJSON_GetArraySize(root) : 0;
    if (!cJSON_IsArray(root) && !cJSON_IsObject(root)) {
        error_set(err, "%s: expected an array of token strings or an object {\"id\": \"text\"}", path);
        goto done;
    }
    if (n == 0 || n > (size_t)INT32_MAX) {
        error_set(err, "%s: %zu tokens; a vocabulary needs at least one", path, n);
        goto done;
    }
    /* HF's vocab.json maps text -> id (a BPE vocabulary; merges.txt gives the merges) */
    if (cJSON_IsObject(root) && cJSON_IsNumber(root->child)) {
        error_set(err, "%s: maps token -> id (a BPE vocabulary): put merges.txt beside it, or write id -> text", path);
        goto done;
    }
    size_t bytes = 0;
    for (size_t i = 0; i < n; i++) {
        const char *s = vocab_entry(root, i, path, err);
        if (!s) goto done;
        size_t k = strlen(s), bad;
        if (!utf8_validate((const uint8_t *)s, k, &bad)) {
            error_set(err, "%s: token %zu is not valid UTF-8 (byte %zu)", path, i, bad);
            goto done;
        }
        bytes += k;
    }
    if (alloc_tables(t, n, bytes, 2 * bytes + n, path, err)) goto done;
    size_t off = 0, toff = 0;
    for (size_t i = 0; i < n; i++) {
        const char *s = vocab_entry(root, i, path, err);
        size_t k = strlen(s);
        t->tok_off[i] = off;
        memcpy(t->tok_bytes + off, s, k);
        off += k;
        t->text_off[i] = toff;
        tok_bytes_to_text((const uint8_t *)s, k, t->tok_text + toff); /* " " -> "Ġ", as GPT-2 shows it */
        toff += strlen(t->tok_text + toff) + 1;
    }
    t->tok_off[n] = off;
    if (tok_index_bytes(t, path, err)) goto done;
    finish(t, TOK_KIND_VOCAB);
    rc = 0;
done:
    cJSON_Delete(root);
    if (rc) tok_free(t);
    return rc;
}

int tok_init_ids(Tokenizer *t, size_t n, ErrorMsg *err) {
    memset(t, 0, sizeof *t);
    if (n == 0 || n > (size_t)INT32_MAX) return error_set(err, "ids-only vocabulary of %zu tokens", n);
    /* "⟨" + up to 10 digits + "⟩" per id */
    const size_t per = 3 + 10 + 3;
    if (alloc_tables(t, n, n * per, n * (per + 1), "ids-only vocabulary", err)) {
        tok_free(t);
        return -1;
    }
    size_t off = 0;
    for (size_t i = 0; i < n; i++) {
        char label[32];
        int k = snprintf(label, sizeof label, ANGLE_OPEN "%zu" ANGLE_CLOSE, i);
        t->tok_off[i] = off;
        memcpy(t->tok_bytes + off, label, (size_t)k);
        t->text_off[i] = i * (per + 1);
        memcpy(t->tok_text + t->text_off[i], label, (size_t)k + 1);
        off += (size_t)k;
    }
    t->tok_off[n] = off;
    if (tok_index_bytes(t, "ids-only vocabulary", err)) {
        tok_free(t);
        return -1;
    }
    finish(t, TOK_KIND_IDS);
    return 0;
}

/* ---- encoding ------------------------------------------------------------------------ */

/* Appends one token (id covering text[start .. start+len)) to the growing arrays. */
static int push(int32_t **ids, size_t *n_ids, size_t *ids_cap, TokPiece **pieces, size_t *pieces_cap, int32_t id,
                size_t start, size_t len, ErrorMsg *err) {
    if (tok_grow((void **)ids, ids_cap, *n_ids + 1, sizeof **ids) ||
        tok_grow((void **)pieces, pieces_cap, *n_ids + 1, sizeof **pieces))
        return error_set(err, "encode: out of memory");
    (*pieces)[*n_ids] = (TokPiece){.start = start, .len = len, .first_token = *n_ids, .n_tokens = 1};
    (*ids)[(*n_ids)++] = id;
    return 0;
}

/* "the character U+00E9 'é' at byte 5": names what could not be encoded. */
static int no_token(const uint8_t *text, size_t n, size_t at, const char *why, ErrorMsg *err) {
    uint32_t cp = 0;
    size_t k = utf8_decode_one(text + at, n - at, &cp);
    if (k == 0) return error_set(err, "byte 0x%02X at %zu %s", text[at], at, why);
    if (cp < 0x20 || cp == 0x7F) return error_set(err, "the character U+%04X at byte %zu %s", (unsigned)cp, at, why);
    return error_set(err, "the character U+%04X '%.*s' at byte %zu %s", (unsigned)cp, (int)k, (const char *)text + at,
                     at, why);
}

/* Greedy longest match: the longest token whose bytes start at each position. */
static int encode_vocab(const Tokenizer *t, const uint8_t *text, size_t n, int32_t **ids, size_t *n_ids,
                        size_t *ids_cap, TokPiece **pieces, size_t *pieces_cap, ErrorMsg *err) {
    for (size_t i = 0; i < n;) {
        size_t max = t->max_token_len < n - i ? t->max_token_len : n - i;
        int32_t id = -1;
        size_t len = max;
        for (; len >= 1 && id < 0; len--) id = tok_lookup_bytes(t, text + i, len);
        if (id < 0) return no_token(text, n, i, "is not in this model's vocabulary (vocab.json); give --ids", err);
        len++;
        if (push(ids, n_ids, ids_cap, pieces, pieces_cap, id, i, len, err)) return -1;
        i += len;
    }
    return 0;
}

/* Ids-only text: decimal ids separated by spaces or commas, each optionally in ⟨ ⟩. */
static int encode_ids(const Tokenizer *t, const uint8_t *text, size_t n, int32_t **ids, size_t *n_ids, size_t *ids_cap,
                      TokPiece **pieces, size_t *pieces_cap, ErrorMsg *err) {
    const char *why = "is not a token id: this model has no vocabulary file, so its text is ids (e.g. 3 1 2)";
    for (size_t i = 0; i < n;) {
        uint8_t c = text[i];
        if (c == ' ' || c == ',' || c == '\t' || c == '\n' || c == '\r') {
            i++;
            continue;
        }
        size_t start = i;
        int angle = n - i >= 3 && memcmp(text + i, ANGLE_OPEN, 3) == 0;
        if (angle) i += 3;
        unsigned long long v = 0;
        size_t digits = 0;
        while (i < n && text[i] >= '0' && text[i] <= '9' && digits < 11) v = v * 10 + (unsigned)(text[i++] - '0'), digits++;
        if (digits == 0) return no_token(text, n, i, why, err);
        if (angle) {
            if (n - i < 3 || memcmp(text + i, ANGLE_CLOSE, 3) != 0) return no_token(text, n, i < n ? i : start, why, err);
            i += 3;
        }
        if (v >= t->n_vocab)
            return error_set(err, "token id %llu at byte %zu is outside the vocabulary [0, %zu)", v, start, t->n_vocab);
        if (push(ids, n_ids, ids_cap, pieces, pieces_cap, (int32_t)v, start, i - start, err)) return -1;
    }
    return 0;
}

int tok_vocab_encode(const Tokenizer *t, const uint8_t *text, size_t n, int32_t **ids, size_t *n_ids,
                     TokPiece **pieces, size_t *n_pieces, ErrorMsg *err) {
    *ids = NULL;
    *pieces = NULL;
    *n_ids = *n_pieces = 0;
    size_t ids_cap = 0, pieces_cap = 0;
    int rc = t->kind == TOK_KIND_IDS ? encode_ids(t, text, n, ids, n_ids, &ids_cap, pieces, &pieces_cap, err)
                                     : encode_vocab(t, text, n, ids, n_ids, &ids_cap, pieces, &pieces_cap, err);
    if (rc) {
        free(*ids);
        free(*pieces);
        *ids = NULL;
        *pieces = NULL;
        *n_ids = 0;
        return -1;
    }
    *n_pieces = *n_ids;
    return 0;
}
