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
 *   loss = (1/tokens) * sum_j -log softmax(logits_{j-1})[id_j], summed in double.
 * --per-token prints every counted token's p, surprisal and entropy (engine/token_stats.h);
 * their mean nll is the loss, exactly (the same numbers are added up). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_model.h"
#include "cli_opts.h"
#include "token_stats.h"
#include "text_visible.h"

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
           "(with --json the output is one JSON object instead).\n"
           "\n%s"
           "  --stride S        tokens between window starts, 1..W (default W)\n"
           "  --per-token       one row per counted token: position, id, p, surprisal -log2 p (bits),\n"
           "                    entropy of the distribution it came from (bits), rank (1 = most likely)\n"
           "  --least N         the N least expected tokens (highest surprisal), most surprising first\n"
           "  --json            {\"loss\": X, \"ppl\": X, \"n_tokens\": N, ..., \"tokens\": [...] (--per-token),\n"
           "                    \"least\": [...] (--least)}; rows {\"pos\", \"id\", \"text\", \"p\",\n"
           "                    \"surprisal_bits\", \"entropy_bits\", \"rank\"}\n"
           "  --help            this text\n",
           CLI_MODEL_USAGE_MODEL);
}

/* One counted token: where it is and how expected it was. */
typedef struct EvalRow {
    size_t pos;    /* index in the file's tokens */
    TokenStat st;
} EvalRow;

static void print_row_text(const Tokenizer *tok, const EvalRow *r) {
    const char *t = tok_token_text(tok, r->st.id);
    printf("%8zu %6d %12.6g %10.4f %10.4f %7d  %s\n", r->pos, r->st.id, r->st.p, r->st.surprisal_bits,
           r->st.entropy_bits, r->st.rank, t ? t : "?");
}

static void print_row_json(const Tokenizer *tok, const EvalRow *r) {
    size_t len;
    const uint8_t *b = tok_token_bytes(tok, r->st.id, &len);
    printf("{\"pos\": %zu, \"id\": %d, \"text\": ", r->pos, r->st.id);
    cli_json_string(stdout, b ? b : (const uint8_t *)"", b ? len : 0);
    printf(", \"p\": %.9g, \"surprisal_bits\": %.9g, \"entropy_bits\": %.9g, \"rank\": %d}", r->st.p,
           r->st.surprisal_bits, r->st.entropy_bits, r->st.rank);
}

/* Most surprising first; equal surprisal: earlier position first (a total order, so
 * qsort's instability cannot change the output). */
