/* cli_model.h — the options the model-running commands share (generate, next, eval,
 * dump): --model, the prompt (--prompt / --prompt-file / --ids / a positional text),
 * the sampler flags and --seed, parsed in ONE place so every command spells and checks
 * them the same way; and opening a Session from them. Not the commands' own options
 * and not their output (src/cmd_*.c). Errors are one line naming the flag or file. */
#ifndef CLI_MODEL_H
#define CLI_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "sampler.h"
#include "session.h"

/* Which option groups a command accepts (cli_model_parse's `groups`). */
enum {
    CLI_OPT_MODEL = 1u << 0,   /* --model DIR, --tokenizer DIR, --weights P */
    CLI_OPT_PROMPT = 1u << 1,  /* --prompt TEXT, --prompt-file PATH, --ids LIST */
    CLI_OPT_SAMPLER = 1u << 2, /* every settings-table flag (--temperature ...), --seed */
    CLI_OPT_TRACE = 1u << 3,   /* --trace-mb N|auto */
    CLI_OPT_ABLATE = 1u << 4,  /* --ablate SPEC[,SPEC...] (gpt2_ablation.h) */
};

typedef struct CliModelArgs {
    const char *model_dir;   /* --model, NULL = the bundled model (cli_default_model_dir) */
    const char *tok_dir;     /* --tokenizer, NULL = assets/tokenizer */
    const char *prompt;      /* --prompt TEXT or the positional text (borrowed from argv) */
    const char *prompt_file; /* --prompt-file PATH ("-" = stdin) */
    const char *ids;         /* --ids "7454,2402,257" (parsed once the vocabulary is known) */
    SamplerSettings settings; /* sampler flags on top of sampler_settings_default() */
    uint64_t seed;           /* --seed, else 0 (the one default: cli_report_seed) */
    int has_seed;            /* 1 when --seed was given */
    int weights;             /* --weights: GPT2_WEIGHTS_AS_STORED (default) or a KernDtype */
    size_t trace_budget;     /* --trace-mb in bytes, 0 = no limit, SESSION_TRACE_AUTO = "auto" */
    const char *ablate;      /* --ablate SPEC list (checked against the model once loaded) */
} CliModelArgs;

/* "f32" | "f16" | "bf16" (any case) or "stored" -> *out (a KernDtype or
 * GPT2_WEIGHTS_AS_STORED). -1 with err "--weights: 'x' ..." otherwise. */
int cli_parse_weights(const char *v, int *out, ErrorMsg *err);

/* Defaults: bundled model, no prompt, every sampler setting off (T=1, sampling), seed 0. */
CliModelArgs cli_model_args_default(void);

/* Tries argv[*i] as one of the shared options of `groups`. Returns 1 when it was one
 * (*i is advanced past its value), 0 when it is not a shared option (the command looks
 * at it), -1 with err set ("--top-p: '1.5' is outside [0, 1] (1 = off)") on a bad value. */
int cli_model_parse(CliModelArgs *a, unsigned groups, int argc, char **argv, int *i, ErrorMsg *err);

/* Sets the positional PROMPT; error if a prompt was already given another way. */
int cli_model_set_positional(CliModelArgs *a, const char *text, ErrorMsg *err);

/* Tries argv[*i] as the CLI flag of a sampler setting (the settings table's rows:
 * --temperature T, --top-k K, --top-p P, --greedy, ...) and parses its value into set.
 * 1 when it was one (*i advanced past the value), 0 when it is no setting's flag, -1
 * with err ("--top-p: '1.5' is outside [0, 1] (1 = off)"). The window's flags too. */
int cli_parse_setting(int argc, char **argv, int *i, SamplerSettings *set, ErrorMsg *err);

/* The usage lines of the shared options, for --help texts. */
extern const char CLI_MODEL_USAGE_MODEL[];
extern const char CLI_MODEL_USAGE_PROMPT[];
/* the sampler flags, from the settings table, and --seed */
const char *cli_model_usage_sampler(void);
#define CLI_MODEL_USAGE_SAMPLER cli_model_usage_sampler()
extern const char CLI_MODEL_USAGE_TRACE[];
extern const char CLI_MODEL_USAGE_ABLATE[];

/* "auto" or a whole number of MB (1..16777216) -> bytes; -1 with err otherwise. */
int cli_parse_trace_mb(const char *v, size_t *out, ErrorMsg *err);

/* Loads the model and tokenizer into *s (session_open with max_pos and capture), applies
 * the settings, the seed and the --ablate mask. On error *s is zeroed and err names the
 * file/problem ("--ablate: '12.3': block 12 does not exist (this model has blocks 0..3)"). */
int cli_model_open(const CliModelArgs *a, Session *s, int max_pos, unsigned capture, ErrorMsg *err);

/* Parses an --ablate SPEC list for the session's model and switches those parts off
 * (session_set_ablation). spec NULL: nothing to do. */
int cli_model_apply_ablation(const char *spec, Session *s, ErrorMsg *err);

/* Prints the JSON fields of one token, `"id": N, "piece": "Ġtime", "text": " time"`
 * (piece as in encoder.json, text its bytes), without braces, on stdout. */
void cli_print_token_fields(const Tokenizer *tok, int id);

/* A position given on the command line (--pos): 0..n-1, or -1..-n counted from the end.
 * Returns the position, or -1 with err naming the flag and the valid range. */
int cli_model_resolve_pos(const char *flag, long p, int n, ErrorMsg *err);

/* The one token TEXT encodes to (' time', with its leading space), or -1 with err naming
 * the flag and the pieces when TEXT is empty or more than one token. */
int cli_model_one_token(Tokenizer *tok, const char *flag, const char *text, ErrorMsg *err);

/* Runs the prompt given by --prompt / positional / --prompt-file / --ids into the
 * session. Exactly one source must have been given. Errors name the source
 * ("notes.txt: prompt: invalid UTF-8 at byte 3", "--ids: ...", "prompt of 200 tokens
 * exceeds the context of 128 tokens"). */
int cli_model_run_prompt(const CliModelArgs *a, Session *s, ErrorMsg *err);

/* cli_model_open (whole context, `capture`) then cli_model_run_prompt: the start of every
 * command that looks at the prompt's forward pass. compare_original 0 skips the second
 * pass of the unablated model beside an ablated one (track_original, session.h) when the
 * command does not compare the two. On error *s is freed and err names the problem. */
int cli_model_start(const CliModelArgs *a, Session *s, unsigned capture, int compare_original, ErrorMsg *err);

/* The prompt as token ids without running the model (so no context limit): --ids as
 * given (each < vocab), or the text / file tokenized. *ids is malloc'd (caller frees).
 * Errors as cli_model_run_prompt; an empty text is an error. */
int cli_model_prompt_ids(const CliModelArgs *a, Tokenizer *tok, int vocab, int **ids, size_t *n, ErrorMsg *err);

#endif
