/* cmd_heads.c — `inferscope heads`: what each attention head of a model does, as scores
 * of five named habits (previous-token, first-token sink, induction, duplicate-token,
 * local window) measured on a fixed probe (engine/head_scores.h defines both), printed
 * as a layers x heads table per habit with what to look for, or as JSON. Deterministic:
 * the same model gives the same numbers, run after run. Not the heads grid panel. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_model.h"
#include "cli_opts.h"
#include "head_scores.h"
#include "text_visible.h"

static const char *const CMD = "heads";

static void usage(void) {
    printf("usage: inferscope heads [--model DIR] [--json] [TEXT | --prompt TEXT | --prompt-file P | --ids LIST]\n"
           "\n"
           "Scores every attention head of the model for five habits, by running it on a fixed\n"
           "probe: a short story (previous-token, first-token sink, local window) and a random\n"
           "sequence of %d one-token words shown twice (induction, duplicate-token; drawn with\n"
           "PCG32 seed %u). Each score is a mean attention weight in [0, 1]; the chance level of\n"
           "a head that spreads its weight evenly is printed with each table. A prompt given\n"
           "replaces the story (a lesson's own prompt, say); the repeated sequence stays.\n"
           "\n%s%s"
           "  --json            {\"model\", \"probe\": {...}, \"patterns\": [...], \"heads\": [{\"layer\",\n"
           "                    \"head\", \"previous_token\", \"first_token\", \"induction\",\n"
           "                    \"duplicate_token\", \"local\"}, ...], \"best\": {...}}\n"
           "  --help            this text\n",
           HEAD_PROBE_R, HEAD_PROBE_SEED, CLI_MODEL_USAGE_MODEL, CLI_MODEL_USAGE_PROMPT);
}

static void print_ids(const int *ids, int n) {
    for (int i = 0; i < n; i++) printf(i ? ", %d" : "%d", ids[i]);
}

/* The text probe as text: the built-in story, or the given prompt decoded. */
typedef struct ProbeText {
    const uint8_t *text;
    size_t len;
    int builtin;
} ProbeText;

static void print_json(const char *model, const ProbeText *pt, const HeadProbe *p, const HeadScores *s) {
    printf("{\"model\": ");
    cli_json_string(stdout, (const uint8_t *)model, strlen(model));
    printf(",\n \"probe\": {\"text_source\": \"%s\", \"text\": ", pt->builtin ? "builtin" : "prompt");
    cli_json_string(stdout, pt->text, pt->len);
    printf(", \"text_tokens\": %d, \"text_ids\": [", p->n_text);
    print_ids(p->text_ids, p->n_text);
    printf("],\n  \"repeat_length\": %d, \"repeat_seed\": %llu, \"repeat_pool\": %d, \"repeat_ids\": [", p->R,
           (unsigned long long)p->seed, p->n_pool);
    print_ids(p->rep_ids, 2 * p->R);
    printf("],\n  \"uniform\": {");
    for (int k = 0; k < HEAD_PATTERN_COUNT; k++)
        printf("%s\"%s\": %.6f", k ? ", " : "", HEAD_PATTERNS[k].key, head_probe_uniform(p, (HeadPattern)k));
    printf("}},\n \"patterns\": [");
    for (int k = 0; k < HEAD_PATTERN_COUNT; k++) {
        const HeadPatternInfo *in = &HEAD_PATTERNS[k];
        printf("%s\n  {\"key\": \"%s\", \"title\": ", k ? "," : "", in->key);
        cli_json_string(stdout, (const uint8_t *)in->title, strlen(in->title));
        printf(", \"definition\": ");
        cli_json_string(stdout, (const uint8_t *)in->definition, strlen(in->definition));
        printf(", \"look_for\": ");
        cli_json_string(stdout, (const uint8_t *)in->look_for, strlen(in->look_for));
        printf("}");
    }
    printf("],\n \"heads\": [");
    for (int l = 0; l < s->n_layer; l++)
        for (int h = 0; h < s->n_head; h++) {
            printf("%s\n  {\"layer\": %d, \"head\": %d", l || h ? "," : "", l, h);
            for (int k = 0; k < HEAD_PATTERN_COUNT; k++)
                printf(", \"%s\": %.6f", HEAD_PATTERNS[k].key, *head_score_at(s, (HeadPattern)k, l, h));
            printf("}");
        }
    printf("],\n \"best\": {");
    for (int k = 0; k < HEAD_PATTERN_COUNT; k++) {
        int l, h;
        head_scores_best(s, (HeadPattern)k, &l, &h);
        double v = *head_score_at(s, (HeadPattern)k, l, h);
        printf("%s\n  \"%s\": {\"layer\": %d, \"head\": %d, \"score\": %.6f, \"clear\": %s}", k ? "," : "",
               HEAD_PATTERNS[k].key, l, h, v, head_score_clear(p, (HeadPattern)k, v) ? "true" : "false");
    }
    printf("}}\n");
}

