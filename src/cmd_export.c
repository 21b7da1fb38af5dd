/* cmd_export.c — `inferscope export`: figures for course material, rendered headless
 * (no display needed) through the same Session → frame_fill → panels path as the
 * window, written by export.h with provenance. A flip-book: one set of figures for the
 * prompt state, then one after each generated token. Not the renderer (export.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_model.h"
#include "export.h"
#include "frame_fill.h"
#include "lesson_facts.h"
#include "lesson_handout.h"
#include "lesson_run.h"
#include "lesson_slide.h"
#include "parse_num.h"

static void usage(FILE *f) {
    fprintf(f,
            "usage: inferscope export [--model DIR] (--prompt TEXT | --ids LIST) [--steps N] [--seed S]\n"
            "         [sampler flags] [--panel frame|attention|probs|tokens|text]\n"
            "         [--layer L --head H | --layer L | --all-heads] [--contact-sheet]\n"
            "         [--scale 1|2|4] [--size WxH] [--ui-scale X] [--theme light|dark] [--axis A]\n"
            "         [--text-mode plain|surprisal|seen] [--sidecar] [--ablate LIST]\n"
            "         --out DIR\n"
            "       inferscope export --lesson FILE.lesson [--model DIR] [--size WxH] [--scale S] [--handout]\n"
            "         --out DIR\n\n"
            "Renders figures (PNG with provenance text chunks) without a display: the prompt state,\n"
            "then the state after each of N generated tokens (a flip-book). Files are numbered\n"
            "after the highest number already in DIR (nothing is overwritten), e.g.\n"
            "  0007-step-07-attention-L3H5.png\n\n"
            "  --panel P        what to draw: the whole frame (default) or one panel\n"
            "  --layer L --head H   the attention head shown (0-based, as blocks.L.attn.hook_pattern);\n"
            "                   alone, --layer L exports every head of layer L (attention panel)\n"
            "  --all-heads      every head of --layer L, or of every layer without --layer\n"
            "  --contact-sheet  those heads as ONE labelled grid per state instead of one file each\n"
            "  --steps N        generate N tokens, exporting after each (default 0)\n"
            "  --scale S        1, 2 or 4: re-rendered at S times the pixels, same layout (default 1)\n"
            "  --size WxH       logical size, as a window of that size (default 1920x1080)\n"
            "  --ui-scale X     the window's UI scale, 1..2.5 (default 1); one panel alone and lesson\n"
            "                   slides set their type for a lecture hall (2.2 at 1920x1080) times X\n"
            "  --axis A         probability axis: auto (fits the bars), linear N (0..N %%, the same on\n"
            "                   every figure) or log (0.001 %% .. 100 %%); a lesson sets it with `axis`\n"
            "  --text-mode M    what the Text panel marks on each token: plain (default), surprisal\n"
            "                   (-log2 p in bits, viridis, with a scale) or seen (ends an 8-token run of\n"
            "                   the training text: boxed; models without an index say so); a lesson\n"
            "                   sets it with `textmode`\n"
            "  --theme T        light (default, for print) or dark\n"
            "  --sidecar        also write NAME.json with the same provenance\n"
            "  --out DIR        output folder (created if missing)\n"
            "  --lesson FILE    every beat of a lesson as a numbered slide (lessons/README.md);\n"
            "                   the lesson sets the model (--model overrides it), prompt and settings\n"
            "  --handout        with --lesson: also write handout.md and handout.html beside the\n"
            "                   slides (title, each slide with its captions and question, and the\n"
            "                   teacher's notes from the lesson's # comments), for students at home\n\n"
            "%s%s%s%s"
            "With --ablate the figures show the model with those parts switched off, and their\n"
            "provenance says so (inferscope:ablate; --open-figure switches the same parts off).\n"
            "Prints \"wrote N figures to DIR\"; a progress bar on stderr when it is a terminal.\n"
            "Reopen a figure in the window with: inferscope --open-figure FILE.png\n",
            CLI_MODEL_USAGE_MODEL, CLI_MODEL_USAGE_PROMPT, CLI_MODEL_USAGE_SAMPLER, CLI_MODEL_USAGE_ABLATE);
}

static int parse_int_arg(const char *flag, const char *v, long lo, long hi, int *out, ErrorMsg *err) {
    long long x = 0;
    NumError e = parse_num_int(v, &x); /* the one strict number parser */
    if (e != NUM_OK) return error_set(err, "%s: '%.40s' %s: give a whole number in [%ld, %ld]", flag, v, parse_num_problem(e), lo, hi);
    if (x < lo || x > hi) return error_set(err, "%s: %lld is outside [%ld, %ld]", flag, x, lo, hi);
    *out = (int)x;
    return 0;
}

/* "[#####.....] 12/40" on stderr, redrawn in place (only when stderr is a terminal). */
static void progress(int done, int total) {
    const int width = 30;
    int fill = total ? done * width / total : width;
    fprintf(stderr, "\r[");
    for (int i = 0; i < width; i++) fputc(i < fill ? '#' : '.', stderr);
    fprintf(stderr, "] %d/%d", done, total);
    if (done == total) fputc('\n', stderr);
    fflush(stderr);
}

