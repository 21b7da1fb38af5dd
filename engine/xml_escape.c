/* xml_escape.c — see xml_escape.h. */
#include "xml_escape.h"

#include "utf8.h"

/* The UTF-8 of code point cp (< 0x10000 here: pictures and U+FFFD) appended to out. */
static void add_bmp(StrBuf *out, uint32_t cp) {
    char u[3] = {(char)(0xE0 | (cp >> 12)), (char)(0x80 | ((cp >> 6) & 0x3F)), (char)(0x80 | (cp & 0x3F))};
    strbuf_add(out, u, 3);
}

void xml_escape(StrBuf *out, const uint8_t *s, size_t n) {
    for (size_t i = 0; i < n;) {
        uint8_t c = s[i];
        const char *ent = NULL;
        switch (c) {
        case '&': ent = "&amp;"; break;
        case '<': ent = "&lt;"; break;
        case '>': ent = "&gt;"; break;
        case '"': ent = "&quot;"; break;
        case '\'': ent = "&apos;"; break;
        case '\t': ent = "&#9;"; break;
        case '\n': ent = "&#10;"; break;
        case '\r': ent = "&#13;"; break;
        default: break;
        }
        if (ent) {
            strbuf_adds(out, ent);
            i++;
            continue;
        }
        if (c < 0x20) { /* not an XML 1.0 character: its Control Picture */
            add_bmp(out, 0x2400u + c);
            i++;
            continue;
        }
        if (c < 0x80) {
            size_t j = i + 1; /* a run of plain ASCII in one append */
            while (j < n && s[j] >= 0x20 && s[j] < 0x80 && s[j] != '&' && s[j] != '<' && s[j] != '>' &&
                   s[j] != '"' && s[j] != '\'')
                j++;
            strbuf_add(out, s + i, j - i);
            i = j;
            continue;
        }
        uint32_t cp = 0;
        size_t k = utf8_decode_one(s + i, n - i, &cp);
        if (k == 0 || cp == 0xFFFE || cp == 0xFFFF) {
            add_bmp(out, 0xFFFD);
            i += k ? k : 1;
            continue;
        }
        strbuf_add(out, s + i, k);
        i += k;
    }
}
