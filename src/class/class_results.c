/* class_results.c — class_results.h. Token texts: JSON by the one escaper; CSV in double
 * quotes with a quote doubled (RFC 4180) and every byte below 0x20 or 0x7F written as
 * \xNN, so a row stays one line whatever a token holds. */
#include "class_results.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "class_score.h"
#include "file_write.h"
#include "json_escape.h"

static const char *const GAME[2] = {"text", "model"};

static void csv_token(StrBuf *b, const Tokenizer *tok, int id) {
    size_t n = 0;
    const uint8_t *s = id >= 0 ? tok_token_bytes(tok, id, &n) : NULL;
    strbuf_adds(b, "\"");
    for (size_t i = 0; s && i < n; i++) {
        if (s[i] == '"') strbuf_adds(b, "\"\"");
        else if (s[i] < 0x20 || s[i] == 0x7F) strbuf_addf(b, "\\x%02X", s[i]);
        else strbuf_add(b, &s[i], 1);
    }
    strbuf_adds(b, "\"");
}

static void json_token(StrBuf *b, const Tokenizer *tok, int id) {
    size_t n = 0;
    const uint8_t *s = id >= 0 ? tok_token_bytes(tok, id, &n) : NULL;
    strbuf_addf(b, "{\"id\": %d, \"text\": ", id);
    json_escape(b, s ? s : (const uint8_t *)"", s ? n : 0, JSON_ESCAPE_UTF8);
    strbuf_adds(b, "}");
}

int class_results_csv(const ClassRoom *r, StrBuf *b) {
    strbuf_adds(b, "round,game,position,truth_id,truth,guesses,right,class_top1,class_bits,plurality_hit,"
                   "model_p,model_bits,model_top_id,model_hit\n");
    for (int i = 0; i < r->n_rounds; i++) {
        const ClassRound *c = &r->rounds[i];
        ClassRoundScore sc;
        int scored = class_score_round_of(r, i, &sc);
        if (scored < 0) return -1;
        strbuf_addf(b, "%d,%s,%d,%d,", i + 1, GAME[c->game == CLASS_GAME_MODEL], c->pos, c->truth);
        csv_token(b, r->tok, c->truth);
        strbuf_addf(b, ",%d,", c->n_guesses);
        if (scored)
            strbuf_addf(b, "%d,%.6f,%.6f,%.6f,%.6f,%.6f,%d,%d\n", sc.n_right, (double)sc.n_right / sc.n_guesses,
                        sc.class_bits, sc.plurality_hit, c->model_p, sc.model_bits, c->model_top, sc.model_hit);
        else if (c->truth >= 0) /* revealed, nobody guessed: the model's side only */
            strbuf_addf(b, "0,,,,%.6f,,%d,%d\n", c->model_p, c->model_top, c->model_top == c->truth);
        else
            strbuf_adds(b, ",,,,,,,\n"); /* not revealed */
    }
    return b->oom ? -1 : 0;
}

/* The round's guesses by token, most votes first (ties: lower id). */
static int json_tally(StrBuf *b, const ClassRoom *r, const ClassRound *c) {
    int n = c->n_guesses, *id = malloc((size_t)(n + 1) * sizeof *id), *votes = malloc((size_t)(n + 1) * sizeof *votes);
    if (!id || !votes) {
        free(id);
        free(votes);
        return -1;
    }
    int k = 0;
    for (int g = 0; g < n; g++) {
        int t = c->guesses[g].g.token, j = 0;
        while (j < k && id[j] != t) j++;
        if (j == k) id[k] = t, votes[k++] = 0;
        votes[j]++;
    }
    strbuf_adds(b, "[");
    for (int out = 0; out < k; out++) {
        int best = -1;
        for (int j = 0; j < k; j++)
            if (votes[j] > 0 && (best < 0 || votes[j] > votes[best] || (votes[j] == votes[best] && id[j] < id[best])))
                best = j;
        strbuf_adds(b, out ? ", " : "");
        strbuf_addf(b, "{\"votes\": %d, \"token\": ", votes[best]);
        json_token(b, r->tok, id[best]);
        strbuf_adds(b, "}");
        votes[best] = 0;
    }
    strbuf_adds(b, "]");
    free(id);
    free(votes);
    return 0;
}

int class_results_json(const ClassRoom *r, StrBuf *b) {
    ClassScore total;
    if (class_score_room(r, &total)) return -1;
    strbuf_addf(b, "{\n  \"smoothing\": \"q(t) = %.1f c(t)/n + %.1f/V\",\n  \"vocab\": %zu,\n  \"rounds\": [",
                1 - CLASS_SMOOTH_LAMBDA, CLASS_SMOOTH_LAMBDA, r->n_vocab);
    for (int i = 0; i < r->n_rounds; i++) {
        const ClassRound *c = &r->rounds[i];
        ClassRoundScore sc;
        int scored = class_score_round_of(r, i, &sc);
        if (scored < 0) return -1;
        strbuf_addf(b, "%s\n    {\"round\": %d, \"game\": \"%s\", \"position\": %d, \"guesses\": %d, \"truth\": ",
                    i ? "," : "", i + 1, GAME[c->game == CLASS_GAME_MODEL], c->pos, c->n_guesses);
        if (c->truth >= 0) json_token(b, r->tok, c->truth);
        else strbuf_adds(b, "null");
        strbuf_adds(b, ",\n     \"tally\": ");
        if (json_tally(b, r, c)) return -1;
        if (c->truth >= 0) {
            strbuf_addf(b, ",\n     \"model\": {\"p\": %.6f, \"top\": ", c->model_p);
            json_token(b, r->tok, c->model_top);
            strbuf_addf(b, ", \"hit\": %d}", c->model_top == c->truth);
        }
        if (scored)
            strbuf_addf(b, ",\n     \"class\": {\"right\": %d, \"top1\": %.6f, \"bits\": %.6f, \"plurality_hit\": %.6f}",
                        sc.n_right, (double)sc.n_right / sc.n_guesses, sc.class_bits, sc.plurality_hit);
        strbuf_adds(b, "}");
    }
    strbuf_addf(b, "\n  ],\n  \"score\": {\"rounds\": %d, \"guesses\": %ld, \"right\": %ld, \"class_top1\": %.6f, "
                   "\"class_bits\": %.6f, \"plurality\": %.6f, \"model_top1\": %.6f, \"model_bits\": %.6f}\n}\n",
                total.rounds, total.guesses, total.right, class_score_hit_rate(&total), class_score_bits(&total),
                class_score_plurality_rate(&total), class_score_model_hit_rate(&total), class_score_model_bits(&total));
    return b->oom ? -1 : 0;
}

int class_results_write(const StrBuf *csv, const StrBuf *json, const char *dir, char *csv_path, char *json_path,
                        size_t cap, ErrorMsg *err) {
    struct stat st;
    for (int n = 1; n <= 9999; n++) {
        snprintf(csv_path, cap, "%s/class-rounds-%04d.csv", dir, n);
        snprintf(json_path, cap, "%s/class-rounds-%04d.json", dir, n);
        if (stat(csv_path, &st) == 0 || stat(json_path, &st) == 0) continue;
        /* no-clobber links: a name taken meanwhile is refused, never overwritten */
        if (file_write_atomic(csv_path, csv->data, csv->len, NULL, err)) return -1;
        if (file_write_atomic(json_path, json->data, json->len, NULL, err)) {
            remove(csv_path); /* both or neither */
            return -1;
        }
        return 0;
    }
    return error_set(err, "%s: no free class-rounds-NNNN name", dir);
}
