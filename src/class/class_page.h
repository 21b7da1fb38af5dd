/* class_page.h — the student page, assembled once from the files compiled into the
 * program (src/class/page.html, page.css, page.js, embedded by scripts/embed-files.sh):
 * the CSS and JS go inline into the HTML, and the Content-Security-Policy admits exactly
 * those two by their SHA-256, nothing else (no external resource can load, no injected
 * script can run). Not a template engine: the page is the same bytes for everybody; all
 * that changes comes as JSON from /state. */
#ifndef CLASS_PAGE_H
#define CLASS_PAGE_H

#include <stddef.h>

#include "error.h"

typedef struct ClassPage {
    char *html;       /* the whole page, NUL-terminated; owned */
    size_t len;
    char csp[512];    /* the Content-Security-Policy header's value */
} ClassPage;

/* Builds the page and its policy. -1 with err on no memory or a page file without its
 * <style></style> / <script></script> places. */
int class_page_build(ClassPage *p, ErrorMsg *err);
/* Frees the page; safe on a zeroed one. */
void class_page_free(ClassPage *p);

#endif
