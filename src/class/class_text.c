/* class_text.c — checking what a student typed and turning a guess into the model's first
 * token (class_text.h; the rules are written in src/class/README.md). */
#include "class_text.h"

#include <string.h>

#include "utf8.h"

#define CLASS_ERROR_TEXT(name, text) text,
static const char *const ERROR_TEXT[] = {CLASS_ERRORS(CLASS_ERROR_TEXT)};
#undef CLASS_ERROR_TEXT

const char *class_error_text(ClassError e) {
    if ((int)e < 0 || e >= CLASS_ERR_COUNT) e = CLASS_ERR_COUNT - 1;
    return ERROR_TEXT[e];
}

size_t class_text_trim(const uint8_t *s, size_t n, size_t *start) {
    size_t a = 0, b = n;
    while (a < b && s[a] == ' ') a++;
    while (b > a && s[b - 1] == ' ') b--;
    *start = a;
    return b - a;
}

/* Code points that would let a text hide or disguise itself when shown: C0 controls,
 * DEL, C1 controls, the line and paragraph separators, and the bidi embeddings,
 * overrides and isolates (a nickname "\u202Eevil" displays reversed). */
static int refused_code_point(uint32_t cp) {
    return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029 ||
           (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

ClassError class_text_check(const uint8_t *s, size_t n) {
    if (n == 0) return CLASS_ERR_EMPTY;
    if (n > CLASS_TEXT_MAX) return CLASS_ERR_TOO_LONG;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t k = utf8_decode_one(s + i, n - i, &cp);
        if (k == 0) return CLASS_ERR_UTF8;
        if (refused_code_point(cp)) return CLASS_ERR_CONTROL;
        i += k;
    }
    return CLASS_OK;
}

static size_t count_byte(const uint8_t *s, size_t n, uint8_t c) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++) k += s[i] == c;
    return k;
}

int class_guess_needs_space(const uint8_t *context, size_t cn, const uint8_t *g, size_t gn) {
    if (cn == 0 || gn == 0) return 0;
    uint8_t last = context[cn - 1];
    if (last == ' ' || last == '\n' || last == '\t' || last == '\r') return 0;
    if (last == '(' || last == '[' || last == '{') return 0;
    size_t quotes = count_byte(context, cn, '"');
    /* the text just opened a quotation (`said, "`): the guess starts inside it */
    if (last == '"' && quotes % 2 == 1) return 0;
    /* punctuation that attaches to the word before it */
    if (strchr(".,;:!?)]}'%-", g[0]) != NULL) return 0;
    /* a `"` closes the quotation when one is open, else opens one (with a space) */
    if (g[0] == '"') return quotes % 2 == 0;
    return 1;
}

ClassError class_guess_encode(Tokenizer *t, const uint8_t *context, size_t cn, const uint8_t *guess,
                              size_t gn, ClassGuessToken *out) {
    memset(out, 0, sizeof *out);
    out->token = out->second = -1;
    size_t at;
    size_t n = class_text_trim(guess, gn, &at);
    ClassError e = class_text_check(guess + at, n);
    if (e != CLASS_OK) return e;
    size_t sp = (size_t)class_guess_needs_space(context, cn, guess + at, n);
    if (sp) out->text[0] = ' ';
    memcpy(out->text + sp, guess + at, n);
    out->len = sp + n;
    out->text[out->len] = 0;
    TokEncoding enc = {0};
    ErrorMsg err;
    if (tok_encode(t, out->text, out->len, NULL, &enc, &err) != 0 || enc.n_ids == 0) {
        tok_encoding_free(&enc);
        return CLASS_ERR_TOKENIZE;
    }
    out->token = enc.ids[0];
    out->n_tokens = enc.n_ids > 1000 ? 1000 : (int)enc.n_ids;
    out->second = enc.n_ids > 1 ? enc.ids[1] : -1;
    tok_encoding_free(&enc);
    return CLASS_OK;
}

int class_secret_equal(const char *a, const char *b, size_t n) {
    unsigned char d = 0;
    for (size_t i = 0; i < n; i++) d |= (unsigned char)(a[i] ^ b[i]);
    return d == 0;
}
