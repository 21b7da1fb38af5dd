/* test_viz_backend.c — the drawing seam (viz/backend.h): a whole frame of the reference
 * tiny model drawn through a recording backend reaches it only through the slots (rects,
 * lines, text runs with their strings; no SDL renderer at all); a backend that leaves
 * any slot NULL makes the same frame FAIL with "the rec backend cannot draw <slot>"
 * instead of leaving part of the figure out; the SVG and PDF backends make a document
 * of that frame (one page for SVG, two for PDF). Also the escaper every SVG string
 * goes through (engine/xml_escape.h) and the base64 of the embedded fonts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_pdf.h"
#include "backend_svg.h"
#include "base64.h"
#include "check.h"
#include "draw.h"
#include "frame_fill.h"
#include "panels.h"
#include "session.h"
#include "xml_escape.h"

/* ---- the escaper and base64 ---------------------------------------------------------- */

static void expect_xml(const char *in, size_t n, const char *want) {
    StrBuf b = {0};
    xml_escape(&b, (const uint8_t *)in, n);
    CHECK(!b.oom && b.data && strcmp(b.data, want) == 0, "xml_escape(\"%s\") = \"%s\", want \"%s\"", in,
          b.data ? b.data : "(null)", want);
    strbuf_free(&b);
}

static void test_xml_escape(void) {
    expect_xml("plain text", 10, "plain text");
    expect_xml("a < b && c > d", 14, "a &lt; b &amp;&amp; c &gt; d");
    expect_xml("x]]>y", 5, "x]]&gt;y");
    expect_xml("\"q\" 'a'", 7, "&quot;q&quot; &apos;a&apos;");
    expect_xml("<![CDATA[x]]>", 13, "&lt;![CDATA[x]]&gt;");
    expect_xml("&amp;", 5, "&amp;amp;");
    expect_xml("t\tn\nr\r", 6, "t&#9;n&#10;r&#13;");
    /* controls XML 1.0 cannot carry: their Control Pictures U+2400 + c */
    expect_xml("a\x01" "b\x1f" "c", 5, "a\xE2\x90\x81" "b\xE2\x90\x9F" "c");
    expect_xml("nul:\0!", 6, "nul:\xE2\x90\x80!");
    /* bytes that are not UTF-8 and the non-characters U+FFFE/FFFF: U+FFFD */
    expect_xml("\xFF\xC3", 2, "\xEF\xBF\xBD\xEF\xBF\xBD");
    expect_xml("\xEF\xBF\xBE", 3, "\xEF\xBF\xBD");
    /* valid UTF-8 passes: the visible space, an emoji, DEL */
    expect_xml("\xE2\x90\xA3the \xF0\x9F\x90\x89\x7F", 12, "\xE2\x90\xA3the \xF0\x9F\x90\x89\x7F");
}

