/* token_label.c — token bytes → a visible, always-valid UTF-8 label (token_label.h).
 * The label is built from "pieces" (a copied character, a mark, a byte group); one
 * walk over the bytes either counts or writes them, so a too-long label is cut between
 * pieces and never inside a character or a "<e2 80>" group. */
#include "token_label.h"

#include <stdio.h>
#include <string.h>

#include <SDL_ttf.h>

#include "utf8.h"

#define ELLIPSIS "\xE2\x80\xA6"

/* Output cursor: writes while there is room below `limit`, remembers if it stopped. */
typedef struct LabelOut {
    char *buf;    /* NULL: only count */
    size_t len;   /* bytes produced (or counted) */
    size_t limit; /* at most this many bytes of pieces */
    int cut;      /* 1 once a piece did not fit (nothing after it is written) */
} LabelOut;

static void put(LabelOut *o, const char *s, size_t n) {
    if (o->cut) return;
    if (o->buf && o->len + n > o->limit) {
        o->cut = 1;
        return;
    }
    if (o->buf) memcpy(o->buf + o->len, s, n);
    o->len += n;
}

/* "<e2 80>": a run of bytes that are not (complete) UTF-8 text, as one piece, so the
 * viewer sees exactly which bytes the token holds (a U+FFFD would hide them). */
static void put_bytes(LabelOut *o, const uint8_t *b, size_t n) {
    char tmp[3 * 16 + 2];
    while (n > 0) { /* groups of at most 16 bytes keep tmp bounded */
        size_t k = n < 16 ? n : 16, w = 0;
        tmp[w++] = '<';
        for (size_t i = 0; i < k; i++) w += (size_t)snprintf(tmp + w, sizeof tmp - w, i ? " %02x" : "%02x", b[i]);
        tmp[w++] = '>';
        put(o, tmp, w);
        b += k;
        n -= k;
    }
}

typedef struct Glyphs {
    TokenGlyphFn fn; /* NULL: every character drawable */
    void *ctx;
} Glyphs;

static void walk(const uint8_t *s, size_t n, unsigned flags, const Glyphs *g, LabelOut *o) {
    if (n == 0) {
        put(o, TOKEN_MARK_EMPTY, sizeof TOKEN_MARK_EMPTY - 1);
        return;
    }
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        if (c == ' ') {
            if (flags & TOKEN_LABEL_RAW_SPACES) put(o, " ", 1);
            else put(o, TOKEN_MARK_SPACE, sizeof TOKEN_MARK_SPACE - 1);
            i++;
        } else if (c == '\n') {
            put(o, TOKEN_MARK_NEWLINE, sizeof TOKEN_MARK_NEWLINE - 1);
            i++;
        } else if (c == '\t') {
            put(o, TOKEN_MARK_TAB, sizeof TOKEN_MARK_TAB - 1);
            i++;
        } else if (c < 0x20 || c == 0x7F) {
            put_bytes(o, s + i, 1); /* other controls have no glyph: show the byte */
            i++;
        } else {
            uint32_t cp = 0;
            size_t k = utf8_decode_one(s + i, n - i, &cp);
            if (k > 1 && g->fn && !g->fn(g->ctx, cp)) {
                put_bytes(o, s + i, k); /* no glyph: the bytes beat an empty box */
                i += k;
            } else if (k == 3 && s[i] == 0xEF && s[i + 1] == 0xBF && s[i + 2] == 0xBD) {
                /* a literal U+FFFD in the token would look like a rendering failure */
                put_bytes(o, s + i, 3);
                i += 3;
            } else if (k > 0) {
                put(o, (const char *)s + i, k);
                i += k;
            } else {
                /* collect the whole run of undecodable bytes into one "<..>" group */
                size_t j = i;
                while (j < n && s[j] >= 0x80 && utf8_decode_one(s + j, n - j, NULL) == 0) j++;
                put_bytes(o, s + i, j - i);
                i = j;
            }
        }
    }
}

size_t token_label_bytes_ex(const uint8_t *bytes, size_t n, unsigned flags, TokenGlyphFn has_glyph, void *ctx,
                            char *buf, size_t cap) {
    if (!buf || cap == 0) return 0;
    if (!bytes) n = 0;
    Glyphs g = {has_glyph, ctx};
    LabelOut count = {NULL, 0, 0, 0};
    walk(bytes, n, flags, &g, &count);
    LabelOut o = {buf, 0, cap - 1, 0};
    if (count.len > cap - 1) {
        /* keep room for "…" when cap allows it; otherwise just cut */
        size_t el = sizeof ELLIPSIS - 1;
        o.limit = cap - 1 >= el ? cap - 1 - el : 0;
        walk(bytes, n, flags, &g, &o);
        if (cap - 1 >= o.len + el) {
            memcpy(buf + o.len, ELLIPSIS, el);
            o.len += el;
        }
    } else {
        walk(bytes, n, flags, &g, &o);
    }
    buf[o.len] = '\0';
    return o.len;
}

size_t token_label_bytes(const uint8_t *bytes, size_t n, unsigned flags, char *buf, size_t cap) {
    return token_label_bytes_ex(bytes, n, flags, NULL, NULL, buf, cap);
}

int token_glyph_in_ttf(void *ttf_font, uint32_t cp) {
    return ttf_font && TTF_GlyphIsProvided32((TTF_Font *)ttf_font, cp) != 0;
}

size_t token_label(const Tokenizer *tok, int id, unsigned flags, char *buf, size_t cap) {
    return token_label_ex(tok, id, flags, NULL, NULL, buf, cap);
}

size_t token_label_ex(const Tokenizer *tok, int id, unsigned flags, TokenGlyphFn has_glyph, void *ctx, char *buf,
                      size_t cap) {
    size_t n = 0;
    const uint8_t *b = tok ? tok_token_bytes(tok, id, &n) : NULL;
    if (!b) {
        if (!buf || cap == 0) return 0;
        int w = snprintf(buf, cap, "<id %d?>", id);
        size_t len = w < 0 ? 0 : (size_t)w;
        return len < cap ? len : cap - 1;
    }
    return token_label_bytes_ex(b, n, flags, has_glyph, ctx, buf, cap);
}

const char *token_label_gpt2(const Tokenizer *tok, int id) {
    const char *t = tok ? tok_token_text(tok, id) : NULL;
    return t ? t : "?";
}

int token_bytes_are_partial(const uint8_t *bytes, size_t n) {
    if (!bytes || n == 0) return 0;
    return !utf8_validate(bytes, n, NULL);
}