/* `export --lesson`: one slide per beat, with the captions, question and beat counter
 * drawn as in presenter mode, named 0001-<lesson>-beat-01.png ... */
static int export_lesson(const char *CMD, const char *path, const char *model_override, const char *tok_dir,
                         ExportOptions *opt, int handout) {
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
    if (note[0]) fprintf(stderr, "inferscope %s: note: %s\n", CMD, note);
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
    /* the lesson's file name without folder and extension names the slides */
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char name[64];
    snprintf(name, sizeof name, "%s", base);
    char *dot = strrchr(name, '.');
    if (dot) *dot = 0;
    int tty = isatty(STDERR_FILENO), written = 0;
    LessonFacts facts = {0, -1.0}; /* one timing for the whole export: the slides agree */
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
        if (export_png(&s, &view, opt, out, sizeof out, &err)) {
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
    if (rc == 0) printf("wrote %d figure%s to %s\n", written, written == 1 ? "" : "s", opt->dir);
    char md[4300], html[4300];
    if (rc == 0 && handout) {
        if (lesson_handout_write(&ho, opt->dir, md, sizeof md, html, sizeof html, &err)) rc = cli_fail(CMD, "%s", err.text);
        else printf("wrote the handout: %s and %s\n", md, html);
    }
    lesson_handout_free(&ho);
    session_free(&s);
    lesson_free(&l);
    return rc;
}

int cmd_export(int argc, char **argv) {
    const char *CMD = "export";
    CliModelArgs ma;
    cli_model_args_init(&ma);
    ExportOptions opt = export_options_default();
    opt.dir = NULL;
    int steps = 0, layer = -1, head = -1, all_heads = 0, sheet = 0, panel_given = 0, axis_given = 0, handout = 0;
    int text_mode = VIZ_TEXT_PLAIN;
    VizProbAxis axis = VIZ_AXIS_AUTO;
    float axis_max = 1.0f;
    const char *lesson_path = NULL;
    ErrorMsg err;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        }
        int r = cli_model_parse(&ma, CLI_OPT_MODEL | CLI_OPT_PROMPT | CLI_OPT_SAMPLER | CLI_OPT_ABLATE, argc, argv, &i,
                                &err);
        if (r < 0) return cli_fail(CMD, "%s", err.text);
        if (r > 0) continue;
        int has_v = i + 1 < argc;
        const char *v = has_v ? argv[i + 1] : NULL;
        if (strcmp(a, "--all-heads") == 0) { all_heads = 1; continue; }
        if (strcmp(a, "--contact-sheet") == 0) { sheet = 1; continue; }
        if (strcmp(a, "--sidecar") == 0) { opt.sidecar = 1; continue; }
        if (strcmp(a, "--handout") == 0) { handout = 1; continue; }
        if (strcmp(a, "--lesson") == 0) {
            if (!has_v) return cli_fail(CMD, "--lesson needs a file (see --help)");
            lesson_path = argv[++i];
            continue;
        }
        if (strcmp(a, "--steps") == 0 || strcmp(a, "--panel") == 0 || strcmp(a, "--layer") == 0 ||
            strcmp(a, "--head") == 0 || strcmp(a, "--scale") == 0 || strcmp(a, "--size") == 0 ||
            strcmp(a, "--theme") == 0 || strcmp(a, "--out") == 0 || strcmp(a, "--ui-scale") == 0 ||
            strcmp(a, "--axis") == 0 || strcmp(a, "--text-mode") == 0) {
            if (!has_v) return cli_fail(CMD, "%s needs a value (see --help)", a);
            i++;
            int bad = 0;
            if (strcmp(a, "--steps") == 0) bad = parse_int_arg(a, v, 0, 100000, &steps, &err);
            else if (strcmp(a, "--layer") == 0) bad = parse_int_arg(a, v, 0, 4095, &layer, &err);
            else if (strcmp(a, "--head") == 0) bad = parse_int_arg(a, v, 0, 4095, &head, &err);
            else if (strcmp(a, "--scale") == 0) {
                bad = parse_int_arg(a, v, 1, 4, &opt.scale, &err);
                if (!bad && opt.scale == 3) bad = error_set(&err, "--scale: 3 is not 1, 2 or 4");
            } else if (strcmp(a, "--panel") == 0) {
                int p = viz_panel_from_name(v);
                if (p < 0) bad = error_set(&err, "--panel: '%s' is not frame, attention, probs, tokens or text", v);
                else { opt.panel = (VizPanel)p; panel_given = 1; }
            } else if (strcmp(a, "--theme") == 0) {
                if (theme_parse(v, &opt.theme)) bad = error_set(&err, "--theme: '%s' is not light or dark", v);
            } else if (strcmp(a, "--size") == 0) {
                int w = 0, h = 0, used = 0;
                if (sscanf(v, "%6dx%6d%n", &w, &h, &used) != 2 || v[used] || w < 1 || h < 1)
                    bad = error_set(&err, "--size: '%s' is not WIDTHxHEIGHT (e.g. 1920x1080)", v);
                opt.width = w;
                opt.height = h;
            } else if (strcmp(a, "--axis") == 0) {
                if (viz_axis_parse(v, &axis, &axis_max))
                    bad = error_set(&err, "--axis: '%s' is not auto, log or linear N (0 < N <= 100)", v);
                axis_given = 1;
            } else if (strcmp(a, "--text-mode") == 0) {
                text_mode = viz_text_mode_from_name(v);
                if (text_mode < 0) bad = error_set(&err, "--text-mode: '%s' is not plain, surprisal or seen", v);
                axis_given = 1; /* a lesson sets it too */
            } else if (strcmp(a, "--ui-scale") == 0) {
                char *end;
                double x = strtod(v, &end);
                if (!*v || *end || !(x >= 1.0 && x <= 2.5)) bad = error_set(&err, "--ui-scale: '%s' is not in [1, 2.5]", v);
                opt.ui_scale = (float)x;
            } else {
                opt.dir = v;
            }
            if (bad) return cli_fail(CMD, "%s", err.text);
            continue;
        }
        if (a[0] == '-') return cli_fail(CMD, "unknown option '%s' (see --help)", a);
        if (cli_model_set_positional(&ma, a, &err)) return cli_fail(CMD, "%s", err.text);
    }
    if (!opt.dir) return cli_fail(CMD, "--out DIR is required (the folder for the figures)");
    if (lesson_path) {
        if (ma.prompt || ma.prompt_file || ma.ids || steps || layer >= 0 || all_heads || sheet || panel_given || axis_given)
            return cli_fail(CMD, "--lesson sets the prompt, steps, layer/head, panel, axis and text mode itself: drop those options");
        if (ma.ablate) /* not silently dropped: the slides would claim the whole model */
            return cli_fail(CMD, "--ablate does not apply to --lesson (a lesson sets its own state)");
        setenv("SDL_VIDEODRIVER", "dummy", 0);
        return export_lesson(CMD, lesson_path, ma.model_dir, ma.tok_dir, &opt, handout);
    }
    if (handout) return cli_fail(CMD, "--handout goes with --lesson (the handout is a lesson's slides and notes)");
    if (head >= 0 && layer < 0) return cli_fail(CMD, "--head needs --layer (which layer's head?)");
    if (all_heads && head >= 0) return cli_fail(CMD, "--all-heads and --head exclude each other");
    /* "every head" mode: --all-heads, or --layer without --head */
    int heads_mode = all_heads || (layer >= 0 && head < 0);
    if (sheet && !heads_mode) return cli_fail(CMD, "--contact-sheet needs --all-heads or --layer L without --head");
    if (heads_mode || (layer >= 0 && !panel_given)) {
        if (panel_given && opt.panel != VIZ_PANEL_ATTENTION && heads_mode)
            return cli_fail(CMD, "exporting every head draws the attention panel, not --panel %s",
                            viz_panel_name(opt.panel));
        if (!panel_given) opt.panel = VIZ_PANEL_ATTENTION;
    }
    /* no display needed: the offscreen renderer never opens a window */
    setenv("SDL_VIDEODRIVER", "dummy", 0);

    Session s;
    if (cli_model_open(&ma, &s, 0, GPT2_CAP_DEFAULT, &err)) return cli_fail(CMD, "%s", err.text);
    int rc = 0;
    Sha256Cache sha = {0};
    opt.sha_cache = &sha;
    if (cli_model_run_prompt(&ma, &s, &err)) {
        rc = cli_fail(CMD, "%s", err.text);
        goto done;
    }
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
    VizView view = frame_default_view();
    view.prob_axis = axis;
    view.prob_axis_max = axis_max;
    view.text_mode = (VizTextMode)text_mode;
    if (layer >= 0) view.layer = layer;
    if (head >= 0) view.head = head;

    int per_state = 1;
    int l0 = layer >= 0 ? layer : 0, nl = layer >= 0 ? 1 : cfg->n_layer;
    if (heads_mode && !sheet) per_state = nl * cfg->n_head;
    int total = (steps + 1) * per_state, written = 0;
    int tty = isatty(STDERR_FILENO);
    char path[4300];
    for (int st = 0; st <= steps && rc == 0; st++) {
        if (st > 0 && session_step(&s, &err)) {
            rc = cli_fail(CMD, "step %d: %s", st, err.text);
            break;
        }
        if (heads_mode && sheet) {
            if (export_contact_sheet(&s, &view, &opt, layer >= 0 ? layer : -1, path, sizeof path, &err)) {
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
            if (export_png(&s, &v, &opt, path, sizeof path, &err)) {
                rc = cli_fail(CMD, "%s", err.text);
                break;
            }
            written++;
            if (tty) progress(written, total);
        }
    }
    if (rc == 0) printf("wrote %d figure%s to %s\n", written, written == 1 ? "" : "s", opt.dir);
done:
    session_free(&s);
    return rc;
}
