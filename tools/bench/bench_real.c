/* bench_real.c — the speed a user gets (issue 38): a model folder written with
 * --write-model's random weights, opened exactly as `--model DIR` opens it (the weights
 * are the file's mapping, the trace is the default one), stepped with session_step, the
 * call `generate` and the window make, so the sampler, the records and the checks of a
 * step are in the figure. Each figure is the median of the rounds' medians, each round
 * reading the stream floor just before its steps (the machine may be shared); the floor
 * of the model's bytes is the floor buffer's rate times those bytes. Also: the time from
 * opening to the first token (load + first prefill + the sampler), the lean trace of an
 * 8 GiB laptop (--trace-mb as `auto` sets it there), and the window's step (session_step
 * + frame_fill of the default views: the frame's model work, no drawing). The bounds are
 * issue 38's; PASS/FAIL is text, the bench never fails. */
#include "bench_real.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "bench.h"
#include "frame_fill.h"
#include "gpt2_memory.h"
#include "gpt2_save.h"
#include "gpt2_trace.h"
#include "kernels.h"
#include "session.h"

static const struct BenchShape {
    const char *name;
    int L, NH, C;
} SHAPES[] = {{"124M", 12, 12, 768}, {"355M", 24, 16, 1024}, {"774M", 36, 20, 1280}, {"1558M", 48, 25, 1600}};
enum { N_SHAPES = sizeof SHAPES / sizeof SHAPES[0], N_SMALL = 2 };

int bench_shape_config(const char *name, Gpt2Config *cfg) {
    for (size_t k = 0; k < N_SHAPES; k++)
        if (strcmp(name, SHAPES[k].name) == 0) {
            *cfg = (Gpt2Config){.n_layer = SHAPES[k].L, .n_head = SHAPES[k].NH, .n_embd = SHAPES[k].C,
                                .n_positions = 1024, .vocab_size = 50257, .ln_eps = 1e-5f};
            return 0;
        }
    return -1;
}

#define ROUNDS 5
#define STEPS 8 /* consecutive tokens a round times: generate's loop */
#define CTX_SHORT 16
#define CTX_LONG 1000

typedef struct Fig {
    double ms, x, x_lo, x_hi; /* medians over the rounds; range of x */
    double fwd;               /* median of the steps' forward pass (gpt2_step and its check) */
    long computed, timed;     /* steps that ran the model / steps timed (a redo row is no step) */
} Fig;

static uint64_t g_seed = 1000;

/* ROUNDS x (floor, then STEPS session_step from the current position, then back): the
 * session is at ctx - 1 tokens when called and is left there. After stepping back the
 * redo rows are forgotten and each round draws with a new seed, so every step runs the
 * model (a step over the same token again would be a redo row: no forward pass; the
 * figure says if one was). `frame` adds the window's frame_fill after each step. */
static Fig time_steps(Session *s, const BenchBuf *fb, double model_bytes, int threads, int frame) {
    Fig f = {0};
    double ms[ROUNDS], x[ROUNDS], fw[ROUNDS], t[STEPS], tf[STEPS];
    ErrorMsg err;
    kern_set_threads(threads);
    thread_governor_init(&s->threads, threads); /* generate's governor, on this many at most */
    VizView view = frame_default_view();
    VizFrame vf;
    int r = 0;
    for (; r < ROUNDS; r++) {
        session_set_seed(s, g_seed++);
        double fl = bench_floor_ms(fb, fb->n * sizeof(float), 3) * model_bytes / (double)(fb->n * sizeof(float));
        int n = 0, before = s->n_steps;
        for (; n < STEPS; n++) {
            double t0 = bench_now();
            if (session_step(s, &err)) break;
            if (frame) frame_fill(&vf, s, &view);
            t[n] = (bench_now() - t0) * 1e3;
            tf[n] = s->last_step_ms;
        }
        f.computed += s->n_steps - before;
        f.timed += n;
        session_back(s, n);
        s->memo_len = session_len(s); /* no redo rows: the next round runs the model again */
        if (n == 0) break;
        ms[r] = bench_median(t, (size_t)n);
        fw[r] = bench_median(tf, (size_t)n);
        x[r] = ms[r] / fl;
    }
    if (r == 0) return f;
    f.ms = bench_median(ms, (size_t)r);
    f.fwd = bench_median(fw, (size_t)r);
    f.x = bench_median(x, (size_t)r); /* sorted: [0] min, [r-1] max */
    f.x_lo = x[0];
    f.x_hi = x[r - 1];
    return f;
}

