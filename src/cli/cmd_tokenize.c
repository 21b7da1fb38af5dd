/* cmd_tokenize.c — `inferscope tokenize`: shows how a text becomes GPT-2 tokens, as a
 * table (index, id, the piece as written in encoder.json, its bytes, its text), with
 * --explain the BPE merges of every word in the order they happen, or just the ids, or
 * JSON. Only printing: the tokenizer itself is engine/tokenizer.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_opts.h"
#include "tokenizer.h"
#include "utf8.h"

static const char USAGE[] =
    "usage: inferscope tokenize [options] (TEXT | --file PATH | -)\n"
    "\n"
    "Splits TEXT into GPT-2 tokens exactly as OpenAI's encoder.py does and shows them.\n"
    "  TEXT              the text (one argument; quote it). '-' reads standard input.\n"
    "  --file PATH       read the text from a file (any bytes, NULs included)\n"
    "  --explain         also list, word by word, the BPE merges in the order applied\n"
    "                    (a word's first 200 merges, each line its first 40 parts)\n"
    "  --ids             print only the token ids, space-separated\n"
    "  --json            print one JSON object (ids, tokens, words, merges)\n"
    "  --special         treat the text \"<|endoftext|>\" as the special token 50256\n"
    "                    (default: it is ordinary text, as in encoder.py)\n"
    "  --replace-invalid replace invalid UTF-8 by U+FFFD (default: refuse, naming the byte)\n"
    "  --tokenizer DIR   folder with encoder.json and vocab.bpe (default: assets/tokenizer)\n"
    "  --help            this text\n"
    "\n"
    "The table's piece column is the token as written in encoder.json: GPT-2 shows each\n"
    "byte as a printable character, so a space is 'Ġ' and a newline 'Ċ'.\n";

typedef enum { OUT_TABLE, OUT_IDS, OUT_JSON } OutMode;

/* Prints bytes as readable text inside quotes: valid UTF-8 as is, controls (C1 too) and
 * the bytes of partial/invalid characters as escapes (\n, \t, \x9F...). */
static void print_visible(FILE *f, const uint8_t *s, size_t n) {
    fputc('"', f);
    for (size_t i = 0; i < n;) {
        uint8_t c = s[i];
        if (c == '\n') fputs("\\n", f);
        else if (c == '\t') fputs("\\t", f);
        else if (c == '\r') fputs("\\r", f);
        else if (c == '"') fputs("\\\"", f);
        else if (c == '\\') fputs("\\\\", f);
        else if (c < 0x20 || c == 0x7F) fprintf(f, "\\x%02x", c);
        else if (c < 0x80) fputc(c, f);
        else {
            uint32_t cp = 0;
            size_t k = utf8_decode_one(s + i, n - i, &cp);
            if (k == 0) {
                fprintf(f, "\\x%02x", c); /* part of a character split across tokens */
                i++;
                continue;
            }
            if (cp <= 0x9F) { /* a C1 control (CSI, OSC...): a terminal would obey it */
                fprintf(f, "\\x%02x\\x%02x", c, s[i + 1]);
                i += 2;
                continue;
            }
            fwrite(s + i, 1, k, f);
            i += k;
            continue;
        }
        i++;
    }
    fputc('"', f);
}

/* Printed width (in terminal cells, roughly: one per code point) of a UTF-8 string. */
static size_t text_width(const char *s) {
    size_t w = 0;
    for (; *s; s++) w += ((uint8_t)*s & 0xC0) != 0x80;
    return w;
}

static void print_padded(FILE *f, const char *s, size_t width) {
    fputs(s, f);
    for (size_t w = text_width(s); w < width; w++) fputc(' ', f);
}

static void print_table(const Tokenizer *t, const TokEncoding *e) {
    printf("%zu tokens from %zu bytes (%zu words)\n", e->n_ids, e->text_len, e->n_pieces);
    printf("%5s %6s  %-16s %-20s %s\n", "index", "id", "piece", "bytes", "text");
    for (size_t i = 0; i < e->n_ids; i++) {
        size_t len;
        const uint8_t *b = tok_token_bytes(t, e->ids[i], &len);
        printf("%5zu %6d  ", i, e->ids[i]);
        print_padded(stdout, tok_token_text(t, e->ids[i]), 16);
        putchar(' ');
        for (size_t k = 0; k < len; k++) printf(k ? " %02x" : "%02x", b[k]);
        for (size_t w = len ? 3 * len - 1 : 0; w < 20; w++) putchar(' ');
        putchar(' ');
        print_visible(stdout, b, len);
        putchar('\n');
    }
}

