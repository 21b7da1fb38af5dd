/* tokenizer.h — GPT-2's byte-level BPE, identical to OpenAI's encoder.py: text is split
 * into "pre-tokens" (words) by GPT-2's regex (PCRE2), each word's UTF-8 bytes are mapped
 * to the 256 byte tokens and merged pair by pair in vocab.bpe rank order. The result can
 * carry everything a viewer needs to replay it: per word its byte range, its tokens and
 * the merges applied, in order. Not a general tokenizer framework: GPT-2 files only.
 *
 * Usage:
 *     Tokenizer tok = {0};  ErrorMsg err;  TokEncoding enc = {0};
 *     if (tok_load(&tok, "assets/tokenizer", &err)) { puts(err.text); ... }
 *     if (tok_encode(&tok, bytes, len, NULL, &enc, &err)) { ... }   // enc.ids[0..n_ids)
 *     tok_encoding_free(&enc);  tok_free(&tok);
 * A Tokenizer is not thread-safe for encoding (it owns a word cache and PCRE2 match
 * data); lookups and decoding only read it. */
#ifndef TOKENIZER_H
#define TOKENIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* <|endoftext|>: the last vocabulary entry, the only "special" token of GPT-2. Other
 * vocabularies may have it elsewhere or not at all: use Tokenizer.eot. */
#define TOK_EOT 50256

/* A bounded cache word-bytes -> token ids (text repeats words a lot: "the", " was").
 * Cleared entirely when full: simple, and a working set of common words refills it at
 * once. Internal; the fields are here only so Tokenizer stays a plain struct. */
typedef struct TokCacheEntry {
    uint64_t hash;    /* 0 = empty slot */
    size_t key_off;   /* word bytes at cache.bytes[key_off .. key_off+key_len) */
    size_t key_len;
    size_t ids_off;   /* ids at cache.ids[ids_off .. ids_off+n_ids) */
    size_t n_ids;
} TokCacheEntry;

typedef struct TokCache {
    TokCacheEntry *slots; /* (cap) open addressing, linear probing */
    size_t cap;           /* power of two; 0 = cache disabled */
    size_t used;          /* filled slots; cleared when used > cap/2 */
    uint8_t *bytes;       /* (bytes_cap) arena of word bytes */
    size_t bytes_len, bytes_cap;
    int32_t *ids;         /* (ids_cap) arena of token ids */
    size_t ids_len, ids_cap;
    uint64_t hits, misses; /* for the bench */
} TokCache;

/* What a Tokenizer holds. GPT-2's byte-level BPE is the main case; a model trained with
 * its own small vocabulary (nanoGPT's 65 Shakespeare characters, minGPT-style toy tasks)
 * brings a list of token strings instead, or nothing at all (ids only). */
typedef enum TokKind {
    TOK_KIND_BPE = 0,   /* encoder.json + vocab.bpe: GPT-2's BPE, identical to encoder.py */
    TOK_KIND_VOCAB = 1, /* vocab.json, id -> string: greedy longest match, no merges */
    TOK_KIND_IDS = 2,   /* no vocabulary file: token i is shown as "⟨i⟩", text is a list of ids */
} TokKind;

