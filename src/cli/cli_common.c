/* cli_common.c — helpers shared by the subcommands: reading input bytes (engine/file_read),
 * the error line, JSON strings on a FILE (engine/json_escape), where the assets are. No
 * model logic here. */
#include "cli.h"
#include "file_read.h"
#include "json_escape.h"
#include "text_visible.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int cli_read_file(const char *path, CliBytes *out, ErrorMsg *err) {
    if (strcmp(path, "-") == 0) return file_read_stream(stdin, "-", CLI_MAX_INPUT_BYTES, &out->data, &out->len, err);
    return file_read_all(path, CLI_MAX_INPUT_BYTES, &out->data, &out->len, err);
}

void cli_bytes_free(CliBytes *b) {
    free(b->data);
    b->data = NULL;
    b->len = 0;
}

void cli_report_seed(uint64_t seed) {
    ErrorMsg lost; /* output that did not arrive is no success: main.c then says so instead */
    if (cli_output_check(&lost) == 0) fprintf(stderr, "inferscope: seed %llu\n", (unsigned long long)seed);
}

int cli_fail(const char *cmd, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    size_t len = n < 0 ? 0 : (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1;
    fprintf(stderr, "inferscope %s: ", cmd);
    cli_print_line(stderr, msg, len);
    return 2;
}

void cli_print_line(FILE *f, const char *text, size_t len) {
    /* an argument or a file's text echoed here (an unknown option, a path, a lesson's
     * model) reaches the terminal inert: controls as \xNN, one line (text_visible.h) */
    text_visible_write(f, (const uint8_t *)text, len, 0);
    fputc('\n', f);
}

int cli_output_check(ErrorMsg *err) {
    errno = 0;
    int flushed = fflush(stdout) == 0;
    if (flushed && !ferror(stdout)) return 0;
    /* errno belongs to this flush; an earlier failed write left only ferror behind */
    return error_set(err, "cannot write the output (standard output: %s)",
                     !flushed && errno ? strerror(errno) : "a write failed");
}

static void file_sink(void *ctx, const char *p, size_t n) { fwrite(p, 1, n, ctx); }

void cli_json_string(FILE *f, const uint8_t *s, size_t n) { json_escape_to(file_sink, f, s, n, JSON_ESCAPE_UTF8); }

static int is_dir(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The assets belong next to the binary: build/inferscope uses ../assets (the source
 * tree), an installed PREFIX/bin/inferscope uses PREFIX/share/inferscope (make install).
 * A candidate counts only if it holds the tokenizer, so a stray folder is not taken. */
const char *cli_assets_dir(void) {
    static char dir[PATH_MAX];
    if (dir[0]) return dir;
    const char *env = getenv("INFERSCOPE_ASSETS");
    if (env && *env) {
        snprintf(dir, sizeof dir, "%s", env);
        return dir;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    char *slash = n > 0 ? (exe[n] = 0, strrchr(exe, '/')) : NULL;
    if (slash) {
        *slash = 0;
        static const char *const rel[] = {"../assets", "../share/inferscope"};
        for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
            char cand[PATH_MAX + 32], tok[PATH_MAX + 64];
            snprintf(cand, sizeof cand, "%s/%s", exe, rel[i]);
            snprintf(tok, sizeof tok, "%s/tokenizer", cand);
            /* realpath: messages then say /usr/local/share/inferscope/..., not bin/../share */
            if (is_dir(tok) && realpath(cand, dir)) return dir;
            dir[0] = 0;
        }
    }
    snprintf(dir, sizeof dir, "assets");
    return dir;
}

const char *cli_default_model_dir(void) {
    static char dir[PATH_MAX + 32];
    if (!dir[0]) snprintf(dir, sizeof dir, "%s/models/stories16m", cli_assets_dir());
    return dir;
}

const char *cli_tokenizer_dir(void) {
    static char dir[PATH_MAX + 32];
    if (!dir[0]) snprintf(dir, sizeof dir, "%s/tokenizer", cli_assets_dir());
    return dir;
}

int cli_parse_ids(const char *s, int vocab, int **ids, size_t *n, ErrorMsg *err) {
    *ids = NULL;
    *n = 0;
    size_t cap = 16, len = 0;
    int *v = malloc(cap * sizeof *v);
    if (!v) return error_set(err, "--ids: out of memory");
    const char *p = s;
    while (*p) {
        while (*p == ',' || *p == ' ' || *p == '\t' || *p == '\n') p++;
        if (!*p) break;
        char *end;
        errno = 0;
        long x = strtol(p, &end, 10);
        if (end == p || errno || (*end && *end != ',' && *end != ' ' && *end != '\t' && *end != '\n')) {
            free(v);
            return error_set(err, "--ids: '%.20s' is not a token id", p);
        }
        if (x < 0 || x >= vocab) {
            free(v);
            return error_set(err, "--ids: token id %ld is outside the vocabulary [0, %d)", x, vocab);
        }
        if (len == cap) {
            int *nv = realloc(v, cap * 2 * sizeof *v);
            if (!nv) { free(v); return error_set(err, "--ids: out of memory"); }
            v = nv;
            cap *= 2;
        }
        v[len++] = (int)x;
        p = end;
    }
    if (len == 0) {
        free(v);
        return error_set(err, "--ids: no token ids given");
    }
    *ids = v;
    *n = len;
    return 0;
}
