/* app_main.c — `inferscope` with no command: parses the window's options, opens the
 * session (errors here print one line and exit 2, before any window appears), runs
 * the window, and writes the --state-out snapshot at exit. Not the window itself
 * (app.c) and not the subcommands (cmd_*.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app.h"
#include "app_class.h"
#include "cli.h"
#include "export.h"
#include "figure_meta.h"
#include "cli_model.h"
#include "file_read.h"
#include "file_write.h"
#include "frame_size.h"
#include "lesson_run.h"
#include "parse_num.h"
#include "platform.h"

static void usage(FILE *f) {
    char sampler[4096];
    settings_usage(sampler, sizeof sampler, 23); /* the settings table's flags */
    fprintf(f,
            "usage: inferscope [options]          open the window\n\n"
            "  --model DIR          checkpoint folder (default: the bundled model, %s)\n"
            "  --weights P          f32, f16 or bf16: precision of the matrices (default: as stored;\n"
            "                       f16 halves memory and the bytes read per token)\n"
            "  --prompt TEXT        the prompt (default \"Once upon a time\")\n"
            "  --ids LIST           the prompt as token ids, e.g. 7454,2402,257 (any model)\n"
            "  --trace-mb N|auto    memory for the trace in MB (default auto: weights + trace within\n"
            "                       55 %% of RAM and free RAM; a smaller budget recomputes more)\n"
            "  --seed S             dice seed (default 0): the same seed gives the same tokens\n"
            "%s"
            "  --scale S            UI scale 1.0..2.5 for projectors/HiDPI (X11 ignores HiDPI)\n"
            "  --theme light|dark\n"
            "  --size WxH           window size in pixels (default 1280x720, at least %dx%d)\n"
            "  --export-dir DIR     where E / Shift+E write figures and W its recordings (default\n"
            "                       ./inferscope-figures)\n"
            "  --lesson FILE        presenter mode: play a lesson beat by beat (lessons/README.md)\n"
            "  --open-figure FILE   reopen the window in the state an exported figure records (a PNG,\n"
            "                       or the last state of an exported .mp4, .webm or .gif)\n"
            "  --class              open the class room with the window: students guess the next token\n"
            "                       on their phones (J opens and closes it in the window too)\n"
            "  --class-address ADDR:PORT  where the room listens (default: this machine's LAN address,\n"
            "                       port %d; never all interfaces unless you write 0.0.0.0)\n"
            "  --state-out FILE     write a JSON snapshot of the session at exit (for tests); an\n"
            "                       existing FILE is replaced only if it is a regular file\n"
            "  --help\n\n"
            "In the window, ? shows every key.\n",
            cli_default_model_dir(), sampler, APP_MIN_W, APP_MIN_H, CLASS_DEFAULT_PORT);
}

