/* cmd_export.c — `inferscope export`: figures for course material, rendered headless
 * (no display needed) through the same Session → frame_fill → panels path as the
 * window, written by export.h with provenance. A flip-book: one set of figures for the
 * prompt state, then one after each generated token. Not the renderer (export.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "action.h"
#include "cli.h"
#include "cli_model.h"
#include "cli_opts.h"
#include "export.h"
#include "export_video.h"
#include "frame_fill.h"
#include "file_write.h"
#include "frame_size.h"
#include "lesson_facts.h"
#include "handout_class.h"
#include "lesson_handout.h"
#include "lesson_run.h"
#include "lesson_slide.h"
#include "parse_num.h"
#include "text_visible.h"
#include "video_encode.h"

static const char USAGE_VS[] =
    "  --vs TEXT        the attribution panel explains logit(pick) - logit(TEXT): \"why ' time'\n"
    "                   and not ' day'\" (TEXT one token, with its leading space); recorded as\n"
    "                   inferscope:attr_vs; a lesson sets it with `attribute_vs TEXT`\n";

static void usage(void) {
    fprintf(stdout,
            "usage: inferscope export [--model DIR] (--prompt TEXT | --ids LIST) [--steps N] [--seed S]\n"
            "         [sampler flags] [--panel frame|attention|probs|tokens|text|\n"
            "         lens|attribution|journey|attention-math|attention-lines|heads|compare]\n"
            "         [--query N] [--heads LIST|all] [--vs TEXT]\n"
            "         [--compare SPEC SPEC [SPEC [SPEC]]]\n"
            "         [--layer L --head H | --layer L | --all-heads] [--contact-sheet]\n"
            "         [--scale 1|2|4] [--size WxH] [--ui-scale X] [--theme light|dark] [--axis A]\n"
            "         [--format png|svg|pdf | --video FILE.mp4|webm|gif [--fps N] [--beat-seconds S]]\n"
            "         [--text-mode plain|surprisal|seen] [--draws N] [--sidecar] [--ablate LIST]\n"
            "         --out DIR\n"
            "       inferscope export --lesson FILE.lesson [--model DIR] [--size WxH] [--scale S] [--handout]\n"
            "         [--format png|svg|pdf] --out DIR\n"
            "       inferscope export --lesson FILE.lesson --video FILE.mp4|webm|gif [--fps N] [--beat-seconds S]\n\n"
            "Renders figures (PNG with provenance text chunks) without a display: the prompt state,\n"
            "then the state after each of N generated tokens (a flip-book). Files are numbered\n"
            "after the highest number already in DIR (nothing is overwritten), e.g.\n"
            "  0007-step-07-attention-L3H5.png\n\n"
            "  --panel P        what to draw: the whole frame (default) or one panel; lens (the logit\n"
            "                   lens grid), attribution (what each part adds to the pick's logit) and\n"
            "                   journey (the newest token through every stage) look inside the model;\n"
            "                   attention-math: one query of head --layer L --head H step by step\n"
            "                   (q.k, / sqrt(d_head), causal mask, softmax, weighted values, z)\n"
            "                   attention-lines: queries left, keys right, a line per strong weight,\n"
            "                   one colour per head of --layer L (all its heads without --head)\n"
            "  --query N        the query position attention-math explains (0-based; default the\n"
            "                   newest token); attention-lines draws that query's lines alone;\n"
            "                   a lesson sets it with `query N`\n"
            "  --heads LIST|all the heads attention-lines draws (\"0,2,5\" or all); a lesson: `heads`\n"
            "%s"
            "  --compare SPEC SPEC [SPEC [SPEC]]   the compare panel: the prompt continued %d\n"
            "                   tokens under each of 2 to 4 settings with the same dice, as\n"
            "                   `inferscope compare` prints them (\"greedy\" \"T=0.7\" \"top-k=40\"\n"
            "                   \"top-p=0.9,T=1.5\"); the specs go into the figure (inferscope:compare).\n"
            "                   --panel compare alone draws that default set\n"
            , USAGE_VS, SESSION_COMPARE_DEFAULT_NEW);
    fprintf(stdout,
            "  --layer L --head H   the attention head shown (0-based, as blocks.L.attn.hook_pattern);\n"
            "                   alone, --layer L exports every head of layer L (attention panel)\n"
            "  --all-heads      every head of --layer L, or of every layer without --layer\n"
            "  --contact-sheet  those heads as ONE labelled grid per state instead of one file each\n"
            "  --steps N        generate N tokens, exporting after each (default 0)\n"
            "  --scale S        1, 2 or 4: re-rendered at S times the pixels, same layout (default 1)\n"
            "  --size WxH       logical size, as a window of that size (default 1920x1080; from\n"
            "                   320x200 to 8192x8192)\n"
            "  --ui-scale X     the window's UI scale, 1..2.5 (default 1); one panel alone and lesson\n"
            "                   slides set their type for a lecture hall (2.2 at 1920x1080) times X\n"
            "  --axis A         probability axis: auto (fits the bars), linear N (0..N %%, the same on\n"
            "                   every figure) or log (0.001 %% .. 100 %%); a lesson sets it with `axis`\n"
            "  --text-mode M    what the Text panel marks on each token: plain (default), surprisal\n"
            "                   (-log2 p in bits, viridis, with a scale) or seen (ends an 8-token run of\n"
            "                   the training text: boxed; models without an index say so); a lesson\n"
            "                   sets it with `textmode`\n");
    fprintf(stdout,
            "  --draws N        roll the pending dice N times (1..10000, the rolls `next --draws N`\n"
            "                   makes) in every state: how often each token came up, drawn over the\n"
            "                   bars, with Pearson's chi2 (inferscope:draws; a lesson: `draws N`)\n"
            "  --theme T        light (default, for print) or dark\n"
            "  --format F       png (default), svg or pdf: the same figure, same layout and colours;\n"
            "                   SVG and PDF keep every word as text (selectable, searchable) with the\n"
            "                   fonts embedded, and the provenance (SVG <metadata>, PDF document info);\n"
            "                   with --lesson, pdf writes ONE multi-page PDF, a slide per beat\n"
            "  --video FILE     one video instead of numbered figures: MP4 (H.264, plays in PowerPoint,\n"
            "                   Keynote, Google Slides and browsers), WebM (VP9) or GIF, by FILE's\n"
            "                   extension; each state (the prompt, each step, each lesson beat with its\n"
            "                   captions) is one picture, the same pixels as its PNG, held one beat;\n"
            "                   the provenance of the last state is in the file's metadata\n"
            "                   (--open-figure FILE reopens it). FILE is never overwritten\n"
            "  --fps N          frames per second of --video, 1..60 (default 30; GIF 10, and a GIF's\n"
            "                   N must divide 100: its delays are hundredths of a second)\n"
            "  --beat-seconds S how long --video holds each state (default 2)\n"
            "  --sidecar        also write NAME.json with the same provenance\n"
            "  --out DIR        output folder (created if missing)\n"
            "  --lesson FILE    every beat of a lesson as a numbered slide (lessons/README.md);\n"
            "                   the lesson sets the model (--model overrides it), prompt and settings\n"
            "  --handout        with --lesson: also write handout.md and handout.html beside the\n"
            "                   slides (title, each slide with its captions and question, and the\n"
            "                   teacher's notes from the lesson's # comments), for students at home\n"
            "  --class-results FILE  with --handout: add how the class did (a class-rounds-NNNN.json\n"
            "                   written by U in the window or `inferscope class`): each round's token,\n"
            "                   answers, the class's hits and bits beside the model's, and the score\n\n"
            "%s%s%s%s"
            "With --ablate the figures show the model with those parts switched off, and their\n"
            "provenance says so (inferscope:ablate; --open-figure switches the same parts off).\n"
            "Prints \"wrote N figures to DIR\"; a progress bar on stderr when it is a terminal.\n"
            "Reopen a figure in the window with: inferscope --open-figure FILE.png (or a --video FILE)\n",
            CLI_MODEL_USAGE_MODEL, CLI_MODEL_USAGE_PROMPT, CLI_MODEL_USAGE_SAMPLER,
            CLI_MODEL_USAGE_ABLATE);
}

/* "[#####.....] 12/40" on stderr, redrawn in place (only when stderr is a terminal). */
/* "wrote N figures to DIR", the folder as given (inert on the terminal: text_visible.h) */
static void report_written(int written, const char *dir) {
    char shown[4096];
    printf("wrote %d figure%s to %s\n", written, written == 1 ? "" : "s", TEXT_VISIBLE(shown, dir));
}

