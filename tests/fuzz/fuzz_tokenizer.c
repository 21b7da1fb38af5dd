/* fuzz_tokenizer.c — libFuzzer harness for the GPT-2 tokenizer (engine/tokenizer.h).
 * One input drives three things:
 *   1. tok_encode of the bytes after the first, with the options the first byte picks
 *      (UTF-8 reject/replace, merges recorded, "<|endoftext|>" special, cache off);
 *   2. tok_decode of the input read as 16-bit ids (bit 0x20 of byte 0 negates them),
 *      so ids >= the vocabulary size (50257..65535) and negative ids occur;
 *   3. the streaming decoder (push each id, then flush) on the same ids.
 * Oracles, not just "no crash": decode(encode(text)) == text; the pieces and merges
 * tile the ids; the stream's bytes == tok_decode's bytes. Not the regex itself. */
#include "fuzz.h"

#include "tokenizer.h"

static Tokenizer fuzz_tok;
static int fuzz_tok_loaded;

static void fuzz_tok_cleanup(void) { tok_free(&fuzz_tok); }

static void fuzz_tok_init(void) {
    if (fuzz_tok_loaded) return;
    ErrorMsg err;
    FUZZ_ASSERT(tok_load(&fuzz_tok, fuzz_tokenizer_dir(), &err) == 0, "%s", err.text);
    fuzz_tok_loaded = 1;
    atexit(fuzz_tok_cleanup);
}

/* Encode + the round-trip and tiling invariants. Returns 1 if encoding succeeded. */
static int fuzz_tok_encode(uint8_t flags, const uint8_t *text, size_t len) {
    TokEncodeOptions opt = {
        .utf8 = (flags & 1) ? TOK_UTF8_REPLACE : TOK_UTF8_REJECT,
        .record_merges = (flags & 2) != 0,
        .allow_special = (flags & 4) != 0,
        .no_cache = (flags & 8) != 0,
    };
    TokEncoding e = {0};
    ErrorMsg err = {{0}};
    if (tok_encode(&fuzz_tok, text, len, &opt, &e, &err) != 0) {
        /* Only invalid UTF-8 under the reject policy may fail. */
        FUZZ_ASSERT(opt.utf8 == TOK_UTF8_REJECT, "encode failed under REPLACE: %s", err.text);
        FUZZ_ASSERT(strstr(err.text, "UTF-8") != NULL, "unexpected encode error: %s", err.text);
        FUZZ_ASSERT(e.ids == NULL && e.n_ids == 0, "encoding not empty after error");
        return 0;
    }
    if (opt.utf8 == TOK_UTF8_REJECT)
        FUZZ_ASSERT(e.text_len == len && memcmp(e.text, text, len) == 0, "text changed under REJECT");
    /* Pieces tile the text and the ids, in order. */
    size_t at = 0, tok = 0, mg = 0;
    for (size_t p = 0; p < e.n_pieces; p++) {
        const TokPiece *pc = &e.pieces[p];
        FUZZ_ASSERT(pc->start == at && pc->len > 0, "piece %zu starts at %zu, want %zu", p, pc->start, at);
        FUZZ_ASSERT(pc->first_token == tok && pc->n_tokens > 0, "piece %zu tokens", p);
        FUZZ_ASSERT(pc->first_merge == mg || !opt.record_merges, "piece %zu merges", p);
        at += pc->len;
        tok += pc->n_tokens;
        mg += pc->n_merges;
        /* Every merge turns two parts into one: a word of B bytes and T tokens needs
         * exactly B - T merges (the special token is not built by merges). */
        if (opt.record_merges && !pc->special)
            FUZZ_ASSERT(pc->n_merges == pc->len - pc->n_tokens, "piece %zu: %zu merges, %zu bytes, %zu tokens",
                        p, pc->n_merges, pc->len, pc->n_tokens);
    }
    FUZZ_ASSERT(at == e.text_len && tok == e.n_ids, "pieces cover %zu/%zu bytes, %zu/%zu ids", at,
                e.text_len, tok, e.n_ids);
    FUZZ_ASSERT(!opt.record_merges || mg == e.n_merges, "merge count %zu vs %zu", mg, e.n_merges);
    /* Byte-level BPE is lossless: decoding gives back exactly the encoded text. */
    uint8_t *dec = NULL;
    size_t dec_len = 0;
    FUZZ_ASSERT(tok_decode(&fuzz_tok, e.ids, e.n_ids, &dec, &dec_len, &err) == 0, "%s", err.text);
    FUZZ_ASSERT(dec_len == e.text_len && memcmp(dec, e.text, dec_len) == 0, "round trip differs");
    free(dec);
    tok_encoding_free(&e);
    return 1;
}

