/* text_visible.h — text from a file or an argument made safe to echo on a terminal. A
 * model path, a lesson line or a generated token may hold bytes a terminal obeys: ESC
 * starts sequences that move the cursor, retitle the window or rewrite what is shown;
 * BEL rings, backspace and carriage return overwrite; the C1 controls U+0080..U+009F
 * (CSI, OSC among them) do the same in one character. Each such byte is written as
 * "\xNN" (a C1 control: both of its bytes), as is DEL and every byte that is not part of
 * valid UTF-8, so what was in the file is still readable and nothing else happens.
 * Used by error_set (every ErrorMsg), by the CLI's message printer and by the printers of
 * generated text. Not a quoting for shells or JSON (json_escape.h). */
#ifndef TEXT_VISIBLE_H
#define TEXT_VISIBLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TEXT_KEEP_LINES 1u       /* '\n' and '\t' stay as they are (generated text) */
#define TEXT_ESCAPE_BACKSLASH 2u /* '\\' becomes "\\\\", so "\x1B" in the text stays distinct */

/* The visible form of the character at s[0..n) (n >= 1): writes it into piece (at most 8
 * bytes, not NUL-terminated), stores its length in *len and returns how many bytes of s
 * it covers. */
size_t text_visible_piece(const uint8_t *s, size_t n, unsigned flags, char piece[8], size_t *len);

/* The visible form of s[0..n) into out (cap bytes, NUL-terminated, cut at a character
 * boundary when longer). Returns the length written. */
size_t text_visible(char *out, size_t cap, const uint8_t *s, size_t n, unsigned flags);

/* text_visible of a NUL-terminated string (NULL = ""), flags 0; returns out, so it can be
 * a printf argument. TEXT_VISIBLE(buf, s) for an array buf. */
const char *text_visible_cstr(char *out, size_t cap, const char *s);
#define TEXT_VISIBLE(buf, s) text_visible_cstr((buf), sizeof(buf), (s))

/* The visible form of s[0..n) written to f. */
void text_visible_write(FILE *f, const uint8_t *s, size_t n, unsigned flags);

#endif