static void progress(int done, int total) {
    const int width = 30;
    int fill = total ? done * width / total : width;
    fprintf(stderr, "\r[");
    for (int i = 0; i < width; i++) fputc(i < fill ? '#' : '.', stderr);
    fprintf(stderr, "] %d/%d", done, total);
    if (done == total) fputc('\n', stderr);
    fflush(stderr);
}

/* Writes the video with the provenance of the last state and says what it holds:
 * "wrote FILE: 8 pictures, 16.0 s at 30 fps, 1920x1080". */
static int write_video(const char *CMD, ExportVideo *video, const Session *s, const VizView *view,
                       const ExportOptions *opt) {
    ErrorMsg err;
    if (export_video_write(video, s, view, opt, &err)) return cli_fail(CMD, "%s", err.text);
    char shown[4096];
    int sc = opt->scale ? opt->scale : 1;
    printf("wrote %s: %d picture%s, %.1f s, %ld frames, %dx%d\n", TEXT_VISIBLE(shown, export_video_path(video)),
           export_video_pictures(video), export_video_pictures(video) == 1 ? "" : "s", export_video_seconds(video),
           export_video_frames(video), opt->width * sc, opt->height * sc);
    return 0;
}

/* `export --lesson`: one slide per beat, with the captions, question and beat counter
 * drawn as in presenter mode, named 0001-<lesson>-beat-01.png ... */
