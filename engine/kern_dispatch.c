/* kern_dispatch.c — which kernel table runs (kern_isa.h): the best instruction set the
 * CPU reports at run time, or the one named by INFERSCOPE_ISA / kern_select_isa (tests
 * and `make bench` use this to run the AVX2 and plain-C paths on an AVX-512 machine).
 * The choice is one process-wide pointer: it describes the hardware, not a session, and
 * every thread must use the same table for the numbers to be reproducible. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kern_isa.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

/* best first */
static const KernIsa *const ALL_ISAS[] = {
#if defined(__x86_64__)
    &kern_isa_avx512,
    &kern_isa_avx2,
#endif
#if defined(__aarch64__)
    &kern_isa_neon,
#endif
#if defined(__wasm_simd128__)
    &kern_isa_simd128,
#endif
    &kern_isa_scalar,
};
#define N_ISAS (sizeof ALL_ISAS / sizeof ALL_ISAS[0])

static _Atomic(const KernIsa *) g_isa;

#if defined(__x86_64__)
/* F16C (CPUID.1:ECX bit 29) read directly: clang's __builtin_cpu_supports does not
 * know "f16c" (Debian 12's clang 14 refuses to compile it: the fuzz build). */
static int cpu_has_f16c(void) {
    unsigned a, b, c, d;
    return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C);
}
#endif

static int isa_supported(const KernIsa *t) {
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (t == &kern_isa_avx512)
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("fma") && cpu_has_f16c();
    if (t == &kern_isa_avx2)
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && cpu_has_f16c();
#endif
    (void)t;
    return 1; /* NEON is part of every ARMv8-A core; a WebAssembly runtime without SIMD128
                 refuses the whole module; plain C runs anywhere */
}

static const KernIsa *best_isa(void) {
    for (size_t i = 0; i < N_ISAS; i++)
        if (isa_supported(ALL_ISAS[i])) return ALL_ISAS[i];
    return &kern_isa_scalar;
}

/* The table called `name` if this CPU can run it; else NULL with err set. */
static const KernIsa *find_isa(const char *name, ErrorMsg *err) {
    if (!name || !*name || strcmp(name, "auto") == 0) return best_isa();
    char offered[96] = "";
    size_t k = 0;
    for (size_t i = 0; i < N_ISAS; i++) {
        if (!isa_supported(ALL_ISAS[i])) continue;
        k += (size_t)snprintf(offered + k, sizeof offered - k, "%s%s", k ? ", " : "", ALL_ISAS[i]->name);
        if (k >= sizeof offered) k = sizeof offered - 1;
    }
    for (size_t i = 0; i < N_ISAS; i++)
        if (strcmp(name, ALL_ISAS[i]->name) == 0) {
            if (isa_supported(ALL_ISAS[i])) return ALL_ISAS[i];
            error_set(err, "kernels '%s' need %s, which this CPU lacks (it offers: %s, auto)", name,
                      ALL_ISAS[i]->what, offered);
            return NULL;
        }
    error_set(err, "unknown kernel instruction set '%.40s' (this CPU offers: %s, auto)", name, offered);
    return NULL;
}

const KernIsa *kern_isa(void) {
    const KernIsa *t = atomic_load_explicit(&g_isa, memory_order_acquire);
    if (t) return t;
    /* First use without kern_select_isa: honour INFERSCOPE_ISA, so a whole test run can
     * be repeated on another path; an invalid value was already refused by main(). */
    ErrorMsg err;
    t = find_isa(getenv("INFERSCOPE_ISA"), &err);
    if (!t) t = best_isa();
    atomic_store_explicit(&g_isa, t, memory_order_release);
    return t;
}

int kern_select_isa(const char *name, ErrorMsg *err) {
    const KernIsa *t = find_isa(name, err);
    if (!t) return -1;
    atomic_store_explicit(&g_isa, t, memory_order_release);
    return 0;
}

const char *kern_isa_name(void) { return kern_isa()->name; }
const char *kern_isa_what(void) { return kern_isa()->what; }

size_t kern_isa_available(const char **names, size_t cap) {
    size_t n = 0;
    for (size_t i = 0; i < N_ISAS; i++)
        if (isa_supported(ALL_ISAS[i]) && n < cap) names[n++] = ALL_ISAS[i]->name;
    return n;
}

const char *kern_dtype_name(KernDtype dt) {
    static const char *const names[KERN_DTYPE_COUNT] = {"F32", "F16", "BF16"};
    return (unsigned)dt < KERN_DTYPE_COUNT ? names[dt] : "?";
}

size_t kern_dtype_size(KernDtype dt) { return dt == KERN_F32 ? 4 : 2; }
