/* cmd_dump.c — `inferscope dump`: runs a prompt with every activation captured and writes
 * the named ones as NumPy .npy files (float32, C order), one file per tensor, named with
 * the TransformerLens hook name minus "hook_": blocks.3.attn.pattern.npy (NH, T, T),
 * logits.npy (T, V), embed.npy (T, C)... so a student can np.load() them next to
 * TransformerLens. Causal matrices are written as full squares (patterns: explicit zeros
 * above the diagonal; attn_scores: -inf). Not a checkpoint exporter. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli_model.h"
#include "cli_opts.h"
#include "export.h"
#include "npy_write.h"
#include "text_visible.h"

static const char *const CMD = "dump";

static void usage(void) {
    printf("usage: inferscope dump [options] (--prompt TEXT | --prompt-file P | --ids LIST)\n"
           "                       (--tensor NAME[,NAME...] | --all) --out DIR\n"
           "\n"
           "Runs the prompt (T tokens) and writes activations as NumPy .npy files into DIR\n"
           "(created with its missing parents), one per tensor, named after the TransformerLens\n"
           "hook without 'hook_': blocks.0.attn.pattern.npy is (n_head, T, T), logits.npy is\n"
           "(T, vocab rows) (a padded vocabulary keeps its padding columns, as in the weights).\n"
           "\n%s%s%s"
           "  --tensor LIST     names, comma-separated, with or without 'hook_'\n"
           "                    (embed, blocks.0.attn.pattern, blocks.1.resid_post, logits, ...)\n"
           "  --all             every activation of the trace\n"
           "  --out DIR         output folder\n"
           "  --help            this text\n"
           "\n"
           "Each file is written under a temporary name and renamed into place.\n",
           CLI_MODEL_USAGE_MODEL, CLI_MODEL_USAGE_PROMPT, CLI_MODEL_USAGE_ABLATE);
}

/* The file stem of a trace name: "blocks.3.attn.hook_pattern" -> "blocks.3.attn.pattern". */
static void file_stem(const char *name, char *out, size_t cap) {
    const char *last = strrchr(name, '.');
    last = last ? last + 1 : name;
    size_t head = (size_t)(last - name);
    if (strncmp(last, "hook_", 5) == 0)
        snprintf(out, cap, "%.*s%s", (int)head, name, last + 5);
    else
        snprintf(out, cap, "%s", name);
}

/* The valid names in short form, layer 0's standing for every layer, on one line. */
static void valid_names(const Gpt2Trace *tr, char *out, size_t cap) {
    size_t len = 0;
    out[0] = 0;
    char name[128], stem[128];
    for (size_t i = 0; gpt2_trace_name(tr, i, name, sizeof name) == 0; i++) {
        if (strncmp(name, "blocks.", 7) == 0 && strncmp(name, "blocks.0.", 9) != 0) continue;
        file_stem(name, stem, sizeof stem);
        int w = strncmp(stem, "blocks.0.", 9) == 0
                    ? snprintf(out + len, cap - len, "%sblocks.{i}.%s", len ? ", " : "", stem + 9)
                    : snprintf(out + len, cap - len, "%s%s", len ? ", " : "", stem);
        if (w < 0 || (size_t)w >= cap - len) break;
        len += (size_t)w;
    }
    snprintf(out + len, cap - len, " (i = 0..%d)", tr->cfg.n_layer - 1);
}

/* Writes one view as a C-order array, expanding packed causal rows to full squares. */
static int write_view(const Gpt2TraceView *v, const char *path, float *row, ErrorMsg *err) {
    NpyWriter w;
    if (npy_open(&w, path, v->shape, v->ndim, err)) return -1;
    size_t n0 = v->shape[0], n1 = v->ndim == 3 ? v->shape[1] : 1, cols = v->shape[v->ndim - 1];
    for (size_t i = 0; i < n0; i++)
        for (size_t j = 0; j < n1; j++) {
            for (size_t k = 0; k < cols; k++)
                row[k] = v->ndim == 3 ? gpt2_view_at(v, i, j, k) : gpt2_view_at(v, i, k, 0);
            if (npy_write_f32(&w, row, cols, err)) {
                npy_abort(&w);
                return -1;
            }
        }
    return npy_close(&w, err);
}

/* --out DIR, created with its missing parents (mkdir -p, export_make_dir) as --help says. */
static int ensure_dir(const char *dir, ErrorMsg *err) {
    struct stat st;
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) return error_set(err, "--out %s: not a folder", dir);
        return 0;
    }
    ErrorMsg e;
    if (export_make_dir(dir, &e)) return error_set(err, "--out %s", e.text);
    return 0;
}

/* Runs the session's prompt once more into a trace that captures everything, sized to
 * the prompt (T positions): GPT2_CAP_ALL for a whole context of a large model would
 * reserve gigabytes (gpt2_trace.h, MEMORY). The session owns the new trace. */
static int trace_everything(Session *s, ErrorMsg *err) {
    int T = session_len(s);
    int *ids = malloc((size_t)T * sizeof *ids);
    if (!ids) return error_set(err, "out of memory");
    memcpy(ids, session_ids(s), (size_t)T * sizeof *ids);
    Gpt2Trace full = {0};
    if (gpt2_trace_init(&full, &s->model.config, T, GPT2_CAP_ALL, err) ||
        gpt2_trace_set_ablation(&full, &s->trace.ablation, err)) {
        gpt2_trace_free(&full);
        free(ids);
        return -1;
    }
    gpt2_trace_free(&s->trace);
    s->trace = full;
    int rc = session_set_prompt_ids(s, ids, (size_t)T, err);
    free(ids);
    return rc;
}