static int export_lesson(const char *CMD, const char *path, const char *model_override, const char *tok_dir,
                         ExportOptions *opt, int handout, const char *video_path, int fps, double beat_seconds,
                         const ClassResults *klass) {
    ErrorMsg err;
    Lesson l;
    if (lesson_load(&l, path, &err)) return cli_fail(CMD, "%s", err.text);
    if (lesson_facts_check(&l, &err)) {
        lesson_free(&l);
        return cli_fail(CMD, "%s", err.text);
    }
    char dir[1200], note[256];
    lesson_model_dir(&l, cli_default_model_dir(), dir, sizeof dir, note, sizeof note);
    if (model_override) {
        snprintf(dir, sizeof dir, "%s", model_override);
        note[0] = 0; /* the model given on the command line is what runs: no fallback to report */
    }
    if (note[0]) {
        fprintf(stderr, "inferscope %s: note: ", CMD);
        cli_print_line(stderr, note, strlen(note)); /* it names the lesson's model folder */
    }
    Session s;
    if (session_open(&s, dir, tok_dir ? tok_dir : cli_tokenizer_dir(), 0, GPT2_CAP_DEFAULT, &err)) {
        lesson_free(&l);
        return cli_fail(CMD, "%s", err.text);
    }
    VizView view = frame_default_view();
    LessonBeatView bv = {0};
    snprintf(bv.note, sizeof bv.note, "%s", note);
    Sha256Cache sha = {0};
    opt->sha_cache = &sha;
    int rc = 0;
    if (lesson_check(&l, &s, &view, &bv, &err)) rc = cli_fail(CMD, "%s", err.text);
    LessonHandout ho = {0};
    if (rc == 0 && handout && lesson_handout_init(&ho, &l, s.model.name, note, &err)) rc = cli_fail(CMD, "%s", err.text);
    if (rc == 0 && handout && klass && handout_class_table(&ho, klass, &err)) rc = cli_fail(CMD, "%s", err.text);
    /* the lesson's file name without folder and extension names the slides */
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char name[64];
    snprintf(name, sizeof name, "%s", base);
    char *dot = strrchr(name, '.');
    if (dot) *dot = 0;
    int tty = isatty(STDERR_FILENO), written = 0;
    LessonFacts facts = {.step_ms = -1.0}; /* one timing for the whole export: the slides agree */
    /* --format pdf: the slides are the pages of one document (the deck) */
    ExportPdfDeck *deck = NULL;
    if (rc == 0 && opt->format == EXPORT_PDF && export_pdf_deck_open(&deck, opt, &err)) rc = cli_fail(CMD, "%s", err.text);
    /* --video: the slides are the pictures of one video, each held beat_seconds */
    ExportVideo *video = NULL;
    if (rc == 0 && video_path && export_video_open(&video, video_path, opt, fps, beat_seconds, &err))
        rc = cli_fail(CMD, "%s", err.text);
    for (size_t k = 0; rc == 0 && k < l.n_beats; k++) {
        if (lesson_goto_beat(&l, (int)k, &s, &view, &bv, &err)) {
            rc = cli_fail(CMD, "%s", err.text);
            break;
        }
        /* captions with live numbers ({step_ms} ...) are measured now, on this model */
        LessonCaptions lc;
        char m[200];
        if (lesson_facts_captions(&bv, &s, &facts, &lc, m, sizeof m)) {
            rc = cli_fail(CMD, "%s: beat %zu: %s", path, k + 1, m);
            break;
        }
        ExportOverlay ov;
        lesson_slide_overlay(&l, &bv, &lc, &ov);
        char stem[96], out[4300];
        snprintf(stem, sizeof stem, "%s-beat-%02zu", name, k + 1);
        opt->overlay = &ov;
        opt->stem = stem;
        opt->panel = view.focus;
        if (video  ? export_video_add(video, &s, &view, opt, &err)
            : deck ? export_pdf_deck_add(deck, &s, &view, opt, &err)
                   : export_png(&s, &view, opt, out, sizeof out, &err)) {
            rc = cli_fail(CMD, "%s", err.text);
            break;
        }
        int skip = bv.note[0] != 0; /* the fallback note goes once at the top of the handout */
        if (handout && lesson_handout_add(&ho, (int)k, out, lc.line + skip, lc.n - skip, bv.question,
                                          !view.hide_probs, &err)) {
            rc = cli_fail(CMD, "%s", err.text);
            break;
        }
        written++;
        if (tty) progress(written, (int)l.n_beats);
    }
    if (rc == 0 && deck) {
        char out[4300], shown[4096];
        opt->stem = name;
        if (export_pdf_deck_write(deck, &s, &view, opt, name, out, sizeof out, &err)) rc = cli_fail(CMD, "%s", err.text);
        else printf("wrote %s: %d slide%s, one page each\n", TEXT_VISIBLE(shown, out), written, written == 1 ? "" : "s");
    }
    export_pdf_deck_free(deck);
    if (rc == 0 && video) rc = write_video(CMD, video, &s, &view, opt);
    else if (rc == 0 && !deck) report_written(written, opt->dir);
    export_video_free(video);
    char md[4300], html[4300];
    if (rc == 0 && handout) {
        if (lesson_handout_write(&ho, opt->dir, md, sizeof md, html, sizeof html, &err)) rc = cli_fail(CMD, "%s", err.text);
        else {
            char md_shown[4300], html_shown[4300];
            printf("wrote the handout: %s and %s\n", TEXT_VISIBLE(md_shown, md), TEXT_VISIBLE(html_shown, html));
        }
    }
    if (rc == 0) cli_report_seed(s.seed);
    lesson_handout_free(&ho);
    session_free(&s);
    lesson_free(&l);
    return rc;
}

