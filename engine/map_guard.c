/* map_guard.c — see map_guard.h. The handler may run on any thread at any time, so it
 * only reads the table (slots are published with release stores and cleared before the
 * unmap) and only calls async-signal-safe functions (write, _exit, sigaction). */
#include "map_guard.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

typedef struct GuardSlot {
    _Atomic(uintptr_t) start; /* 0 = free */
    size_t len;
    char path[400];
} GuardSlot;

static GuardSlot g_slots[MAP_GUARD_MAX];
static struct sigaction g_previous;
static atomic_int g_installed;

static void put(const char *s) {
    size_t n = strlen(s);
    while (n > 0) {
        ssize_t k = write(STDERR_FILENO, s, n);
        if (k <= 0) return;
        s += k;
        n -= (size_t)k;
    }
}

static void on_sigbus(int sig, siginfo_t *info, void *ctx) {
    uintptr_t a = (uintptr_t)info->si_addr;
    for (int i = 0; i < MAP_GUARD_MAX; i++) {
        uintptr_t s = atomic_load_explicit(&g_slots[i].start, memory_order_acquire);
        if (s && a >= s && a - s < g_slots[i].len) {
            put("inferscope: ");
            put(g_slots[i].path);
            put(": changed on disk while in use (the file was truncated or rewritten); "
                "the weights are gone, so inferscope stops here. Open it again once it is complete.\n");
            _exit(2);
        }
    }
    /* not ours: behave exactly as before we were installed */
    if (g_previous.sa_flags & SA_SIGINFO) {
        g_previous.sa_sigaction(sig, info, ctx);
        return;
    }
    if (g_previous.sa_handler == SIG_IGN) return;
    if (g_previous.sa_handler != SIG_DFL) {
        g_previous.sa_handler(sig);
        return;
    }
    signal(sig, SIG_DFL); /* returning re-runs the access, which now takes the default action */
}

static void install(void) {
    int expected = 0;
    if (!atomic_compare_exchange_strong(&g_installed, &expected, 1)) return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &g_previous);
}

int map_guard_add(const void *addr, size_t len, const char *path) {
    if (!addr || !len) return -1;
    install();
    for (int i = 0; i < MAP_GUARD_MAX; i++) {
        if (atomic_load_explicit(&g_slots[i].start, memory_order_acquire)) continue;
        uintptr_t zero = 0;
        /* reserve the slot with a value no address can have, fill it, then publish */
        if (!atomic_compare_exchange_strong(&g_slots[i].start, &zero, (uintptr_t)1)) continue;
        g_slots[i].len = 0;
        size_t n = strlen(path);
        if (n >= sizeof g_slots[i].path) n = sizeof g_slots[i].path - 1;
        memcpy(g_slots[i].path, path, n);
        g_slots[i].path[n] = 0;
        g_slots[i].len = len;
        atomic_store_explicit(&g_slots[i].start, (uintptr_t)addr, memory_order_release);
        return 0;
    }
    return -1;
}

void map_guard_remove(const void *addr) {
    for (int i = 0; i < MAP_GUARD_MAX; i++)
        if (atomic_load_explicit(&g_slots[i].start, memory_order_acquire) == (uintptr_t)addr)
            atomic_store_explicit(&g_slots[i].start, (uintptr_t)0, memory_order_release);
}
