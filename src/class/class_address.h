/* class_address.h — where the class room listens: `ADDR:PORT` as the teacher writes it
 * (IPv4 `192.168.1.20:8765`, IPv6 `[fe80::1]:8765`; port 0 = any free port), or, when
 * nothing is given, the first IPv4 address of an interface that is up and not loopback
 * (getifaddrs). Never all interfaces unless written (`0.0.0.0`); no LAN interface and
 * no address is an error, not a fallback. Not the server (class_server.c). */
#ifndef CLASS_ADDRESS_H
#define CLASS_ADDRESS_H

#include <sys/socket.h>

#include "error.h"

#define CLASS_DEFAULT_PORT 8765

typedef struct ClassAddress {
    struct sockaddr_storage sa; /* family, address and port, ready for bind() */
    socklen_t sa_len;
    char host[64];              /* the address as text ("192.168.1.20", "::1") */
    int port;
    int any;                    /* 1: the teacher wrote a wildcard (0.0.0.0 or ::) */
} ClassAddress;

/* Parses text. -1 with err naming the flag and the problem. */
int class_address_parse(const char *text, ClassAddress *out, ErrorMsg *err);

/* The default: the first up, non-loopback IPv4 interface, port CLASS_DEFAULT_PORT. -1
 * with err when there is none ("give --class-address ADDR:PORT"). */
int class_address_default(ClassAddress *out, ErrorMsg *err);

/* "http://HOST:PORT/" (IPv6 in brackets) into out (cap bytes). */
void class_address_url(const ClassAddress *a, char *out, size_t cap);

#endif
