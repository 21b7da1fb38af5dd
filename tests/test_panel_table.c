/* test_panel_table.c — the panel table (viz/panel_table.h) is the one list of panels:
 *   - every VizPanel has exactly one row, in enum order, with a unique name that round
 *     trips through viz_panel_from_name(_n), a draw function (all but the frame), a
 *     tensor, a figure title and a file name;
 *   - the tensor names and figure names are the ones the switches wrote before the table
 *     ("blocks.3.attn.hook_pattern", "logits", "attention-L3H5" ...);
 *   - what a click on each panel's hits means (a thumbnail selects its head, Shift+click
 *     switches it off, a bar forces its token at rank + 1, ...), through viz_panel_click;
 *   - the lesson parser knows every row's name and lists them all in its error;
 *   - the I key's cycle visits exactly the "inside" rows and comes back to the frame;
 *   - every panel draws alone as a figure on the reference tiny model without an error,
 *     and an enlarged panel with a companion shows both (each with its VIZ_HIT_PANEL). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "figure_meta.h"
#include "frame_fill.h"
#include "lesson.h"
#include "offscreen.h"
#include "panel_table.h"
#include "panels.h"
#include "session.h"

static VizHits hits; /* large: not on the stack */

static void test_rows(void) {
    int named = 0, drawn = 0;
    for (int p = 0; p < VIZ_PANEL_COUNT; p++) {
        const VizPanelRow *r = viz_panel_row((VizPanel)p);
        CHECK(r && (int)r->id == p, "row %d is panel %d", p, r ? (int)r->id : -1);
        if (!r) continue;
        CHECK(r->name && r->name[0] && r->tensor && r->title && r->stem && r->what, "row %d has its texts", p);
        CHECK(viz_panel_from_name(r->name) == p && strcmp(viz_panel_name((VizPanel)p), r->name) == 0,
              "name '%s' round trips", r->name);
        named++;
        for (int q = 0; q < p; q++) CHECK(strcmp(viz_panel_name((VizPanel)q), r->name) != 0, "'%s' twice", r->name);
        CHECK((p == VIZ_PANEL_FRAME) == (r->draw == NULL), "panel %s: draw function", r->name);
        drawn += r->draw != NULL;
        CHECK(r->companion >= 0 && r->companion < VIZ_PANEL_COUNT && (r->companion == VIZ_PANEL_FRAME || (int)r->companion != p),
              "panel %s: companion %d", r->name, (int)r->companion);
    }
    CHECK(named == VIZ_PANEL_COUNT && drawn == VIZ_PANEL_COUNT - 1, "%d rows named, %d drawn", named, drawn);
    CHECK(viz_panel_row(VIZ_PANEL_COUNT) == NULL && viz_panel_row((VizPanel)-1) == NULL && !viz_panel_name(VIZ_PANEL_COUNT),
          "no row outside the enum");
    CHECK(viz_panel_from_name("heatmap") == -1 && viz_panel_from_name(NULL) == -1 && viz_panel_from_name("") == -1,
          "unknown names");
    /* a name inside a longer line (the lesson parser passes the argument's bytes) */
    CHECK(viz_panel_from_name_n("probs tail", 5) == VIZ_PANEL_PROBS && viz_panel_from_name_n("prob", 4) == -1,
          "names by length");
    char names[256];
    viz_panel_names(", ", names, sizeof names);
    CHECK(strncmp(names, "frame, tokens, attention, probs, text", 37) == 0, "names listed: %s", names);
}

