/* lesson_handout.c — the handout beside exported slides (see lesson_handout.h): the
 * teacher's notes are read back from the lesson file's comment lines, the slides are
 * recorded as they are exported, and both documents are built as text in memory and
 * written atomically. */
#include "lesson_handout.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_read.h"
#include "file_write.h"
#include "strbuf.h"
#include "free_all.h"

/* The length of a code span `...` starting at s (through the closing backtick), or 0
 * when the backtick is not closed on this line: a teacher's `make gpt2` stays code. */
static size_t code_span(const char *s) {
    if (*s != '`') return 0;
    const char *e = strchr(s + 1, '`');
    return e && e > s + 1 ? (size_t)(e - s) + 1 : 0;
}

/* Markdown: a backslash before every character that could start markup, so a caption
 * like "top-k = 3: *only* <3>" reads as written; code spans pass through. */
static void put_md(StrBuf *t, const char *s) {
    /* at the start of a line, "1." / "-" / "+" / "=" would turn it into a list or a heading */
    const char *d = s;
    while (*d >= '0' && *d <= '9') d++;
    if (d > s && (*d == '.' || *d == ')')) {
        strbuf_add(t, s, (size_t)(d - s));
        strbuf_add(t, "\\", 1);
        s = d;
    } else if (*s == '-' || *s == '+' || *s == '=') {
        strbuf_add(t, "\\", 1);
    }
    for (; *s; s++) {
        size_t c = code_span(s);
        if (c) {
            strbuf_add(t, s, c);
            s += c - 1;
            continue;
        }
        if (strchr("\\`*_[]<>#|{}!~", *s)) strbuf_add(t, "\\", 1);
        strbuf_add(t, s, 1);
    }
}

static void put_html_plain(StrBuf *t, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        switch (s[i]) {
        case '&': strbuf_adds(t, "&amp;"); break;
        case '<': strbuf_adds(t, "&lt;"); break;
        case '>': strbuf_adds(t, "&gt;"); break;
        case '"': strbuf_adds(t, "&quot;"); break;
        default: strbuf_add(t, s + i, 1);
        }
    }
}

/* HTML text, with `code spans` as <code>. */
static void put_html(StrBuf *t, const char *s) {
    while (*s) {
        size_t c = code_span(s);
        if (c) {
            strbuf_adds(t, "<code>");
            put_html_plain(t, s + 1, c - 2);
            strbuf_adds(t, "</code>");
            s += c;
        } else {
            put_html_plain(t, s, 1);
            s++;
        }
    }
}

