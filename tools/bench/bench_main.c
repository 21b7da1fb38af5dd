/* bench_main.c — `make bench`: speed of the engine, every figure a median divided by a bound
 * measured in the same run (bench_floor.c), printed with the kernel table (ISA) and the
 * thread count that produced it:
 *   - the bounds: stream-read floor and FMA peak for every kernel table, 1 and 2 threads;
 *   - decode and prefill of a GPT-2 124M-shaped random model, F32 and F16 weights, on
 *     every table (bench_decode.c), and the logit lens, attribution and journey per step
 *     against one decode step (bench_lens.c);
 *   - the bundled model as a user meets it (bench_bundled.c), the memorisation index
 *     (bench_ngram.c), the tokenizer.
 * `bench --all-isas` adds the plain-C table; `bench --write-model DIR --shape 1558M
 * --weights f16` writes a random model folder (for memory measurements) and exits.
 * Prints, never fails; about two minutes on 2 idle cores. Not a test. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_lens.h"
#include "bench_bundled.h"
#include "bench_ngram.h"
#include "bench_real.h"
#include "bench_tokenizer.h"
#include "cli.h"
#include "cli_model.h"
#include "gpt2_save.h"
#include "kernels.h"
#include "threads_wait.h"

static void print_cpu(void) {
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    if (f) {
        while (fgets(line, sizeof line, f))
            if (strncmp(line, "model name", 10) == 0) {
                char *c = strchr(line, ':');
                printf("cpu: %s", c ? c + 2 : line);
                break;
            }
        fclose(f);
    }
    const char *isas[4];
    size_t n = kern_isa_available(isas, 4);
    printf("kernel tables this CPU runs (chosen at run time; INFERSCOPE_ISA forces one):");
    for (size_t i = 0; i < n; i++) printf(" %s", isas[i]);
    char wait[64];
    threads_wait_describe(wait, sizeof wait);
    printf("\ndefault: %s — %s; cores seen by OpenMP: %d; figures at 1 and 2 threads; idle threads: %s\n"
           "(the app's own setting; OMP_WAIT_POLICY=passive or active, or GOMP_SPINCOUNT=N, overrides it)\n",
           kern_isa_name(), kern_isa_what(), omp_get_num_procs(), wait);
}

/* The bounds themselves, per table and thread count, for the record. */
static void print_bounds(const BenchBuf *fb, size_t bytes) {
    const char *isas[4];
    size_t n = kern_isa_available(isas, 4);
    printf("\nbounds (medians): stream-read of %.0f MB | FMA peak\n", (double)bytes / 1e6);
    ErrorMsg err;
    for (size_t i = 0; i < n; i++) {
        kern_select_isa(isas[i], &err);
        printf("  %-7s", isas[i]);
        for (int th = 1; th <= 2; th++) {
            kern_set_threads(th);
            double ms = bench_floor_ms(fb, bytes, 7);
            printf("  %d thread%s %6.2f ms (%5.1f GB/s) %6.1f GFLOP/s", th, th > 1 ? "s" : " ", ms,
                   (double)bytes / ms / 1e6, bench_fma_gflops());
        }
        printf("\n");
    }
    kern_select_isa("auto", &err);
}

