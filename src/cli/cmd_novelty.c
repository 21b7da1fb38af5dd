/* cmd_novelty.c — `inferscope novelty`: which parts of a text the model has seen, verbatim,
 * in its training text. Each token is marked "seen" when the n-token window ending at it
 * is in the model's n-gram index (engine/ngram_index.h; the bundled model ships one, real
 * GPT-2 cannot: WebText is not public). The text is a prompt, a file, ids, or the prompt
 * continued by --generate N tokens with the usual sampler flags, which is how a class
 * checks "greedy copies more than sampling". Not a plagiarism checker: a hit means "this
 * window's 32-bit fingerprint is in the set" (false-hit rate in the index's card). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_model.h"
#include "cli_opts.h"
#include "file_read.h"
#include "ngram_index.h"
#include "text_visible.h"

static const char *const CMD = "novelty";

static void usage(void) {
    printf("usage: inferscope novelty [options] (TEXT | --prompt TEXT | --prompt-file P | --ids LIST)\n"
           "\n"
           "Marks every token that ends a run of n tokens (n = 8 for the bundled model) found\n"
           "verbatim in the model's training text, using the n-gram index in the model folder\n"
           "(%s). Prints the text with [brackets] around seen runs, the share of seen tokens\n"
           "and the longest run. With --generate N the prompt is first continued by N tokens\n"
           "(sampler flags and --seed apply) and the share is over the generated tokens.\n"
           "\n%s%s%s"
           "  --generate N      continue the prompt by N tokens first (1..100000)\n"
           "  --index FILE      the n-gram index (default: MODEL/%s)\n"
           "  --json            {\"n\": N, \"seen_share\": X, \"longest_run\": K, \"tokens\": [{\"pos\", \"id\",\n"
           "                    \"text\", \"seen\", \"generated\"}, ...], ...}\n"
           "  --help            this text\n",
           NGRAM_INDEX_FILE, CLI_MODEL_USAGE_MODEL, CLI_MODEL_USAGE_PROMPT, CLI_MODEL_USAGE_SAMPLER,
           NGRAM_INDEX_FILE);
}

/* Tokens ids[0..n) as text, inert on a terminal (text_visible.h): decoded together, so a
 * character split across tokens is written whole. */
static void print_run(const Tokenizer *tok, const int *ids, size_t n) {
    uint8_t *text = NULL;
    size_t len = 0;
    ErrorMsg err;
    if (n && tok_decode(tok, ids, n, &text, &len, &err) == 0) text_visible_write(stdout, text, len, TEXT_KEEP_LINES);
    free(text);
}

/* Text mode: the decoded text with [ ... ] around each stretch of seen tokens. A seen
 * token stands for the whole window ending at it, so the bracket opens n-1 tokens
 * earlier: what is bracketed is exactly text that occurs in the training data. */
static void print_marked(const Tokenizer *tok, const int *ids, size_t n, const unsigned char *seen, int win) {
    size_t covered_until = 0; /* tokens [.., covered_until) lie inside a seen window */
    size_t run = 0;           /* first token not printed yet */
    int open = 0;
    for (size_t i = 0; i < n; i++) {
        /* does a seen window cover token i? (windows end at j >= i, start at j-win+1 <= i) */
        for (size_t j = i; j < n && j < i + (size_t)win; j++)
            if (seen[j]) {
                covered_until = j + 1 > covered_until ? j + 1 : covered_until;
                break;
            }
        int in = i < covered_until;
        if (in != open) {
            print_run(tok, ids + run, i - run);
            run = i;
            fputs(in ? "[" : "]", stdout);
        }
        open = in;
    }
    print_run(tok, ids + run, n - run);
    if (open) fputs("]", stdout);
    fputc('\n', stdout);
}

static void print_json(const Tokenizer *tok, const char *index_path, const NgramIndex *ix, const int *ids,
                       size_t n, size_t n_prompt, int generated, const unsigned char *seen,
                       const NgramSummary *sum) {
    printf("{\"n\": %d, \"index\": ", ix->n);
    cli_json_string(stdout, (const uint8_t *)index_path, strlen(index_path));
    printf(", \"scope\": \"%s\", \"n_tokens\": %zu, \"n_seen\": %zu, \"seen_share\": %.9g, "
           "\"longest_run\": %zu, \"longest_start\": %zu,\n \"tokens\": [",
           generated ? "generated" : "all", sum->n_tokens, sum->n_seen, sum->seen_share, sum->longest_run,
           sum->longest_start);
    for (size_t i = 0; i < n; i++) {
        size_t len;
        const uint8_t *b = tok_token_bytes(tok, ids[i], &len);
        printf(i ? ",\n  {" : "\n  {");
        printf("\"pos\": %zu, \"id\": %d, \"text\": ", i, ids[i]);
        cli_json_string(stdout, b ? b : (const uint8_t *)"", b ? len : 0);
        printf(", \"seen\": %s, \"generated\": %s}", seen[i] ? "true" : "false",
               generated && i >= n_prompt ? "true" : "false");
    }
    printf("]}\n");
}