static int is_dir(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The status line, also on stderr: it names the figure and the model (inert, cli_print_line). */
static void warn_status(const AppState *app) {
    fputs("inferscope: warning: ", stderr);
    cli_print_line(stderr, app->status, strlen(app->status));
}

/* The status line after --open-figure: "reopened F", or what differs from the figure —
 * another model, or other weights under the same name (the figure's SHA-256 against
 * the weights this window loaded; a hash is computed once and kept for exports). */
static void app_reopen_status(AppState *app, const FigureState *fig, const char *path) {
    const char *here = app->session.model.name;
    if (strcmp(fig->model, here) != 0) {
        app_set_status(app, 1, "%s was made with model '%s'; this window shows '%s'", path, fig->model, here);
        warn_status(app);
        return;
    }
    char hex[SHA256_HEX_LEN + 1];
    ErrorMsg e;
    if (fig->model_sha256[0] && export_weights_sha256(&app->session, &app->sha_cache, hex, &e) == 0 &&
        strcmp(hex, fig->model_sha256) != 0) {
        app_set_status(app, 1, "%s was made with other weights named '%s' (SHA-256 %.12s…, these are %.12s…)", path,
                       here, fig->model_sha256, hex);
        warn_status(app);
        return;
    }
    app_set_status(app, 0, "reopened %s", path);
}

int app_open_figure_state(AppState *app, const FigureState *fig, const char *what, ErrorMsg *err) {
    if (figure_state_apply(fig, &app->session, &app->view, err)) return -1;
    app->theme = fig->theme;
    if (fig->ui_scale >= VIZ_UI_SCALE_MIN) app->ui_scale = fig->ui_scale;
    app_reopen_status(app, fig, what);
    app->dirty = 1;
    return 0;
}

/* What the window's command line asks for, besides AppOptions. */
typedef struct WindowArgs {
    AppOptions opt;
    const char *state_out, *lesson_path, *figure_path;
    int model_given; /* --model was given (a lesson's own model then yields to it) */
} WindowArgs;

enum { APP_ARGS_HELP = -1 };

/* Parses argv into *w. 0 when the window should open, APP_ARGS_HELP after --help, or
 * cli_fail's exit status (a one-line error was printed). */
static int parse_window_args(int argc, char **argv, WindowArgs *w) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return APP_ARGS_HELP;
        }
        ErrorMsg serr;
        int set_rc = cli_parse_setting(argc, argv, &i, &w->opt.settings, &serr); /* the sampler flags */
        if (set_rc < 0) return cli_fail("window", "%s", serr.text);
        if (set_rc > 0) continue;
        if (strcmp(a, "--class") == 0) {
            w->opt.class_open = 1;
            continue;
        }
        if (i + 1 >= argc) return cli_fail("window", "%s needs a value (see inferscope --help)", a);
        const char *v = argv[++i];
        double d = 0;
        if (strcmp(a, "--model") == 0) {
            w->opt.model_dir = v;
            w->model_given = 1;
        } else if (strcmp(a, "--weights") == 0) {
            ErrorMsg werr;
            if (cli_parse_weights(v, &w->opt.weights, &werr)) return cli_fail("window", "%s", werr.text);
        } else if (strcmp(a, "--trace-mb") == 0) {
            ErrorMsg terr;
            if (cli_parse_trace_mb(v, &w->opt.trace_budget, &terr)) return cli_fail("window", "%s", terr.text);
        } else if (strcmp(a, "--lesson") == 0) {
            w->lesson_path = v;
        } else if (strcmp(a, "--open-figure") == 0) {
            w->figure_path = v;
        } else if (strcmp(a, "--prompt") == 0) {
            if (w->opt.ids) return cli_fail("window", "--prompt and --ids exclude each other");
            w->opt.prompt = v;
            w->opt.prompt_given = 1;
        } else if (strcmp(a, "--ids") == 0) {
            if (w->opt.prompt_given) return cli_fail("window", "--prompt and --ids exclude each other");
            w->opt.ids = v;
        } else if (strcmp(a, "--seed") == 0) {
            ErrorMsg serr;
            if (settings_parse_seed("--seed", v, &w->opt.seed, &serr)) return cli_fail("window", "%s", serr.text);
        } else if (strcmp(a, "--scale") == 0) {
            if (parse_num_real(v, &d) != NUM_OK || d < VIZ_UI_SCALE_MIN || d > VIZ_UI_SCALE_MAX)
                return cli_fail("window", "--scale %s: expected a number from %.1f to %.1f", v,
                                (double)VIZ_UI_SCALE_MIN, (double)VIZ_UI_SCALE_MAX);
            w->opt.ui_scale = (float)d;
        } else if (strcmp(a, "--theme") == 0) {
            if (theme_parse(v, &w->opt.theme)) return cli_fail("window", "--theme %s: expected light or dark", v);
        } else if (strcmp(a, "--size") == 0) {
            ErrorMsg serr;
            if (viz_size_parse("--size", v, APP_MIN_W, APP_MIN_H, &w->opt.width, &w->opt.height, &serr))
                return cli_fail("window", "%s", serr.text);
        } else if (strcmp(a, "--export-dir") == 0) {
            if (!*v) return cli_fail("window", "--export-dir: the folder name is empty (give one, e.g. figs)");
            w->opt.export_dir = v;
        } else if (strcmp(a, "--class-address") == 0) {
            ClassAddress ca;
            ErrorMsg cerr;
            if (class_address_parse(v, &ca, &cerr)) return cli_fail("window", "%s", cerr.text);
            w->opt.class_address = v;
        } else if (strcmp(a, "--state-out") == 0) {
            w->state_out = v;
        } else {
            return cli_fail("window", "unknown option %s (see inferscope --help)", a);
        }
    }
    if (w->lesson_path && w->figure_path) return cli_fail("window", "--lesson and --open-figure exclude each other");
    /* the outputs, refused now rather than after a session: --state-out replaces only a
     * regular file (never /dev/full or a link), --export-dir must be a folder if it exists */
    ErrorMsg oerr;
    if (w->state_out && file_write_check(w->state_out, 1, &oerr)) return cli_fail("window", "--state-out %s", oerr.text);
    struct stat st;
    if (w->opt.export_dir && stat(w->opt.export_dir, &st) == 0 && !S_ISDIR(st.st_mode))
        return cli_fail("window", "--export-dir %s: exists and is not a folder", w->opt.export_dir);
    return 0;
}

