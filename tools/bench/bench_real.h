/* bench_real.h — the real path of `make bench` (bench_real.c): model folders of every
 * GPT-2 shape opened as --model opens them, stepped as generate and the window step. */
#ifndef BENCH_REAL_H
#define BENCH_REAL_H

#include "bench.h"
#include "gpt2_config.h"

/* The config of a GPT-2 shape by name (124M, 355M, 774M, 1558M); -1 if unknown. */
int bench_shape_config(const char *name, Gpt2Config *cfg);

/* Removes a model folder gpt2_model_save wrote (its two files, then the folder). */
void bench_remove_model(const char *dir);

/* 124M and 355M, F32 and F16 (big: also 774M and 1558M; only: that shape alone, NULL =
 * all; only_dt: KERN_F32 or KERN_F16 alone, -1 = both), judged by fb's stream rate. */
void bench_real(const BenchBuf *fb, const char *tok_dir, int big, const char *only, int only_dt);

#endif
