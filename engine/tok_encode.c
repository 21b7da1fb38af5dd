/* tok_encode.c — tok_encode: UTF-8 policy, the optional "<|endoftext|>" split, GPT-2's
 * pre-tokenizer regex (PCRE2), the bounded word cache, and tok_bpe.c on each word.
 * Not the merge loop itself (tok_bpe.c) nor file loading (tokenizer.c). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "tok_internal.h"
#include "utf8.h"
#include "free_all.h"

/* GPT-2's pre-tokenizer (encoder.py):
 *     's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
 * Alternatives are tried in order at each position: ASCII-apostrophe contractions (case
 * sensitive: "IT'S" splits as "'", "S"), an optional space glued to a run of letters /
 * digits / other symbols, then whitespace. `\s+(?!\S)` takes a whitespace run except its
 * last character when a non-space follows, so that space can start the next word
 * ("   hello" -> "  ", " hello").
 *
 * \s is written \p{White_Space} (PCRE2 >= 10.40 knows Boolean properties): encoder.py
 * runs on Python's `regex`, whose \s is exactly Unicode White_Space — U+0085 NEL is
 * space, U+FEFF BOM is not, U+180E is not (since Unicode 6.3), U+001C..U+001F are not.
 * PCRE2's own \s under PCRE2_UCP is "\h, \v or Zs", which still counts U+180E, so the
 * property is spelled out instead. \S becomes \P{White_Space}. */
static const char GPT2_PATTERN[] =
    "'s|'t|'re|'ve|'m|'ll|'d"
    "| ?\\p{L}+"
    "| ?\\p{N}+"
    "| ?[^\\p{White_Space}\\p{L}\\p{N}]+"
    "|\\p{White_Space}+(?!\\P{White_Space})"
    "|\\p{White_Space}+";

int tok_encode_init_regex(Tokenizer *t, ErrorMsg *err) {
    int code;
    PCRE2_SIZE at;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)GPT2_PATTERN, PCRE2_ZERO_TERMINATED,
                                   PCRE2_UTF | PCRE2_UCP, &code, &at, NULL);
    if (!re) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(code, msg, sizeof msg);
        return error_set(err, "tokenizer regex: PCRE2 error at %zu: %s", (size_t)at, (char *)msg);
    }
    /* JIT makes the split several times faster; without it PCRE2 interprets (same result). */
    t->jit = pcre2_jit_compile(re, PCRE2_JIT_COMPLETE) == 0;
    t->re = re;
    t->match_data = pcre2_match_data_create_from_pattern(re, NULL);
    if (!t->match_data) return error_set(err, "tokenizer regex: out of memory");
    return 0;
}

void tok_encode_free_regex(Tokenizer *t) {
    if (t->match_data) pcre2_match_data_free((pcre2_match_data *)t->match_data);
    if (t->re) pcre2_code_free((pcre2_code *)t->re);
    t->match_data = NULL;
    t->re = NULL;
}

/* ---- word cache ------------------------------------------------------------------ */

#define CACHE_SLOTS ((size_t)1 << 15) /* at most CACHE_SLOTS/2 words, then cleared */
#define CACHE_MAX_WORD 64             /* longer words are rare and rarely repeat */

static void cache_clear(TokCache *c) {
    memset(c->slots, 0, c->cap * sizeof *c->slots);
    c->used = 0;
    c->bytes_len = 0;
    c->ids_len = 0;
}

const int32_t *tok_cache_lookup(TokCache *c, const uint8_t *w, size_t n, uint64_t h, size_t *n_ids) {
    if (!c->cap) return NULL;
    size_t mask = c->cap - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        const TokCacheEntry *e = &c->slots[i];
        if (e->hash == 0) return NULL;
        if (e->hash == h && e->key_len == n && memcmp(c->bytes + e->key_off, w, n) == 0) {
            *n_ids = e->n_ids;
            return c->ids + e->ids_off;
        }
    }
}

