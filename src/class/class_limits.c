/* class_limits.c — the per-address rate table (class_limits.h). */
#include "class_limits.h"

#include <string.h>

void class_limits_init(ClassLimits *l, int devices_per_addr) {
    memset(l, 0, sizeof *l);
    l->devices_per_addr = devices_per_addr >= 1 ? devices_per_addr : CLASS_DEVICES_PER_ADDR;
}

ClassAddrSlot *class_limits_slot(ClassLimits *l, const char *addr, double now) {
    if (!addr || !addr[0]) addr = "?"; /* an unknown address still gets a slot (one, shared) */
    ClassAddrSlot *free_slot = NULL, *oldest = NULL;
    for (int i = 0; i < CLASS_LIMIT_SLOTS; i++) {
        ClassAddrSlot *s = &l->slot[i];
        if (!s->addr[0]) {
            if (!free_slot) free_slot = s;
            continue;
        }
        if (strncmp(s->addr, addr, CLASS_ADDR_MAX - 1) == 0) return s;
        if (!oldest || s->last < oldest->last) oldest = s;
    }
    ClassAddrSlot *s = free_slot ? free_slot : oldest;
    memset(s, 0, sizeof *s);
    strncpy(s->addr, addr, CLASS_ADDR_MAX - 1);
    s->tokens = CLASS_RATE_BURST;
    s->last = now;
    s->bad_since = now;
    return s;
}

int class_limits_take(ClassAddrSlot *s, double now) {
    if (now > s->last) {
        s->tokens += (now - s->last) * CLASS_RATE_PER_S;
        if (s->tokens > CLASS_RATE_BURST) s->tokens = CLASS_RATE_BURST;
        s->last = now;
    }
    if (s->tokens < 1.0) return 0;
    s->tokens -= 1.0;
    return 1;
}

int class_limits_code_allowed(const ClassAddrSlot *s, double now) {
    return now - s->bad_since >= CLASS_CODE_WINDOW_S || s->bad_codes < CLASS_CODE_TRIES;
}

void class_limits_code_wrong(ClassAddrSlot *s, double now) {
    if (now - s->bad_since >= CLASS_CODE_WINDOW_S) {
        s->bad_since = now;
        s->bad_codes = 0;
    }
    s->bad_codes++;
}