int app_main(int argc, char **argv) {
    WindowArgs w = {.opt = app_default_options()};
    w.opt.model_dir = cli_default_model_dir();
    w.opt.tok_dir = cli_tokenizer_dir();
    w.opt.assets_dir = cli_assets_dir();
    int prc = parse_window_args(argc, argv, &w);
    if (prc) return prc == APP_ARGS_HELP ? 0 : prc;
    AppOptions opt = w.opt;
    const char *state_out = w.state_out, *lesson_path = w.lesson_path, *figure_path = w.figure_path;
    int model_given = w.model_given;
    /* a lesson is parsed completely before anything opens: never half-way */
    Lesson lesson;
    memset(&lesson, 0, sizeof lesson);
    char lesson_model[1200], note[256] = "";
    ErrorMsg err = {{0}};
    /* where the lesson, the figure and the model are read from (platform.h) */
    if (platform_files_init(&err)) return cli_fail("window", "%s", err.text);
    if (lesson_path) {
        if (lesson_load(&lesson, lesson_path, &err)) return cli_fail("window", "%s", err.text);
        lesson_model_dir(&lesson, opt.model_dir, lesson_model, sizeof lesson_model, note, sizeof note);
        if (!model_given) opt.model_dir = lesson_model;
        else note[0] = 0;
    }
    FigureState fig;
    memset(&fig, 0, sizeof fig);
    if (figure_path) {
        if (figure_meta_read(figure_path, &fig, &err)) return cli_fail("window", "%s", err.text);
        opt.theme = fig.theme;
        opt.ui_scale = fig.ui_scale >= VIZ_UI_SCALE_MIN ? fig.ui_scale : opt.ui_scale;
    }
    /* The bundled model may not be there (a fresh checkout before `make` fetched or
     * trained it): say which folder is missing rather than silently using another. */
    if (!is_dir(opt.model_dir)) {
        struct stat st;
        int there = stat(opt.model_dir, &st) == 0;
        lesson_free(&lesson);
        figure_state_free(&fig);
        if (there)
            return cli_fail("window", "%s: not a model folder (%s; pass --model DIR with config.json and "
                            "model.safetensors)", opt.model_dir, file_kind_name(st.st_mode));
        return cli_fail("window", "%s: model folder not found (pass --model DIR with config.json and "
                        "model.safetensors)", opt.model_dir);
    }

    static AppState app; /* ~100 KB of hit regions: keep it off the stack */
    memset(&app, 0, sizeof app);
    if (app_init(&app, &opt, &err)) {
        app_free(&app);
        lesson_free(&lesson);
        figure_state_free(&fig);
        return cli_fail("window", "%s", err.text);
    }
    if (lesson_path && app_lesson_open(&app, &lesson, note, &err)) {
        app_free(&app);
        return cli_fail("window", "%s", err.text);
    }
    if (figure_path) {
        int frc = app_open_figure_state(&app, &fig, figure_path, &err);
        figure_state_free(&fig);
        if (frc) {
            app_free(&app);
            return cli_fail("window", "%s", err.text);
        }
    }
    /* the room opens before the window: a port in use is one line and exit 2, not a
     * window that says so afterwards */
    if (opt.class_open && app_class_open(&app, opt.class_address, &err)) {
        app_free(&app);
        return cli_fail("window", "--class: %s", err.text);
    }
    int rc = 0;
    if (app_run(&app, opt.width, opt.height, &err)) rc = cli_fail("window", "%s", err.text);
    if (state_out && app_write_state_json(&app, state_out, &err)) rc = cli_fail("window", "%s", err.text);
    if (rc == 0) cli_report_seed(app.session.seed);
    app_free(&app);
    return rc;
}