static void print_text(const char *model, const ProbeText *pt, const HeadProbe *p, const HeadScores *s) {
    char name[256]; /* the folder's name: inert on the terminal */
    printf("What each head does: %s, %d layers x %d heads\n", TEXT_VISIBLE(name, model), s->n_layer, s->n_head);
    printf("probe: %s of %d tokens; %d one-token words shown twice (PCG32 seed %llu)\n",
           pt->builtin ? "the built-in story" : "your text", p->n_text, p->R, (unsigned long long)p->seed);
    for (int k = 0; k < HEAD_PATTERN_COUNT; k++) {
        const HeadPatternInfo *in = &HEAD_PATTERNS[k];
        int bl, bh;
        head_scores_best(s, (HeadPattern)k, &bl, &bh);
        double best = *head_score_at(s, (HeadPattern)k, bl, bh);
        printf("\n%s: %s\n  look for: %s\n  chance level (even spread): %.3f; best: L%dH%d %.3f%s\n", in->title,
               in->definition, in->look_for, head_probe_uniform(p, (HeadPattern)k), bl, bh, best,
               head_score_clear(p, (HeadPattern)k, best) ? "" : " (under twice the chance level: no head clearly does this)");
        printf("      ");
        for (int h = 0; h < s->n_head; h++) printf(" %6s%-2d", "H", h);
        printf("\n");
        for (int l = 0; l < s->n_layer; l++) {
            printf("  L%-3d", l);
            for (int h = 0; h < s->n_head; h++) printf("   %5.3f", *head_score_at(s, (HeadPattern)k, l, h));
            printf("\n");
        }
    }
}

/* The probe for the model: the built-in one, its text replaced by the prompt if given. */
static int build_probe(const CliModelArgs *a, Session *s, HeadProbe *p, ProbeText *pt, uint8_t **own,
                       ErrorMsg *err) {
    const int np = s->model.config.n_positions;
    if (head_probe_build(p, &s->tok, np, err)) return -1;
    pt->text = (const uint8_t *)HEAD_PROBE_TEXT;
    pt->len = strlen(HEAD_PROBE_TEXT);
    pt->builtin = 1;
    if (!a->prompt && !a->prompt_file && !a->ids) return 0;
    int *ids = NULL;
    size_t n = 0;
    int rc = cli_model_prompt_ids(a, &s->tok, s->model.config.vocab_size, &ids, &n, err) ||
             head_probe_set_text(p, ids, n, np, err);
    int32_t *ids32 = rc ? NULL : malloc(n * sizeof *ids32);
    for (size_t i = 0; ids32 && i < n; i++) ids32[i] = ids[i];
    size_t len = 0;
    if (!rc && (!ids32 || tok_decode(&s->tok, ids32, n, own, &len, err))) rc = error_set(err, "prompt: cannot decode");
    free(ids32);
    free(ids);
    if (rc) return -1;
    pt->text = *own;
    pt->len = len;
    pt->builtin = 0;
    return 0;
}

int cmd_heads(int argc, char **argv) {
    CliModelArgs a = cli_model_args_default();
    ErrorMsg err;
    int json = 0;
    const CliOpt opts[] = {CLI_FLAG("--json", &json), CLI_END};
    int r = cli_parse_prompt_command(argc, argv, opts, &a, 0, usage, &err);
    if (r) return r == CLI_PARSE_HELP ? 0 : cli_fail(CMD, "%s", err.text);
    /* the session only lends the model and tokenizer: the scores run their own trace */
    Session s;
    memset(&s, 0, sizeof s);
    HeadProbe p = {0};
    HeadScores sc = {0};
    ProbeText pt = {0};
    uint8_t *own = NULL;
    int status = 0;
    if (cli_model_open(&a, &s, 1, 0, &err) || build_probe(&a, &s, &p, &pt, &own, &err) ||
        head_scores_init(&sc, s.model.config.n_layer, s.model.config.n_head, &err) ||
        head_scores_run(&sc, &s.model, &p, &err)) {
        status = cli_fail(CMD, "%s", err.text);
    } else if (json) {
        print_json(s.model.name, &pt, &p, &sc);
    } else {
        print_text(s.model.name, &pt, &p, &sc);
    }
    free(own);
    head_scores_free(&sc);
    head_probe_free(&p);
    session_free(&s);
    return status;
}