/* ---- the command line ------------------------------------------------------------ */

/* What export's own options set (the shared ones are in CliModelArgs). */
typedef struct ExportArgs {
    ExportOptions opt;       /* folder, panel, size, scale, UI scale, theme, sidecar */
    long steps;              /* tokens to generate, one set of figures after each */
    long layer, head;        /* -1 = not given */
    int all_heads, sheet, handout;
    int panel_given, axis_given; /* given explicitly (a lesson sets them itself) */
    int text_mode;           /* VizTextMode */
    long query;              /* --query: the position attention-math explains, -1 = the newest */
    unsigned long long heads; /* --heads: the heads attention-lines draws (bit h), 0 = not given */
    int heads_all;           /* --heads all */
    const char *vs;          /* --vs TEXT: the attribution explains logit(pick) - logit(TEXT) */
    VizProbAxis axis;
    float axis_max;
    const char *lesson_path;
    long draws;              /* --draws N: roll the pending dice N times in every state, 0 = no */
    int compare;             /* --compare: the arguments after it are SPECs */
    const char *spec[SEQ_COMPARE_MAX_COLS + 1]; /* (n_specs) borrowed from argv; one over
                                                 * the limit is kept to refuse it */
    int n_specs;
    CliModelArgs *model;     /* for a positional prompt before --compare */
    const char *video;       /* --video FILE.mp4|webm|gif: one video instead of numbered figures */
    long fps;                /* --fps N (0 = the format's default) */
    double beat_seconds;     /* --beat-seconds S: how long each state is held (0 = not given) */
    const char *class_results; /* --class-results FILE.json: the handout's "how the class did" */
} ExportArgs;

/* --heads "0,2,5" or "all" (heads past the model's are refused once it is loaded) */
static int take_heads(void *ctx, const char *flag, const char *v, ErrorMsg *err) {
    ExportArgs *ea = ctx;
    ea->heads = 0;
    ea->heads_all = strcmp(v, "all") == 0;
    if (ea->heads_all) return 0;
    const char *p = v;
    while (*p) {
        char *end = NULL;
        long h = strtol(p, &end, 10);
        if (end == p || h < 0 || h > 63 || (*end && *end != ','))
            return error_set(err, "%s: '%s' is not a list of heads 0..63 like 0,2,5 or all", flag, v);
        ea->heads |= 1ULL << h;
        p = *end ? end + 1 : end;
    }
    if (!ea->heads) return error_set(err, "%s: '%s' names no head", flag, v);
    return 0;
}

static int take_scale(void *ctx, const char *flag, const char *v, ErrorMsg *err) {
    long long x = 0;
    if (parse_num_int(v, &x) != NUM_OK || x < 1 || x > 4 || x == 3) return error_set(err, "%s: %s is not 1, 2 or 4", flag, v);
    *(int *)ctx = (int)x;
    return 0;
}

