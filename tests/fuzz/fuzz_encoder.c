/* fuzz_encoder.c — libFuzzer harness for GPT-2's tokenizer files (engine/tokenizer.c):
 * tok_load_files, which reads encoder.json (one whole JSON value, json_whole.h) and then
 * vocab.bpe against it. The input is split at its first NUL byte: the bytes before are
 * encoder.json, the bytes after are vocab.bpe (no NUL: the whole input is encoder.json and
 * vocab.bpe is empty). Oracles: a refusal is one line naming one of the two files, and
 * leaves the tokenizer zeroed; an accepted tokenizer has ids 0..V-1 mapping to distinct
 * tokens (each found by its own bytes, its encoder.json key the byte-character form of those
 * bytes), all 256 single-byte tokens, merges whose result is left + right, and encode/decode
 * round-trips the input with every id in range. Not the regex split (fuzz_tokenizer.c). */
#include "fuzz.h"

#include "tok_internal.h"
#include "tokenizer.h"

/* Every id is a distinct token found by its bytes; keys and bytes agree. */
static void fuzz_encoder_check_vocab(const Tokenizer *t) {
    FUZZ_ASSERT(t->kind == TOK_KIND_BPE && t->n_vocab >= 256, "kind %d, %zu tokens", (int)t->kind, t->n_vocab);
    char *text = NULL;
    size_t text_cap = 0;
    for (size_t id = 0; id < t->n_vocab; id++) {
        size_t n;
        const uint8_t *b = tok_token_bytes(t, (int32_t)id, &n);
        FUZZ_ASSERT(b != NULL && n >= 1 && n <= t->max_token_len, "token %zu: %zu bytes", id, n);
        /* distinct ids -> distinct tokens: the lookup of id's bytes gives id back */
        FUZZ_ASSERT(tok_lookup_bytes(t, b, n) == (int32_t)id, "token %zu not found by its bytes", id);
        const char *key = tok_token_text(t, (int32_t)id);
        FUZZ_ASSERT(key != NULL, "token %zu has no key", id);
        if (2 * n + 1 > text_cap) {
            text_cap = 2 * n + 1;
            free(text);
            text = malloc(text_cap);
            FUZZ_ASSERT(text != NULL, "out of memory");
        }
        tok_bytes_to_text(b, n, text); /* a byte character takes at most 2 UTF-8 bytes */
        FUZZ_ASSERT(strcmp(text, key) == 0, "token %zu: key \"%.40s\" is not its bytes' text \"%.40s\"", id, key, text);
    }
    free(text);
    FUZZ_ASSERT(tok_token_bytes(t, (int32_t)t->n_vocab, &(size_t){0}) == NULL, "id V is in range");
    FUZZ_ASSERT(tok_token_text(t, -1) == NULL, "id -1 is in range");
    for (int b = 0; b < 256; b++) {
        size_t n;
        const uint8_t *p = tok_token_bytes(t, t->byte_token[b], &n);
        FUZZ_ASSERT(p && n == 1 && p[0] == b, "byte token for 0x%02X", b);
    }
    if (t->eot >= 0) {
        size_t n;
        const uint8_t *p = tok_token_bytes(t, t->eot, &n);
        FUZZ_ASSERT(p && n == 13 && memcmp(p, "<|endoftext|>", 13) == 0, "eot %d", t->eot);
    }
    FUZZ_ASSERT(t->n_merges >= 1, "accepted without merges");
    for (size_t r = 0; r < t->n_merges; r++) {
        size_t la, lb, lab;
        const uint8_t *a = tok_token_bytes(t, t->merge_left[r], &la);
        const uint8_t *b = tok_token_bytes(t, t->merge_right[r], &lb);
        const uint8_t *ab = tok_token_bytes(t, t->merge_result[r], &lab);
        FUZZ_ASSERT(a && b && ab && lab == la + lb && memcmp(ab, a, la) == 0 && memcmp(ab + la, b, lb) == 0,
                    "merge %zu: result is not left + right", r);
        FUZZ_ASSERT(tok_pair_rank(t, t->merge_left[r], t->merge_right[r]) == (int32_t)r, "merge %zu: rank", r);
    }
}

/* decode(encode(text)) == text with every id in range (byte-level BPE is lossless). */
static void fuzz_encoder_roundtrip(Tokenizer *t, const uint8_t *text, size_t len) {
    TokEncodeOptions opt = {.utf8 = TOK_UTF8_REPLACE, .allow_special = true};
    TokEncoding e = {0};
    ErrorMsg err = {{0}};
    FUZZ_ASSERT(tok_encode(t, text, len, &opt, &e, &err) == 0, "encode: %s", err.text);
    for (size_t i = 0; i < e.n_ids; i++)
        FUZZ_ASSERT(e.ids[i] >= 0 && (size_t)e.ids[i] < t->n_vocab, "id %d at %zu out of range", e.ids[i], i);
    uint8_t *out = NULL;
    size_t n = 0;
    FUZZ_ASSERT(tok_decode(t, e.ids, e.n_ids, &out, &n, &err) == 0, "decode: %s", err.text);
    FUZZ_ASSERT(n == e.text_len && memcmp(out, e.text, n) == 0, "decode(encode(x)) != x (%zu vs %zu bytes)", n,
                e.text_len);
    free(out);
    tok_encoding_free(&e);
}

/* Returns 1 if the tokenizer files were accepted, 0 if refused. */
static int fuzz_encoder_one(const uint8_t *data, size_t size) {
    static FuzzFile enc_file, bpe_file;
    const uint8_t *nul = size ? memchr(data, 0, size) : NULL;
    size_t enc_len = nul ? (size_t)(nul - data) : size;
    const char *enc = fuzz_file_set(&enc_file, data, enc_len);
    const char *bpe = fuzz_file_set(&bpe_file, nul ? nul + 1 : data, nul ? size - enc_len - 1 : 0);
    Tokenizer t;
    ErrorMsg err = {{0}};
    if (tok_load_files(&t, enc, bpe, &err) != 0) {
        /* "/proc/self/fd/N:" or "/proc/self/fd/N: " — the colon keeps fd 3 from matching fd 31 */
        size_t le = strlen(enc), lb = strlen(bpe);
        int names = (strncmp(err.text, enc, le) == 0 && err.text[le] == ':') ||
                    (strncmp(err.text, bpe, lb) == 0 && err.text[lb] == ':');
        FUZZ_ASSERT(names, "message names neither file: %s", err.text);
        FUZZ_ASSERT(strchr(err.text, '\n') == NULL, "message spans lines: %s", err.text);
        FUZZ_ASSERT(t.n_vocab == 0 && t.tok_off == NULL && t.n_merges == 0, "tokenizer not zeroed after error");
        return 0;
    }
    fuzz_encoder_check_vocab(&t);
    fuzz_encoder_roundtrip(&t, data, size);
    tok_free(&t);
    return 1;
}

FUZZ_ENTRY(fuzz_encoder_one)