/* --explain shows each word after every merge, which costs the square of its length: a
 * 10,000-byte word would print 122 MB. So a word is followed for its first
 * EXPLAIN_MAX_MERGES merges, each line shows its first EXPLAIN_MAX_PARTS parts, and a
 * line says what was left out (--json lists every merge, one short record each). */
enum { EXPLAIN_MAX_MERGES = 200, EXPLAIN_MAX_PARTS = 40 };

/* The word's current parts (tok/plen, see print_explain), at most EXPLAIN_MAX_PARTS. */
static void print_parts(const Tokenizer *t, const int32_t *tok, const size_t *plen, size_t len, size_t n_parts) {
    size_t shown = 0;
    for (size_t i = 0; i < len && shown < EXPLAIN_MAX_PARTS; i += plen[i], shown++)
        printf(" %s", tok_token_text(t, tok[i]));
    if (shown < n_parts) printf(" ... (%zu more parts)", n_parts - shown);
    putchar('\n');
}

/* --explain: every word starts as its single-byte tokens; each merge joins two adjacent
 * parts into the next-ranked pair's token, and the word is shown after every step. */
static void print_explain(const Tokenizer *t, const TokEncoding *e) {
    printf("\nBPE merges, word by word (rank = line of vocab.bpe; lower merges first):\n");
    size_t cap = 0;
    for (size_t p = 0; p < e->n_pieces; p++)
        if (e->pieces[p].len > cap) cap = e->pieces[p].len;
    int32_t *tok = malloc((cap ? cap : 1) * sizeof *tok);  /* part starting at byte i */
    size_t *plen = malloc((cap ? cap : 1) * sizeof *plen); /* its length, 0 = inside a part */
    if (!tok || !plen) {
        free(tok);
        free(plen);
        fprintf(stderr, "inferscope tokenize: out of memory\n");
        return;
    }
    for (size_t p = 0; p < e->n_pieces; p++) {
        const TokPiece *pc = &e->pieces[p];
        printf("\nword %zu ", p);
        print_visible(stdout, e->text + pc->start, pc->len);
        printf(" (bytes %zu..%zu): %zu merge%s -> %zu token%s\n", pc->start, pc->start + pc->len,
               pc->n_merges, pc->n_merges == 1 ? "" : "s", pc->n_tokens, pc->n_tokens == 1 ? "" : "s");
        if (pc->special) {
            printf("  special token %d, no merges\n", TOK_EOT);
            continue;
        }
        for (size_t i = 0; i < pc->len; i++) {
            tok[i] = t->byte_token[e->text[pc->start + i]];
            plen[i] = 1;
        }
        printf("  %-36s", "bytes:");
        print_parts(t, tok, plen, pc->len, pc->len);
        size_t shown = pc->n_merges < EXPLAIN_MAX_MERGES ? pc->n_merges : EXPLAIN_MAX_MERGES;
        for (size_t k = 0; k < shown; k++) {
            const TokMerge *m = &e->merges[pc->first_merge + k];
            size_t a = m->offset;
            if (a >= pc->len || !plen[a] || a + plen[a] >= pc->len) break; /* cannot happen */
            size_t b = a + plen[a];
            tok[a] = m->merged;
            plen[a] += plen[b];
            plen[b] = 0;
            char step[160];
            snprintf(step, sizeof step, "rank %5d: %s + %s -> %s", m->rank, tok_token_text(t, m->left),
                     tok_token_text(t, m->right), tok_token_text(t, m->merged));
            printf("  ");
            print_padded(stdout, step, 36);
            print_parts(t, tok, plen, pc->len, pc->len - k - 1);
        }
        if (shown < pc->n_merges)
            printf("  ... merges of this %zu-byte word: first %zu of %zu shown (--json lists them all)\n", pc->len,
                   shown, pc->n_merges);
    }
    free(tok);
    free(plen);
}