static int take_panel(void *ctx, const char *flag, const char *v, ErrorMsg *err) {
    ExportArgs *ea = ctx;
    int p = viz_panel_from_name(v);
    if (p < 0) {
        char names[400];
        viz_panel_names(", ", names, sizeof names);
        return error_set(err, "%s: '%s' is not a panel (%s)", flag, v, names);
    }
    ea->opt.panel = (VizPanel)p;
    ea->panel_given = 1;
    return 0;
}

static int take_format(void *ctx, const char *flag, const char *v, ErrorMsg *err) {
    if (export_format_parse(v, ctx)) {
        char names[64];
        export_format_names(", ", names, sizeof names);
        return error_set(err, "%s: '%s' is not a format (%s)", flag, v, names);
    }
    return 0;
}

static int take_theme(void *ctx, const char *flag, const char *v, ErrorMsg *err) {
    if (theme_parse(v, ctx)) return error_set(err, "%s: '%s' is not light or dark", flag, v);
    return 0;
}

static int take_size(void *ctx, const char *flag, const char *v, ErrorMsg *err) {
    ExportOptions *opt = ctx;
    return viz_size_parse(flag, v, VIZ_FIGURE_MIN_W, VIZ_FIGURE_MIN_H, &opt->width, &opt->height, err);
}

static int take_axis(void *ctx, const char *flag, const char *v, ErrorMsg *err) {
    ExportArgs *ea = ctx;
    if (viz_axis_parse(v, &ea->axis, &ea->axis_max))
        return error_set(err, "%s: '%s' is not auto, log or linear N (0 < N <= 100)", flag, v);
    ea->axis_given = 1;
    return 0;
}

static int take_text_mode(void *ctx, const char *flag, const char *v, ErrorMsg *err) {
    ExportArgs *ea = ctx;
    ea->text_mode = viz_text_mode_from_name(v);
    if (ea->text_mode < 0) return error_set(err, "%s: '%s' is not plain, surprisal or seen", flag, v);
    ea->axis_given = 1; /* a lesson sets it too */
    return 0;
}

static int take_ui_scale(void *ctx, const char *flag, const char *v, ErrorMsg *err) {
    double x = 0;
    if (parse_num_real(v, &x) != NUM_OK || !(x >= 1.0 && x <= 2.5)) return error_set(err, "%s: '%s' is not in [1, 2.5]", flag, v);
    *(float *)ctx = (float)x;
    return 0;
}

static int take_beat_seconds(void *ctx, const char *flag, const char *v, ErrorMsg *err) {
    double x = 0;
    if (parse_num_real(v, &x) != NUM_OK || !(x > 0.0 && x <= EXPORT_VIDEO_BEAT_MAX))
        return error_set(err, "%s: '%s' is not a number of seconds in (0, %g]", flag, v, EXPORT_VIDEO_BEAT_MAX);
    *(double *)ctx = x;
    return 0;
}

/* A positional argument: a SPEC after --compare, else the prompt. */
static int take_positional(void *ctx, const char *arg, ErrorMsg *err) {
    ExportArgs *ea = ctx;
    if (!ea->compare) return cli_positional_prompt(ea->model, arg, err);
    if (ea->n_specs > SEQ_COMPARE_MAX_COLS)
        return error_set(err, "--compare: '%.60s': at most %d settings side by side", arg, SEQ_COMPARE_MAX_COLS);
    ea->spec[ea->n_specs++] = arg;
    return 0;
}

/* --beat-seconds, or its default */
static double video_beat(const ExportArgs *ea) {
    return ea->beat_seconds > 0.0 ? ea->beat_seconds : EXPORT_VIDEO_BEAT_DEFAULT;
}