int cmd_novelty(int argc, char **argv) {
    CliModelArgs a = cli_model_args_default();
    ErrorMsg err;
    int json = 0;
    long generate = 0;
    const char *index_path = NULL;
    const CliOpt opts[] = {
        CLI_FLAG("--json", &json),
        CLI_TEXT_ONCE("--index", &index_path),
        CLI_LONG("--generate", &generate, 1, 100000, NULL),
        CLI_END,
    };
    int r = cli_parse_prompt_command(argc, argv, opts, &a, CLI_OPT_SAMPLER, usage, &err);
    if (r) return r == CLI_PARSE_HELP ? 0 : cli_fail(CMD, "%s", err.text);
    const char *model_dir = a.model_dir ? a.model_dir : cli_default_model_dir();
    char default_index[1200];
    if (!index_path) {
        snprintf(default_index, sizeof default_index, "%s/%s", model_dir, NGRAM_INDEX_FILE);
        index_path = default_index;
        if (!file_exists(index_path)) /* never opened here: a FIFO must not block */
            return cli_fail(CMD, "%s: this model has no n-gram index of its training text (%s), so what it has "
                            "seen cannot be checked (real GPT-2 was trained on WebText, which is not public)",
                            model_dir, NGRAM_INDEX_FILE);
    }
    NgramIndex ix;
    if (ngram_index_load(&ix, index_path, &err)) return cli_fail(CMD, "%s", err.text);
    /* the whole text is measured, prompt and generated tokens; the prompt may be longer
     * than the context when nothing is generated, so no session then: only the tokenizer */
    Session s;
    memset(&s, 0, sizeof s);
    int status = 0;
    unsigned char *seen = NULL;
    int *ids = NULL; /* declared before the first goto: `done` frees own_ids */
    size_t n = 0, n_prompt = 0;
    int *own_ids = NULL;
    if (cli_model_open(&a, &s, 0, 0, &err)) {
        status = cli_fail(CMD, "%s", err.text);
        goto done;
    }
    if (generate) {
        if (cli_model_run_prompt(&a, &s, &err)) {
            status = cli_fail(CMD, "%s", err.text);
            goto done;
        }
        for (long k = 0; k < generate; k++)
            if (session_step(&s, &err)) {
                if (k == 0) {
                    status = cli_fail(CMD, "%s", err.text);
                    goto done;
                }
                fprintf(stderr, "inferscope %s: stopped after %ld tokens: %s\n", CMD, k, err.text);
                break;
            }
        ids = (int *)session_ids(&s);
        n = (size_t)session_len(&s);
        n_prompt = (size_t)s.n_prompt;
    } else {
        if (cli_model_prompt_ids(&a, &s.tok, session_vocab(&s), &own_ids, &n, &err)) {
            status = cli_fail(CMD, "%s", err.text);
            goto done;
        }
        ids = own_ids;
    }
    seen = calloc(n ? n : 1, 1);
    if (!seen) {
        status = cli_fail(CMD, "out of memory");
        goto done;
    }
    NgramSummary sum; /* with --generate the share that matters: of the tokens the model wrote */
    ngram_mark_from(&ix, ids, n, generate ? n_prompt : 0, seen, &sum);
    if (json) {
        print_json(&s.tok, index_path, &ix, ids, n, n_prompt, generate > 0, seen, &sum);
    } else {
        print_marked(&s.tok, ids, n, seen, ix.n);
        printf("%s: %zu of %zu tokens seen (%.1f %%) — each ends a run of %d tokens found verbatim in the "
               "training text; longest run %zu tokens\n",
               generate ? "generated" : "text", sum.n_seen, sum.n_tokens, 100.0 * sum.seen_share, ix.n,
               sum.longest_run);
    }
    if (generate) cli_report_seed(s.seed); /* only --generate draws */
done:
    free(seen);
    free(own_ids);
    session_free(&s);
    ngram_index_free(&ix);
    return status;
}
