/* class_qr.h — the join address as a QR code (libqrencode), so a phone's camera opens
 * the room: the modules as plain bytes the class panel draws (viz/ knows no libqrencode).
 * Not the drawing (viz/panel_class.c). */
#ifndef CLASS_QR_H
#define CLASS_QR_H

#include "error.h"

typedef struct ClassQr {
    unsigned char *modules; /* (size x size) owned, row by row: 1 = dark, 0 = light */
    int size;
} ClassQr;

/* Encodes text (an URL) with error correction level M (15 % of the code may be lost:
 * a projector's glare). -1 with err when libqrencode cannot (too long, no memory). */
int class_qr_encode(ClassQr *q, const char *text, ErrorMsg *err);
/* Frees; safe on a zeroed ClassQr. */
void class_qr_free(ClassQr *q);

#endif
