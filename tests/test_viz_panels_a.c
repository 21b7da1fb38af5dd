/* test_viz_panels_a.c — the token strip, text panel, status line and overlays
 * (viz/panel_tokens.c, panel_text.c, panel_status.c, panel_overlays.c) and the token
 * label API, headless on the reference tiny model: labels for spaces, newlines, split
 * UTF-8 and empty input; every panel matches its golden PNG (INFERSCOPE_UPDATE_GOLDEN=1
 * rewrites); a change of state changes the image (one more step, highlight, bpe_step,
 * error status); hit regions name the right tokens; nothing is drawn outside the
 * panel's rect at 1024×640, 3840×2160 and UI scales 1.0–2.5.
 * INFERSCOPE_PANELS_DUMP=dir also writes every rendering there for looking at. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "check_canvas.h"
#include "draw.h"
#include "frame_fill.h"
#include "golden.h"
#include "keys.h"
#include "offscreen.h"
#include "panels.h"
#include "session.h"
#include "token_label.h"
#include "utf8.h"
#include "viz.h"


/* ---- token labels ------------------------------------------------------------- */

static void check_label(const char *in, size_t n, unsigned flags, const char *want) {
    char buf[TOKEN_LABEL_CAP];
    size_t len = token_label_bytes((const uint8_t *)in, n, flags, buf, sizeof buf);
    CHECK(strcmp(buf, want) == 0 && len == strlen(want), "label of %zu bytes: got \"%s\" want \"%s\"", n, buf, want);
}

/* A font without emoji, like DejaVu. */
static int no_emoji(void *ctx, uint32_t cp) {
    (void)ctx;
    return cp < 0x1F000;
}

static void test_token_label(const Tokenizer *tok) {
    check_label(" the", 4, TOKEN_LABEL_DEFAULT, TOKEN_MARK_SPACE "the");
    check_label(" the", 4, TOKEN_LABEL_RAW_SPACES, " the");
    check_label("\n\n", 2, TOKEN_LABEL_DEFAULT, TOKEN_MARK_NEWLINE TOKEN_MARK_NEWLINE);
    check_label("\t", 1, TOKEN_LABEL_DEFAULT, TOKEN_MARK_TAB);
    check_label("\r", 1, TOKEN_LABEL_DEFAULT, "<0d>");
    check_label("", 0, TOKEN_LABEL_DEFAULT, TOKEN_MARK_EMPTY);
    check_label("\xE2\x80", 2, TOKEN_LABEL_DEFAULT, "<e2 80>");        /* first 2 bytes of "’" */
    check_label(" \xF0\x9F", 3, TOKEN_LABEL_DEFAULT, TOKEN_MARK_SPACE "<f0 9f>");
    check_label("\x98\x80!", 3, TOKEN_LABEL_DEFAULT, "<98 80>!");        /* tail of an emoji */
    check_label("caf\xC3\xA9", 5, TOKEN_LABEL_DEFAULT, "caf\xC3\xA9");  /* complete UTF-8 kept */
    check_label("\xEF\xBF\xBD", 3, TOKEN_LABEL_DEFAULT, "<ef bf bd>"); /* never a bare U+FFFD */

    /* characters the font cannot draw become bytes, not an empty box */
    char gb[TOKEN_LABEL_CAP];
    token_label_bytes_ex((const uint8_t *)" \xF0\x9F\x90\x89\xC3\xA9", 7, 0, no_emoji, NULL, gb, sizeof gb);
    CHECK(strcmp(gb, TOKEN_MARK_SPACE "<f0 9f 90 89>\xC3\xA9") == 0, "no glyph: \"%s\"", gb);

    /* cut: at a piece boundary, ends in "…", valid UTF-8, within cap */
    char small[12];
    size_t len = token_label_bytes((const uint8_t *)"  abcdefgh", 10, 0, small, sizeof small);
    CHECK(strcmp(small, TOKEN_MARK_SPACE TOKEN_MARK_SPACE "ab\xE2\x80\xA6") == 0 && len == 11,
          "cut label \"%s\" (%zu bytes)", small, len);
    char tiny[1] = {'x'};
    CHECK(token_label_bytes((const uint8_t *)"a", 1, 0, tiny, 0) == 0 && tiny[0] == 'x', "cap 0 writes nothing");

    char buf[TOKEN_LABEL_CAP];
    token_label(tok, 262, 0, buf, sizeof buf);
    CHECK(strcmp(buf, TOKEN_MARK_SPACE "the") == 0, "token 262 is \"%s\"", buf);
    token_label(tok, 198, 0, buf, sizeof buf);
    CHECK(strcmp(buf, TOKEN_MARK_NEWLINE) == 0, "token 198 is \"%s\"", buf);
    token_label(tok, 999999, 0, buf, sizeof buf);
    CHECK(strcmp(buf, "<id 999999?>") == 0, "bad id: \"%s\"", buf);
    CHECK(strcmp(token_label_gpt2(tok, 262), "\xC4\xA0the") == 0, "Ġ form of 262");
    CHECK(strcmp(token_label_gpt2(tok, -1), "?") == 0, "Ġ form of a bad id");

    /* every vocabulary entry: valid UTF-8, not empty, no U+FFFD; count byte views */
    size_t bad = 0, byte_views = 0, partial = 0;
    for (size_t id = 0; id < tok_vocab_size(tok); id++) {
        size_t n = 0;
        const uint8_t *b = tok_token_bytes(tok, (int32_t)id, &n);
        len = token_label(tok, (int)id, 0, buf, sizeof buf);
        if (len == 0 || !utf8_validate((const uint8_t *)buf, len, NULL) || strstr(buf, "\xEF\xBF\xBD")) bad++;
        if (token_bytes_are_partial(b, n)) {
            partial++;
            if (strchr(buf, '<')) byte_views++;
        }
    }
    CHECK(bad == 0, "%zu vocabulary labels are empty, invalid or contain U+FFFD", bad);
    CHECK(partial > 100 && byte_views == partial, "%zu partial-UTF-8 tokens, %zu shown as bytes", partial, byte_views);
}

