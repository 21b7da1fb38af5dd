/* cmd_convert.c — `inferscope convert --to f16|bf16|f32 DIR OUT`: writes a copy of a
 * GPT-2 checkpoint with its matrices in another precision (vectors stay F32), so a
 * 6.2 GB F32 GPT-2 XL becomes a 3.1 GB F16 file that loads without conversion. The
 * numbers are those of `--weights f16` on the original: one rounding to nearest even.
 * Loading and writing are the engine's (gpt2_model_load_as, gpt2_model_save). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_model.h"
#include "cli_opts.h"
#include "gpt2_save.h"
#include "text_visible.h"

static void usage(void) {
    fprintf(stdout, "usage: inferscope convert --to f16|bf16|f32 MODEL_DIR OUT_DIR\n\n"
               "Writes OUT_DIR/model.safetensors and OUT_DIR/config.json: the checkpoint of MODEL_DIR\n"
               "with its weight matrices (wte, attention and MLP) stored as F16, BF16 or F32; biases,\n"
               "LayerNorm gains and position embeddings stay F32. F32 -> F16/BF16 rounds to nearest\n"
               "(even), the same rounding as `--weights f16` at load, so both give the same numbers.\n"
               "F16 halves the file and the memory a model needs. Existing files are never\n"
               "overwritten; each file appears complete or not at all.\n\n"
               "  --to P      target precision (required)\n"
               "  -h, --help  this text\n");
}

/* --to: a precision to convert to ("stored" is no conversion). */
static int take_to(void *ctx, const char *flag, const char *v, ErrorMsg *err) {
    int *to = ctx;
    if (cli_parse_weights(v, to, err) || *to == GPT2_WEIGHTS_AS_STORED)
        return error_set(err, "%s: '%.40s' is not f16, bf16 or f32", flag, v);
    return 0;
}

/* The positional arguments: MODEL_DIR then OUT_DIR (ctx: const char *[2]). */
static int take_dirs(void *ctx, const char *arg, ErrorMsg *err) {
    const char **dirs = ctx;
    if (dirs[0] && dirs[1]) return error_set(err, "extra argument '%s': expected MODEL_DIR OUT_DIR", arg);
    dirs[dirs[0] ? 1 : 0] = arg;
    return 0;
}

int cmd_convert(int argc, char **argv) {
    const char *CMD = "convert", *dirs[2] = {NULL, NULL};
    int to = -2;
    ErrorMsg err;
    const CliOpt opts[] = {CLI_CALL("--to", take_to, &to), CLI_END};
    const CliArgs args = {.positional = take_dirs, .ctx = dirs, .usage = usage};
    int r = cli_parse_command(argc, argv, opts, &args, &err);
    if (r) return r == CLI_PARSE_HELP ? 0 : cli_fail(CMD, "%s", err.text);
    const char *in = dirs[0], *out = dirs[1];
    if (to == -2) return cli_fail(CMD, "--to f16|bf16|f32 is required (see inferscope convert --help)");
    if (!in || !out) return cli_fail(CMD, "expected MODEL_DIR OUT_DIR (see inferscope convert --help)");
    Gpt2Model m;
    if (gpt2_model_load_as(&m, in, to, &err)) return cli_fail(CMD, "%s", err.text);
    int rc = gpt2_model_save(&m, out, &err);
    char in_shown[1024], out_shown[1024];
    if (rc == 0)
        printf("%s: %s -> %s (%zu parameters, matrices %s -> %s)\n", TEXT_VISIBLE(out_shown, out),
               TEXT_VISIBLE(in_shown, in), out_shown, m.n_params, m.dtype, gpt2_model_weights_name(&m));
    gpt2_model_free(&m);
    return rc ? cli_fail(CMD, "%s", err.text) : 0;
}
