/* omp.h — the OpenMP calls the engine makes, for a build without OpenMP: emcc
 * (WebAssembly) has no OpenMP runtime. Only such builds see this file, through
 * `-isystem engine/no_openmp` in the Makefile's OPENMP flags (test-wasm), beside
 * -fopenmp-simd: the compiler then reads every `#pragma omp` but runs each parallel
 * region once, on the one thread there is, and these calls say so. Native builds use the
 * compiler's own omp.h. */
#ifndef INFERSCOPE_NO_OPENMP_H
#define INFERSCOPE_NO_OPENMP_H

static inline int omp_get_thread_num(void) { return 0; }
static inline int omp_get_num_threads(void) { return 1; }
static inline int omp_get_max_threads(void) { return 1; }
static inline int omp_get_num_procs(void) { return 1; }
static inline void omp_set_num_threads(int n) { (void)n; }

#endif