void tok_cache_insert(TokCache *c, const uint8_t *w, size_t n, uint64_t h, const int32_t *ids,
                      size_t n_ids) {
    if (n > CACHE_MAX_WORD) return;
    if (!c->cap) {
        c->slots = calloc(CACHE_SLOTS, sizeof *c->slots);
        if (!c->slots) return; /* no cache is slower, not wrong */
        c->cap = CACHE_SLOTS;
    }
    if (c->used >= c->cap / 2) cache_clear(c);
    if (tok_grow((void **)&c->bytes, &c->bytes_cap, c->bytes_len + n, 1) ||
        tok_grow((void **)&c->ids, &c->ids_cap, c->ids_len + n_ids, sizeof *c->ids))
        return;
    size_t mask = c->cap - 1, i = h & mask;
    while (c->slots[i].hash) i = (i + 1) & mask;
    memcpy(c->bytes + c->bytes_len, w, n);
    memcpy(c->ids + c->ids_len, ids, n_ids * sizeof *ids);
    c->slots[i] = (TokCacheEntry){h, c->bytes_len, n, c->ids_len, n_ids};
    c->bytes_len += n;
    c->ids_len += n_ids;
    c->used++;
}

void tok_cache_free(TokCache *c) {
    if (!c) return;
    FREE_ALL(c->slots, c->bytes, c->ids);
    memset(c, 0, sizeof *c);
}

void tok_cache_reset(Tokenizer *t) { tok_cache_free(&t->cache); }

/* ---- encode ---------------------------------------------------------------------- */

/* Everything tok_encode builds, with capacities; moved into TokEncoding at the end. */
typedef struct EncodeState {
    int32_t *ids;
    size_t n_ids, ids_cap;
    TokPiece *pieces;
    size_t n_pieces, pieces_cap;
    MergeList merges;
    BpeScratch scratch;
} EncodeState;

static int add_piece(EncodeState *st, size_t start, size_t len, size_t first_tok, size_t first_merge,
                     bool special, ErrorMsg *err) {
    if (tok_grow((void **)&st->pieces, &st->pieces_cap, st->n_pieces + 1, sizeof *st->pieces))
        return error_set(err, "encode: out of memory");
    st->pieces[st->n_pieces++] = (TokPiece){start, len, first_tok, st->n_ids - first_tok, first_merge,
                                            st->merges.n - first_merge, special};
    return 0;
}

/* Encodes one word text[start..start+len): cache, or BPE. */
static int encode_word(Tokenizer *t, const uint8_t *w, size_t n, const TokEncodeOptions *o,
                       EncodeState *st, ErrorMsg *err) {
    if (n == 1 && !o->record_merges) { /* a single byte has no pair to merge */
        if (tok_grow((void **)&st->ids, &st->ids_cap, st->n_ids + 1, sizeof *st->ids))
            return error_set(err, "encode: out of memory");
        st->ids[st->n_ids++] = t->byte_token[w[0]];
        return 0;
    }
    bool use_cache = !o->record_merges && !o->no_cache;
    uint64_t h = 0;
    if (use_cache) {
        h = tok_hash_bytes(w, n);
        size_t k;
        const int32_t *hit = tok_cache_lookup(&t->cache, w, n, h, &k);
        if (hit) {
            t->cache.hits++;
            if (tok_grow((void **)&st->ids, &st->ids_cap, st->n_ids + k, sizeof *st->ids))
                return error_set(err, "encode: out of memory");
            memcpy(st->ids + st->n_ids, hit, k * sizeof *hit);
            st->n_ids += k;
            return 0;
        }
        t->cache.misses++;
    }
    size_t first = st->n_ids;
    if (bpe_word(t, w, n, &st->scratch, &st->ids, &st->n_ids, &st->ids_cap,
                 o->record_merges ? &st->merges : NULL, err))
        return -1;
    if (use_cache) tok_cache_insert(&t->cache, w, n, h, st->ids + first, st->n_ids - first);
    return 0;
}

/* Splits text[start..end) with the regex and encodes each match. The subject handed to
 * PCRE2 ends at `end`, so the (?!\S) lookahead does not see past a special token. */
static int encode_segment(Tokenizer *t, const uint8_t *text, size_t start, size_t end,
                          const TokEncodeOptions *o, EncodeState *st, ErrorMsg *err) {
    pcre2_code *re = t->re;
    pcre2_match_data *md = t->match_data;
    size_t off = start;
    while (off < end) {
        /* the text was validated (or replaced) already: skip PCRE2's own UTF-8 check,
         * which would otherwise rescan the rest of the text at every match */
        int rc = pcre2_match(re, text, end, off, PCRE2_NO_UTF_CHECK, md, NULL);
        if (rc == PCRE2_ERROR_NOMATCH) break; /* cannot happen: every character matches */
        if (rc < 0) {
            PCRE2_UCHAR msg[256];
            pcre2_get_error_message(rc, msg, sizeof msg);
            return error_set(err, "tokenizer regex failed at byte %zu: %s", off, (char *)msg);
        }
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
        size_t ms = ov[0], me = ov[1];
        if (me <= ms) return error_set(err, "tokenizer regex: empty match at byte %zu", ms);
        size_t first_tok = st->n_ids, first_merge = st->merges.n;
        if (encode_word(t, text + ms, me - ms, o, st, err)) return -1;
        if (add_piece(st, ms, me - ms, first_tok, first_merge, false, err)) return -1;
        off = me;
    }
    return 0;
}

