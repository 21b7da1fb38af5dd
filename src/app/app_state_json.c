/* app_state_json.c — `--state-out FILE`: a JSON snapshot of the session at exit, so a
 * test driving the real window (xdotool) can check what the keys and clicks did.
 * Written to a temporary created new beside it and renamed (file_write.h), so a reader
 * never sees half a snapshot, and only a regular file at FILE is ever replaced.
 * Not a save format: nothing reads it back. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "cli.h"
#include "file_write.h"
#include "file_write.h"

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
    AtomicFile a; /* replaces an earlier snapshot, never a link or a device (file_write.h) */
    if (atomic_file_open(&a, path, 1, err)) return -1;
    write_state(a.f, app);
    return atomic_file_commit(&a, err);
}