static void print_json(const Tokenizer *t, const TokEncoding *e, int with_merges) {
    printf("{\"text\": ");
    cli_json_string(stdout, e->text, e->text_len);
    printf(", \"ids\": [");
    for (size_t i = 0; i < e->n_ids; i++) printf(i ? ", %d" : "%d", e->ids[i]);
    printf("],\n \"tokens\": [");
    for (size_t i = 0; i < e->n_ids; i++) {
        size_t len;
        const uint8_t *b = tok_token_bytes(t, e->ids[i], &len);
        const char *piece = tok_token_text(t, e->ids[i]);
        printf("%s\n  {\"index\": %zu, \"id\": %d, \"piece\": ", i ? "," : "", i, e->ids[i]);
        cli_json_string(stdout, (const uint8_t *)piece, strlen(piece));
        printf(", \"bytes_hex\": \"");
        for (size_t k = 0; k < len; k++) printf("%02x", b[k]);
        printf("\", \"text\": ");
        cli_json_string(stdout, b, len);
        printf("}");
    }
    printf("],\n \"words\": [");
    for (size_t p = 0; p < e->n_pieces; p++) {
        const TokPiece *pc = &e->pieces[p];
        printf("%s\n  {\"start\": %zu, \"end\": %zu, \"text\": ", p ? "," : "", pc->start, pc->start + pc->len);
        cli_json_string(stdout, e->text + pc->start, pc->len);
        printf(", \"first_token\": %zu, \"n_tokens\": %zu, \"special\": %s", pc->first_token, pc->n_tokens,
               pc->special ? "true" : "false");
        if (with_merges) {
            printf(", \"merges\": [");
            for (size_t k = 0; k < pc->n_merges; k++) {
                const TokMerge *m = &e->merges[pc->first_merge + k];
                printf("%s{\"rank\": %d, \"left\": %d, \"right\": %d, \"merged\": %d, \"offset\": %zu}",
                       k ? ", " : "", m->rank, m->left, m->right, m->merged, m->offset);
            }
            printf("]");
        }
        printf("}");
    }
    printf("]}\n");
}

/* The one positional argument: TEXT (ctx: const char **). */
static int take_text(void *ctx, const char *arg, ErrorMsg *err) {
    const char **text = ctx;
    if (*text) return error_set(err, "give the text as ONE argument (quote it); extra '%s'", arg);
    *text = arg;
    return 0;
}

static void usage(void) { fputs(USAGE, stdout); }

int cmd_tokenize(int argc, char **argv) {
    const char *cmd = "tokenize";
    int mode = OUT_TABLE, explain = 0, special = 0, replace = 0;
    const char *file = NULL, *text = NULL, *tok_dir = NULL;
    const CliOpt opts[] = {
        CLI_FLAG("--explain", &explain),
        CLI_FLAG_SET("--ids", &mode, OUT_IDS),
        CLI_FLAG_SET("--json", &mode, OUT_JSON),
        CLI_FLAG("--special", &special),
        CLI_FLAG("--replace-invalid", &replace),
        CLI_TEXT("--file", &file),
        CLI_TEXT("--tokenizer", &tok_dir),
        CLI_END,
    };
    const CliArgs args = {.positional = take_text, .ctx = &text, .usage = usage};
    ErrorMsg err;
    int r = cli_parse_command(argc, argv, opts, &args, &err);
    if (r) return r == CLI_PARSE_HELP ? 0 : cli_fail(cmd, "%s", err.text);
    TokEncodeOptions opt = {0};
    opt.allow_special = special != 0;
    if (replace) opt.utf8 = TOK_UTF8_REPLACE;
    if (!text && !file) return cli_fail(cmd, "no text: give TEXT, --file PATH or - (see --help)");
    if (text && file) return cli_fail(cmd, "give either TEXT or --file, not both");
    if (explain) opt.record_merges = true;

    CliBytes in = {0};
    const char *source = "TEXT";
    if (file || strcmp(text, "-") == 0) {
        source = file ? file : "stdin";
        if (cli_read_file(file ? file : "-", &in, &err)) return cli_fail(cmd, "%s", err.text);
    }
    Tokenizer tok = {0};
    if (tok_load(&tok, tok_dir ? tok_dir : cli_tokenizer_dir(), &err)) {
        cli_bytes_free(&in);
        return cli_fail(cmd, "%s", err.text);
    }
    const uint8_t *bytes = in.data ? in.data : (const uint8_t *)text;
    size_t len = in.data ? in.len : strlen(text); /* argv strings cannot hold NULs; files can */
    TokEncoding enc = {0};
    int status = 0;
    if (tok_encode(&tok, bytes, len, &opt, &enc, &err)) {
        status = cli_fail(cmd, "%s: %s%s", source, err.text,
                          strstr(err.text, "UTF-8") ? " (--replace-invalid maps it to U+FFFD)" : "");
    } else if (mode == OUT_IDS) {
        for (size_t i = 0; i < enc.n_ids; i++) printf(i ? " %d" : "%d", enc.ids[i]);
        putchar('\n');
    } else if (mode == OUT_JSON) {
        print_json(&tok, &enc, explain);
    } else {
        print_table(&tok, &enc);
        if (explain) print_explain(&tok, &enc);
    }
    tok_encoding_free(&enc);
    tok_free(&tok);
    cli_bytes_free(&in);
    return status;
}