/* ---- rendering helpers ---------------------------------------------------------- */

typedef enum Which { W_TOKENS, W_TEXT, W_STATUS, W_HELP, W_LESSON } Which;


/* Draws one panel into r over a magenta sentinel and reads the pixels back. */
static int render(Canvas *c, Which w, Rect r, const VizFrame *f, VizHits *hits) {
    SDL_SetRenderDrawColor(c->off.renderer, 255, 0, 255, 255);
    SDL_RenderClear(c->off.renderer);
    if (w == W_HELP || w == W_LESSON) /* overlays lie over a frame: give them one */
        draw_fill_rect(&c->viz, r, c->viz.theme->background);
    if (hits) hits->n = 0;
    int rc = -1;
    switch (w) {
    case W_TOKENS: rc = draw_tokens_panel(&c->viz, r, f, hits); break;
    case W_TEXT: rc = draw_text_panel(&c->viz, r, f, hits); break;
    case W_STATUS: rc = draw_status_line(&c->viz, r, f); break;
    case W_HELP: rc = draw_help_overlay(&c->viz, r, f); break;
    case W_LESSON: rc = draw_lesson_overlay(&c->viz, r, f); break;
    }
    draw_set_clip(&c->viz, NULL);
    CHECK(rc == 0, "panel %d returned %d (%s)", (int)w, rc, c->viz.last_error.text);
    viz_clear_error(&c->viz);
    ErrorMsg err = {{0}};
    if (offscreen_read_rgba(&c->off, c->px, c->size, &err) != 0) {
        CHECK(0, "readback: %s", err.text);
        return -1;
    }
    return 0;
}

/* With INFERSCOPE_PANELS_DUMP set, saves the pixels as DIR/name.png. */
static void dump(const Canvas *c, const char *name) {
    char file[256];
    snprintf(file, sizeof file, "%s.png", name);
    canvas_dump(c, "INFERSCOPE_PANELS_DUMP", file);
}

