/* test_draws_action.c — many rolls in the window (ACT_DRAWS, the Shift+R key, the lesson
 * line `draws N`, the figure key inferscope:draws) are the rolls `inferscope next --draws
 * N --json` makes: the same seed, prompt and settings give the same count for every
 * token; Pearson's χ² recomputed here in double from those counts and p_final matches
 * and the test passes; the frame hands viz exactly that tally; 0 clears it and a new
 * setting forgets it. Also the rank convention: every rank the CLI prints for a bar is
 * the rank the window prints on it ("#N" = rows[i].rank + 1). */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "action.h"
#include "check.h"
#include "check_run.h"
#include "check_export.h"
#include "check_session.h"
#include "check_tmp.h"
#include "figure_meta.h"
#include "frame_fill.h"

#define PROMPT "The little dog ran to the"
#define N_ROLLS 4000

int main(void) {
    Session s;
    if (check_open_bundled(&s)) return check_summary("test_draws_action");
    ErrorMsg err = {{0}};
    SamplerSettings set = sampler_settings_default();
    set.temperature = 0.5f;
    set.top_k = 5;
    Action acts[] = {
        {.kind = ACT_PROMPT, .text = (const uint8_t *)PROMPT, .text_len = strlen(PROMPT)},
        {.kind = ACT_SETTINGS, .settings = &set},
        {.kind = ACT_DRAWS, .n = N_ROLLS},
    };
    for (size_t i = 0; i < sizeof acts / sizeof acts[0]; i++)
        CHECK(action_apply(&s, NULL, &acts[i], &err) == 0, "%s: %s", action_name(acts[i].kind), err.text);
    CHECK(s.has_draws && s.draws.n == N_ROLLS, "the session holds %d rolls", s.draws.n);
    const SamplerRecord *rec = &s.next;

    /* the frame gives viz the session's tally, nothing recomputed */
    VizView view = frame_default_view();
    VizFrame f;
    frame_fill(&f, &s, &view);
    CHECK(f.draws == &s.draws, "frame.draws is the session's tally");

    /* the CLI, same prompt, settings, seed 0 */
    char bin[4096], cmd[8192];
    check_cli_bin(bin, sizeof bin);
    snprintf(cmd, sizeof cmd,
             "'%s' next --prompt '" PROMPT "' --temperature 0.5 --top-k 5 --draws %d --json 2>/dev/null", bin,
             N_ROLLS);
    int st = 0;
    char *out = check_run(cmd, &st);
    cJSON *j = out && st == 0 ? cJSON_Parse(out) : NULL;
    CHECK(j != NULL, "next --draws --json ran (status %d)", st);
    cJSON *dr = j ? cJSON_GetObjectItem(j, "draws") : NULL, *counts = dr ? cJSON_GetObjectItem(dr, "counts") : NULL;
    CHECK(counts && cJSON_IsArray(counts), "draws.counts in the JSON");
    int seen = 0, total = 0;
    cJSON *c;
    cJSON_ArrayForEach(c, counts) {
        int id = cJSON_GetObjectItem(c, "id")->valueint, rank = cJSON_GetObjectItem(c, "rank")->valueint;
        int cnt = cJSON_GetObjectItem(c, "count")->valueint;
        total += cnt;
        CHECK(rank >= 1 && rank <= rec->n, "drawn rank %d within the bars", rank);
        if (rank < 1 || rank > rec->n) continue;
        CHECK(rec->rows[rank - 1].id == id, "rank %d is id %d in the window, %d in the CLI", rank,
              rec->rows[rank - 1].id, id);
        CHECK(s.draws.row_counts[rank - 1] == cnt, "id %d: window %d rolls, CLI %d", id, s.draws.row_counts[rank - 1],
              cnt);
        seen++;
    }
    CHECK(seen == 5 && total == N_ROLLS, "%d tokens drawn (top-k 5), %d rolls counted", seen, total);

    /* χ² from the definition: every kept token expects >= 5 rolls here, so no pooling */
    double chi2 = 0.0;
    for (int i = 0; i < 5; i++) {
        double e = N_ROLLS * rec->rows[i].p_final;
        chi2 += (s.draws.row_counts[i] - e) * (s.draws.row_counts[i] - e) / e;
    }
    CHECK_CLOSE(s.draws.chi2, chi2, 1e-9, 1e-9, "chi2 vs the definition");
    CHECK(s.draws.dof == 4, "dof %d", s.draws.dof);
    double cli_chi2 = dr ? cJSON_GetObjectItem(dr, "chi2")->valuedouble : -1;
    CHECK_CLOSE(cli_chi2, chi2, 1e-6, 1e-7, "CLI chi2");
    CHECK(s.draws.p_value > 0.001, "the rolls fit p_final (chi2 %.3f, p %.3g)", chi2, s.draws.p_value);
    /* the point of the figure: the favourite (about 38 %) loses most rolls */
    CHECK(rec->rows[0].p_final > 0.35 && rec->rows[0].p_final < 0.41, "favourite p_final %.4f", rec->rows[0].p_final);
    CHECK(s.draws.row_counts[0] < N_ROLLS / 2, "the favourite won %d of %d", s.draws.row_counts[0], N_ROLLS);

    /* ranks: the CLI's row ranks are the window's "#N" */
    cJSON *rows = j ? cJSON_GetObjectItem(j, "rows") : NULL, *r;
    int i = 0, rank_ok = 1;
    cJSON_ArrayForEach(r, rows) {
        if (i >= rec->n) break;
        int cr = cJSON_GetObjectItem(r, "rank")->valueint, cid = cJSON_GetObjectItem(r, "id")->valueint;
        if (cid != rec->rows[i].id || cr != rec->rows[i].rank + 1) rank_ok = 0;
        i++;
    }
    CHECK(i > 0 && rank_ok, "every CLI row rank equals the window's #N (%d rows)", i);
    cJSON *ch = j ? cJSON_GetObjectItem(j, "chosen") : NULL;
    CHECK(ch && cJSON_GetObjectItem(ch, "rank")->valueint == rec->chosen.rank + 1, "chosen rank as the window's");
    cJSON_Delete(j);
    free(out);

    /* a figure records the rolls (inferscope:draws) and reopening it rolls the same dice */
    char dir[256], png[512];
    if (check_tmpdir_make(dir, sizeof dir, "draws") == 0) {
        ExportOptions o = check_export_opts(dir, VIZ_PANEL_PROBS, 960, 540);
        CHECK(export_png(&s, &view, &o, png, sizeof png, &err) == 0, "export: %s", err.text);
        FigureState fs = {0};
        CHECK(figure_meta_read(png, &fs, &err) == 0 && fs.draws == N_ROLLS, "figure draws %d: %s", fs.draws, err.text);
        Session t;
        if (check_open_bundled(&t) == 0) {
            VizView v2;
            CHECK(figure_state_apply(&fs, &t, &v2, &err) == 0, "apply: %s", err.text);
            CHECK(t.has_draws && t.draws.n == N_ROLLS && memcmp(t.draws.row_counts, s.draws.row_counts,
                                                                sizeof s.draws.row_counts) == 0,
                  "the reopened figure has the same counts");
            session_free(&t);
        }
        figure_state_free(&fs);
        check_tmpdir_remove(dir);
    }

    /* 0 clears; a new setting forgets the tally (it was of the old distribution) */
    Action clear = {.kind = ACT_DRAWS, .n = 0};
    CHECK(action_apply(&s, NULL, &clear, &err) == 0 && !s.has_draws, "draws 0 clears");
    CHECK(action_apply(&s, NULL, &acts[2], &err) == 0 && s.has_draws, "draws again");
    set.top_k = 3;
    CHECK(action_apply(&s, NULL, &acts[1], &err) == 0 && !s.has_draws, "a new setting forgets the rolls");
    Action bad = {.kind = ACT_DRAWS, .n = SAMPLER_MAX_DRAWS + 1};
    CHECK(action_apply(&s, NULL, &bad, &err) != 0 && strstr(err.text, "10000"), "too many rolls: '%s'", err.text);
    session_free(&s);
    return check_summary("test_draws_action");
}