/* Parses argv into ma and ea. Returns CLI_PARSE_OK / _HELP / _ERROR (cli_opts.h). */
static int parse_export_args(int argc, char **argv, CliModelArgs *ma, ExportArgs *ea, ErrorMsg *err) {
    *ma = cli_model_args_default();
    memset(ea, 0, sizeof *ea);
    ea->opt = export_options_default();
    ea->opt.dir = NULL;
    ea->layer = ea->head = -1;
    ea->text_mode = VIZ_TEXT_PLAIN;
    ea->query = -1;
    ea->axis = VIZ_AXIS_AUTO;
    ea->axis_max = 1.0f;
    ea->model = ma;
    const CliOpt opts[] = {
        CLI_FLAG("--compare", &ea->compare),
        CLI_FLAG("--all-heads", &ea->all_heads),
        CLI_FLAG("--contact-sheet", &ea->sheet),
        CLI_FLAG("--sidecar", &ea->opt.sidecar),
        CLI_FLAG("--handout", &ea->handout),
        CLI_TEXT("--lesson", &ea->lesson_path),
        CLI_TEXT("--out", &ea->opt.dir),
        CLI_TEXT("--vs", &ea->vs),
        CLI_TEXT("--video", &ea->video),
        CLI_TEXT("--class-results", &ea->class_results),
        CLI_LONG("--fps", &ea->fps, 1, VIDEO_FPS_MAX, NULL),
        CLI_CALL("--beat-seconds", take_beat_seconds, &ea->beat_seconds),
        CLI_LONG("--steps", &ea->steps, 0, 100000, NULL),
        CLI_LONG("--layer", &ea->layer, 0, 4095, NULL),
        CLI_LONG("--head", &ea->head, 0, 4095, NULL),
        CLI_LONG("--query", &ea->query, 0, 100000, NULL),
        CLI_LONG("--draws", &ea->draws, 1, SAMPLER_MAX_DRAWS, NULL),
        CLI_CALL("--scale", take_scale, &ea->opt.scale),
        CLI_CALL("--panel", take_panel, ea),
        CLI_CALL("--heads", take_heads, ea),
        CLI_CALL("--theme", take_theme, &ea->opt.theme),
        CLI_CALL("--format", take_format, &ea->opt.format),
        CLI_CALL("--size", take_size, &ea->opt),
        CLI_CALL("--axis", take_axis, ea),
        CLI_CALL("--text-mode", take_text_mode, ea),
        CLI_CALL("--ui-scale", take_ui_scale, &ea->opt.ui_scale),
        CLI_END,
    };
    const CliArgs args = {.model = ma, .groups = CLI_OPT_MODEL | CLI_OPT_PROMPT | CLI_OPT_SAMPLER | CLI_OPT_ABLATE,
                          .positional = take_positional, .ctx = ea, .usage = usage};
    return cli_parse_command(argc, argv, opts, &args, err);
}

/* --lesson: the options a lesson sets itself are refused. */
static int check_lesson_args(const CliModelArgs *ma, const ExportArgs *ea, ErrorMsg *err) {
    if (ma->prompt || ma->prompt_file || ma->ids || ea->steps || ea->layer >= 0 || ea->all_heads || ea->sheet ||
        ea->panel_given || ea->axis_given || ea->query >= 0 || ea->heads || ea->heads_all || ea->vs)
        return error_set(err, "--lesson sets the prompt, steps, layer/head, panel, axis and text mode itself: "
                              "drop those options");
    if (ea->draws) return error_set(err, "--draws does not apply to --lesson (a lesson rolls with `draws N`)");
    if (ea->handout && ea->opt.format == EXPORT_PDF) /* the handout shows one image per slide */
        return error_set(err, "--handout needs png or svg slides (a handout shows one picture per slide), not --format pdf");
    if (ea->class_results && !ea->handout)
        return error_set(err, "--class-results goes with --handout (the rounds are a table in the handout)");
    if (ma->ablate) /* not silently dropped: the slides would claim the whole model */
        return error_set(err, "--ablate does not apply to --lesson (a lesson sets its own state)");
    return 0;
}

/* The options that exclude or need each other; fills in the attention panel for the
 * "every head" modes. *heads_mode: --all-heads, or --layer without --head. */