/* Pixels outside r that are not the sentinel magenta (drawn where they must not be). */
static size_t pixels_outside(const Canvas *c, Rect r) {
    size_t bad = 0;
    for (int y = 0; y < c->off.h; y++)
        for (int x = 0; x < c->off.w; x++) {
            if (rect_contains(r, x, y)) continue;
            const uint8_t *p = c->px + ((size_t)y * (size_t)c->off.w + (size_t)x) * 4;
            if (!(p[0] == 255 && p[1] == 0 && p[2] == 255)) bad++;
        }
    return bad;
}

/* Pixels inside r that differ between two renderings. */
static size_t pixels_differ(const uint8_t *a, const uint8_t *b, int w, Rect r) {
    size_t d = 0;
    for (int y = r.y; y < r.y + r.h; y++)
        for (int x = r.x; x < r.x + r.w; x++) {
            size_t i = ((size_t)y * (size_t)w + (size_t)x) * 4;
            if (memcmp(a + i, b + i, 3) != 0) d++;
        }
    return d;
}

static int count_hits(const VizHits *h, VizHitKind k, int a) {
    int n = 0;
    for (int i = 0; i < h->n; i++)
        if (h->hit[i].kind == k && (a < 0 || h->hit[i].a == a)) n++;
    return n;
}

static const VizKeyHelp KEYS[] = {
    {"Space / \xE2\x86\x92", "one step (one token)"},
    {"\xE2\x86\x90 / Backspace", "step back"},
    {"B", "branch: force the highlighted token"},
    {"[ / ]", "previous / next branch"},
    {"T / Shift+T", "temperature down / up"},
    {"K / P", "top-k / top-p"},
    {"G", "greedy on/off"},
    {"R", "re-roll the dice"},
    {"L / H", "next layer / head"},
    {"E", "export this frame as PNG"},
    {"F1\xE2\x80\x93" "F4", "focus one panel"},
    {"?", "this help"},
};

static const char *CAPTIONS[] = {
    "The model reads every token of the prompt at once, then predicts one more.",
    "Watch the bars: the tallest is the most likely next token, but we sample.",
};

static void set_overlay(VizFrame *f) {
    f->title = "Lesson 2: how the next token is chosen";
    f->captions = CAPTIONS;
    f->n_captions = 2;
    f->question = "Which token do you think comes next, and how sure is the model?";
    f->beat_label = "3 / 12";
    f->keys = KEYS;
    f->n_keys = (int)(sizeof KEYS / sizeof KEYS[0]);
}

/* Twelve captions (the most a beat has) in the band of an 800x420 slide: the band keeps
 * 2/5 of the height, so some lines cannot be shown, and they are counted, never dropped
 * in silence; two captions fit whole. */
static void test_caption_overflow(void) {
    Canvas c;
    if (canvas_open(&c, 800, 420, 1.0f, THEME_LIGHT) != 0) return;
    static const char *twelve[12];
    for (int i = 0; i < 12; i++) twelve[i] = "one line of narration, short enough for one row";
    VizFrame f;
    memset(&f, 0, sizeof f);
    f.view = frame_default_view();
    f.view.slide = 1;
    f.captions = twelve;
    f.n_captions = 12;
    Rect r = {0, 0, 800, 420};
    int left_out = lesson_overlay_left_out(&c.viz, &f, r);
    int line_h = viz_line_height(&c.viz, VIZ_FONT_BOLD, VIZ_TEXT_BODY) + viz_px(&c.viz, 4);
    int shown = (lesson_overlay_bottom(&c.viz, &f, r) - 2 * viz_px(&c.viz, 12)) / line_h - 1;
    CHECK(left_out > 0 && shown + left_out == 12, "12 captions: %d shown + %d counted as left out", shown, left_out);
    CHECK(draw_lesson_overlay(&c.viz, r, &f) == 0, "drawn");
    f.n_captions = 2;
    CHECK(lesson_overlay_left_out(&c.viz, &f, r) == 0, "two captions fit: none left out");
    canvas_close(&c);
}

/* ---- the panels on a real session ------------------------------------------------ */

/* A prompt with a split emoji (byte tokens), a newline, merges worth replaying. */
static const uint8_t PROMPT[] = "Once upon a time \xF0\x9F\x90\x89 unbelievably\nthe dragon";