static void test_texts(void) {
    char buf[128];
    figure_tensor_name(VIZ_PANEL_ATTENTION, 3, buf, sizeof buf);
    CHECK(strcmp(buf, "blocks.3.attn.hook_pattern") == 0, "attention tensor: %s", buf);
    figure_tensor_name(VIZ_PANEL_PROBS, 3, buf, sizeof buf);
    CHECK(strcmp(buf, "logits") == 0, "probs tensor: %s", buf);
    figure_tensor_name(VIZ_PANEL_FRAME, 11, buf, sizeof buf);
    CHECK(strcmp(buf, "blocks.11.attn.hook_pattern logits") == 0, "frame tensor: %s", buf);
    figure_tensor_name(VIZ_PANEL_TOKENS, 1, buf, sizeof buf);
    CHECK(strcmp(buf, "tokens") == 0, "tokens tensor: %s", buf);
    figure_tensor_name(VIZ_PANEL_TEXT, 1, buf, sizeof buf);
    CHECK(strcmp(buf, "tokens") == 0, "text tensor: %s", buf);
    VizView v = {.layer = 3, .head = 15};
    viz_panel_format(viz_panel_row(VIZ_PANEL_ATTENTION)->stem, &v, buf, sizeof buf);
    CHECK(strcmp(buf, "attention-L3H15") == 0, "attention stem: %s", buf);
    viz_panel_format(viz_panel_row(VIZ_PANEL_ATTENTION)->title, &v, buf, sizeof buf);
    CHECK(strcmp(buf, "attention pattern, layer 3 head 15") == 0, "attention title: %s", buf);
    viz_panel_format("{L}{X}{H", &v, buf, sizeof buf);
    CHECK(strcmp(buf, "3{X}{H") == 0, "only {L} and {H} are replaced: %s", buf);
    char tiny[6];
    viz_panel_format("L{L}H{H}xyz", &v, tiny, sizeof tiny);
    CHECK(strlen(tiny) == 5 && strncmp(tiny, "L3H15", 5) == 0, "cut to the buffer: %s", tiny);
}

static void test_clicks(void) {
    VizHit thumb = {{0, 0, 4, 4}, VIZ_HIT_HEAD_THUMB, 2, 3}, cell = {{0, 0, 4, 4}, VIZ_HIT_ATTN_CELL, 7, 5};
    VizHit bar = {{0, 0, 4, 4}, VIZ_HIT_PROB_BAR, 640, 0}, chip = {{0, 0, 4, 4}, VIZ_HIT_TOKEN_CHIP, 4, 0};
    VizClick c = viz_panel_click(VIZ_PANEL_ATTENTION, &thumb, 0);
    CHECK(c.kind == VIZ_CLICK_SELECT_HEAD && c.a == 2 && c.b == 3, "thumbnail selects L2H3");
    c = viz_panel_click(VIZ_PANEL_ATTENTION, &thumb, VIZ_CLICK_SHIFT);
    CHECK(c.kind == VIZ_CLICK_TOGGLE_ABLATION && c.a == 2 && c.b == 3, "Shift+click switches L2H3 off");
    c = viz_panel_click(VIZ_PANEL_ATTENTION, &cell, 0);
    CHECK(c.kind == VIZ_CLICK_HIGHLIGHT_TOKEN && c.a == 5, "a cell outlines its key");
    c = viz_panel_click(VIZ_PANEL_PROBS, &bar, 0);
    CHECK(c.kind == VIZ_CLICK_FORCE_TOKEN && c.a == 640 && c.b == 1, "a bar forces its token at rank 1");
    c = viz_panel_click(VIZ_PANEL_TOKENS, &chip, 0);
    CHECK(c.kind == VIZ_CLICK_SELECT_TOKEN && c.a == 4, "a chip selects its word");
    c = viz_panel_click(VIZ_PANEL_TEXT, &chip, 0);
    CHECK(c.kind == VIZ_CLICK_SELECT_TOKEN && c.a == 4, "a text token too");
    CHECK(viz_panel_click(VIZ_PANEL_PROBS, &thumb, 0).kind == VIZ_CLICK_NONE &&
              viz_panel_click(VIZ_PANEL_FRAME, &bar, 0).kind == VIZ_CLICK_NONE &&
              viz_panel_click(VIZ_PANEL_COUNT, &bar, 0).kind == VIZ_CLICK_NONE &&
              viz_panel_click(VIZ_PANEL_PROBS, NULL, 0).kind == VIZ_CLICK_NONE,
          "a hit another panel drew means nothing here");
}

static void test_lesson_names(void) {
    for (int p = 0; p < VIZ_PANEL_COUNT; p++) {
        char text[128];
        snprintf(text, sizeof text, "prompt a\npanel %s\n", viz_panel_name((VizPanel)p));
        Lesson l;
        ErrorMsg err = {{0}};
        int rc = lesson_parse(&l, "t.lesson", text, strlen(text), &err);
        CHECK(rc == 0 && l.n_dir == 2 && l.dir[1].op == LOP_PANEL && l.dir[1].kind == p, "lesson panel %s: %s",
              viz_panel_name((VizPanel)p), err.text);
        if (rc == 0) lesson_free(&l);
    }
    Lesson l;
    ErrorMsg err = {{0}};
    const char *bad = "prompt a\npanel heatmap\n";
    CHECK(lesson_parse(&l, "t.lesson", bad, strlen(bad), &err) == -1 && strstr(err.text, "unknown panel 'heatmap'") &&
              strstr(err.text, viz_panel_name((VizPanel)(VIZ_PANEL_COUNT - 1))),
          "the error names every panel: %s", err.text);
}