typedef struct Tokenizer {
    TokKind kind;          /* see TokKind */
    size_t n_vocab;        /* V = 50257 for GPT-2 */
    size_t max_token_len;  /* bytes of the longest token (greedy matching of TOK_KIND_VOCAB) */
    int32_t eot;           /* id of the token "<|endoftext|>", or -1 when there is none */
    uint8_t *tok_bytes;    /* raw bytes of every token, concatenated */
    size_t *tok_off;       /* (V+1) token id's bytes = tok_bytes[tok_off[id] .. tok_off[id+1]) */
    char *tok_text;        /* encoder.json keys (Ġ form), each NUL-terminated, concatenated */
    size_t *text_off;      /* (V) token id's key starts at tok_text + text_off[id] */
    int32_t *bytes_map;    /* (bytes_map_cap) hash table raw bytes -> id, -1 = empty */
    size_t bytes_map_cap;
    int32_t byte_token[256]; /* id of the single-byte token for each byte value */

    size_t n_merges;       /* 50,000; merge rank r = line r of vocab.bpe after the header */
    int32_t *merge_left;   /* (n_merges) left token id of merge r */
    int32_t *merge_right;  /* (n_merges) right token id of merge r */
    int32_t *merge_result; /* (n_merges) id of the concatenation */
    uint64_t *pair_keys;   /* (pair_cap) hash table (left,right) -> rank; key 0 = empty */
    int32_t *pair_ranks;   /* (pair_cap) */
    size_t pair_cap;

    void *re;              /* pcre2_code_8 * : GPT-2's pre-tokenizer regex */
    void *match_data;      /* pcre2_match_data_8 * */
    bool jit;              /* the regex was JIT-compiled */
    TokCache cache;
} Tokenizer;

/* Loads dir/encoder.json and dir/vocab.bpe into *t (whose old contents are overwritten,
 * not freed). On error returns -1, err names the file and the problem (and the line of
 * vocab.bpe), and *t is left zeroed. */
int tok_load(Tokenizer *t, const char *dir, ErrorMsg *err);
/* The same from two named files (a HuggingFace folder calls them vocab.json + merges.txt). */
int tok_load_files(Tokenizer *t, const char *encoder_json, const char *merges, ErrorMsg *err);

/* A model's own vocabulary (TOK_KIND_VOCAB) from a vocab.json that maps id -> string:
 * either an array ["\n", " ", "!", ...] (index = id) or an object {"0": "\n", "1": " "}
 * whose keys are exactly the ids 0..V-1. Strings are UTF-8 text (a token may be "" but no
 * two tokens may be equal). Encoding takes, at each position, the longest token that
 * matches the bytes there (exact for character vocabularies); a byte no token starts
 * with is an error naming it. Errors name the file. */
int tok_load_vocab_json(Tokenizer *t, const char *path, ErrorMsg *err);
/* A vocabulary of n ids with no text (TOK_KIND_IDS): token i decodes to "⟨i⟩"; the text
 * given to tok_encode is a list of ids ("3 1 2", "3,1,2" or "⟨3⟩⟨1⟩⟨2⟩"). */
int tok_init_ids(Tokenizer *t, size_t n, ErrorMsg *err);
/* Frees everything; safe on a zeroed or half-loaded Tokenizer. */
void tok_free(Tokenizer *t);

static inline size_t tok_vocab_size(const Tokenizer *t) { return t->n_vocab; }

typedef enum TokUtf8Policy {
    TOK_UTF8_REJECT = 0,  /* invalid UTF-8 is an error: "invalid UTF-8 at byte N" */
    TOK_UTF8_REPLACE = 1, /* each maximal invalid subpart -> U+FFFD, then encode */
} TokUtf8Policy;

/* A zeroed struct (or NULL) means the defaults, which match encoder.py. */
typedef struct TokEncodeOptions {
    TokUtf8Policy utf8;
    bool record_merges;  /* fill TokEncoding.merges (and bypass the cache) */
    bool allow_special;  /* the literal text "<|endoftext|>" -> TOK_EOT (encoder.py: no) */
    bool no_cache;       /* do not use the word cache (for measuring it) */
} TokEncodeOptions;

/* One BPE merge as applied to a word: the parts starting at byte `offset` of the word
 * (left, `left_len` bytes) and right after it (right) became one part `merged`.
 * Merges are listed in the order encoder.py applies them: lowest rank first, and for
 * one rank every non-overlapping occurrence from left to right. Replaying them on the
 * word's single-byte tokens gives exactly the word's tokens. */
typedef struct TokMerge {
    int32_t rank;    /* line of vocab.bpe (0 = first merge) */
    int32_t left;    /* token id of the left part */
    int32_t right;   /* token id of the right part */
    int32_t merged;  /* token id of the result */
    size_t offset;   /* byte offset of the left part inside the word */
} TokMerge;

