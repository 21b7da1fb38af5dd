/* cmd_next.c — `inferscope next`: the next-token table after a prompt, at every stage of
 * the sampler (raw softmax, after temperature, after the top-k/top-p cuts and
 * renormalising), the mass of all other tokens, what each stage kept in the order the
 * chain ran, the penalised context tokens, the draw u and the token it picks, and with
 * --draws N the tally of N rolls and its χ² test. Only printing: the numbers are the
 * Session's SamplerRecord (engine/sampler.h) and SamplerDraws (sampler_draws.h), the
 * same the window draws. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_model.h"
#include "cli_opts.h"
#include "text_visible.h"

static const char *const CMD = "next";

static void usage(void) {
    printf("usage: inferscope next [options] (PROMPT | --prompt TEXT | --prompt-file P | --ids LIST)\n"
           "\n"
           "Runs the prompt and prints the distribution of the next token at every sampler stage:\n"
           "p_raw = softmax(logits), p_temp = softmax(logits / T), p_final = what is left after\n"
           "top-k and top-p, renormalised; cum = the token's upper end in the final cumulative\n"
           "distribution (the draw u in [cum - p_final, cum) picks it). The stages run in the\n"
           "--samplers order, each on the survivors of the one before, renormalised.\n"
           "\n%s%s%s%s%s"
           "                    With --ablate, p_orig is each token's p_raw in the model with\n"
           "                    nothing switched off, and KL(original || ablated) in nats says\n"
           "                    how far the distribution moved.\n"
           "  --top N           rows to show (default 10, at most %d)\n"
           "  --draws N         roll the dice N times (1..%d; roll k = the draw after k\n"
           "                    re-rolls) and print how often each token came up, with\n"
           "                    Pearson's chi2 against p_final (same seed = same counts)\n"
           "  --json            print one JSON object instead of the table\n"
           "  --help            this text\n"
           "\n"
           "Tokens are shown as written in encoder.json, like `inferscope tokenize`: a space\n"
           "is 'Ġ', a newline 'Ċ'.\n",
           CLI_MODEL_USAGE_MODEL, CLI_MODEL_USAGE_PROMPT, CLI_MODEL_USAGE_SAMPLER, CLI_MODEL_USAGE_TRACE,
           CLI_MODEL_USAGE_ABLATE, SAMPLER_MAX_SHOW, SAMPLER_MAX_DRAWS);
}

/* Printed width of a UTF-8 string, one cell per code point (good enough for Ġ forms). */
static size_t text_width(const char *s) {
    size_t w = 0;
    for (; *s; s++) w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

static void print_table(const Session *s, const SamplerRecord *r, const char *abl) {
    const int o = abl[0] != 0; /* parts switched off: show the original beside */
    const Tokenizer *tok = &s->tok;
    char name[256]; /* the folder's name: inert on the terminal */
    printf("next token after %d prompt tokens (model %s, vocabulary %d)\n", s->n_prompt, TEXT_VISIBLE(name, s->model.name),
           r->vocab_size);
    if (o) {
        const char *ot = tok_token_text(tok, s->orig_top_id);
        printf("switched off (--ablate): %s; KL(original || ablated) = %.6g nats; the original's top token: %s\n", abl,
               s->ablation_kl, ot ? ot : "?");
    }
    char line[256]; /* as the window's status line says it */
    settings_format_line(&r->settings, r->greedy, SETTINGS_STATUS, line, sizeof line);
    printf("settings: %s%s\n", line, r->greedy ? " (the other settings are ignored)" : "");
    printf("%4s  %-18s %6s %10s %11s %11s %11s %9s  %s%s\n", "rank", "token", "id", "logit", "p_raw", "p_temp",
           "p_final", "cum", o ? "     p_orig " : "", "cut?");
    for (int i = 0; i < r->n; i++) {
        const SamplerRow *w = &r->rows[i];
        const char *t = tok_token_text(tok, w->id);
        printf("%4d  %s", w->rank + 1, t ? t : "?");
        for (size_t k = t ? text_width(t) : 1; k < 18; k++) putchar(' ');
        printf(" %6d %10.4f %11.4e %11.4e %11.4e %9.6f  ", w->id, (double)w->logit, w->p_raw, w->p_temp, w->p_final,
               w->cum_hi);
        if (o) printf("%11.4e ", s->next_p_orig[i]);
        printf("%s%s\n", w->kept ? "kept" : "cut", w->id == r->chosen.id ? "  <- chosen" : "");
    }
    printf("      %-18s %6s %10s %11.4e %11.4e %11.4e\n", "(all other tokens)", "", "", r->other_raw, r->other_temp,
           r->other_final);
    printf("kept after top-k: %d of %d; after top-p: %d (kept mass %.6f before renormalising)\n", r->kept_after_k,
           r->vocab_size, r->kept_after_p, r->kept_mass);
    printf("chain:");
    for (int i = 0; i < r->n_stages; i++) {
        const SamplerStageRecord *st = &r->stages[i];
        printf("%s %s %d", i ? " ->" : "", sampler_stage_name((SamplerStage)st->stage), st->kept);
        if (!st->active) printf(" (off)");
    }
    printf(" = %d kept\n", r->n_kept);
    if (r->n_penalised) {
        printf("penalised (%d context tokens in the window [%d, %d)):", r->n_penalised_total, r->window_start,
               r->n_context);
        for (int i = 0; i < r->n_penalised && i < 12; i++) {
            const SamplerPenalty *q = &r->penalised[i];
            const char *t = tok_token_text(tok, q->id);
            printf(" %s x%d %+.3f", t ? t : "?", q->count, q->after - q->before);
        }
        printf("%s\n", r->n_penalised > 12 ? " ..." : "");
    }
    const char *ct = tok_token_text(tok, r->chosen.id);
    if (r->greedy)
        printf("chosen: %s (id %d, rank %d): greedy takes the highest logit\n", ct ? ct : "?", r->chosen.id,
               r->chosen.rank + 1);
    else
        printf("u = %.6f (seed %llu) -> chosen: %s (id %d, rank %d, p_final %.4e)\n", r->u,
               (unsigned long long)s->seed, ct ? ct : "?", r->chosen.id, r->chosen.rank + 1, r->chosen.p_final);
}

/* p_orig < 0: not ablated, no original to show. stage_p: the row's probability after
 * each stage (n_stages of them), NULL for the chosen row when it is not shown. */
static void print_row_json(const Tokenizer *tok, const SamplerRow *w, double p_orig, const SamplerRecord *r,
                           int row) {
    const char *t = tok_token_text(tok, w->id);
    size_t len;
    const uint8_t *b = tok_token_bytes(tok, w->id, &len);
    printf("{\"rank\": %d, \"id\": %d, \"piece\": ", w->rank + 1, w->id); /* 1 = most likely */
    cli_json_string(stdout, (const uint8_t *)(t ? t : ""), t ? strlen(t) : 0);
    printf(", \"text\": ");
    cli_json_string(stdout, b ? b : (const uint8_t *)"", len);
    printf(", \"logit\": %.9g, \"p_raw\": %.9g, \"p_temp\": %.9g, \"p_final\": %.9g, \"cum_lo\": %.9g, "
           "\"cum_hi\": %.9g, \"kept\": %s",
           (double)w->logit, w->p_raw, w->p_temp, w->p_final, w->cum_lo, w->cum_hi, w->kept ? "true" : "false");
    if (p_orig >= 0) printf(", \"p_orig\": %.9g", p_orig);
    printf(", \"penalty\": %.9g", w->penalty);
    if (row >= 0) {
        printf(", \"p_stages\": [");
        for (int i = 0; i < r->n_stages; i++) printf(i ? ", %.9g" : "%.9g", r->stages[i].p[row]);
        printf("]");
    }
    printf("}");
}

/* The chain in the order it ran: what each stage kept, then the penalised tokens. */
static void print_chain_json(const Session *s, const SamplerRecord *r) {
    printf(",\n \"n_kept\": %d, \"stages\": [", r->n_kept);
    for (int i = 0; i < r->n_stages; i++) {
        const SamplerStageRecord *st = &r->stages[i];
        printf("%s{\"stage\": \"%s\", \"active\": %s, \"kept\": %d, \"mass_kept\": %.17g, \"other\": %.9g}",
               i ? ",\n  " : "\n  ", sampler_stage_name((SamplerStage)st->stage), st->active ? "true" : "false",
               st->kept, st->mass_kept, st->other);
    }
    printf("],\n \"penalty_window\": [%d, %d], \"n_penalised\": %d, \"penalised\": [", r->window_start,
           r->n_context, r->n_penalised_total);
    for (int i = 0; i < r->n_penalised; i++) {
        const SamplerPenalty *q = &r->penalised[i];
        printf("%s{", i ? ", " : "");
        cli_print_token_fields(&s->tok, q->id);
        printf(", \"count\": %d, \"logit_before\": %.9g, \"logit_after\": %.9g, \"change\": %.9g}", q->count,
               q->before, q->after, q->after - q->before);
    }
    printf("]");
}

/* --draws: the tally (every token drawn at least once, in rank order) and the χ² test. */
static int print_draws_json(const Session *s, const SamplerDraws *d) {
    /* every token drawn at least once: at most n of them (one per roll) */
    int total = sampler_draws_list(&s->sampler, NULL, 0);
    SamplerDrawCount *c = total > 0 ? malloc((size_t)total * sizeof *c) : NULL;
    if (total > 0 && !c) return -1;
    sampler_draws_list(&s->sampler, c, total);
    printf(",\n \"draws\": {\"n\": %d, \"seed\": %llu, \"pos\": %d, \"salt\": %u, \"counts\": [", d->n,
           (unsigned long long)d->seed, d->pos, d->salt);
    for (int i = 0; c && i < total; i++)
        printf("%s{\"id\": %d, \"rank\": %d, \"count\": %d, \"p\": %.9g}", i ? ", " : "", c[i].id, c[i].rank + 1,
               c[i].count, c[i].p);
    free(c);
    printf("],\n  \"distinct\": %d, \"support\": %d, \"chi2\": %.9g, \"dof\": %d, \"bins\": %d, \"p\": %.9g, "
           "\"tv\": %.9g}",
           d->n_distinct, d->n_support, d->chi2, d->dof, d->n_bins, d->p_value, d->tv);
    return 0;
}

/* --draws in the table: how often the shown rows came up, and the test. */
static void print_draws_table(const Session *s, const SamplerRecord *r, const SamplerDraws *d) {
    printf("draws: %d rolls (seed %llu, position %d, salt %u): %d distinct tokens of %d possible\n", d->n,
           (unsigned long long)d->seed, d->pos, d->salt, d->n_distinct, d->n_support);
    for (int i = 0; i < r->n && i < 10; i++) {
        const char *t = tok_token_text(&s->tok, r->rows[i].id);
        printf("  rank %2d  %-18s %6d rolls = %7.3f %%  (p_final %7.3f %%)\n", i + 1, t ? t : "?", d->row_counts[i],
               100.0 * d->row_counts[i] / d->n, 100.0 * r->rows[i].p_final);
    }
    printf("chi2 = %.4f on %d degrees of freedom (%d bins), p = %.4f; total variation %.4f\n", d->chi2, d->dof,
           d->n_bins, d->p_value, d->tv);
}

/* -1 when memory for the draws' list runs out (the JSON is then cut short). */
static int print_json(const Session *s, const SamplerRecord *r, const char *abl, const SamplerDraws *d) {
    const int o = abl[0] != 0;
    printf("{\"prompt_ids\": [");
    for (int i = 0; i < s->n_prompt; i++) printf(i ? ", %d" : "%d", session_ids(s)[i]);
    char settings[1024]; /* the settings table's one JSON writer; greedy as the record ran it */
    settings_json(&r->settings, r->greedy, settings, sizeof settings);
    printf("],\n \"settings\": %s,\n", settings);
    printf(" \"seed\": %llu, \"u\": ", (unsigned long long)s->seed);
    if (r->greedy) printf("null"); /* argmax: no draw was used */
    else printf("%.17g", r->u);
    printf(", \"vocab_size\": %d, \"logsumexp\": %.17g,\n", r->vocab_size, r->logsumexp);
    printf(" \"rows\": [");
    for (int i = 0; i < r->n; i++) {
        printf(i ? ",\n  " : "\n  ");
        print_row_json(&s->tok, &r->rows[i], o ? s->next_p_orig[i] : -1.0, r, i);
    }
    printf("],\n \"other\": {\"p_raw\": %.9g, \"p_temp\": %.9g, \"p_cut\": %.9g, \"p_final\": %.9g},\n", r->other_raw,
           r->other_temp, r->other_cut, r->other_final);
    printf(" \"kept_after_k\": %d, \"kept_after_p\": %d, \"kept_mass\": %.17g,\n \"chosen\": ", r->kept_after_k,
           r->kept_after_p, r->kept_mass);
    print_row_json(&s->tok, &r->chosen, o ? s->next_chosen_p_orig : -1.0, r,
                   r->chosen.rank < r->n ? r->chosen.rank : -1);
    print_chain_json(s, r);
    if (d && print_draws_json(s, d)) return -1;
    printf(",\n \"ablate\": ");
    if (o) {
        cli_json_string(stdout, (const uint8_t *)abl, strlen(abl));
        printf(", \"kl_original_to_ablated\": %.9g, \"original_top_id\": %d", s->ablation_kl, s->orig_top_id);
    } else {
        printf("null");
    }
    printf("}\n");
    return 0;
}

int cmd_next(int argc, char **argv) {
    CliModelArgs a = cli_model_args_default();
    ErrorMsg err;
    int json = 0;
    long top = 10, draws = 0;
    const CliOpt opts[] = {
        CLI_FLAG("--json", &json),
        CLI_LONG("--top", &top, 1, SAMPLER_MAX_SHOW, NULL),
        CLI_LONG("--draws", &draws, 1, SAMPLER_MAX_DRAWS, NULL),
        CLI_END,
    };
    int r = cli_parse_prompt_command(argc, argv, opts, &a, CLI_OPT_SAMPLER | CLI_OPT_TRACE | CLI_OPT_ABLATE, usage, &err);
    if (r) return r == CLI_PARSE_HELP ? 0 : cli_fail(CMD, "%s", err.text);
    Session s; /* with --ablate it keeps the original model's run beside (track_original) */
    if (cli_model_open(&a, &s, 0, 0, &err)) return cli_fail(CMD, "%s", err.text);
    s.top_n = (int)top; /* before the prompt runs, so the record holds `top` rows */
    int status = 0;
    char abl[1024];
    gpt2_ablation_format(&s.trace.ablation, abl, sizeof abl);
    if (cli_model_run_prompt(&a, &s, &err)) status = cli_fail(CMD, "%s", err.text);
    else if (!s.has_next)
        status = cli_fail(CMD, "the prompt fills the whole context (%d tokens): there is no next position",
                          s.trace.max_pos);
    else if (abl[0] && s.ablation_kl < 0)
        status = cli_fail(CMD, "out of memory running the original model beside the ablated one");
    else if (draws > 0 && session_draw_many(&s, (int)draws, &err))
        status = cli_fail(CMD, "--draws %ld: %s", draws, err.text);
    else if (json) {
        if (print_json(&s, &s.next, abl, draws > 0 ? &s.draws : NULL))
            status = cli_fail(CMD, "out of memory listing the draws");
    } else {
        print_table(&s, &s.next, abl);
        if (draws > 0) print_draws_table(&s, &s.next, &s.draws);
    }
    if (status == 0) cli_report_seed(s.seed);
    session_free(&s);
    return status;
}