static void test_panels(Session *s) {
    ErrorMsg err = {{0}};
    VizView view = frame_default_view();
    VizFrame f;
    Canvas c;
    if (canvas_open(&c, 800, 420, 1.0f, THEME_LIGHT) != 0) return;
    static VizHits hits; /* large: not on the stack */
    Rect full = {0, 0, 800, 420};
    Rect inner = {10, 10, 780, 400}; /* panels drawn in a sub-rect to catch overdraw */

    /* tokens: golden, selected word's replay, highlight */
    int sel = -1;
    for (size_t i = 0; i < s->prompt_enc.n_pieces; i++) /* the word with the most merges */
        if (s->prompt_enc.pieces[i].n_merges >= 4) {
            sel = (int)s->prompt_enc.pieces[i].first_token;
            break;
        }
    CHECK(sel >= 0, "the prompt has a word with >= 4 merges");
    view.selected_token = sel;
    view.bpe_step = -1;
    frame_fill(&f, s, &view);
    render(&c, W_TOKENS, inner, &f, &hits);
    CHECK(pixels_outside(&c, inner) == 0, "tokens panel stays inside its rect");
    CHECK(golden_compare(c.px, 800, 420, "tests/golden/panel_tokens.png", 2) == 0, "tokens golden");
    dump(&c, "tokens");
    CHECK(count_hits(&hits, VIZ_HIT_TOKEN_CHIP, -1) == f.n_pos, "one chip hit per token (%d of %d)",
          count_hits(&hits, VIZ_HIT_TOKEN_CHIP, -1), f.n_pos);
    const VizHit *h0 = viz_hits_at(&hits, hits.hit[0].r.x + 2, hits.hit[0].r.y + 2, VIZ_HIT_TOKEN_CHIP);
    CHECK(h0 && h0->a == 0, "the first chip is position 0");
    char gb[TOKEN_LABEL_CAP];
    token_label_bytes_ex((const uint8_t *)"\xF0\x9F\x90\x89\xC3\xA9", 6, 0, token_glyph_in_ttf,
                         viz_font(&c.viz, VIZ_FONT_MONO, VIZ_TEXT_TITLE), gb, sizeof gb);
    CHECK(strcmp(gb, "<f0 9f 90 89>\xC3\xA9") == 0, "DejaVu Sans Mono: emoji as bytes, \"%s\"", gb);
    uint8_t *base = malloc(c.size);
    if (!base) return;
    memcpy(base, c.px, c.size);

    view.bpe_step = 1;
    frame_fill(&f, s, &view);
    render(&c, W_TOKENS, inner, &f, NULL);
    CHECK(pixels_differ(base, c.px, 800, inner) > 500, "bpe_step 1 changes the replay");
    CHECK(golden_compare(c.px, 800, 420, "tests/golden/panel_tokens_bpe1.png", 2) == 0, "tokens bpe_step 1 golden");
    dump(&c, "tokens_bpe1");
    view.bpe_step = 0;
    frame_fill(&f, s, &view);
    uint8_t *step0 = malloc(c.size);
    render(&c, W_TOKENS, inner, &f, NULL);
    if (step0) memcpy(step0, c.px, c.size);
    view.bpe_step = 1;
    frame_fill(&f, s, &view);
    render(&c, W_TOKENS, inner, &f, NULL);
    CHECK(step0 && pixels_differ(step0, c.px, 800, inner) > 200, "bpe_step 0 -> 1 changes the image");
    free(step0);

    view.bpe_step = -1;
    view.highlight_token = 2;
    frame_fill(&f, s, &view);
    render(&c, W_TOKENS, inner, &f, NULL);
    CHECK(pixels_differ(base, c.px, 800, inner) > 50, "highlight_token changes the strip");
    view.highlight_token = -1;
    view.selected_token = f.n_pos - 1; /* generated: a note, not a replay */
    frame_fill(&f, s, &view);
    render(&c, W_TOKENS, inner, &f, NULL);
    CHECK(pixels_differ(base, c.px, 800, inner) > 500, "a generated token has no replay");
    view.selected_token = sel;

    /* text panel */
    frame_fill(&f, s, &view);
    uint8_t *text0 = malloc(c.size);
    render(&c, W_TEXT, inner, &f, &hits);
    CHECK(pixels_outside(&c, inner) == 0, "text panel stays inside its rect");
    CHECK(golden_compare(c.px, 800, 420, "tests/golden/panel_text.png", 2) == 0, "text golden");
    dump(&c, "text");
    CHECK(count_hits(&hits, VIZ_HIT_TOKEN_CHIP, f.n_pos - 1) >= 1, "the newest token is in the text");
    if (text0) memcpy(text0, c.px, c.size);

    /* status line and its error form */
    f.status = "exported figs/0001.png";
    Rect srow = {10, 10, 780, 30};
    render(&c, W_STATUS, srow, &f, NULL);
    CHECK(pixels_outside(&c, srow) == 0, "status line stays inside its rect");
    memcpy(base, c.px, c.size);
    CHECK(golden_compare(c.px, 800, 420, "tests/golden/panel_status.png", 2) == 0, "status golden");
    dump(&c, "status");
    f.status = "export: cannot write figs/0001.png: Permission denied";
    f.status_is_error = 1;
    render(&c, W_STATUS, srow, &f, NULL);
    CHECK(pixels_differ(base, c.px, 800, srow) > 300, "an error status changes the line");
    dump(&c, "status_error");
    f.status = NULL;
    f.status_is_error = 0;

    /* overlays */
    render(&c, W_LESSON, full, &f, NULL);
    memcpy(base, c.px, c.size);
    Rect bg = full;
    size_t drawn = 0;
    {
        /* outside a lesson the overlay draws nothing: all pixels equal the background */
        SDL_Color b = c.viz.theme->background;
        for (size_t i = 0; i < (size_t)bg.w * (size_t)bg.h; i++)
            if (c.px[i * 4] != b.r || c.px[i * 4 + 1] != b.g || c.px[i * 4 + 2] != b.b) drawn++;
    }
    CHECK(drawn == 0, "no lesson: the overlay draws nothing (%zu pixels)", drawn);
    set_overlay(&f);
    render(&c, W_LESSON, full, &f, NULL);
    CHECK(golden_compare(c.px, 800, 420, "tests/golden/panel_lesson.png", 2) == 0, "lesson golden");
    dump(&c, "lesson");
    render(&c, W_HELP, full, &f, NULL);
    CHECK(golden_compare(c.px, 800, 420, "tests/golden/panel_help.png", 2) == 0, "help golden");
    dump(&c, "help");

    /* one more step changes the token strip and the text */
    CHECK(session_step(s, &err) == 0, "step: %s", err.text);
    view.selected_token = -1;
    frame_fill(&f, s, &view);
    render(&c, W_TEXT, inner, &f, NULL);
    CHECK(text0 && pixels_differ(text0, c.px, 800, inner) > 50, "one more step changes the text");
    view.selected_token = sel;
    frame_fill(&f, s, &view);
    render(&c, W_TOKENS, inner, &f, &hits);
    CHECK(count_hits(&hits, VIZ_HIT_TOKEN_CHIP, f.n_pos - 1) == 1, "the new token has a chip");
    free(text0);
    free(base);
    canvas_close(&c);
}

