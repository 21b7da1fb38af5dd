/* class_server.h — the class room on the network: libmicrohttpd's own thread accepts
 * connections within fixed limits (connections in all and per address, memory per
 * connection, an idle timeout), collects at most CLASS_MAX_BODY bytes of a body, and
 * hands each request to class_http_handle under ONE lock that the teacher's side takes
 * too (class_server_lock) before it touches the room. Thin on purpose: every decision is
 * in class_http.c, where the tests and the fuzzer reach it without sockets.
 *
 * Usage:
 *     ClassRoom room; class_room_init(&room, ...);
 *     ClassServer srv; if (class_server_start(&srv, &room, &addr, 4, &err)) ...
 *     fprintf(stderr, "class: %s code %s\n", srv.url, room.code);
 *     class_server_lock(&srv); class_room_open(&room, ...); class_server_unlock(&srv);
 *     class_server_stop(&srv); class_room_free(&room); */
#ifndef CLASS_SERVER_H
#define CLASS_SERVER_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "class_address.h"
#include "class_http.h"
#include "class_room.h"

#define CLASS_CONNECTIONS_MAX 1024      /* connections at once */
#define CLASS_CONNECTIONS_PER_ADDR 16   /* connections at once from one address */
#define CLASS_CONNECTION_MEMORY 16384   /* bytes per connection: request line + headers */
#define CLASS_CONNECTION_TIMEOUT_S 10   /* an idle connection is closed after this */

typedef struct ClassServer {
    struct MHD_Daemon *daemon;  /* owned; NULL when stopped */
    pthread_mutex_t lock;       /* guards the room and http */
    int lock_ready;
    ClassHttp *http;            /* owned (its rate table is ~100 KB) */
    ClassPage page;             /* owned */
    ClassAddress addr;          /* where it listens, with the port actually bound */
    char url[96];               /* "http://ADDR:PORT/" */
} ClassServer;

/* Binds addr and starts serving room (borrowed; it must outlive the server) with
 * devices_per_addr device tokens per address; requests must name addr as their Host.
 * A started ClassServer must stay where it is (the handler points into it). -1 with err
 * (the address in use, not ours, no memory) and *s zeroed. */
int class_server_start(ClassServer *s, ClassRoom *room, const ClassAddress *addr, int devices_per_addr,
                       ErrorMsg *err);
/* Stops accepting, waits for the server thread, frees; safe on a zeroed server. */
void class_server_stop(ClassServer *s);

/* Take the lock before touching the room (or s->http) while the server runs. */
void class_server_lock(ClassServer *s);
void class_server_unlock(ClassServer *s);

/* n bytes from the kernel's random source (getrandom): device tokens. ctx unused. */
void class_random_bytes(void *ctx, uint8_t *out, size_t n);
/* A room code of CLASS_CODE_LEN digits, uniform, NUL-terminated. */
void class_random_code(char code[CLASS_CODE_LEN + 1]);

#endif
