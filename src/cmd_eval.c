/* cmd_eval.c — `inferscope eval`: how well a model predicts a text file, as the mean
 * cross-entropy loss in nats per token and its perplexity exp(loss). The text is cut into
 * windows of the context size; each window is one prompt run through a Session, and the
 * logits at every position score the token that follows. Not training and not a
 * benchmark of speed (make bench).
 *
 * Exactly what is counted (with W = context size, S = stride, default S = W):
 *   window k covers tokens [k*S, min(k*S + W, N)) of the N tokens of the file;
 *   token j of the window is predicted from the window's tokens before it, and counted
 *   if no earlier window counted it. With S = W (non-overlapping windows) that is every
 *   token except the FIRST OF EACH WINDOW (it has no context inside its window), so
 *   tokens = N - (number of windows). With S < W, the windows overlap and each one counts
 *   only its last S tokens, every one seen with at least W - S tokens of context (slower,
 *   lower loss). No <|endoftext|> is added before the text.
 *   loss = (1/tokens) * sum_j -log softmax(logits_{j-1})[id_j], summed in double. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_model.h"

static const char *const CMD = "eval";

static void usage(void) {
    printf("usage: inferscope eval [options] FILE\n"
           "\n"
           "Mean loss (nats/token) and perplexity of the model over a text file ('-' = stdin).\n"
           "The tokens are cut into windows of the context size W; inside a window each token is\n"
           "predicted from the window's earlier tokens. With the default stride (= W, windows do\n"
           "not overlap) every token except the first of each window is counted. A stride S < W\n"
           "starts a window every S tokens and counts only the S tokens not counted before.\n"
           "The last line is always: loss=<nats/token> ppl=<perplexity> tokens=<counted>\n"
           "\n%s"
           "  --stride S        tokens between window starts, 1..W (default W)\n"
           "  --help            this text\n",
           CLI_MODEL_USAGE_MODEL);
}

/* -log softmax(logits)[target] in double: log sum_i exp(l_i - max) + max - l_target.
 * Subtracting the max keeps every exp() argument <= 0, so nothing overflows. */
static double token_nll(const float *logits, size_t V, int target) {
    double mx = -INFINITY;
    for (size_t i = 0; i < V; i++)
        if (logits[i] > mx) mx = logits[i];
    double sum = 0.0;
    for (size_t i = 0; i < V; i++) sum += exp((double)logits[i] - mx);
    return log(sum) + mx - (double)logits[target];
}

