/* class_page.c — the student page and its Content-Security-Policy (class_page.h). */
#include "class_page.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

/* made by the Makefile from src/class/page.* (scripts/embed-files.sh) */
extern const unsigned char CLASS_PAGE_HTML[], CLASS_PAGE_CSS[], CLASS_PAGE_JS[];
extern const unsigned long CLASS_PAGE_HTML_LEN, CLASS_PAGE_CSS_LEN, CLASS_PAGE_JS_LEN;

/* 'sha256-BASE64' of s[0..n) into out (at least 64 bytes): CSP Level 2's hash source. */
static int csp_hash(const unsigned char *s, size_t n, char *out) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int md_len = 0;
    if (!EVP_Digest(s, n, md, &md_len, EVP_sha256(), NULL) || md_len != 32) return -1;
    memcpy(out, "'sha256-", 8);
    int k = EVP_EncodeBlock((unsigned char *)out + 8, md, (int)md_len); /* 44 characters */
    out[8 + k] = '\'';
    out[9 + k] = 0;
    return 0;
}

int class_page_build(ClassPage *p, ErrorMsg *err) {
    memset(p, 0, sizeof *p);
    const char *html = (const char *)CLASS_PAGE_HTML;
    const char *style = strstr(html, "<style></style>");
    const char *script = strstr(html, "<script></script>");
    if (!style || !script || script < style)
        return error_set(err, "class page: page.html lacks its <style></style> and <script></script> places");
    size_t a = (size_t)(style - html) + strlen("<style>");
    size_t b = (size_t)(script - html) + strlen("<script>");
    size_t n = CLASS_PAGE_HTML_LEN + CLASS_PAGE_CSS_LEN + CLASS_PAGE_JS_LEN;
    p->html = malloc(n + 1);
    if (!p->html) return error_set(err, "class page: out of memory");
    char *o = p->html;
    memcpy(o, html, a), o += a;
    memcpy(o, CLASS_PAGE_CSS, CLASS_PAGE_CSS_LEN), o += CLASS_PAGE_CSS_LEN;
    memcpy(o, html + a, b - a), o += b - a;
    memcpy(o, CLASS_PAGE_JS, CLASS_PAGE_JS_LEN), o += CLASS_PAGE_JS_LEN;
    memcpy(o, html + b, CLASS_PAGE_HTML_LEN - b), o += CLASS_PAGE_HTML_LEN - b;
    *o = 0;
    p->len = n;
    char h_css[64], h_js[64];
    if (csp_hash(CLASS_PAGE_CSS, CLASS_PAGE_CSS_LEN, h_css) || csp_hash(CLASS_PAGE_JS, CLASS_PAGE_JS_LEN, h_js)) {
        class_page_free(p);
        return error_set(err, "class page: SHA-256 failed");
    }
    snprintf(p->csp, sizeof p->csp,
             "default-src 'none'; script-src %s; style-src %s; connect-src 'self'; img-src data:; "
             "base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
             h_js, h_css);
    return 0;
}

void class_page_free(ClassPage *p) {
    free(p->html);
    memset(p, 0, sizeof *p);
}