/* Long text in small and huge rects, at every UI scale: the latest tokens stay
 * visible, "earlier" markers appear, nothing is drawn outside. */
static void test_overflow_and_scales(Session *s) {
    ErrorMsg err = {{0}};
    for (int i = 0; i < 70; i++)
        if (session_step(s, &err) != 0) break;
    VizView view = frame_default_view();
    view.selected_token = 1;
    VizFrame f;
    frame_fill(&f, s, &view);
    f.status = "a rather long status message that must not collide with the facts";
    set_overlay(&f);
    static VizHits hits;
    const struct { int w, h; float scale; ThemeId th; } sizes[] = {
        {1024, 640, 1.0f, THEME_LIGHT}, {1024, 640, 2.5f, THEME_DARK},
        {1280, 720, 2.0f, THEME_LIGHT}, {3840, 2160, 1.0f, THEME_DARK}, {3840, 2160, 2.5f, THEME_LIGHT}};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        Canvas c;
        if (canvas_open(&c, sizes[k].w, sizes[k].h, sizes[k].scale, sizes[k].th) != 0) return;
        int W = sizes[k].w, H = sizes[k].h;
        Rect halves[2] = {{4, 4, W / 2 - 8, H / 3}, {4, 4, W - 8, H - 8}};
        const char *hn[2] = {"part", "full"};
        for (int hv = 0; hv < 2; hv++) {
            Rect r = halves[hv];
            char name[96];
            const Which ws[5] = {W_TOKENS, W_TEXT, W_STATUS, W_HELP, W_LESSON};
            const char *wn[5] = {"tokens", "text", "status", "help", "lesson"};
            for (int wi = 0; wi < 5; wi++) {
                Rect rr = r;
                if (ws[wi] == W_STATUS) rr.h = viz_line_height(&c.viz, VIZ_FONT_SANS, VIZ_TEXT_BODY) + viz_px(&c.viz, 10);
                render(&c, ws[wi], rr, &f, &hits);
                CHECK(pixels_outside(&c, rr) == 0, "%s %dx%d scale %.1f %s: drawn outside its rect", wn[wi], W, H,
                      (double)sizes[k].scale, hn[hv]);
                if (ws[wi] == W_TOKENS || ws[wi] == W_TEXT)
                    CHECK(count_hits(&hits, VIZ_HIT_TOKEN_CHIP, f.n_pos - 1) >= 1,
                          "%s %dx%d scale %.1f %s: the newest token is visible", wn[wi], W, H,
                          (double)sizes[k].scale, hn[hv]);
                if (ws[wi] == W_TOKENS && hv == 0 && W == 1024)
                    CHECK(count_hits(&hits, VIZ_HIT_TOKEN_CHIP, 0) == 0,
                          "tokens %dx%d scale %.1f: the first token scrolled away", W, H, (double)sizes[k].scale);
                snprintf(name, sizeof name, "%s_%dx%d_s%.1f_%s", wn[wi], W, H, (double)sizes[k].scale, hn[hv]);
                if (W < 2000 || hv == 1) dump(&c, name);
            }
        }
        canvas_close(&c);
    }
}

