/* class_address.c — parsing ADDR:PORT and finding the LAN address (class_address.h). */
#include "class_address.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char FLAG[] = "--class-address";

int class_address_parse(const char *text, ClassAddress *out, ErrorMsg *err) {
    memset(out, 0, sizeof *out);
    char eq[ERROR_QUOTE_CAP];
    const char *colon;
    char host[64];
    if (!text || !*text) return error_set(err, "%s: empty (want ADDR:PORT, e.g. 192.168.1.20:8765)", FLAG);
    if (text[0] == '[') {
        const char *close = strchr(text, ']');
        if (!close || close[1] != ':' || (size_t)(close - text - 1) >= sizeof host)
            return error_set(err, "%s: '%s' is not [IPv6]:PORT", FLAG, ERROR_QUOTE(eq, text));
        memcpy(host, text + 1, (size_t)(close - text - 1));
        host[close - text - 1] = 0;
        colon = close + 1;
    } else {
        colon = strrchr(text, ':');
        if (!colon || (size_t)(colon - text) >= sizeof host || colon == text)
            return error_set(err, "%s: '%s' is not ADDR:PORT (e.g. 192.168.1.20:8765)", FLAG, ERROR_QUOTE(eq, text));
        memcpy(host, text, (size_t)(colon - text));
        host[colon - text] = 0;
    }
    char *end;
    long port = strtol(colon + 1, &end, 10);
    if (colon[1] < '0' || colon[1] > '9' || *end || port < 0 || port > 65535)
        return error_set(err, "%s: port '%s' is not a number in [0, 65535]", FLAG, ERROR_QUOTE(eq, colon + 1));
    struct sockaddr_in *v4 = (struct sockaddr_in *)&out->sa;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&out->sa;
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)port);
        out->sa_len = sizeof *v4;
        out->any = v4->sin_addr.s_addr == htonl(INADDR_ANY);
    } else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)port);
        out->sa_len = sizeof *v6;
        out->any = memcmp(&v6->sin6_addr, &in6addr_any, sizeof in6addr_any) == 0;
    } else {
        return error_set(err, "%s: '%s' is not an IPv4 or IPv6 address (names are not looked up)", FLAG,
                         ERROR_QUOTE(eq, host));
    }
    snprintf(out->host, sizeof out->host, "%s", host);
    out->port = (int)port;
    return 0;
}

int class_address_default(ClassAddress *out, ErrorMsg *err) {
    memset(out, 0, sizeof *out);
    struct ifaddrs *list = NULL;
    if (getifaddrs(&list) != 0) return error_set(err, "%s: cannot list the network interfaces", FLAG);
    int found = 0;
    for (struct ifaddrs *i = list; i && !found; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
        if (!(i->ifa_flags & IFF_UP) || (i->ifa_flags & IFF_LOOPBACK)) continue;
        struct sockaddr_in *v4 = (struct sockaddr_in *)&out->sa;
        memcpy(v4, i->ifa_addr, sizeof *v4);
        v4->sin_port = htons(CLASS_DEFAULT_PORT);
        out->sa_len = sizeof *v4;
        inet_ntop(AF_INET, &v4->sin_addr, out->host, sizeof out->host);
        out->port = CLASS_DEFAULT_PORT;
        found = 1;
    }
    freeifaddrs(list);
    if (!found)
        return error_set(err, "%s: no network interface is up besides loopback; give ADDR:PORT (e.g. 127.0.0.1:%d)",
                         FLAG, CLASS_DEFAULT_PORT);
    return 0;
}

void class_address_url(const ClassAddress *a, char *out, size_t cap) {
    int v6 = a->sa.ss_family == AF_INET6;
    snprintf(out, cap, "http://%s%s%s:%d/", v6 ? "[" : "", a->host, v6 ? "]" : "", a->port);
}