/* One pre-token ("word") of the text: a regex match such as " upon" or "'s". */
typedef struct TokPiece {
    size_t start, len;            /* bytes text[start .. start+len) of TokEncoding.text */
    size_t first_token, n_tokens; /* its ids are ids[first_token .. first_token+n_tokens) */
    size_t first_merge, n_merges; /* merges[first_merge ..) (n_merges 0 unless recorded) */
    bool special;                 /* the "<|endoftext|>" text mapped to TOK_EOT */
} TokPiece;

typedef struct TokEncoding {
    int32_t *ids;       /* (n_ids) token ids */
    size_t n_ids;
    TokPiece *pieces;   /* (n_pieces) pre-tokens in text order */
    size_t n_pieces;
    TokMerge *merges;   /* (n_merges) only with record_merges */
    size_t n_merges;
    uint8_t *text;      /* (text_len + 1, NUL after) the text that was encoded: the input,
                         * or its U+FFFD-replaced form; piece byte ranges refer to it */
    size_t text_len;
} TokEncoding;

/* Encodes text[0..len) (may contain NUL bytes; strlen is never used). On success fills
 * *out (which the caller frees with tok_encoding_free) and returns 0. On error returns
 * -1 with e.g. "invalid UTF-8 at byte 3" and leaves *out empty. */
int tok_encode(Tokenizer *t, const uint8_t *text, size_t len, const TokEncodeOptions *opt,
               TokEncoding *out, ErrorMsg *err);
/* Empties the word cache (e.g. so that benchmark runs start equal); encoding refills it. */
void tok_cache_reset(Tokenizer *t);

/* Frees an encoding; safe on a zeroed one. */
void tok_encoding_free(TokEncoding *e);

/* Raw bytes of token id (not NUL-terminated; may be a partial UTF-8 character),
 * valid while t is loaded. NULL (and *len = 0) if id is out of range. */
const uint8_t *tok_token_bytes(const Tokenizer *t, int32_t id, size_t *len);
/* The token as written in encoder.json ("Ġupon", "Ċ"), NUL-terminated; NULL if out of range. */
const char *tok_token_text(const Tokenizer *t, int32_t id);
/* Id of the token whose raw bytes are exactly s[0..n), or -1. */
int32_t tok_lookup_bytes(const Tokenizer *t, const uint8_t *s, size_t n);

/* Concatenates the tokens' bytes: *out is malloc'd (caller frees), NUL-terminated one
 * past *out_len. The bytes are exact, even when they are not valid UTF-8. An id out of
 * range is an error naming the id and its position. */
int tok_decode(const Tokenizer *t, const int32_t *ids, size_t n, uint8_t **out, size_t *out_len,
               ErrorMsg *err);

/* Streaming decode, one token at a time (as generation produces them): the bytes of an
 * incomplete trailing UTF-8 character (half an emoji) are held back until a later token
 * completes them, so a printer never shows a spurious U+FFFD; tok_stream_flush emits
 * whatever is held at the end. Bytes that can never become valid are passed on as they
 * are (the caller chooses how to show them). */
typedef struct TokStream {
    uint8_t *buf;     /* (cap) output of the last push/flush, then the held-back tail */
    size_t cap;
    uint8_t held[4];  /* incomplete tail carried to the next push (at most 3 bytes) */
    size_t n_held;
} TokStream;

/* Appends token id; *out and *out_len receive the bytes now safe to emit (possibly none),
 * valid until the next call on s. Error (id out of range) names the id. */
int tok_stream_push(TokStream *s, const Tokenizer *t, int32_t id, const uint8_t **out,
                    size_t *out_len, ErrorMsg *err);
/* Emits the held-back bytes (the stream ended mid-character; *out is never NULL, *out_len
 * may be 0) and resets s. */
void tok_stream_flush(TokStream *s, const uint8_t **out, size_t *out_len);
/* Frees the stream's buffer; safe on a zeroed TokStream. */
void tok_stream_free(TokStream *s);

#endif