int cmd_eval(int argc, char **argv) {
    CliModelArgs a;
    cli_model_args_init(&a);
    ErrorMsg err;
    const char *file = NULL;
    long stride = 0;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        int r = cli_model_parse(&a, CLI_OPT_MODEL, argc, argv, &i, &err);
        if (r < 0) return cli_fail(CMD, "%s", err.text);
        if (r > 0) continue;
        if (strcmp(o, "--help") == 0 || strcmp(o, "-h") == 0) {
            usage();
            return 0;
        } else if (strcmp(o, "--stride") == 0) {
            if (i + 1 >= argc) return cli_fail(CMD, "--stride needs a value (see --help)");
            char *end;
            stride = strtol(argv[++i], &end, 10);
            if (*argv[i] == 0 || *end || stride < 1)
                return cli_fail(CMD, "--stride: '%s' is not a whole number >= 1", argv[i]);
        } else if (o[0] == '-' && o[1] != 0) {
            return cli_fail(CMD, "unknown option '%s' (see --help)", o);
        } else if (file) {
            return cli_fail(CMD, "give ONE file; extra argument '%.40s'", o);
        } else {
            file = o;
        }
    }
    if (!file) return cli_fail(CMD, "no FILE given (see --help)");

    CliBytes in = {0};
    if (cli_read_file(file, &in, &err)) return cli_fail(CMD, "%s", err.text);
    Session s;
    if (cli_model_open(&a, &s, 0, 0, &err)) {
        cli_bytes_free(&in);
        return cli_fail(CMD, "%s", err.text);
    }
    int status = 0;
    TokEncoding enc = {0};
    int *win = NULL;
    double *nll = NULL; /* (W) -log p of each token scored in the current window */
    if (tok_encode(&s.tok, in.data, in.len, NULL, &enc, &err)) {
        status = cli_fail(CMD, "%s: %s", file, err.text);
        goto done;
    }
    size_t N = enc.n_ids, W = (size_t)s.trace.max_pos, V = (size_t)session_vocab(&s); /* the real tokens: padding rows are not scored */
    if (N < 2) {
        status = cli_fail(CMD, "%s: %zu token%s: at least 2 are needed to predict one", file, N, N == 1 ? "" : "s");
        goto done;
    }
    if (stride > (long)W) {
        status = cli_fail(CMD, "--stride: %ld is larger than the context of %zu tokens", stride, W);
        goto done;
    }
    size_t S = stride ? (size_t)stride : W;
    win = malloc(W * sizeof *win);
    nll = malloc(W * sizeof *nll);
    if (!win || !nll) {
        status = cli_fail(CMD, "out of memory");
        goto done;
    }
    size_t n_windows = N <= W ? 1 : 1 + (N - W + S - 1) / S;
    int tty = isatty(STDERR_FILENO);
    double total = 0.0; /* sum of -log p over the counted tokens, in nats */
    size_t counted = 0, next_uncounted = 0;
    for (size_t k = 0, start = 0; k < n_windows; k++, start += S) {
        size_t end = start + W < N ? start + W : N;
        for (size_t j = start; j < end; j++) win[j - start] = enc.ids[j];
        if (session_set_prompt_ids(&s, win, end - start, &err)) {
            status = cli_fail(CMD, "%s: window %zu: %s", file, k + 1, err.text);
            goto done;
        }
        size_t first = start + 1 > next_uncounted ? start + 1 : next_uncounted;
        if (!gpt2_trace_logits(&s.trace, (int)(end - 1 - start))) {
            status = cli_fail(CMD, "internal: the trace kept no logits for every position");
            goto done;
        }
        /* The positions are independent: score them on all threads into nll[], then add
         * them up in order on one thread, so the sum (and the printed loss) does not
         * depend on the thread count. */
        long lo = (long)first, hi = (long)end;
#pragma omp parallel for schedule(static)
        for (long j = lo; j < hi; j++)
            nll[j - lo] = token_nll(gpt2_trace_logits(&s.trace, (int)((size_t)j - 1 - start)), V, enc.ids[j]);
        for (long j = lo; j < hi; j++) total += nll[j - lo];
        counted += (size_t)(hi - lo);
        next_uncounted = end;
        /* progress: a live counter on a terminal, a line per ~10% in a log */
        if (n_windows > 1) {
            if (tty) fprintf(stderr, "\reval: window %zu/%zu, loss so far %.4f", k + 1, n_windows, total / (double)counted);
            else if (n_windows >= 10 && (k + 1) % (n_windows / 10) == 0)
                fprintf(stderr, "eval: window %zu/%zu, loss so far %.4f\n", k + 1, n_windows, total / (double)counted);
        }
    }
    if (n_windows > 1 && tty) fputc('\n', stderr);
    double loss = total / (double)counted;
    printf("file %s: %zu bytes, %zu tokens\n", file, in.len, N);
    printf("model %s: context W = %zu, stride S = %zu, %zu window%s\n", s.model.name, W, S, n_windows,
           n_windows == 1 ? "" : "s");
    printf("counted %zu tokens (each predicted from the earlier tokens of its window)\n", counted);
    printf("loss=%.6f ppl=%.6f tokens=%zu\n", loss, exp(loss), counted);
done:
    free(win);
    free(nll);
    tok_encoding_free(&enc);
    session_free(&s);
    cli_bytes_free(&in);
    return status;
}