/* Degenerate input: an empty frame (no session yet) and tiny rects draw without
 * error and stay inside. */
static void test_degenerate(void) {
    Canvas c;
    if (canvas_open(&c, 120, 80, 1.0f, THEME_LIGHT) != 0) return;
    VizFrame f;
    memset(&f, 0, sizeof f);
    f.view = frame_default_view();
    f.last_step_ms = -1;
    const Which ws[5] = {W_TOKENS, W_TEXT, W_STATUS, W_HELP, W_LESSON};
    const Rect rs[3] = {{5, 5, 110, 70}, {5, 5, 1, 1}, {5, 5, 30, 12}};
    for (int wi = 0; wi < 5; wi++)
        for (int k = 0; k < 3; k++) {
            render(&c, ws[wi], rs[k], &f, NULL);
            CHECK(pixels_outside(&c, rs[k]) == 0, "empty frame, panel %d, rect %d: inside", wi, k);
        }
    CHECK(draw_tokens_panel(&c.viz, (Rect){0, 0, 0, 0}, &f, NULL) == 0, "zero rect is a no-op");
    canvas_close(&c);
}

/* The window's real key table (src/app/keys.c) in the help card: whole actions in body text
 * on ordinary windows; at 1280x720 with UI scale 2 (or 1080p at 2.5) small text, and
 * the longest actions cut with "…" but at least 40 % of the widest shown (the action column
 * used to vanish there). */
