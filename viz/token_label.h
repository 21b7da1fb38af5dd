/* token_label.h — how one token is written on screen: as a chip, an axis label, a bar
 * label or a run of the text panel. GPT-2 tokens are byte strings: a leading space is
 * part of the token, a newline is a token, and a token may hold half a UTF-8 character
 * (the first bytes of an emoji). A label makes all of that visible and is always valid
 * UTF-8 that DejaVu renders: never a bare U+FFFD, never an invisible empty string.
 * Not a decoder for running text (tok_decode / TokStream do that) and no drawing. */
#ifndef VIZ_TOKEN_LABEL_H
#define VIZ_TOKEN_LABEL_H

#include <stddef.h>
#include <stdint.h>

#include "tokenizer.h"

/* Bytes that always hold a label (the longest GPT-2 token is 128 bytes; labels longer
 * than cap are cut with "…" at a character boundary). */
#define TOKEN_LABEL_CAP 256

/* The marks, all present in DejaVu Sans, Sans Bold and Sans Mono. */
#define TOKEN_MARK_SPACE   "\xE2\x90\xA3" /* ␣ U+2423 OPEN BOX: the space inside a token */
#define TOKEN_MARK_NEWLINE "\xE2\x86\xB5" /* ↵ U+21B5: a newline byte */
#define TOKEN_MARK_TAB     "\xE2\x87\xA5" /* ⇥ U+21E5: a tab byte */
#define TOKEN_MARK_EMPTY   "\xE2\x88\x85" /* ∅ U+2205: a token with no bytes */

typedef enum TokenLabelFlags {
    TOKEN_LABEL_DEFAULT = 0,    /* space → ␣, newline → ↵, tab → ⇥, bad bytes → <e2 80> */
    TOKEN_LABEL_RAW_SPACES = 1, /* keep spaces as spaces (running text); the rest as above */
} TokenLabelFlags;

/* Writes the label of the byte string bytes[0..n) into buf (cap bytes, NUL-terminated)
 * and returns its length in bytes. Valid UTF-8 characters are copied (spaces marked per
 * flags); '\n', '\t' get their marks; other control bytes (< 0x20, 0x7F) and every
 * maximal invalid subsequence become the byte view "<0d>" / "<e2 80>" (lower-case hex,
 * one group per run of bad bytes; a literal U+FFFD is shown as "<ef bf bd>" too, so
 * "�" never appears). n == 0 gives "∅". A label that does not fit is cut
 * at a character boundary and ends in "…". cap == 0 writes nothing and returns 0. */
size_t token_label_bytes(const uint8_t *bytes, size_t n, unsigned flags, char *buf, size_t cap);

/* Says whether the font that will draw the label has a glyph for code point cp
 * (ctx is the caller's, e.g. a TTF_Font *). */
typedef int (*TokenGlyphFn)(void *ctx, uint32_t cp);

/* token_label_bytes, and every non-ASCII character for which has_glyph(ctx, cp)
 * returns 0 is shown as its bytes ("<f0 9f 90 89>") instead of the font's empty box:
 * DejaVu has no emoji. has_glyph NULL = all characters drawable. */
size_t token_label_bytes_ex(const uint8_t *bytes, size_t n, unsigned flags, TokenGlyphFn has_glyph, void *ctx,
                            char *buf, size_t cap);

/* A TokenGlyphFn for SDL_ttf: ctx is a TTF_Font * (TTF_GlyphIsProvided32). */
int token_glyph_in_ttf(void *ttf_font, uint32_t cp);

/* The label of token id (see token_label_bytes); "<id 123456?>" for an id outside
 * the vocabulary, so a bad id is visible rather than a crash. */
size_t token_label(const Tokenizer *tok, int id, unsigned flags, char *buf, size_t cap);
/* The same with the glyph check of token_label_bytes_ex. */
size_t token_label_ex(const Tokenizer *tok, int id, unsigned flags, TokenGlyphFn has_glyph, void *ctx, char *buf,
                      size_t cap);

/* The token as GPT-2's encoder.json writes it ("Ġupon", "Ċ", "âĢ"): the byte
 * alphabet where every byte is one printable character. Used where a lesson is about
 * BPE itself (the replay). Borrowed from the tokenizer; "?" for a bad id. */
const char *token_label_gpt2(const Tokenizer *tok, int id);

/* 1 if bytes[0..n) is not complete valid UTF-8 (a label would show a byte view). */
int token_bytes_are_partial(const uint8_t *bytes, size_t n);

#endif