static void test_inside_cycle(void) {
    int seen = 0, inside = 0;
    for (int p = 0; p < VIZ_PANEL_COUNT; p++) inside += viz_panel_row((VizPanel)p)->inside;
    VizPanel f = viz_panel_next_inside(VIZ_PANEL_FRAME);
    for (int k = 0; k <= VIZ_PANEL_COUNT && f != VIZ_PANEL_FRAME; k++, seen++) {
        CHECK(viz_panel_row(f)->inside, "the I key shows %s, an inside panel", viz_panel_name(f));
        f = viz_panel_next_inside(f);
    }
    CHECK(seen == inside && f == VIZ_PANEL_FRAME, "the cycle shows all %d inside panels once (%d), then the frame",
          inside, seen);
    CHECK(viz_panel_next_inside(VIZ_PANEL_PROBS) == viz_panel_next_inside(VIZ_PANEL_FRAME),
          "from an ordinary panel: the first inside panel");
    CHECK(viz_panel_shows(VIZ_PANEL_FRAME, VIZ_PANEL_PROBS) && viz_panel_shows(VIZ_PANEL_PROBS, VIZ_PANEL_PROBS) &&
              !viz_panel_shows(VIZ_PANEL_TEXT, VIZ_PANEL_PROBS),
          "what an enlarged panel shows");
}

/* Every panel alone as a figure, and every enlarged panel in the window's layout. */
static void test_draw_all(void) {
    char model[512];
    snprintf(model, sizeof model, "%s/models/tiny", check_ref_dir());
    Session s;
    ErrorMsg err = {{0}};
    if (session_open(&s, model, "assets/tokenizer", 0, GPT2_CAP_DEFAULT, &err) ||
        session_set_prompt(&s, (const uint8_t *)"Once upon a time", 16, &err) || session_step(&s, &err)) {
        CHECK(0, "tiny session: %s", err.text);
        session_free(&s);
        return;
    }
    Offscreen off = {0};
    Viz viz = {0};
    if (offscreen_create(&off, 1280, 720, &err) || viz_init(&viz, off.renderer, "assets", 1.0f, 1.0f, THEME_LIGHT, &err)) {
        CHECK(0, "canvas: %s", err.text);
        offscreen_free(&off);
        session_free(&s);
        return;
    }
    for (int p = 0; p < VIZ_PANEL_COUNT; p++) {
        VizView v = frame_default_view();
        v.focus = (VizPanel)p;
        VizFrame f;
        frame_fill(&f, &s, &v);
        viz_clear_error(&viz);
        hits.n = 0;
        int rc = draw_panel_figure(&viz, rect_make(0, 0, 1280, 720), &f, (VizPanel)p, &hits);
        CHECK(rc == 0 && !viz.has_error, "figure of %s: %s", viz_panel_name((VizPanel)p), viz.last_error.text);
        /* in the window: the panel, and its companion beside it */
        viz_clear_error(&viz);
        hits.n = 0;
        rc = draw_frame(&viz, rect_make(0, 0, 1280, 720), &f, &hits);
        int has_self = 0, has_companion = 0;
        VizPanel comp = viz_panel_row((VizPanel)p)->companion;
        for (int i = 0; i < hits.n; i++) {
            if (hits.hit[i].kind != VIZ_HIT_PANEL) continue;
            has_self += hits.hit[i].a == p;
            has_companion += comp != VIZ_PANEL_FRAME && hits.hit[i].a == (int)comp;
        }
        CHECK(rc == 0 && !viz.has_error, "window with %s enlarged: %s", viz_panel_name((VizPanel)p), viz.last_error.text);
        if (p != VIZ_PANEL_FRAME)
            CHECK(has_self == 1 && has_companion == (comp != VIZ_PANEL_FRAME), "%s enlarged: itself %d, companion %d",
                  viz_panel_name((VizPanel)p), has_self, has_companion);
    }
    viz_free(&viz);
    offscreen_free(&off);
    session_free(&s);
}

int main(void) {
    setenv("SDL_VIDEODRIVER", "dummy", 0);
    setenv("INFERSCOPE_FALLBACK_FONTS", "", 0);
    test_rows();
    test_texts();
    test_clicks();
    test_lesson_names();
    test_inside_cycle();
    test_draw_all();
    return check_summary("test_panel_table");
}