static int by_surprisal_desc(const void *a, const void *b) {
    const EvalRow *x = a, *y = b;
    if (x->st.nll != y->st.nll) return x->st.nll < y->st.nll ? 1 : -1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static void print_rows(const Tokenizer *tok, const EvalRow *rows, size_t n, int json) {
    for (size_t i = 0; i < n; i++) {
        if (json) {
            printf(i ? ",\n  " : "\n  ");
            print_row_json(tok, &rows[i]);
        } else {
            print_row_text(tok, &rows[i]);
        }
    }
}

/* The one positional argument: the FILE to evaluate (ctx: const char **). */
static int take_file(void *ctx, const char *arg, ErrorMsg *err) {
    const char **file = ctx;
    if (*file) return error_set(err, "give ONE file; extra argument '%.40s'", arg);
    *file = arg;
    return 0;
}

/* Scores the text in windows of W tokens starting every S tokens (the last may be
 * shorter): each token is counted once, predicted from the earlier tokens of the first
 * window that holds it after its start. Appends to rows[*counted..] in file order and
 * adds -log p to *total. Returns 0, or 2 after printing the error line. */
static int score_windows(Session *s, const int *ids, size_t N, size_t W, size_t S, size_t n_windows,
                         const char *file, int *win, EvalRow *rows, double *total, size_t *counted) {
    const size_t V = (size_t)session_vocab(s); /* the real tokens: padding rows are not scored */
    int tty = isatty(STDERR_FILENO);
    size_t next_uncounted = 0;
    ErrorMsg err;
    for (size_t k = 0, start = 0; k < n_windows; k++, start += S) {
        size_t end = start + W < N ? start + W : N;
        for (size_t j = start; j < end; j++) win[j - start] = ids[j];
        if (session_set_prompt_ids(s, win, end - start, &err))
            return cli_fail(CMD, "%s: window %zu: %s", file, k + 1, err.text);
        size_t first = start + 1 > next_uncounted ? start + 1 : next_uncounted;
        if (!gpt2_trace_logits(&s->trace, (int)(end - 1 - start)))
            return cli_fail(CMD, "internal: the trace kept no logits for every position");
        /* The positions are independent: score them on all threads into rows[], then add
         * them up in order on one thread, so the sum (and the printed loss) does not
         * depend on the thread count. */
        long lo = (long)first, hi = (long)end;
        int bad = 0;
#pragma omp parallel for schedule(static) reduction(| : bad)
        for (long j = lo; j < hi; j++) {
            EvalRow *r = &rows[*counted + (size_t)(j - lo)];
            r->pos = (size_t)j;
            bad |= token_stat(gpt2_trace_logits(&s->trace, (int)((size_t)j - 1 - start)), V, ids[j], &r->st);
        }
        if (bad)
            return cli_fail(CMD, "%s: window %zu: the model's logits hold NaN or +inf (broken weights?)", file, k + 1);
        for (long j = lo; j < hi; j++) *total += rows[*counted + (size_t)(j - lo)].st.nll;
        *counted += (size_t)(hi - lo);
        next_uncounted = end;
        /* progress: a live counter on a terminal, a line per ~10% in a log */
        if (n_windows > 1) {
            double so_far = *total / (double)*counted;
            if (tty) fprintf(stderr, "\reval: window %zu/%zu, loss so far %.4f", k + 1, n_windows, so_far);
            else if (n_windows >= 10 && (k + 1) % (n_windows / 10) == 0)
                fprintf(stderr, "eval: window %zu/%zu, loss so far %.4f\n", k + 1, n_windows, so_far);
        }
    }
    if (n_windows > 1 && tty) fputc('\n', stderr);
    return 0;
}

int cmd_eval(int argc, char **argv) {
    CliModelArgs a = cli_model_args_default();
    ErrorMsg err;
    const char *file = NULL;
    long stride = 0, least = 0;
    int json = 0, per_token = 0;
    const CliOpt opts[] = {
        CLI_LONG("--stride", &stride, 1, LONG_MAX, "a whole number >= 1"),
        CLI_LONG("--least", &least, 1, 1000000, NULL),
        CLI_FLAG("--per-token", &per_token),
        CLI_FLAG("--json", &json),
        CLI_END,
    };
    const CliArgs args = {.model = &a, .groups = CLI_OPT_MODEL, .positional = take_file, .ctx = &file, .usage = usage};
    int r = cli_parse_command(argc, argv, opts, &args, &err);
    if (r) return r == CLI_PARSE_HELP ? 0 : cli_fail(CMD, "%s", err.text);
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
    EvalRow *rows = NULL; /* (N) every counted token, in file order */
    if (tok_encode(&s.tok, in.data, in.len, NULL, &enc, &err)) {
        status = cli_fail(CMD, "%s: %s", file, err.text);
        goto done;
    }
    size_t N = enc.n_ids, W = (size_t)s.trace.max_pos;
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
    rows = malloc(N * sizeof *rows);
    if (!win || !rows) {
        status = cli_fail(CMD, "out of memory");
        goto done;
    }
    size_t n_windows = N <= W ? 1 : 1 + (N - W + S - 1) / S;
    double total = 0.0; /* sum of -log p over the counted tokens, in nats */
    size_t counted = 0;
    if ((status = score_windows(&s, enc.ids, N, W, S, n_windows, file, win, rows, &total, &counted))) goto done;
    double loss = total / (double)counted;
    if (json) {
        printf("{\"file\": ");
        cli_json_string(stdout, (const uint8_t *)file, strlen(file));
        printf(", \"model\": ");
        cli_json_string(stdout, (const uint8_t *)s.model.name, strlen(s.model.name));
        printf(", \"bytes\": %zu, \"file_tokens\": %zu, \"context\": %zu, \"stride\": %zu, \"windows\": %zu,\n",
               in.len, N, W, S, n_windows);
        printf(" \"loss\": %.9g, \"ppl\": %.9g, \"n_tokens\": %zu", loss, exp(loss), counted);
        if (per_token) {
            printf(",\n \"tokens\": [");
            print_rows(&s.tok, rows, counted, 1);
            printf("]");
        }
    } else {
        char shown[1024];
        printf("file %s: %zu bytes, %zu tokens\n", TEXT_VISIBLE(shown, file), in.len, N);
        char name[256];
        printf("model %s: context W = %zu, stride S = %zu, %zu window%s\n", TEXT_VISIBLE(name, s.model.name), W, S, n_windows,
               n_windows == 1 ? "" : "s");
        printf("counted %zu tokens (each predicted from the earlier tokens of its window)\n", counted);
        if (per_token) {
            printf("     pos     id            p  surprisal    entropy    rank  token\n"
                   "                                 (bits)     (bits)\n");
            print_rows(&s.tok, rows, counted, 0);
        }
    }
    if (least) {
        size_t n_least = (size_t)least < counted ? (size_t)least : counted;
        qsort(rows, counted, sizeof *rows, by_surprisal_desc);
        if (json) {
            printf(",\n \"least\": [");
            print_rows(&s.tok, rows, n_least, 1);
            printf("]");
        } else {
            printf("the %zu least expected tokens (highest surprisal first):\n", n_least);
            printf("     pos     id            p  surprisal    entropy    rank  token\n");
            print_rows(&s.tok, rows, n_least, 0);
        }
    }
    if (json) printf("}\n");
    else printf("loss=%.6f ppl=%.6f tokens=%zu\n", loss, exp(loss), counted);
done:
    free(win);
    free(rows);
    tok_encoding_free(&enc);
    session_free(&s);
    cli_bytes_free(&in);
    return status;
}
