/* app_state_json.c — `--state-out FILE`: a JSON snapshot of the session at exit, so a
 * test driving the real window (xdotool) can check what the keys and clicks did.
 * Written to a temporary file and renamed, so a reader never sees half a snapshot.
 * Not a save format: nothing reads it back. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "cli.h"

static void write_state(FILE *f, const AppState *app) {
    const Session *s = &app->session;
    const SamplerSettings *set = &s->settings;
    fprintf(f, "{\n  \"model\": ");
    cli_json_string(f, (const uint8_t *)s->model.name, strlen(s->model.name));
    fprintf(f, ",\n  \"prompt\": ");
    cli_json_string(f, s->prompt ? s->prompt : (const uint8_t *)"", s->prompt ? s->prompt_len : 0);
    fprintf(f, ",\n  \"ids\": [");
    for (int i = 0; i < session_len(s); i++) fprintf(f, "%s%d", i ? ", " : "", session_ids(s)[i]);
    fprintf(f, "],\n  \"n_pos\": %d,\n  \"n_prompt\": %d,\n", session_len(s), s->n_prompt);
    fprintf(f, "  \"n_branches\": %d,\n  \"branch\": %d,\n  \"branch_len\": [", s->n_branches, s->cur);
    for (int b = 0; b < s->n_branches; b++) fprintf(f, "%s%d", b ? ", " : "", s->branch[b].len);
    char settings[1024]; /* the settings table's one JSON writer */
    settings_json(set, set->greedy, settings, sizeof settings);
    fprintf(f, "],\n  \"settings\": %s,\n", settings);
    fprintf(f, "  \"seed\": %llu,\n", (unsigned long long)s->seed);
    fprintf(f, "  \"next_token\": %d,\n", s->has_next ? s->next.chosen.id : -1);
    fprintf(f, "  \"layer\": %d,\n  \"head\": %d,\n  \"hide_sink\": %s,\n", app->view.layer, app->view.head,
            app->view.hide_sink ? "true" : "false");
    fprintf(f, "  \"lesson_beat\": %d,\n", app->in_lesson ? app->beat.beat : -1);
    fprintf(f, "  \"ui_scale\": %.9g,\n  \"theme\": \"%s\",\n  \"fullscreen\": %s\n}\n", (double)app->ui_scale,
            theme_get(app->theme)->name, app->fullscreen ? "true" : "false");
}

int app_write_state_json(const AppState *app, const char *path, ErrorMsg *err) {
    char tmp[4096];
    int n = snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid());
    if (n < 0 || (size_t)n >= sizeof tmp) return error_set(err, "%s: path too long", path);
    FILE *f = fopen(tmp, "w");
    if (!f) return error_set(err, "%s: cannot create: %s", tmp, strerror(errno));
    write_state(f, app);
    int bad = ferror(f);
    if (fclose(f) != 0) bad = 1;
    if (bad) {
        unlink(tmp);
        return error_set(err, "%s: write error", path);
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return error_set(err, "%s: cannot rename the temporary file onto it: %s", path, strerror(e));
    }
    return 0;
}
