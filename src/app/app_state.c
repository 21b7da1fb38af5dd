/* app_state.c — creating and freeing an AppState (see app.h): the session is opened,
 * seeded, given its settings and prompt; the view gets its defaults. No window here,
 * so tests can build an AppState headless. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "app_record.h"
#include "app_class.h"
#include "app_jobs.h"
#include "cli.h"
#include "frame_fill.h"
#include "platform.h"

AppOptions app_default_options(void) {
    AppOptions o;
    memset(&o, 0, sizeof o);
    o.weights = GPT2_WEIGHTS_AS_STORED;
    /* what fits in 55 % of the RAM and in free RAM (gpt2_trace_budget_default): on an 8 GB
     * laptop GPT-2 XL then keeps lean patterns instead of 2.5 GB of full ones and stays
     * near 4.2 GB, and smaller models are unchanged */
    o.trace_budget = SESSION_TRACE_AUTO;
    o.prompt = "Once upon a time";
    o.seed = 0;
    o.settings = sampler_settings_default();
    o.ui_scale = 1.0f;
    o.theme = THEME_LIGHT;
    o.width = 1280;
    o.height = 720;
    return o;
}

/* The first prompt: --ids, else the text. A model with its own small vocabulary may not
 * be able to spell the default "Once upon a time" (or has no text at all): then the
 * window starts from token 0 and the status line says why, instead of refusing to open. */
static int start_prompt(AppState *app, const AppOptions *opt, char *note, size_t cap, ErrorMsg *err) {
    Session *s = &app->session;
    if (opt->ids) {
        int *ids = NULL;
        size_t n = 0;
        int rc = cli_parse_ids(opt->ids, session_vocab(s), &ids, &n, err) || session_set_prompt_ids(s, ids, n, err);
        free(ids);
        return rc ? -1 : 0;
    }
    if (session_set_prompt(s, (const uint8_t *)opt->prompt, strlen(opt->prompt), err) == 0) return 0;
    if (opt->prompt_given) return -1;
    char why[sizeof err->text];
    snprintf(why, sizeof why, "%s", err->text);
    int zero = 0;
    if (session_set_prompt_ids(s, &zero, 1, err)) return -1;
    snprintf(note, cap, "starting from token 0: the default prompt does not fit this model's vocabulary (give "
             "--prompt or --ids): %.300s", why);
    return 0;
}

int app_init(AppState *app, const AppOptions *opt, ErrorMsg *err) {
    if (opt->ui_scale < VIZ_UI_SCALE_MIN || opt->ui_scale > VIZ_UI_SCALE_MAX)
        return error_set(err, "UI scale %.2f is outside [%.1f, %.1f]", (double)opt->ui_scale,
                         (double)VIZ_UI_SCALE_MIN, (double)VIZ_UI_SCALE_MAX);
    /* GPT2_CAP_DEFAULT keeps what the panels read (attention patterns, logits) and
     * what stepping back needs (the KV cache). */
    SessionConfig sc = session_config_default();
    sc.weights = opt->weights;
    sc.trace_budget = opt->trace_budget;
    if (session_open_cfg(&app->session, opt->model_dir, opt->tok_dir, &sc, err)) return -1;
    session_set_seed(&app->session, opt->seed);
    char note[APP_STATUS_MAX] = "";
    if (session_set_settings(&app->session, &opt->settings, err) ||
        start_prompt(app, opt, note, sizeof note, err)) {
        app_free(app);
        return -1;
    }
    app->view = frame_default_view();
    /* the last layer's heads are usually the most readable place to start */
    app->view.layer = app->session.model.config.n_layer - 1;
    app->ui_scale = opt->ui_scale;
    app->theme = opt->theme;
    app->assets_dir = opt->assets_dir;
    app->class_address = opt->class_address;
    app->model_dir = opt->model_dir;
    app->tok_dir = opt->tok_dir;
    app->export_dir = platform_export_dir(opt->export_dir);
    app->n_help = keys_help(app->help, APP_HELP_MAX);
    app->dirty = 1;
    if (note[0]) app_set_status(app, 1, "%s", note);
    else if (app->session.trace_dropped) app_set_status(app, 0, "%s · ? shows the keys", app->session.trace_note);
    else app_set_status(app, 0, "? shows the keys");
    return 0;
}

void app_free(AppState *app) {
    if (!app) return;
    app_jobs_wait(app); /* never free the session under a running worker */
    app_record_stop(app); /* a recording still running is written, not lost */
    app_class_close(app);
    session_free(&app->session);
    lesson_free(&app->lesson);
    app->in_lesson = 0;
    app->n_help = 0;
}