static int check_export_args(const CliModelArgs *ma, ExportArgs *ea, int *heads_mode, ErrorMsg *err) {
    if (ea->compare) {
        if (ea->n_specs < SEQ_COMPARE_MIN_COLS || ea->n_specs > SEQ_COMPARE_MAX_COLS)
            return error_set(err, "--compare: give %d to %d SPECs, not %d (e.g. --compare greedy T=0.7)",
                             SEQ_COMPARE_MIN_COLS, SEQ_COMPARE_MAX_COLS, ea->n_specs);
        for (int i = 0; i < ea->n_specs; i++) { /* every spec checked before the model loads */
            SamplerSettings set;
            ErrorMsg e2;
            if (settings_spec_parse(ea->spec[i], &set, &e2)) return error_set(err, "--compare: %s", e2.text);
        }
        if (ea->panel_given && ea->opt.panel != VIZ_PANEL_COMPARE)
            return error_set(err, "--compare draws the compare panel, not --panel %s", viz_panel_name(ea->opt.panel));
        if (ea->lesson_path) return error_set(err, "--compare does not go with --lesson (a lesson sets its own view)");
        if (ea->layer >= 0 || ea->all_heads || ea->sheet)
            return error_set(err, "--compare draws the compare panel: drop --layer, --all-heads, --contact-sheet");
        ea->opt.panel = VIZ_PANEL_COMPARE;
        ea->panel_given = 1;
    }
    if (ea->video) {
        /* everything about the video is checked before the model loads */
        VideoKind kind;
        if (video_kind_of_path(ea->video, &kind, err)) return error_set(err, "--video: %s", err->text);
        if (ea->opt.dir) return error_set(err, "--video FILE names the output: drop --out (it is for numbered figures)");
        if (ea->opt.format != EXPORT_PNG || ea->sheet || ea->all_heads || ea->handout || ea->opt.sidecar)
            return error_set(err, "--video draws one figure per state: drop --format, --contact-sheet, --all-heads, "
                                  "--handout, --sidecar");
        int sc = ea->opt.scale ? ea->opt.scale : 1;
        if (video_check(kind, ea->opt.width * sc, ea->opt.height * sc, ea->fps ? (int)ea->fps : video_default_fps(kind), err))
            return error_set(err, "--video %.200s: %s", ea->video, err->text);
        if (file_write_check(ea->video, 0, err)) return error_set(err, "--video: %s", err->text);
    } else {
        if (ea->fps || ea->beat_seconds > 0.0) return error_set(err, "--fps and --beat-seconds go with --video FILE");
        if (!ea->opt.dir) return error_set(err, "--out DIR is required (the folder for the figures)");
        if (!*ea->opt.dir) return error_set(err, "--out: the folder name is empty (give one, e.g. --out figs)");
    }
    if (ea->lesson_path) return check_lesson_args(ma, ea, err);
    if ((ea->heads || ea->heads_all) && !(ea->panel_given && ea->opt.panel == VIZ_PANEL_ATTN_LINES))
        return error_set(err, "--heads goes with --panel attention-lines (the other panels show one head)");
    if (ea->handout) return error_set(err, "--handout goes with --lesson (the handout is a lesson's slides and notes)");
    if (ea->class_results) return error_set(err, "--class-results goes with --lesson and --handout");
    if (ea->head >= 0 && ea->layer < 0) return error_set(err, "--head needs --layer (which layer's head?)");
    if (ea->all_heads && ea->head >= 0) return error_set(err, "--all-heads and --head exclude each other");
    /* --layer alone: every head of the attention panel; a panel of one head shows --head 0 */
    *heads_mode = ea->all_heads ||
                  (ea->layer >= 0 && ea->head < 0 && (!ea->panel_given || ea->opt.panel == VIZ_PANEL_ATTENTION));
    if (ea->sheet && !*heads_mode)
        return error_set(err, "--contact-sheet needs --all-heads or --layer L without --head");
    if (*heads_mode || (ea->layer >= 0 && !ea->panel_given)) {
        if (ea->panel_given && ea->opt.panel != VIZ_PANEL_ATTENTION && *heads_mode)
            return error_set(err, "exporting every head draws the attention panel, not --panel %s",
                             viz_panel_name(ea->opt.panel));
        if (!ea->panel_given) ea->opt.panel = VIZ_PANEL_ATTENTION;
    }
    if (ea->video && *heads_mode) return error_set(err, "--video shows one head at a time: give --head with --layer");
    return 0;
}