static const char *verdict(double x, double bound) { return x <= bound ? "PASS" : "FAIL"; }

static void print_fig(const char *what, const Fig *f, double bound) {
    printf(" %s %7.1f (%4.2fx, %4.2f-%4.2f)", what, f->ms, f->x, f->x_lo, f->x_hi);
    if (bound > 0) printf(" <=%.2fx %s", bound, verdict(f->x, bound));
    if (f->computed < f->timed) printf(" [%ld of %ld steps were redo rows]", f->timed - f->computed, f->timed);
}

static void random_ids(int *ids, int n, uint64_t seed) {
    for (int i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        ids[i] = (int)((seed >> 33) % 50257u);
    }
}

/* Opens dir as --model does (trace_budget 0 = the default trace) and prefills n ids at
 * 2 threads; returns the ms from open to the first token's record. */
static double open_at(Session *s, const char *dir, const char *tok_dir, size_t budget, const int *ids, int n,
                      ErrorMsg *err) {
    SessionConfig sc = session_config_default();
    sc.trace_budget = budget;
    kern_set_threads(2);
    double t0 = bench_now();
    if (session_open_cfg(s, dir, tok_dir, &sc, err)) return -1;
    if (session_set_prompt_ids(s, ids, (size_t)n, err)) {
        session_free(s);
        return -1;
    }
    return (bench_now() - t0) * 1e3;
}

void bench_remove_model(const char *dir) {
    char p[600];
    snprintf(p, sizeof p, "%s/model.safetensors", dir);
    unlink(p);
    snprintf(p, sizeof p, "%s/config.json", dir);
    unlink(p);
    rmdir(dir);
}

