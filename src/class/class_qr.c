/* class_qr.c — class_qr.h on libqrencode: its QRcode's data bytes carry the module in
 * bit 0 (the other bits say what the module is part of), copied out as 0/1. */
#include "class_qr.h"

#include <errno.h>
#include <qrencode.h>
#include <stdlib.h>
#include <string.h>

int class_qr_encode(ClassQr *q, const char *text, ErrorMsg *err) {
    memset(q, 0, sizeof *q);
    /* version 0: the smallest that holds the text; case-sensitive 8-bit mode (an URL) */
    QRcode *c = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1);
    if (!c) return error_set(err, "QR code of '%.80s': %s", text, strerror(errno));
    size_t n = (size_t)c->width * (size_t)c->width;
    q->modules = malloc(n);
    if (!q->modules) {
        QRcode_free(c);
        return error_set(err, "QR code: out of memory");
    }
    for (size_t i = 0; i < n; i++) q->modules[i] = c->data[i] & 1u;
    q->size = c->width;
    QRcode_free(c);
    return 0;
}

void class_qr_free(ClassQr *q) {
    free(q->modules);
    q->modules = NULL;
    q->size = 0;
}