static void test_base64(void) {
    /* RFC 4648 §10 test vectors */
    static const char *const V[][2] = {{"", ""},         {"f", "Zg=="},         {"fo", "Zm8="},
                                       {"foo", "Zm9v"}, {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="},
                                       {"foobar", "Zm9vYmFy"}};
    for (size_t i = 0; i < sizeof V / sizeof V[0]; i++) {
        StrBuf b = {0};
        base64_encode(&b, (const uint8_t *)V[i][0], strlen(V[i][0]));
        CHECK(strcmp(b.data ? b.data : "", V[i][1]) == 0, "base64(\"%s\") = \"%s\", want \"%s\"", V[i][0],
              b.data ? b.data : "", V[i][1]);
        strbuf_free(&b);
    }
    const uint8_t bin[3] = {0xFB, 0xFF, 0xBF};
    StrBuf b = {0};
    base64_encode(&b, bin, 3);
    CHECK(b.data && strcmp(b.data, "+/+/") == 0, "base64 of fb ff bf = %s", b.data ? b.data : "");
    strbuf_free(&b);
}

/* ---- a recording backend ------------------------------------------------------------- */

typedef struct Rec {
    int pages_begun, pages_ended, clips, rects, lines, texts;
    int saw_title;      /* a run "Next token ..." (the probability panel's title) */
    int saw_rotated;    /* a run at -90° (the attention heatmap's key labels) */
    int bad_run;        /* a run with an empty string or a box that is not the measured one */
} Rec;

static Rec *rec_of(Viz *viz) { return viz->backend_ctx; }
static int rec_page_begin(Viz *viz, int w, int h) {
    rec_of(viz)->pages_begun += w > 0 && h > 0;
    return 0;
}
static int rec_page_end(Viz *viz) {
    rec_of(viz)->pages_ended++;
    return 0;
}
static int rec_clip(Viz *viz, const Rect *clip) {
    (void)clip;
    rec_of(viz)->clips++;
    return 0;
}
static int rec_fill_rect(Viz *viz, Rect r, SDL_Color c) {
    (void)r, (void)c;
    rec_of(viz)->rects++;
    return 0;
}
static int rec_line(Viz *viz, int x0, int y0, int x1, int y1, SDL_Color c, int t) {
    (void)x0, (void)y0, (void)x1, (void)y1, (void)c, (void)t;
    rec_of(viz)->lines++;
    return 0;
}
static int rec_text(Viz *viz, const VizTextRun *run) {
    Rec *r = rec_of(viz);
    r->texts++;
    if (strncmp(run->utf8, "Next token", 10) == 0) r->saw_title = 1;
    if (run->angle == -90.0) r->saw_rotated = 1;
    if (!*run->utf8 || run->w != viz_text_width(viz, run->font, run->size, run->utf8) ||
        run->h != viz_line_height(viz, run->font, run->size) || run->px != viz_text_px(viz, run->size))
        r->bad_run = 1;
    return 0;
}
static const VizBackend REC = {
    .name = "rec", .page_begin = rec_page_begin, .page_end = rec_page_end, .clip = rec_clip,
    .fill_rect = rec_fill_rect, .line = rec_line, .text = rec_text,
};

/* Draws the whole frame of s on a Viz over backend b (ctx): page_begin, draw_frame,
 * page_end. Returns draw_frame's result or'ed with the page calls'; *msg gets the Viz's
 * recorded error ("" when none). */
static int draw_on(const VizBackend *b, void *ctx, const Session *s, int w, int h, char *msg, size_t cap) {
    Viz viz;
    ErrorMsg err = {{0}};
    msg[0] = 0;
    if (viz_init_backend(&viz, b, ctx, "assets", 1.0f, 1.0f, THEME_LIGHT, &err) != 0) {
        CHECK(0, "viz_init_backend: %s", err.text);
        return -2;
    }
    VizView view = frame_default_view();
    VizFrame f;
    frame_fill(&f, s, &view);
    f.last_step_ms = -1;
    int rc = draw_page_begin(&viz, w, h);
    rc |= draw_frame(&viz, rect_make(0, 0, w, h), &f, NULL);
    rc |= draw_page_end(&viz);
    if (viz.has_error) snprintf(msg, cap, "%.200s", viz.last_error.text);
    CHECK(viz.renderer == NULL, "a backend Viz has no SDL renderer");
    viz_free(&viz);
    return rc;
}

static void test_seam(const Session *s) {
    char msg[256];
    Rec r = {0};
    CHECK(draw_on(&REC, &r, s, 1280, 720, msg, sizeof msg) == 0 && !msg[0], "frame on the recorder: %s", msg);
    CHECK(r.pages_begun == 1 && r.pages_ended == 1, "one page: %d begun, %d ended", r.pages_begun, r.pages_ended);
    CHECK(r.rects > 100 && r.lines > 5 && r.texts > 50 && r.clips > 5,
          "the frame reached the backend: %d rects, %d lines, %d texts, %d clips", r.rects, r.lines, r.texts, r.clips);
    CHECK(r.saw_title, "the probability panel's title came as a text run");
    CHECK(r.saw_rotated, "the heatmap's key labels came rotated -90");
    CHECK(!r.bad_run, "every run carries SDL_ttf's measured box and size");

    /* a primitive the backend does not know fails the figure, naming the slot */
    static const char *const SLOTS[] = {"page_begin", "page_end", "clip", "fill_rect", "line", "text"};
    for (size_t k = 0; k < sizeof SLOTS / sizeof SLOTS[0]; k++) {
        VizBackend b = REC;
        switch (k) {
        case 0: b.page_begin = NULL; break;
        case 1: b.page_end = NULL; break;
        case 2: b.clip = NULL; break;
        case 3: b.fill_rect = NULL; break;
        case 4: b.line = NULL; break;
        default: b.text = NULL; break;
        }
        Rec r2 = {0};
        char want[64];
        snprintf(want, sizeof want, "the rec backend cannot draw %s", SLOTS[k]);
        int rc = draw_on(&b, &r2, s, 1280, 720, msg, sizeof msg);
        CHECK(rc != 0 && strcmp(msg, want) == 0, "without %s: rc %d, error \"%s\"", SLOTS[k], rc, msg);
    }
}

static void test_svg_doc(const Session *s) {
    SvgDoc doc;
    ErrorMsg err = {{0}};
    char msg[256];
    CHECK(svg_doc_init(&doc, "assets", &err) == 0, "svg_doc_init: %s", err.text);
    CHECK(draw_on(&VIZ_BACKEND_SVG, &doc, s, 1280, 720, msg, sizeof msg) == 0, "frame as SVG: %s", msg);
    const PngText meta[] = {{"Title", "a <title> & \"more\""}, {"inferscope:prompt", "\"x]]>y\""}};
    uint8_t *out = NULL;
    size_t len = 0;
    CHECK(svg_doc_finish(&doc, meta, 2, &out, &len, &err) == 0 && out, "svg_doc_finish: %s", err.text);
    const char *svg = (const char *)out;
    CHECK(out && strncmp(svg, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ", 44) == 0, "XML declaration + <svg>");
    CHECK(out && strstr(svg, "width=\"1280\" height=\"720\""), "page size");
    CHECK(out && strstr(svg, "<title>a &lt;title&gt; &amp; &quot;more&quot;</title>"), "title escaped");
    CHECK(out && strstr(svg, "key=\"inferscope:prompt\">&quot;x]]&gt;y&quot;</inferscope:entry>"), "metadata escaped");
    CHECK(out && strstr(svg, ">Next token"), "panel title as <text>");
    CHECK(out && strstr(svg, "src:url(data:font/ttf;base64,AAEAAA"), "a TrueType font embedded (0x00010000 magic)");
    CHECK(out && strcmp(svg + len - 7, "</svg>\n") == 0, "ends with </svg>");
    free(out);
    svg_doc_free(&doc);

    /* an SVG is one page: a second page_begin is refused */
    CHECK(svg_doc_init(&doc, "assets", &err) == 0, "svg_doc_init again");
    Viz viz;
    CHECK(viz_init_backend(&viz, &VIZ_BACKEND_SVG, &doc, "assets", 1.0f, 1.0f, THEME_LIGHT, &err) == 0, "viz");
    CHECK(draw_page_begin(&viz, 10, 10) == 0 && draw_page_end(&viz) == 0, "first page");
    CHECK(draw_page_begin(&viz, 10, 10) == -1 && strstr(viz.last_error.text, "one page"), "second page refused: %s",
          viz.last_error.text);
    viz_free(&viz);
    svg_doc_free(&doc);
    /* nothing drawn: no document */
    CHECK(svg_doc_init(&doc, "assets", &err) == 0, "svg_doc_init empty");
    CHECK(svg_doc_finish(&doc, NULL, 0, &out, &len, &err) == -1 && out == NULL, "finish without a page refused");
    svg_doc_free(&doc);
}

static void test_pdf_doc(const Session *s) {
    PdfDoc doc;
    pdf_doc_init(&doc, "assets");
    char msg[256];
    CHECK(draw_on(&VIZ_BACKEND_PDF, &doc, s, 1280, 720, msg, sizeof msg) == 0, "page 1 as PDF: %s", msg);
    CHECK(draw_on(&VIZ_BACKEND_PDF, &doc, s, 640, 480, msg, sizeof msg) == 0, "page 2 as PDF: %s", msg);
    PdfInfo info = {.title = "two pages", .keywords = "{\"k\": 1}"};
    uint8_t *out = NULL;
    size_t len = 0;
    ErrorMsg err = {{0}};
    CHECK(pdf_doc_finish(&doc, &info, &out, &len, &err) == 0 && out && len > 1000, "pdf_doc_finish: %s", err.text);
    CHECK(out && memcmp(out, "%PDF-", 5) == 0, "starts %%PDF-");
    int two = 0, sizes = 0;
    for (size_t i = 0; out && i + 9 < len; i++) {
        if (memcmp(out + i, "/Count 2", 8) == 0) two = 1;
        if (memcmp(out + i, "960 540", 7) == 0 || memcmp(out + i, "480 360", 7) == 0) sizes++;
    }
    CHECK(two, "two pages in the page tree");
    CHECK(sizes >= 2, "each page its own size in points (0.75 pt a pixel)");
    free(out);
    CHECK(pdf_doc_finish(&doc, &info, &out, &len, &err) == -1, "a finished PDF is not finished twice");
    pdf_doc_free(&doc);
}

int main(void) {
    setenv("INFERSCOPE_FALLBACK_FONTS", "", 1);
    test_xml_escape();
    test_base64();
    Session s;
    ErrorMsg err = {{0}};
    char model_dir[600];
    snprintf(model_dir, sizeof model_dir, "%s/models/tiny", check_ref_dir());
    if (session_open(&s, model_dir, "assets/tokenizer", 0, GPT2_CAP_DEFAULT, &err) != 0) {
        CHECK(0, "session_open: %s", err.text);
        return check_summary("test_viz_backend");
    }
    const char *prompt = "The cat sat on the";
    CHECK(session_set_prompt(&s, (const uint8_t *)prompt, strlen(prompt), &err) == 0, "prompt: %s", err.text);
    test_seam(&s);
    test_svg_doc(&s);
    test_pdf_doc(&s);
    session_free(&s);
    return check_summary("test_viz_backend");
}