/* --write-model DIR --shape S --weights W [--seed N] */
static int write_model(int argc, char **argv) {
    const char *dir = NULL, *shape = "124M";
    int weights = KERN_F16;
    unsigned long long seed = 42;
    ErrorMsg err;
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--write-model") == 0) dir = argv[++i];
        else if (strcmp(argv[i], "--shape") == 0) shape = argv[++i];
        else if (strcmp(argv[i], "--seed") == 0) seed = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--weights") == 0 && cli_parse_weights(argv[++i], &weights, &err)) {
            fprintf(stderr, "bench: %s\n", err.text);
            return 2;
        }
    }
    Gpt2Config cfg;
    if (dir && bench_shape_config(shape, &cfg) == 0) {
        Gpt2Model m;
        if (weights == GPT2_WEIGHTS_AS_STORED) weights = KERN_F32;
        if (gpt2_model_init_random_as(&m, &cfg, seed, (KernDtype)weights, &err) || gpt2_model_save(&m, dir, &err)) {
            fprintf(stderr, "bench: %s\n", err.text);
            return 2;
        }
        printf("%s: random GPT-2 %s shape, %s matrices, %zu parameters\n", dir, shape, kern_dtype_name(m.w.dtype),
               m.n_params);
        gpt2_model_free(&m);
        return 0;
    }
    fprintf(stderr, "bench: --write-model DIR --shape 124M|355M|774M|1558M [--weights f32|f16|bf16] [--seed N]\n");
    return 2;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0); /* show each figure as it is measured, even through a pipe */
    threads_wait_briefly(argv); /* the app's thread behaviour (threads_wait.c) */
    int all_isas = 0, decode_only = 0, big = 0, real_only = 0, web = 0;
    int only_dt = -1; /* --weights: the real path in that dtype alone */
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: bench [--all-isas] [--big]  speed figures with their bounds (a few minutes on 2 idle cores)\n"
                   "       bench --lens          only the inside-the-model row (lens, attribution; about 15 s)\n"
                   "       bench --decode        only the bounds and the decode targets (about 25 s)\n"
                   "       bench --real [--big]  only the bounds and the real path (model folders, session\n"
                   "                             steps); --big adds 774M and 1558M (the disk and RAM they\n"
                   "                             need are printed first); --shape S: that shape alone;\n"
                   "                             --weights f32|f16: that weight dtype alone\n"
                   "       bench --web           the bounds, the decode targets and the bundled model (make bench-web\n"
                   "                             runs it in a browser and natively, side by side)\n"
                   "       bench --write-model DIR --shape 124M|355M|774M|1558M [--weights f32|f16|bf16] [--seed S]\n");
            return 0;
        }
        if (strcmp(argv[i], "--write-model") == 0) return write_model(argc, argv);
        if (strcmp(argv[i], "--all-isas") == 0) all_isas = 1;
        if (strcmp(argv[i], "--decode") == 0) decode_only = 1;
        if (strcmp(argv[i], "--big") == 0) big = 1;
        if (strcmp(argv[i], "--real") == 0) real_only = 1;
        if (strcmp(argv[i], "--shape") == 0 && i + 1 < argc) {
            Gpt2Config c;
            only = argv[++i];
            if (bench_shape_config(only, &c)) {
                fprintf(stderr, "bench: --shape '%s': not 124M, 355M, 774M or 1558M\n", only);
                return 2;
            }
        }
        if (strcmp(argv[i], "--weights") == 0 && i + 1 < argc) {
            ErrorMsg err;
            if (cli_parse_weights(argv[++i], &only_dt, &err) || (only_dt != KERN_F32 && only_dt != KERN_F16)) {
                fprintf(stderr, "bench: --weights '%s': the real path runs f32 or f16\n", argv[i]);
                return 2;
            }
        }
        if (strcmp(argv[i], "--web") == 0) web = 1;
        if (strcmp(argv[i], "--lens") == 0) {
            print_cpu();
            return bench_lens_124m();
        }
    }
    print_cpu();
    /* the floor buffer: as large as the F32 weights of 124M (the F16 floor reads its first half) */
    const size_t f32_bytes = (size_t)124439808 * 4;
    BenchBuf fb;
    if (bench_buf_init(&fb, f32_bytes)) printf("bench: no memory for the floor buffer\n");
    print_bounds(&fb, f32_bytes);
    if (!real_only) bench_decode(&fb, all_isas, decode_only || web);
    if (!decode_only && !web) bench_real(&fb, cli_tokenizer_dir(), big, only, only_dt);
    bench_buf_free(&fb);
    if (decode_only || real_only) return 0;
    if (web) {
        printf("\n");
        bench_bundled(cli_default_model_dir(), cli_tokenizer_dir());
        return 0;
    }

    printf("\n");
    kern_set_threads(2);
    bench_bundled(cli_default_model_dir(), cli_tokenizer_dir());
    printf("\n");
    bench_ngram(cli_default_model_dir());
    printf("\n");
    bench_tokenizer(cli_tokenizer_dir());
    return 0;
}