/* Decode + stream on ids from the input. Returns 1 if tok_decode accepted the ids. */
static int fuzz_tok_decode(uint8_t flags, const uint8_t *data, size_t size) {
    size_t n = size / 2;
    int32_t *ids = calloc(n ? n : 1, sizeof *ids);
    FUZZ_ASSERT(ids != NULL, "out of memory");
    int all_valid = 1;
    for (size_t i = 0; i < n; i++) {
        ids[i] = (int32_t)(data[2 * i] | (data[2 * i + 1] << 8));
        if (flags & 0x20) ids[i] = -ids[i];
        if (ids[i] < 0 || (size_t)ids[i] >= tok_vocab_size(&fuzz_tok)) all_valid = 0;
    }
    uint8_t *dec = NULL;
    size_t dec_len = 0;
    ErrorMsg err = {{0}};
    int ok = tok_decode(&fuzz_tok, ids, n, &dec, &dec_len, &err) == 0;
    FUZZ_ASSERT(ok == all_valid, "decode %s on %s ids: %s", ok ? "accepted" : "refused",
                all_valid ? "valid" : "invalid", err.text);

    /* The stream must emit, in total, exactly the decoded bytes (held-back bytes come
     * out later, never lost or duplicated). */
    TokStream s = {0};
    uint8_t *got = malloc(dec_len + 1);
    size_t got_len = 0;
    FUZZ_ASSERT(got != NULL, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const uint8_t *out = NULL;
        size_t out_len = 0;
        if (tok_stream_push(&s, &fuzz_tok, ids[i], &out, &out_len, &err) != 0) {
            FUZZ_ASSERT(!all_valid, "stream refused valid id %d: %s", ids[i], err.text);
            continue;
        }
        if (ok) {
            FUZZ_ASSERT(got_len + out_len <= dec_len, "stream emitted too much");
            if (out_len) memcpy(got + got_len, out, out_len);
        }
        got_len += out_len;
    }
    const uint8_t *out = NULL;
    size_t out_len = 0;
    tok_stream_flush(&s, &out, &out_len);
    FUZZ_ASSERT(out != NULL, "flush gave NULL");
    if (ok) {
        FUZZ_ASSERT(got_len + out_len == dec_len, "stream %zu bytes, decode %zu", got_len + out_len,
                    dec_len);
        if (out_len) memcpy(got + got_len, out, out_len);
        FUZZ_ASSERT(memcmp(got, dec, dec_len) == 0, "stream bytes differ from decode");
    }
    tok_stream_free(&s);
    free(got);
    free(dec);
    free(ids);
    return ok;
}

/* Returns 1 if the encode step accepted the text. */
static int fuzz_tokenizer_one(const uint8_t *data, size_t size) {
    fuzz_tok_init();
    if (size == 0) return fuzz_tok_encode(0, data, 0);
    int ok = fuzz_tok_encode(data[0], data + 1, size - 1);
    fuzz_tok_decode(data[0], data + 1, size - 1);
    return ok;
}

FUZZ_ENTRY(fuzz_tokenizer_one)
