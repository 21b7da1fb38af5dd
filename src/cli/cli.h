/* cli.h — the command-line front end: one function per subcommand (src/cmd_*.c),
 * plus the small helpers they share (src/cli/cli_common.c). Every command takes its own
 * argv (argv[0] = command name), prints --help, returns the process exit status:
 * 0 ok, 2 for any error (one line on stderr: "inferscope CMD: problem"). */
#ifndef CLI_H
#define CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"

/* The subcommands, in the order `inferscope --help` lists them: ONE list, read by the
 * declarations below and by main.c's dispatch table and help text. X(name, summary):
 * cmd_<name> is in src/cmd_<name>.c. */
#define CLI_COMMANDS(X)                                                                              \
    X(tokenize, "show how text becomes GPT-2 tokens (ids, pieces, bytes, merges)")                   \
    X(info, "describe a checkpoint: config, parameters, dtype, size, load time")                     \
    X(generate, "generate text token by token")                                                      \
    X(next, "the next-token table at every sampler stage")                                           \
    X(compare, "one prompt continued under 2-4 sampler settings side by side, with the same dice")   \
    X(eval, "mean loss and perplexity of a model over a text file")                                  \
    X(dump, "write intermediate tensors as NumPy .npy files")                                        \
    X(lens, "the logit lens: the prediction after every layer at one position")                      \
    X(attribute, "what each head and MLP adds to one logit (direct logit attribution)")              \
    X(export, "render figures (PNG) headless")                                                       \
    X(convert, "write a checkpoint with F16, BF16 or F32 weight matrices")                           \
    X(novelty, "which runs of a text the model saw verbatim in its training text")                   \
    X(heads, "what each attention head does: previous-token, sink, induction, ... scores")          \
    X(class, "a class room on the local network: students guess the next token against the model")

#define CLI_DECLARE_COMMAND(name, summary) int cmd_##name(int argc, char **argv);
CLI_COMMANDS(CLI_DECLARE_COMMAND)
#undef CLI_DECLARE_COMMAND

/* The window (no subcommand). argv holds the global options (--model, --prompt...). */
int app_main(int argc, char **argv);

/* Bytes read from a file or stdin; `data` is owned (free with cli_bytes_free) and
 * always NUL-terminated one past `len` for convenience (the text may contain NULs). */
typedef struct CliBytes {
    uint8_t *data;
    size_t len;
} CliBytes;

/* Input files the CLI reads whole (a prompt, a text to evaluate or tokenize) are refused
 * above this size: 1 GiB is far more text than any of them can process. */
#define CLI_MAX_INPUT_BYTES ((size_t)1 << 30)

/* Reads a whole file ("-" = standard input) through engine/file_read (regular files
 * only, so a FIFO cannot hang us). Errors name the path. */
int cli_read_file(const char *path, CliBytes *out, ErrorMsg *err);
void cli_bytes_free(CliBytes *b);

/* The one seed rule: every command that draws (next, generate, export, the window) uses
 * seed 0 unless --seed is given, and says which seed it used once it has succeeded,
 * as "inferscope: seed N" on stderr, so any run can be replayed. */
void cli_report_seed(uint64_t seed);

/* Writes text[0..len) and a newline to f with every control character, C1 control and
 * non-UTF-8 byte as \xNN (text_visible.h): for any message that echoes a file's text or
 * an argument. */
void cli_print_line(FILE *f, const char *text, size_t len);

/* Prints "inferscope CMD: message" to stderr and returns 2 (the error exit status). The
 * message's control characters (a newline included) are printed as \xNN (cli_print_line). */
int cli_fail(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The one check that standard output took everything written to it: flushes it and
 * returns 0, or -1 with err = "cannot write the output (standard output: No space left
 * on device)" when a write failed now or earlier (ferror). main.c calls it once after
 * every command and the window; streaming commands (generate) call it after each token
 * so that they stop at the first lost write. */
int cli_output_check(ErrorMsg *err);

/* Writes s[0..n) as a JSON string literal (with quotes): json_escape's JSON_ESCAPE_UTF8
 * mode. Valid UTF-8 passes through; control characters are escaped, and each byte that is
 * not UTF-8 becomes \udcXX (PEP 383 surrogate escape, as Python's os.fsdecode does), so a
 * path or token with such bytes round-trips: os.fsencode(json.loads(text)) is the
 * original bytes. */
void cli_json_string(FILE *f, const uint8_t *s, size_t n);

/* The assets folder: $INFERSCOPE_ASSETS, else <dir of the executable>/../assets (the
 * source tree), else <dir of the executable>/../share/inferscope (after make install),
 * else ./assets. Returned pointer is valid for the life of the process. */
const char *cli_assets_dir(void);

/* The bundled model's directory (assets/models/<name>) — the default for --model. */
const char *cli_default_model_dir(void);

/* The tokenizer folder (assets/tokenizer). */
const char *cli_tokenizer_dir(void);

/* Parses a comma- or space-separated list of token ids ("7454,2402,257").
 * *ids is malloc'd (caller frees). Each id must be in [0, vocab). */
int cli_parse_ids(const char *s, int vocab, int **ids, size_t *n, ErrorMsg *err);

#endif
