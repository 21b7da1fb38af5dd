/* class_limits.h — what one network address may do: a token bucket of requests (so a
 * scripted loop cannot flood the room), the device tokens it has taken, and its wrong room
 * codes per minute. A fixed table of CLASS_LIMIT_SLOTS addresses; when full, the least
 * recently seen address is forgotten. Time comes from the caller (seconds, monotonic), so
 * the rules are pure and tested without waiting. Not a firewall: libmicrohttpd's
 * connection limits (class_server.c) come first. */
#ifndef CLASS_LIMITS_H
#define CLASS_LIMITS_H

#define CLASS_LIMIT_SLOTS 1024
#define CLASS_ADDR_MAX 64            /* an address as text: IPv6 with scope fits */
#define CLASS_RATE_PER_S 8.0         /* requests a second, on average */
#define CLASS_RATE_BURST 32.0        /* requests at once */
#define CLASS_DEVICES_PER_ADDR 4     /* device tokens per address (--class-devices-per-address) */
#define CLASS_CODE_TRIES 5           /* wrong room codes per address per CLASS_CODE_WINDOW_S */
#define CLASS_CODE_WINDOW_S 60.0

typedef struct ClassAddrSlot {
    char addr[CLASS_ADDR_MAX]; /* "" = free */
    double tokens;             /* requests it may still send now */
    double last;               /* when it was last seen (refill reference) */
    int devices;               /* device tokens it took */
    int bad_codes;             /* wrong codes since bad_since */
    double bad_since;
} ClassAddrSlot;

typedef struct ClassLimits {
    ClassAddrSlot slot[CLASS_LIMIT_SLOTS];
    int devices_per_addr;      /* CLASS_DEVICES_PER_ADDR unless configured */
} ClassLimits;

/* An empty table with devices_per_addr (>= 1) devices per address. */
void class_limits_init(ClassLimits *l, int devices_per_addr);

/* The slot of addr (found, or made: a new address starts with a full bucket). */
ClassAddrSlot *class_limits_slot(ClassLimits *l, const char *addr, double now);

/* One request from the slot's address: 1 allowed (a token taken), 0 over the rate. */
int class_limits_take(ClassAddrSlot *s, double now);

/* 1 if the address may try another room code now. */
int class_limits_code_allowed(const ClassAddrSlot *s, double now);
/* Records a wrong code. */
void class_limits_code_wrong(ClassAddrSlot *s, double now);

#endif