/* The tensor names to write: --all enumerates the trace, else --tensor's comma list. */
typedef struct DumpNames {
    char **names; /* (n) into `list`, or each malloc'd with --all */
    size_t n, cap;
    char *list;   /* --tensor's copy, cut at the commas */
    int all;
} DumpNames;

static void dump_names_free(DumpNames *d) {
    if (d->all && d->names)
        for (size_t i = 0; i < d->cap; i++) free(d->names[i]); /* calloc'd: unused slots are NULL */
    free(d->names);
    free(d->list);
    memset(d, 0, sizeof *d);
}

static int dump_names_init(DumpNames *d, const Gpt2Trace *tr, const char *tensors, int all, ErrorMsg *err) {
    memset(d, 0, sizeof *d);
    d->all = all;
    if (all) {
        char name[128];
        while (gpt2_trace_name(tr, d->cap, name, sizeof name) == 0) d->cap++;
    } else {
        d->cap = 1;
        for (const char *p = tensors; *p; p++) d->cap += *p == ',';
        d->list = malloc(strlen(tensors) + 1);
        if (d->list) strcpy(d->list, tensors);
    }
    d->names = calloc(d->cap, sizeof *d->names);
    if (!d->names || (!all && !d->list)) return error_set(err, "out of memory");
    if (all) {
        for (; d->n < d->cap; d->n++) {
            d->names[d->n] = malloc(128);
            if (!d->names[d->n] || gpt2_trace_name(tr, d->n, d->names[d->n], 128)) return error_set(err, "out of memory");
        }
        return 0;
    }
    for (char *tokp = d->list, *next; tokp; tokp = next) {
        next = strchr(tokp, ',');
        if (next) *next++ = 0;
        if (*tokp) d->names[d->n++] = tokp;
    }
    if (d->n == 0) return error_set(err, "--tensor: no names given");
    return 0;
}

int cmd_dump(int argc, char **argv) {
    CliModelArgs a = cli_model_args_default();
    ErrorMsg err;
    const char *tensors = NULL, *out_dir = NULL;
    int all = 0;
    const CliOpt opts[] = {
        CLI_FLAG("--all", &all),
        CLI_TEXT_ONCE("--tensor", &tensors),
        CLI_TEXT_ONCE("--out", &out_dir),
        CLI_END,
    };
    const CliArgs args = {.model = &a, .groups = CLI_OPT_MODEL | CLI_OPT_PROMPT | CLI_OPT_ABLATE, .usage = usage};
    int r = cli_parse_command(argc, argv, opts, &args, &err);
    if (r) return r == CLI_PARSE_HELP ? 0 : cli_fail(CMD, "%s", err.text);
    if (!tensors && !all) return cli_fail(CMD, "no tensors: give --tensor NAME[,NAME] or --all (see --help)");
    if (!out_dir) return cli_fail(CMD, "no output folder: give --out DIR");

    Session s;
    if (cli_model_start(&a, &s, 0, 0, &err)) return cli_fail(CMD, "%s", err.text);
    int status = 0;
    DumpNames dn = {0};
    float *row = NULL;
    if (trace_everything(&s, &err) || dump_names_init(&dn, &s.trace, tensors, all, &err)) {
        status = cli_fail(CMD, "%s", err.text);
        goto done;
    }
    char **names = dn.names;
    size_t n_names = dn.n;
    /* Check every name before writing anything, so a typo leaves no partial dump. */
    size_t widest = (size_t)s.model.config.vocab_size;
    for (size_t i = 0; i < n_names; i++) {
        Gpt2TraceView v;
        if (gpt2_trace_find(&s.trace, names[i], &v, &err)) {
            char valid[1024];
            valid_names(&s.trace, valid, sizeof valid);
            status = cli_fail(CMD, "unknown tensor '%s' (%s); valid names: %s", names[i], err.text, valid);
            goto done;
        }
        if (v.shape[v.ndim - 1] > widest) widest = v.shape[v.ndim - 1];
    }
    if (ensure_dir(out_dir, &err)) {
        status = cli_fail(CMD, "%s", err.text);
        goto done;
    }
    row = malloc(widest * sizeof *row);
    if (!row) {
        status = cli_fail(CMD, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n_names; i++) {
        Gpt2TraceView v;
        char stem[128], path[4096];
        if (gpt2_trace_find(&s.trace, names[i], &v, &err)) {
            status = cli_fail(CMD, "%s", err.text);
            goto done;
        }
        file_stem(names[i], stem, sizeof stem);
        snprintf(path, sizeof path, "%s/%s.npy", out_dir, stem);
        if (write_view(&v, path, row, &err)) {
            status = cli_fail(CMD, "%s", err.text);
            goto done;
        }
        char shown[4096];
        printf("wrote %s (", TEXT_VISIBLE(shown, path));
        for (int d = 0; d < v.ndim; d++) printf(d ? ", %zu" : "%zu", v.shape[d]);
        printf(")\n");
    }
done:
    dump_names_free(&dn);
    free(row);
    session_free(&s);
    return status;
}