/* The flip-book: the figures of the prompt state, then of each generated token. */
static int export_flipbook(const char *CMD, const CliModelArgs *ma, ExportArgs *ea, int heads_mode) {
    ErrorMsg err;
    ExportOptions *opt = &ea->opt;
    int steps = (int)ea->steps, layer = (int)ea->layer, head = (int)ea->head;
    Session s;
    if (cli_model_start(ma, &s, GPT2_CAP_DEFAULT, 1, &err)) return cli_fail(CMD, "%s", err.text);
    int rc = 0;
    Sha256Cache sha = {0};
    opt->sha_cache = &sha;
    const Gpt2Config *cfg = &s.model.config;
    if (layer >= cfg->n_layer || head >= cfg->n_head) {
        rc = cli_fail(CMD, "model %s has layers 0..%d and heads 0..%d (asked for layer %d head %d)", s.model.name,
                      cfg->n_layer - 1, cfg->n_head - 1, layer, head);
        goto done;
    }
    if (session_len(&s) + steps > s.trace.max_pos) {
        rc = cli_fail(CMD, "prompt of %d tokens + %d steps exceeds the context of %d tokens", session_len(&s), steps,
                      s.trace.max_pos);
        goto done;
    }
    /* the compare panel: its specs (none = the default set), columns computed per state */
    if (opt->panel == VIZ_PANEL_COMPARE && session_compare_set(&s, ea->spec, ea->n_specs, 0, &err)) {
        rc = cli_fail(CMD, "%s", err.text);
        goto done;
    }
    VizView view = frame_default_view();
    view.prob_axis = ea->axis;
    view.prob_axis_max = ea->axis_max;
    view.text_mode = (VizTextMode)ea->text_mode;
    if (layer >= 0) view.layer = layer;
    if (head >= 0) view.head = head;
    if (ea->query >= session_len(&s)) {
        rc = cli_fail(CMD, "--query %ld: the prompt has positions 0..%d", ea->query, session_len(&s) - 1);
        goto done;
    }
    view.query = (int)ea->query;
    if (ea->heads || ea->heads_all || (opt->panel == VIZ_PANEL_ATTN_LINES && layer >= 0 && head < 0)) {
        unsigned long long all = cfg->n_head >= 64 ? ~0ULL : (1ULL << cfg->n_head) - 1ULL;
        if (ea->heads & ~all) {
            rc = cli_fail(CMD, "--heads: model %s has heads 0..%d", s.model.name, cfg->n_head - 1);
            goto done;
        }
        view.lines_heads = ea->heads ? ea->heads : all; /* --layer L alone: every head of it */
    }
    if (ea->vs) { /* the token is checked against this model's vocabulary, applied as a lesson line would */
        Action vs = {.kind = ACT_ATTR_VS, .id = cli_model_one_token(&s.tok, "--vs", ea->vs, &err)};
        if (vs.id < 0 || action_apply(&s, &view, &vs, &err)) {
            rc = cli_fail(CMD, "%s", err.text);
            goto done;
        }
    }

    int per_state = 1;
    int l0 = layer >= 0 ? layer : 0, nl = layer >= 0 ? 1 : cfg->n_layer;
    if (heads_mode && !ea->sheet) per_state = nl * cfg->n_head;
    int total = (steps + 1) * per_state, written = 0;
    int tty = isatty(STDERR_FILENO);
    char path[4300];
    /* --video: each state one picture of the video, held one beat */
    ExportVideo *video = NULL;
    if (ea->video && export_video_open(&video, ea->video, opt, (int)ea->fps, video_beat(ea), &err)) {
        rc = cli_fail(CMD, "%s", err.text);
        goto done;
    }
    for (int st = 0; st <= steps && rc == 0; st++) {
        if (st > 0 && session_step(&s, &err)) {
            rc = cli_fail(CMD, "step %d: %s", st, err.text);
            break;
        }
        if (ea->draws > 0) {
            Action roll = {.kind = ACT_DRAWS, .n = ea->draws};
            if (action_apply(&s, NULL, &roll, &err)) {
                rc = cli_fail(CMD, "--draws: %s", err.text);
                break;
            }
        }
        if (opt->panel == VIZ_PANEL_COMPARE && session_compare_update(&s, &err)) {
            rc = cli_fail(CMD, "%s", err.text);
            break;
        }
        if (heads_mode && ea->sheet) {
            if (export_contact_sheet(&s, &view, opt, layer >= 0 ? layer : -1, path, sizeof path, &err)) {
                rc = cli_fail(CMD, "%s", err.text);
                break;
            }
            written++;
            if (tty) progress(written, total);
            continue;
        }
        for (int k = 0; k < per_state; k++) {
            VizView v = view;
            if (heads_mode) {
                v.layer = l0 + k / cfg->n_head;
                v.head = k % cfg->n_head;
            }
            if (video ? export_video_add(video, &s, &v, opt, &err) : export_png(&s, &v, opt, path, sizeof path, &err)) {
                rc = cli_fail(CMD, "%s", err.text);
                break;
            }
            written++;
            if (tty) progress(written, total);
        }
    }
    if (rc == 0 && video) rc = write_video(CMD, video, &s, &view, opt);
    else if (rc == 0) report_written(written, opt->dir);
    if (rc == 0) cli_report_seed(s.seed);
    export_video_free(video);
done:
    session_free(&s);
    return rc;
}

int cmd_export(int argc, char **argv) {
    const char *CMD = "export";
    CliModelArgs ma;
    ExportArgs ea;
    ErrorMsg err;
    int heads_mode = 0;
    int r = parse_export_args(argc, argv, &ma, &ea, &err);
    if (r) return r == CLI_PARSE_HELP ? 0 : cli_fail(CMD, "%s", err.text);
    if (check_export_args(&ma, &ea, &heads_mode, &err)) return cli_fail(CMD, "%s", err.text);
    /* no display needed: the offscreen renderer never opens a window */
    setenv("SDL_VIDEODRIVER", "dummy", 0);
    if (ea.lesson_path) {
        /* the class's rounds are read (and refused) before any slide is drawn */
        ClassResults klass = {0};
        if (ea.class_results && class_results_read(ea.class_results, &klass, &err)) return cli_fail(CMD, "%s", err.text);
        int rc = export_lesson(CMD, ea.lesson_path, ma.model_dir, ma.tok_dir, &ea.opt, ea.handout, ea.video,
                               (int)ea.fps, video_beat(&ea), ea.class_results ? &klass : NULL);
        class_results_free(&klass);
        return rc;
    }
    return export_flipbook(CMD, &ma, &ea, heads_mode);
}
