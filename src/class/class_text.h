/* class_text.h — what a student types, checked and turned into the model's token: the
 * validation of guesses and nicknames (UTF-8, 1..48 bytes after trimming spaces, no
 * control characters, no bidi overrides), the leading-space rule, and "a guess counts as
 * its first token" (src/class/README.md states both rules). Pure functions: no room, no
 * network. Not an escaper (json_escape.h is). */
#ifndef CLASS_TEXT_H
#define CLASS_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "tokenizer.h"

/* The longest guess or nickname, in bytes, after trimming spaces. */
#define CLASS_TEXT_MAX 48

/* Why a student's request was refused: ONE table (class_error_text) gives each a plain
 * sentence the page shows. CLASS_OK = 0. */
#define CLASS_ERRORS(X)                                                                \
    X(CLASS_OK, "ok")                                                                  \
    X(CLASS_ERR_EMPTY, "Type something first.")                                        \
    X(CLASS_ERR_TOO_LONG, "That is too long: at most 48 bytes.")                       \
    X(CLASS_ERR_UTF8, "That text is not valid UTF-8.")                                 \
    X(CLASS_ERR_CONTROL, "That text holds a control or direction character.")          \
    X(CLASS_ERR_TOKENIZE, "The model cannot read that text.")                          \
    X(CLASS_ERR_CODE, "That is not the room code.")                                    \
    X(CLASS_ERR_LOCKED, "The room is locked: the teacher lets nobody new in.")         \
    X(CLASS_ERR_FULL, "The room is full.")                                             \
    X(CLASS_ERR_NOT_JOINED, "Join the room first.")                                    \
    X(CLASS_ERR_NOT_OPEN, "No round is open: wait for the teacher.")                   \
    X(CLASS_ERR_ALREADY, "You already guessed in this round.")                         \
    X(CLASS_ERR_NOMEM, "The server is out of memory.")                                 \
    X(CLASS_ERR_RATE, "Too many requests: wait a moment.")                             \
    X(CLASS_ERR_DEVICES, "Too many devices joined from this address.")                 \
    X(CLASS_ERR_CODE_TRIES, "Too many wrong codes: wait a minute.")                    \
    X(CLASS_ERR_BAD_FORM, "The request was not understood.")

#define CLASS_ERROR_ENUM(name, text) name,
typedef enum ClassError { CLASS_ERRORS(CLASS_ERROR_ENUM) CLASS_ERR_COUNT } ClassError;
#undef CLASS_ERROR_ENUM

/* The sentence for e (never NULL; an out-of-range e gives the last row's). */
const char *class_error_text(ClassError e);

/* Trims spaces (U+0020 only) at both ends of s[0..n): *start and the returned length. */
size_t class_text_trim(const uint8_t *s, size_t n, size_t *start);

/* Checks an already trimmed text: CLASS_OK, or EMPTY, TOO_LONG (> CLASS_TEXT_MAX bytes),
 * UTF8, CONTROL (C0, DEL, C1, U+2028/2029, U+202A..202E, U+2066..2069). */
ClassError class_text_check(const uint8_t *s, size_t n);

/* The leading-space rule: 1 if a guess g[0..gn) (trimmed, not empty) typed after the
 * text context[0..cn) gets one space in front, else 0 (README: "Leading space"). */
int class_guess_needs_space(const uint8_t *context, size_t cn, const uint8_t *g, size_t gn);

/* A guess as the model reads it. */
typedef struct ClassGuessToken {
    uint8_t text[CLASS_TEXT_MAX + 2]; /* the text encoded: the trimmed guess, maybe a space
                                       * in front; NUL-terminated */
    size_t len;
    int32_t token;                    /* its first token: what the guess counts as */
    int n_tokens;                     /* tokens the text makes (> 1: the model splits it) */
    int32_t second;                   /* the second token when n_tokens > 1, else -1 */
} ClassGuessToken;

/* Trims, checks, applies the space rule after context[0..cn) and encodes with the model's
 * tokenizer (t: not thread-safe, the caller holds the room's lock). CLASS_OK with *out
 * filled, or the refusal (CLASS_ERR_TOKENIZE when the tokenizer refuses the text, e.g.
 * a character a model's own small vocabulary lacks). */
ClassError class_guess_encode(Tokenizer *t, const uint8_t *context, size_t cn, const uint8_t *guess,
                              size_t gn, ClassGuessToken *out);

/* Constant-time equality of two n-byte secrets (device tokens): the time does not say
 * how many leading bytes matched. */
int class_secret_equal(const char *a, const char *b, size_t n);

#endif
