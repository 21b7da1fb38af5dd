/* fuzz_vocab.c — libFuzzer harness for a model's own vocabulary (engine/tok_vocab.c):
 * tok_load_vocab_json on arbitrary bytes. Byte 0 picks the mode: 0..127 load the rest as a
 * vocab.json; 128..255 build an ids-only vocabulary of (byte 1) + 1 tokens and encode the
 * rest as its id-list text. Oracles: a refusal is one line naming the file; an accepted
 * vocabulary has distinct tokens, and decode(encode(x)) == x for any x it can encode, with
 * one piece per token tiling the text (greedy longest match); an id list decodes to "⟨i⟩". */
#include "fuzz.h"

#include "tokenizer.h"

/* encode + round trip on t; text may fail to encode (a byte no token starts with). */
static void fuzz_vocab_roundtrip(Tokenizer *t, const uint8_t *text, size_t len) {
    TokEncoding e = {0};
    ErrorMsg err = {{0}};
    if (tok_encode(t, text, len, NULL, &e, &err) != 0) {
        FUZZ_ASSERT(strchr(err.text, '\n') == NULL && e.ids == NULL, "bad refusal: %s", err.text);
        return;
    }
    size_t at = 0;
    for (size_t p = 0; p < e.n_pieces; p++) {
        FUZZ_ASSERT(e.pieces[p].start >= at && e.pieces[p].n_tokens == 1 && e.pieces[p].first_token == p,
                    "piece %zu", p);
        at = e.pieces[p].start + e.pieces[p].len;
    }
    FUZZ_ASSERT(e.n_pieces == e.n_ids && at <= len, "pieces do not tile the ids");
    uint8_t *out = NULL;
    size_t n = 0;
    FUZZ_ASSERT(tok_decode(t, e.ids, e.n_ids, &out, &n, &err) == 0, "decode: %s", err.text);
    if (t->kind == TOK_KIND_VOCAB)
        FUZZ_ASSERT(n == len && memcmp(out, text, len) == 0, "decode(encode(x)) != x (%zu vs %zu bytes)", n, len);
    free(out);
    tok_encoding_free(&e);
}

/* Returns 1 if the vocabulary was accepted, 0 if refused. */
static int fuzz_vocab_one(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    Tokenizer t;
    ErrorMsg err = {{0}};
    if (data[0] >= 128) {
        size_t n = size > 1 ? (size_t)data[1] + 1 : 1;
        FUZZ_ASSERT(tok_init_ids(&t, n, &err) == 0, "ids-only %zu: %s", n, err.text);
        fuzz_vocab_roundtrip(&t, data + 2 > data + size ? data + size : data + 2, size > 2 ? size - 2 : 0);
        tok_free(&t);
        return 1;
    }
    static FuzzFile file;
    const char *path = fuzz_file_set(&file, data + 1, size - 1);
    if (tok_load_vocab_json(&t, path, &err) != 0) {
        FUZZ_ASSERT_REFUSAL(err.text, path);
        FUZZ_ASSERT(t.n_vocab == 0 && t.tok_off == NULL, "tokenizer not zeroed after error");
        return 0;
    }
    FUZZ_ASSERT(t.kind == TOK_KIND_VOCAB && t.n_vocab >= 1, "accepted an empty vocabulary");
    /* every token's own bytes encode back to a sequence that decodes to them */
    for (size_t id = 0; id < t.n_vocab && id < 64; id++) {
        size_t n;
        const uint8_t *b = tok_token_bytes(&t, (int32_t)id, &n);
        FUZZ_ASSERT(b != NULL && tok_lookup_bytes(&t, b, n) == (int32_t)id, "token %zu not found by its bytes", id);
        fuzz_vocab_roundtrip(&t, b, n);
    }
    fuzz_vocab_roundtrip(&t, data + 1, size - 1);
    tok_free(&t);
    return 1;
}

FUZZ_ENTRY(fuzz_vocab_one)