static void test_help_real_keys(void) {
    static VizKeyHelp rows[64];
    VizFrame f;
    memset(&f, 0, sizeof f);
    f.view = frame_default_view();
    f.keys = rows;
    f.n_keys = keys_help(rows, 64);
    CHECK(f.n_keys >= 20, "key table has %d help rows", f.n_keys);
    const struct { int w, h; float scale; int want_size, min_pct; } cases[] = {
        {1920, 1080, 1.0f, VIZ_TEXT_BODY, 100}, {1280, 720, 1.0f, VIZ_TEXT_BODY, 100},
        {1280, 720, 2.0f, VIZ_TEXT_SMALL, 40}, {1920, 1080, 2.5f, VIZ_TEXT_SMALL, 40},
        {3840, 2160, 2.5f, VIZ_TEXT_BODY, 100}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        Canvas c;
        if (canvas_open(&c, cases[k].w, cases[k].h, cases[k].scale, THEME_LIGHT) != 0) return;
        Rect full = {0, 0, cases[k].w, cases[k].h};
        int pct = -1, size = help_overlay_text_size(&c.viz, full, &f, &pct, NULL);
        CHECK(size == cases[k].want_size && pct >= cases[k].min_pct && pct <= 100,
              "help %dx%d scale %.1f: text size %d, widest action %d %% shown", cases[k].w, cases[k].h,
              (double)cases[k].scale, size, pct);
        render(&c, W_HELP, full, &f, NULL);
        char name[64];
        snprintf(name, sizeof name, "help_keys_%dx%d_s%.1f", cases[k].w, cases[k].h, (double)cases[k].scale);
        dump(&c, name);
        canvas_close(&c);
    }
    /* below the window's minimum size (a window manager may allow it): every action shown
     * is whole, in as many columns as fit, and the rows that do not fit are counted on
     * the card ("… N more: enlarge the window"), not every action cut to "…" */
    const int small[][2] = {{800, 500}, {960, 600}, {700, 420}};
    for (size_t k = 0; k < sizeof small / sizeof small[0]; k++) {
        Canvas c;
        if (canvas_open(&c, small[k][0], small[k][1], 1.0f, THEME_LIGHT) != 0) return;
        Rect full = {0, 0, small[k][0], small[k][1]};
        int pct = -1, left_out = -1;
        help_overlay_text_size(&c.viz, full, &f, &pct, &left_out);
        CHECK(pct == 100 && left_out > 0 && left_out < f.n_keys, "help %dx%d: actions whole (%d %%), %d rows counted",
              small[k][0], small[k][1], pct, left_out);
        render(&c, W_HELP, full, &f, NULL);
        CHECK(pixels_outside(&c, full) == 0, "help %dx%d: inside", small[k][0], small[k][1]);
        char name[64];
        snprintf(name, sizeof name, "help_keys_%dx%d_s1.0", small[k][0], small[k][1]);
        dump(&c, name);
        canvas_close(&c);
    }
    /* far too small even for one column: the actions are cut, a few rows still shown */
    Canvas c;
    if (canvas_open(&c, 640, 360, 2.0f, THEME_LIGHT) != 0) return;
    int pct = 100, left_out = 0;
    help_overlay_text_size(&c.viz, (Rect){0, 0, 640, 360}, &f, &pct, &left_out);
    CHECK(pct < 100 && left_out > 0, "help 640x360 scale 2: actions cut (%d %%), %d rows counted", pct, left_out);
    render(&c, W_HELP, (Rect){0, 0, 640, 360}, &f, NULL);
    CHECK(pixels_outside(&c, (Rect){0, 0, 640, 360}) == 0, "help 640x360: inside");
    dump(&c, "help_keys_640x360_s2.0");
    canvas_close(&c);
}

int main(void) {
    setenv("SDL_VIDEODRIVER", "dummy", 1);
    setenv("INFERSCOPE_FALLBACK_FONTS", "", 1); /* goldens: the same fonts on every machine */
    test_caption_overflow();
    char model_dir[512];
    snprintf(model_dir, sizeof model_dir, "%s/models/tiny", check_ref_dir());
    Session s;
    ErrorMsg err = {{0}};
    if (session_open(&s, model_dir, "assets/tokenizer", 0, GPT2_CAP_DEFAULT, &err) != 0) {
        CHECK(0, "session_open: %s", err.text);
        return check_summary("test_viz_panels_a");
    }
    test_token_label(&s.tok);
    test_degenerate();
    test_help_real_keys();
    CHECK(session_set_prompt(&s, PROMPT, sizeof PROMPT - 1, &err) == 0, "prompt: %s", err.text);
    session_set_seed(&s, 7);
    for (int i = 0; i < 5; i++) CHECK(session_step(&s, &err) == 0, "step %d: %s", i, err.text);
    test_panels(&s);
    test_overflow_and_scales(&s);
    session_free(&s);
    return check_summary("test_viz_panels_a");
}