/* Position of the next "<|endoftext|>" in s[from..n), or n. (No memmem: not C17.) */
static size_t find_eot(const uint8_t *s, size_t from, size_t n, const uint8_t *eot, size_t eot_len) {
    for (size_t i = from; i + eot_len <= n; i++) {
        const uint8_t *p = memchr(s + i, eot[0], n - i - eot_len + 1);
        if (!p) break;
        i = (size_t)(p - s);
        if (memcmp(p, eot, eot_len) == 0) return i;
    }
    return n;
}

int tok_encode(Tokenizer *t, const uint8_t *text, size_t len, const TokEncodeOptions *opt,
               TokEncoding *out, ErrorMsg *err) {
    memset(out, 0, sizeof *out);
    TokEncodeOptions o = opt ? *opt : (TokEncodeOptions){0};
    if (t->kind == TOK_KIND_BPE && !t->re) return error_set(err, "encode: tokenizer is not loaded");
    if (t->kind != TOK_KIND_BPE && !t->tok_off) return error_set(err, "encode: vocabulary is not loaded");
    if (!text && len) return error_set(err, "encode: no text");

    size_t bad;
    uint8_t *buf;
    size_t n;
    if (utf8_validate(text, len, &bad)) {
        n = len;
        buf = malloc(n + 1);
        if (buf && n) memcpy(buf, text, n);
    } else if (o.utf8 == TOK_UTF8_REPLACE) {
        n = utf8_replaced_len(text, len);
        buf = malloc(n + 1);
        if (buf) utf8_replace_invalid(text, len, buf);
    } else {
        return error_set(err, "invalid UTF-8 at byte %zu", bad);
    }
    if (!buf) return error_set(err, "encode: out of memory");
    buf[n] = 0;

    if (t->kind != TOK_KIND_BPE) { /* a model's own vocabulary: no regex, no merges */
        if (tok_vocab_encode(t, buf, n, &out->ids, &out->n_ids, &out->pieces, &out->n_pieces, err)) {
            free(buf);
            return -1;
        }
        out->text = buf;
        out->text_len = n;
        return 0;
    }
    EncodeState st = {0};
    int rc = 0;
    size_t eot_len = 0;
    const uint8_t *eot = o.allow_special ? tok_token_bytes(t, TOK_EOT, &eot_len) : NULL;
    size_t pos = 0;
    while (pos < n && rc == 0) {
        size_t seg_end = eot ? find_eot(buf, pos, n, eot, eot_len) : n;
        rc = encode_segment(t, buf, pos, seg_end, &o, &st, err);
        pos = seg_end;
        if (rc == 0 && eot && seg_end < n) { /* the special token is its own piece */
            size_t first_tok = st.n_ids;
            if (tok_grow((void **)&st.ids, &st.ids_cap, st.n_ids + 1, sizeof *st.ids)) {
                rc = error_set(err, "encode: out of memory");
                break;
            }
            st.ids[st.n_ids++] = TOK_EOT;
            rc = add_piece(&st, seg_end, eot_len, first_tok, st.merges.n, true, err);
            pos = seg_end + eot_len;
        }
    }
    bpe_scratch_free(&st.scratch);
    if (rc) {
        FREE_ALL(buf, st.ids, st.pieces, st.merges.v);
        return -1;
    }
    out->ids = st.ids;
    out->n_ids = st.n_ids;
    out->pieces = st.pieces;
    out->n_pieces = st.n_pieces;
    out->merges = st.merges.v;
    out->n_merges = st.merges.n;
    out->text = buf;
    out->text_len = n;
    return 0;
}

void tok_encoding_free(TokEncoding *e) {
    if (!e) return;
    FREE_ALL(e->ids, e->pieces, e->merges, e->text);
    memset(e, 0, sizeof *e);
}