static void one_model(const struct BenchShape *sh, KernDtype dt, const char *root, const char *tok_dir,
                      const BenchBuf *fb) {
    char dir[512];
    ErrorMsg err;
    Gpt2Config cfg;
    bench_shape_config(sh->name, &cfg);
    snprintf(dir, sizeof dir, "%s/%s-%s", root, sh->name, kern_dtype_name(dt));
    Gpt2Model m;
    double t0 = bench_now();
    if (gpt2_model_init_random_as(&m, &cfg, 42, dt, &err) || gpt2_model_save(&m, dir, &err)) {
        printf("  %s %s: %s\n", sh->name, kern_dtype_name(dt), err.text);
        gpt2_model_free(&m);
        bench_remove_model(dir);
        return;
    }
    const double bytes = (double)gpt2_model_weight_bytes(&m), wsec = bench_now() - t0;
    gpt2_model_free(&m);

    static int ids[CTX_LONG];
    random_ids(ids, CTX_LONG, 7 + (uint64_t)cfg.n_layer);
    Session s;
    double first = open_at(&s, dir, tok_dir, 0, ids, CTX_SHORT - 1, &err);
    if (first < 0) {
        printf("  %s %s: %s\n", sh->name, kern_dtype_name(dt), err.text);
        bench_remove_model(dir);
        return;
    }
    printf("  %-5s %-4s %6.0f MB written in %.1f s; open to first token %.0f ms (load %.0f ms, mapped)\n",
           sh->name, kern_dtype_name(dt), bytes / 1e6, wsec, first, s.model.load_seconds * 1e3);
    Fig f[2];
    for (int th = 1; th <= 2; th++) f[th - 1] = time_steps(&s, fb, bytes, th, 0);
    printf("        ctx %4d default:", CTX_SHORT);
    for (int th = 0; th < 2; th++) print_fig(th ? "| 2 thr" : "1 thr", &f[th], 1.3);
    printf("\n");
    /* where a step goes: the forward pass against the rest of session_step (the sampler's
     * record over the vocabulary, the trace's bookkeeping), medians of the same steps */
    printf("        ctx %4d of a step, the forward pass: 1 thr %.1f of %.1f ms | 2 thr %.1f of %.1f ms "
           "(the rest: the sampler's record, the session)\n",
           CTX_SHORT, f[0].fwd, f[0].ms, f[1].fwd, f[1].ms);
    if (cfg.n_layer == 48 && dt == KERN_F16)
        printf("        XL F16 tokens/s: 1 thread %.1f (>= 8 %s), 2 threads %.1f (>= 15 %s)\n", 1e3 / f[0].ms,
               1e3 / f[0].ms >= 8 ? "PASS" : "FAIL", 1e3 / f[1].ms, 1e3 / f[1].ms >= 15 ? "PASS" : "FAIL");
    Fig lng[2] = {{0}};
    kern_set_threads(2);
    double pre = bench_now();
    if (session_set_prompt_ids(&s, ids, CTX_LONG - 1, &err)) {
        printf("        ctx %d: %s\n", CTX_LONG, err.text);
    } else {
        pre = bench_now() - pre;
        for (int th = 1; th <= 2; th++) lng[th - 1] = time_steps(&s, fb, bytes, th, 0);
        printf("        ctx %4d default:", CTX_LONG);
        for (int th = 0; th < 2; th++) print_fig(th ? "| 2 thr" : "1 thr", &lng[th], 1.5);
        printf("  (prefill %.1f s)\n", pre);
        /* The floor above counts the weights only, as the issue defines it; a step at this
         * context must also read the keys and values of every earlier position (float32,
         * gpt2_trace.h: 2 x L x ctx x C x 4 bytes, 74 MB for 124M = 30 % of its F16
         * weights). The floor is linear in bytes, so the ratio to it scales by
         * weights / (weights + K/V). Printed beside, never instead. */
        const double kv = 2.0 * cfg.n_layer * (CTX_LONG - 1) * cfg.n_embd * sizeof(float);
        printf("        ctx %4d against the floor of weights + K/V (%.0f MB + %.0f MB): 1 thr %4.2fx | 2 thr %4.2fx\n",
               CTX_LONG, bytes / 1e6, kv / 1e6, lng[0].x * bytes / (bytes + kv), lng[1].x * bytes / (bytes + kv));
        Fig w = time_steps(&s, fb, bytes, 2, 1);
        printf("        ctx %4d window step (session_step + frame_fill, default views), 2 threads: %.1f ms, "
               "%.2fx generate's <=1.20x %s\n",
               CTX_LONG, w.ms, w.ms / lng[1].ms, verdict(w.ms / lng[1].ms, 1.2));
    }
    session_free(&s);

    /* the lean trace: what --trace-mb auto keeps on an 8 GiB laptop (gpt2_memory.c) */
    size_t budget = gpt2_trace_budget_for((size_t)8 << 30, 0, (size_t)bytes);
    if (gpt2_trace_bytes(&cfg, 1024, GPT2_CAP_DEFAULT) <= budget) {
        printf("        lean trace: an 8 GiB laptop keeps the default trace (%.0f MB <= %.0f MB)\n",
               (double)gpt2_trace_bytes(&cfg, 1024, GPT2_CAP_DEFAULT) / 1e6, (double)budget / 1e6);
    } else if (open_at(&s, dir, tok_dir, budget, ids, CTX_SHORT - 1, &err) < 0) {
        printf("        lean trace (--trace-mb %.0f): %s\n", (double)budget / 1e6, err.text);
    } else {
        Fig l16[2], l1k[2] = {{0}};
        for (int th = 1; th <= 2; th++) l16[th - 1] = time_steps(&s, fb, bytes, th, 0);
        kern_set_threads(2);
        int long_ok = session_set_prompt_ids(&s, ids, CTX_LONG - 1, &err) == 0;
        for (int th = 1; th <= 2 && long_ok; th++) l1k[th - 1] = time_steps(&s, fb, bytes, th, 0);
        printf("        lean trace (--trace-mb %.0f, the 8 GiB budget), x lean/default time <= 1.15:\n",
               (double)budget / 1e6);
        for (int c = 0; c < 2; c++) {
            const Fig *l = c ? l1k : l16, *d = c ? lng : f;
            printf("          ctx %4d:", c ? CTX_LONG : CTX_SHORT);
            for (int th = 0; th < 2; th++) {
                /* q: the times' ratio (the bound's); qx: the ratio of each to its own rounds'
                 * floor, which cancels a change of the machine's bandwidth between the two
                 * runs (on the 2-core VM one run's five 2-thread rounds of 774M F32 gave 0.92-1.61x) */
                double q = d[th].ms > 0 ? l[th].ms / d[th].ms : 0, qx = d[th].x > 0 ? l[th].x / d[th].x : 0;
                printf(" %d thr %7.1f ms (%4.2fx floor) %.2fx %s (floor-relative %.2fx)%s", th + 1, l[th].ms, l[th].x, q,
                       l[th].ms > 0 ? verdict(q, 1.15) : "-", qx, th ? "\n" : " |");
            }
        }
        session_free(&s);
    }
    bench_remove_model(dir);
}