static char *dup_n(const char *s, size_t n) {
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

/* ---- teacher's notes from the comment lines --------------------------------------- */

static int notes_push(HandoutNotes *n, char *item) {
    char **ni = item ? realloc(n->item, (size_t)(n->n + 1) * sizeof *ni) : NULL;
    if (!ni) { free(item); return -1; }
    n->item = ni;
    n->item[n->n++] = item;
    return 0;
}

/* Adds one comment line (without the '#'): "- x" starts a bullet, an indented line
 * continues the item before it, an empty line ends it. *open says an item may continue. */
static int notes_line(HandoutNotes *n, const char *s, size_t len, int *open) {
    size_t ind = 0;
    while (ind < len && (s[ind] == ' ' || s[ind] == '\t')) ind++;
    const char *body = s + ind;
    size_t blen = len - ind;
    while (blen > 0 && (body[blen - 1] == ' ' || body[blen - 1] == '\r')) blen--;
    if (blen == 0) { *open = 0; return 0; }
    int bullet = blen >= 2 && body[0] == '-' && body[1] == ' ';
    if (!bullet && *open && ind >= 2 && n->n > 0) {
        char *prev = n->item[n->n - 1];
        size_t pl = strlen(prev);
        char *j = realloc(prev, pl + 1 + blen + 1);
        if (!j) return -1;
        j[pl] = ' ';
        memcpy(j + pl + 1, body, blen);
        j[pl + 1 + blen] = 0;
        n->item[n->n - 1] = j;
        return 0;
    }
    *open = 1;
    return notes_push(n, dup_n(body, blen));
}

static void slide_free(HandoutSlide *sl) {
    free(sl->image);
    for (int i = 0; i < sl->n_captions; i++) free(sl->captions[i]);
    FREE_ALL(sl->captions, sl->question);
}

static void notes_free(HandoutNotes *n) {
    for (int i = 0; i < n->n; i++) free(n->item[i]);
    free(n->item);
    memset(n, 0, sizeof *n);
}

/* The lesson file, read again for its comments, by the same rule as lesson_load
 * (file_read: a regular file, opened without blocking, at most 1 MiB). */
static char *read_lesson(const char *path, size_t *len, ErrorMsg *err) {
    uint8_t *buf = NULL;
    if (file_read_all(path, LESSON_MAX_BYTES, &buf, len, err)) return NULL;
    return (char *)buf;
}

/* The beat whose directives include the first one on a line after `line`; -1: none. */
static int beat_after_line(const Lesson *l, int line) {
    for (size_t i = 0; i < l->n_dir; i++) {
        if (l->dir[i].line <= line) continue;
        for (size_t k = 0; k < l->n_beats; k++)
            if (i < l->beat_end[k]) return (int)k;
    }
    return -1;
}

int lesson_handout_init(LessonHandout *h, const Lesson *l, const char *model_name, const char *note,
                        ErrorMsg *err) {
    memset(h, 0, sizeof *h);
    h->n_beats = (int)l->n_beats;
    h->notes = calloc(l->n_beats ? l->n_beats : 1, sizeof *h->notes);
    h->slide = calloc(l->n_beats ? l->n_beats : 1, sizeof *h->slide);
    const char *base = strrchr(l->path, '/');
    h->source = strdup(base ? base + 1 : l->path);
    h->title = l->title ? strdup(l->title) : NULL;
    h->model = strdup(model_name ? model_name : "?");
    h->note = note && note[0] ? strdup(note) : NULL;
    if (!h->notes || !h->slide || !h->source || !h->model || (l->title && !h->title) || (note && note[0] && !h->note))
        goto oom;
    size_t len = 0;
    char *text = read_lesson(l->path, &len, err);
    if (!text) { lesson_handout_free(h); return -1; }
    int first_line = l->n_dir ? l->dir[0].line : 1 << 30, line = 0, open = 0, last_owner = -2;
    for (size_t i = 0; i < len;) {
        size_t e = i;
        while (e < len && text[e] != '\n') e++;
        line++;
        size_t s = i;
        if (line == 1 && e - s >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) s += 3; /* BOM */
        while (s < e && (text[s] == ' ' || text[s] == '\t')) s++;
        if (s < e && text[s] == '#') {
            int owner = line < first_line ? -1 : beat_after_line(l, line);
            if (owner == -1 && line >= first_line) owner = h->n_beats - 1; /* after the last directive */
            HandoutNotes *n = owner < 0 ? &h->intro : &h->notes[owner];
            if (owner != last_owner) open = 0;
            last_owner = owner;
            if (notes_line(n, text + s + 1, e - s - 1, &open)) { free(text); goto oom; }
        } else {
            open = 0;
        }
        i = e + 1;
    }
    free(text);
    return 0;
oom:
    lesson_handout_free(h);
    return error_set(err, "%s: out of memory for the handout", l->path);
}

int lesson_handout_add(LessonHandout *h, int beat, const char *image_path, const char *const *captions,
                       int n_captions, const char *question, int answered, ErrorMsg *err) {
    if (beat < 0 || beat >= h->n_beats) return error_set(err, "handout: no beat %d", beat + 1);
    HandoutSlide *sl = &h->slide[beat];
    const char *base = strrchr(image_path, '/');
    for (int i = 0; i < sl->n_captions; i++) free(sl->captions[i]);
    FREE_ALL(sl->captions, sl->question, sl->image);
    memset(sl, 0, sizeof *sl);
    sl->image = strdup(base ? base + 1 : image_path);
    sl->captions = calloc(n_captions > 0 ? (size_t)n_captions : 1, sizeof *sl->captions);
    if (!sl->image || !sl->captions) return error_set(err, "handout: out of memory");
    for (int i = 0; i < n_captions; i++) {
        sl->captions[i] = strdup(captions[i]);
        if (!sl->captions[i]) return error_set(err, "handout: out of memory");
        sl->n_captions = i + 1;
    }
    if (question && !(sl->question = strdup(question))) return error_set(err, "handout: out of memory");
    sl->answered = answered;
    return 0;
}

/* ---- the two documents: one walk (handout_doc), two markups ------------------------ */

static void md_notes(StrBuf *t, const HandoutNotes *n, const char *heading) {
    if (!n->n) return;
    strbuf_addf(t, "> **%s**\n>\n", heading);
    for (int i = 0; i < n->n; i++) {
        const char *it = n->item[i];
        int bullet = it[0] == '-' && it[1] == ' ';
        strbuf_adds(t, bullet ? "> - " : "> ");
        put_md(t, bullet ? it + 2 : it);
        strbuf_adds(t, bullet ? "\n" : "\n>\n");
    }
    strbuf_adds(t, "\n");
}

static void html_notes(StrBuf *t, const HandoutNotes *n, const char *heading) {
    if (!n->n) return;
    strbuf_adds(t, "<aside class=\"notes\"><h3>");
    put_html(t, heading);
    strbuf_adds(t, "</h3>\n");
    int in_list = 0;
    for (int i = 0; i < n->n; i++) {
        const char *it = n->item[i];
        int bullet = it[0] == '-' && it[1] == ' ';
        if (bullet && !in_list) strbuf_adds(t, "<ul>\n");
        if (!bullet && in_list) strbuf_adds(t, "</ul>\n");
        in_list = bullet;
        strbuf_adds(t, bullet ? "<li>" : "<p>");
        put_html(t, bullet ? it + 2 : it);
        strbuf_adds(t, bullet ? "</li>\n" : "</p>\n");
    }
    if (in_list) strbuf_adds(t, "</ul>\n");
    strbuf_adds(t, "</aside>\n");
}

static void md_head(StrBuf *t, const char *title) {
    strbuf_adds(t, "# ");
    put_md(t, title);
    strbuf_adds(t, "\n\n");
}

static void html_head(StrBuf *t, const char *title) {
    strbuf_adds(t, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                   "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>");
    put_html_plain(t, title, strlen(title)); /* <title> holds text only, no <code> */
    strbuf_adds(t, "</title>\n<style>\n"
                   "body { font-family: system-ui, sans-serif; max-width: 60em; margin: 2em auto; padding: 0 1em;"
                   " line-height: 1.5; color: #111; background: #fff; }\n"
                   "img { max-width: 100%; height: auto; border: 1px solid #ccc; }\n"
                   "section { margin: 2.5em 0; }\n"
                   ".caption { font-size: 1.15em; margin: 0.3em 0; }\n"
                   ".question { font-weight: bold; color: #1f4e99; }\n"
                   ".note { color: #555; }\n"
                   ".notes { border-left: 4px solid #e69f00; background: #fdf6e7; padding: 0.2em 1em; margin: 1em 0; }\n"
                   ".notes h3 { margin: 0.5em 0; font-size: 1em; }\n"
                   "table { border-collapse: collapse; }\n"
                   "th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: left; }\n"
                   "footer { color: #555; font-size: 0.9em; border-top: 1px solid #ccc; padding-top: 1em; }\n"
                   "</style>\n</head>\n<body>\n<h1>");
    put_html(t, title);
    strbuf_adds(t, "</h1>\n");
}

static void md_slide_head(StrBuf *t, const HandoutSlide *sl, int k, int n) {
    strbuf_addf(t, "## Slide %d of %d\n\n", k + 1, n);
    if (!sl->image) return;
    strbuf_addf(t, "![Slide %d](", k + 1);
    for (const char *c = sl->image; *c; c++) {
        /* a Markdown link target: spaces and parentheses must be escaped */
        if (*c == ' ') strbuf_adds(t, "%20");
        else if (*c == '(' || *c == ')') strbuf_addf(t, "%%%02X", (unsigned char)*c);
        else strbuf_add(t, c, 1);
    }
    strbuf_adds(t, ")\n\n");
}

static void html_slide_head(StrBuf *t, const HandoutSlide *sl, int k, int n) {
    strbuf_addf(t, "<section id=\"slide-%d\">\n<h2>Slide %d of %d</h2>\n", k + 1, k + 1, n);
    if (!sl->image) return;
    strbuf_adds(t, "<img src=\"");
    put_html(t, sl->image);
    strbuf_addf(t, "\" alt=\"Slide %d\">\n", k + 1);
}

/* A Markdown table cell: every character that could be markup is escaped (no code spans
 * here: a backtick in a token must not open one), a line break becomes a space. */
static void md_cell(StrBuf *t, const char *s) {
    for (; *s; s++) {
        if (*s == '\n' || *s == '\r') {
            strbuf_adds(t, " ");
            continue;
        }
        if (strchr("\\`*_[]<>#|{}!~", *s)) strbuf_add(t, "\\", 1);
        strbuf_add(t, s, 1);
    }
}

/* A paragraph of plain text (none when s is NULL). */
static void md_para(StrBuf *t, const char *s) {
    if (!s) return;
    put_md(t, s);
    strbuf_adds(t, "\n\n");
}

static void html_para(StrBuf *t, const char *s) {
    if (!s) return;
    strbuf_adds(t, "<p>");
    put_html_plain(t, s, strlen(s));
    strbuf_adds(t, "</p>\n");
}

static void md_table(StrBuf *t, const HandoutTable *tb) {
    strbuf_adds(t, "## ");
    put_md(t, tb->title);
    strbuf_adds(t, "\n\n");
    md_para(t, tb->intro);
    for (int r = 0; r <= tb->n_rows; r++) {
        for (int c = 0; c < tb->n_cols; c++) {
            strbuf_adds(t, c ? " | " : "| ");
            md_cell(t, tb->cell[r * tb->n_cols + c]);
        }
        strbuf_adds(t, " |\n");
        for (int c = 0; r == 0 && c < tb->n_cols; c++) strbuf_adds(t, c + 1 < tb->n_cols ? "| --- " : "| --- |\n");
    }
    strbuf_adds(t, "\n");
    md_para(t, tb->outro);
}

static void html_table(StrBuf *t, const HandoutTable *tb) {
    strbuf_adds(t, "<section class=\"results\">\n<h2>");
    put_html_plain(t, tb->title, strlen(tb->title));
    strbuf_adds(t, "</h2>\n");
    html_para(t, tb->intro);
    strbuf_adds(t, "<table>\n");
    for (int r = 0; r <= tb->n_rows; r++) {
        strbuf_adds(t, "<tr>");
        for (int c = 0; c < tb->n_cols; c++) {
            const char *cell = tb->cell[r * tb->n_cols + c];
            strbuf_adds(t, r ? "<td>" : "<th>");
            put_html_plain(t, cell, strlen(cell));
            strbuf_adds(t, r ? "</td>" : "</th>");
        }
        strbuf_adds(t, "</tr>\n");
    }
    strbuf_adds(t, "</table>\n");
    html_para(t, tb->outro);
    strbuf_adds(t, "</section>\n");
}

/* What one document format puts around each part of the handout. */
typedef struct HandoutMarkup {
    void (*text)(StrBuf *t, const char *s);     /* running text, escaped for the format */
    void (*code)(StrBuf *t, const char *s);     /* text inside a code span */
    void (*head)(StrBuf *t, const char *title); /* everything up to the title, inclusive */
    void (*notes)(StrBuf *t, const HandoutNotes *n, const char *heading);
    void (*slide_head)(StrBuf *t, const HandoutSlide *sl, int k, int n); /* heading and image */
    void (*table)(StrBuf *t, const HandoutTable *tb);
    const char *note_open, *note_close;          /* the fallback note, once at the top */
    const char *asked, *answered, *question_close;
    const char *caption_open, *caption_close, *caption_last; /* last: after the slide's last */
    const char *slide_close;
    const char *footer_source, *footer_model, *footer_close;
} HandoutMarkup;

static void md_code(StrBuf *t, const char *s) { strbuf_adds(t, s); } /* a code span is verbatim */

static const HandoutMarkup MARKDOWN = {
    .text = put_md, .code = md_code, .head = md_head, .notes = md_notes, .slide_head = md_slide_head, .table = md_table,
    .note_open = "*On every slide:* ", .note_close = "\n\n",
    .asked = "**Question** (think before you read on): ", .answered = "**The answer to:** ",
    .question_close = "\n\n",
    .caption_open = "", .caption_close = "  \n", .caption_last = "\n\n", /* "  \n": a Markdown line break */
    .slide_close = "",
    .footer_source = "---\n\nSlides drawn by `inferscope export --lesson ", .footer_model = " --handout` from the model ",
    .footer_close = ": every bar, id and probability on them is that model's own.\n",
};

static const HandoutMarkup HTML = {
    .text = put_html, .code = put_html, .head = html_head, .notes = html_notes, .slide_head = html_slide_head, .table = html_table,
    .note_open = "<p class=\"note\"><em>On every slide:</em> ", .note_close = "</p>\n",
    .asked = "<p class=\"question\">Question (think before you read on): ",
    .answered = "<p class=\"question\">The answer to: ", .question_close = "</p>\n",
    .caption_open = "<p class=\"caption\">", .caption_close = "</p>\n", .caption_last = "</p>\n",
    .slide_close = "</section>\n",
    .footer_source = "<footer>Slides drawn by <code>inferscope export --lesson ",
    .footer_model = " --handout</code> from the model ",
    .footer_close = ": every bar, id and probability on them is that model's own.</footer>\n</body>\n</html>\n",
};

/* The handout as one document in markup mk; malloc'd, or NULL when out of memory. */
static char *handout_doc(const LessonHandout *h, const HandoutMarkup *mk) {
    StrBuf t = {0};
    mk->head(&t, h->title ? h->title : h->source);
    if (h->note) {
        strbuf_adds(&t, mk->note_open);
        mk->text(&t, h->note);
        strbuf_adds(&t, mk->note_close);
    }
    mk->notes(&t, &h->intro, "Teacher's notes: the whole lesson");
    for (int k = 0; k < h->n_beats; k++) {
        const HandoutSlide *sl = &h->slide[k];
        mk->slide_head(&t, sl, k, h->n_beats);
        if (sl->question) {
            strbuf_adds(&t, sl->answered ? mk->answered : mk->asked);
            mk->text(&t, sl->question);
            strbuf_adds(&t, mk->question_close);
        }
        for (int i = 0; i < sl->n_captions; i++) {
            strbuf_adds(&t, mk->caption_open);
            mk->text(&t, sl->captions[i]);
            strbuf_adds(&t, i + 1 < sl->n_captions ? mk->caption_close : mk->caption_last);
        }
        mk->notes(&t, &h->notes[k], "Teacher's notes");
        strbuf_adds(&t, mk->slide_close);
    }
    if (h->table.title) mk->table(&t, &h->table);
    strbuf_adds(&t, mk->footer_source);
    mk->code(&t, h->source);
    strbuf_adds(&t, mk->footer_model);
    mk->text(&t, h->model);
    strbuf_adds(&t, mk->footer_close);
    if (t.oom) {
        strbuf_free(&t);
        return NULL;
    }
    return t.data;
}

char *lesson_handout_markdown(const LessonHandout *h) { return handout_doc(h, &MARKDOWN); }

char *lesson_handout_html(const LessonHandout *h) { return handout_doc(h, &HTML); }

static int write_doc(const char *dir, const char *name, char *doc, char *out, size_t cap, ErrorMsg *err) {
    if (!doc) return error_set(err, "handout: out of memory");
    snprintf(out, cap, "%s/%s", dir, name);
    FileWriteOptions opt = {.overwrite = 1}; /* the handout describes the latest export into this folder */
    int rc = file_write_atomic(out, doc, strlen(doc), &opt, err);
    free(doc);
    return rc;
}

int lesson_handout_write(const LessonHandout *h, const char *dir, char *md_out, size_t md_cap, char *html_out,
                         size_t html_cap, ErrorMsg *err) {
    if (write_doc(dir, "handout.md", lesson_handout_markdown(h), md_out, md_cap, err)) return -1;
    return write_doc(dir, "handout.html", lesson_handout_html(h), html_out, html_cap, err);
}

static char *dup_or_null(const char *s, int *oom) {
    if (!s) return NULL;
    char *d = dup_n(s, strlen(s));
    if (!d) *oom = 1;
    return d;
}

static void table_free(HandoutTable *tb) {
    for (int i = 0; tb->cell && i < (tb->n_rows + 1) * tb->n_cols; i++) free(tb->cell[i]);
    FREE_ALL(tb->cell, tb->title, tb->intro, tb->outro);
    memset(tb, 0, sizeof *tb);
}

int lesson_handout_set_table(LessonHandout *h, const char *title, const char *intro, const char *const *cells,
                             int n_cols, int n_rows, const char *outro, ErrorMsg *err) {
    if (h->table.title) return error_set(err, "handout: a table is set already");
    if (!title || n_cols < 1 || n_cols > 16 || n_rows < 0)
        return error_set(err, "handout: a table of %d columns and %d rows", n_cols, n_rows);
    HandoutTable *tb = &h->table;
    int oom = 0;
    size_t n = (size_t)(n_rows + 1) * (size_t)n_cols;
    tb->cell = calloc(n, sizeof *tb->cell);
    tb->n_cols = n_cols;
    tb->n_rows = n_rows;
    if (!tb->cell) oom = 1;
    for (size_t i = 0; !oom && i < n; i++) tb->cell[i] = dup_or_null(cells[i] ? cells[i] : "", &oom);
    tb->title = dup_or_null(title, &oom);
    tb->intro = dup_or_null(intro, &oom);
    tb->outro = dup_or_null(outro, &oom);
    if (!oom) return 0;
    table_free(tb);
    return error_set(err, "handout: out of memory");
}

void lesson_handout_free(LessonHandout *h) {
    if (!h) return;
    table_free(&h->table);
    for (int k = 0; h->slide && k < h->n_beats; k++) slide_free(&h->slide[k]);
    for (int k = 0; h->notes && k < h->n_beats; k++) notes_free(&h->notes[k]);
    notes_free(&h->intro);
    FREE_ALL(h->notes, h->slide, h->title, h->source, h->model, h->note);
    memset(h, 0, sizeof *h);
}