void bench_real(const BenchBuf *fb, const char *tok_dir, int big, const char *only, int only_dt) {
    const char *tmp = getenv("TMPDIR");
    char root[256];
    snprintf(root, sizeof root, "%s/inferscope-real.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    size_t n = big || only ? N_SHAPES : N_SMALL;
    printf("\nreal path (issue 38): a model folder (random weights, --write-model), opened as --model opens it\n"
           "(weights mapped from the file), default trace, session_step as generate and the window call it.\n"
           "ms/token: median of %d rounds of %d tokens; x = / the stream floor of the model's bytes read just\n"
           "before each round (same threads; the range of x over the rounds); 2 threads = the session's\n"
           "thread governor with 2 at most, as generate runs. Bounds: ctx %d <= 1.30x, ctx %d <= 1.50x.\n",
           ROUNDS, STEPS, CTX_SHORT, CTX_LONG);
    if (!big && !only) printf("(774M and 1558M: bench --big)\n");
    double disk = 0, ram = 0;
    for (size_t k = 0; k < n; k++) {
        Gpt2Config cfg;
        if (only && strcmp(only, SHAPES[k].name) != 0) continue;
        bench_shape_config(SHAPES[k].name, &cfg);
        double f32 = (double)gpt2_config_n_params(&cfg, 1) * 4.0, tr = (double)gpt2_trace_bytes(&cfg, 1024, GPT2_CAP_DEFAULT);
        if (f32 > disk) disk = f32;
        if (f32 * 2 + tr > ram) ram = f32 * 2 + tr; /* the random model in memory while its file is written */
    }
    struct statvfs vs;
    double avail = statvfs(tmp && *tmp ? tmp : "/tmp", &vs) == 0 ? (double)vs.f_bavail * (double)vs.f_frsize : -1;
    printf("needs: %.1f GB of disk in %s (one model at a time, removed after; %.1f GB free) and %.1f GB of RAM\n",
           disk / 1e9, tmp && *tmp ? tmp : "/tmp", avail / 1e9, ram / 1e9);
    if (avail >= 0 && avail < disk * 1.05) {
        printf("  not enough disk: skipped\n");
        return;
    }
    if (!mkdtemp(root)) {
        printf("  cannot create %s: skipped\n", root);
        return;
    }
    for (size_t k = 0; k < n; k++)
        for (int d = 0; d < 2 && (!only || strcmp(only, SHAPES[k].name) == 0); d++)
            if (only_dt < 0 || only_dt == (d ? KERN_F16 : KERN_F32))
                one_model(&SHAPES[k], d ? KERN_F16 : KERN_F32, root, tok_dir, fb);
    rmdir(root);
    kern_set_threads(2);
}
