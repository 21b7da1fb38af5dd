/* test_lesson.c — the lesson parser: beats, arguments, and one exact error line
 * (file:line: problem) for each kind of mistake a teacher can make. */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "frame.h"
#include "lesson.h"

static int parse(const char *text, Lesson *l, ErrorMsg *err) {
    return lesson_parse(l, "t.lesson", text, strlen(text), err);
}

static void expect_error(const char *text, const char *want) {
    Lesson l;
    ErrorMsg err = {{0}};
    int rc = parse(text, &l, &err);
    CHECK(rc == -1, "should fail: %s", want);
    CHECK(strstr(err.text, want) != NULL, "error '%s' should contain '%s'", err.text, want);
    CHECK(l.n_dir == 0 && l.dir == NULL, "nothing left allocated after an error");
}

static void test_beats(void) {
    const char *text =
        "# teacher's notes\n"
        "title Sampling\n"
        "prompt \"Once upon a\"\n"
        "seed 42\n"
        "temperature 0.7\n"
        "caption What comes next?\n"
        "pause\n"
        "ask Which token comes next?\n"
        "reveal\n"
        "step 3\n"
        "force \" time\"\n"
        "force #640\n"
        "highlight bar 2\n"
        "highlight panel attention\n"
        "  layer 1  \n"
        "pause\n"
        "pause\n";
    Lesson l;
    ErrorMsg err = {{0}};
    CHECK(parse(text, &l, &err) == 0, "valid lesson parses: %s", err.text);
    CHECK(l.n_beats == 3, "3 beats (pause, reveal, pause; empty beat dropped), got %zu", l.n_beats);
    CHECK(l.title && strcmp(l.title, "Sampling") == 0, "title");
    CHECK(l.n_dir == 13, "13 directives, got %zu", l.n_dir);
    if (l.n_dir == 13) {
        CHECK(strcmp(l.dir[1].text, "Once upon a") == 0, "quotes removed");
        CHECK(l.dir[2].seed == 42 && l.dir[2].line == 4, "seed and its line");
        CHECK(l.dir[3].op == LOP_SETTING && l.dir[3].kind == SETTING_TEMPERATURE, "temperature is a setting line");
        CHECK_CLOSE(l.dir[3].setting.temperature, 0.7, 1e-7, 0, "temperature");
        CHECK(l.beat_end[0] == 5 && l.beat_end[1] == 6, "beat boundaries %zu %zu", l.beat_end[0], l.beat_end[1]);
        CHECK(l.dir[8].op == LOP_FORCE && strcmp(l.dir[8].text, " time") == 0 && l.dir[8].flag == 0, "force by text keeps the space");
        CHECK(l.dir[9].flag == 1 && l.dir[9].n == 640, "force by id");
        CHECK(l.dir[10].kind == LHL_BAR && l.dir[10].n == 2, "highlight bar");
        CHECK(l.dir[11].kind == LHL_PANEL && l.dir[11].panel == VIZ_PANEL_ATTENTION, "highlight panel");
        CHECK(l.dir[12].op == LOP_LAYER && l.dir[12].n == 1, "indented line");
    }
    lesson_free(&l);
}

static void test_errors(void) {
    expect_error("prompt a\nstpe 3\n", "t.lesson:2: unknown directive 'stpe'");
    expect_error("prompt a\ntemperature -1\n", "t.lesson:2: temperature: '-1' is outside [0, 100] (0 = greedy)");
    expect_error("prompt a\ntop_p 1.5\n", "t.lesson:2: top_p: '1.5' is outside [0, 1] (1 = off)");
    expect_error("prompt a\ntop_k x\n", "t.lesson:2: top_k: 'x' is not a number: give a whole number in [0, 1000000]");
    expect_error("prompt a\nstep 0\n", "t.lesson:2: step 0 is out of range");
    expect_error("prompt a\ngreedy maybe\n", "t.lesson:2: greedy: 'maybe' is not on or off");
    expect_error("prompt a\npanel heatmap\n", "t.lesson:2: unknown panel 'heatmap'");
    expect_error("prompt a\nreveal\n", "t.lesson:2: 'reveal' without a question");
    expect_error("prompt a\nask Next?\nstep 1\n", "t.lesson:4: the file ends with a question");
    expect_error("prompt a\nask A?\nask B?\n", "t.lesson:3: 'ask' before the previous question");
    expect_error("prompt a\ncaption\n", "t.lesson:2: 'caption' needs an argument");
    expect_error("prompt a\nhome now\n", "t.lesson:2: 'home' takes no argument");
    expect_error("step 2\n", "t.lesson: the lesson has no 'prompt' line");
    expect_error("prompt \"bad \\q escape\"\n", "t.lesson:1: unknown escape \\q");
    expect_error("prompt ok\ncaption caf\xC3\n", "t.lesson:2: invalid UTF-8 at byte 12 of the line");
    expect_error("prompt ok\nhighlight token x\n", "t.lesson:2: highlight token needs a whole number");
    /* issue 22: an unclosed quote is a mistake, not a prompt with a quote in it */
    expect_error("prompt \"Once upon\n", "t.lesson:1: the text starts with a quote (\") that is never closed");
    expect_error("prompt ok\ncaption \"\n", "t.lesson:2: the text starts with a quote");
    expect_error("prompt \"ends escaped\\\"\n", "t.lesson:1: the text starts with a quote");
    expect_error("prompt ok\nforce \" time\n", "t.lesson:2: the text starts with a quote");
}

/* expect: every form parses into its fields; each malformed claim is one clear line. */
static void test_expect_parse(void) {
    const char *text =
        "prompt a\n"
        "expect next \" time\"\n"
        "expect prob \" time\" >= 0.99\n"
        "expect chosen #640\n"
        "expect text \" and then\"\n"
        "expect tokens \" hippopotamus\" >= 2\n"
        "expect kept = 40\n"
        "expect repeats 5\n"
        "expect attention 1 3 5 4 > 0.5\n"
        "expect attention 0 2 prev strongest\n"
        "expect attention 0 0 first <= 0.3\n"
        "expect token 0 Once\n";
    Lesson l;
    ErrorMsg err = {{0}};
    CHECK(parse(text, &l, &err) == 0, "expect forms parse: %s", err.text);
    CHECK(l.n_dir == 12, "12 directives, got %zu", l.n_dir);
    if (l.n_dir == 12) {
        const LessonDirective *d = l.dir;
        CHECK(d[1].op == LOP_EXPECT && d[1].kind == LEXP_NEXT && strcmp(d[1].text, " time") == 0, "next");
        CHECK(d[2].kind == LEXP_PROB && d[2].cmp == LCMP_GE && d[2].x == 0.99, "prob");
        CHECK(d[3].kind == LEXP_CHOSEN && d[3].flag == 1 && d[3].n == 640, "chosen by id");
        CHECK(d[4].kind == LEXP_TEXT && strcmp(d[4].text, " and then") == 0, "text");
        CHECK(d[5].kind == LEXP_TOKENS && strcmp(d[5].text, " hippopotamus") == 0 && d[5].n == 2, "tokens");
        CHECK(d[6].kind == LEXP_KEPT && d[6].cmp == LCMP_EQ && d[6].n == 40, "kept");
        CHECK(d[7].kind == LEXP_REPEATS && d[7].n == 5, "repeats");
        CHECK(d[8].kind == LEXP_ATTENTION && d[8].arg[0] == 1 && d[8].arg[1] == 3 && d[8].arg[2] == 5 &&
                  d[8].arg[3] == 4 && d[8].cmp == LCMP_GT && d[8].x == 0.5, "attention cell");
        CHECK(d[9].arg[2] == LATT_PREV && d[9].cmp == LCMP_STRONGEST, "strongest prev head");
        CHECK(d[10].arg[2] == LATT_FIRST && d[10].cmp == LCMP_LE, "first-token mean");
        CHECK(d[11].kind == LEXP_TOKEN && d[11].arg[0] == 0 && strcmp(d[11].text, "Once") == 0, "token at a position");
        CHECK(strcmp(d[2].claim, "prob \" time\" >= 0.99") == 0, "the claim as written: %s", d[2].claim);
    }
    lesson_free(&l);
    expect_error("prompt a\nexpect\n", "t.lesson:2: 'expect' needs an argument");
    expect_error("prompt a\nexpect nxt \" a\"\n", "t.lesson:2: expect: unknown claim 'nxt'");
    expect_error("prompt a\nexpect prob \" a\" ~ 0.5\n", "t.lesson:2: expect: '~' is not a comparison");
    expect_error("prompt a\nexpect prob \" a\" >= 1.5\n", "t.lesson:2: expect prob 1.5 is out of range");
    expect_error("prompt a\nexpect prob \" a\" >=\n", "t.lesson:2: expect prob takes: prob TEXT OP X");
    /* the refusals come from the claim table: its names, each claim's own form */
    expect_error("prompt a\nexpect nxt 1\n", "(next, prob, chosen, text, tokens, kept, repeats, attention, token, ids, "
                                              "pick, top, seen, surprisal, lens, attribution, head, draws, chi2, penalty, compare)");
    expect_error("prompt a\nexpect text\n", "t.lesson:2: expect text takes: text TEXT");
    expect_error("prompt a\nexpect lens \" a\" 3 <=\n", "t.lesson:2: expect lens takes: lens TEXT DEPTH OP RANK");
    expect_error("prompt a\nexpect head 1.1 prev >=\n", "t.lesson:2: expect head takes: head L.H best PATTERN | head L.H PATTERN OP X");
    expect_error("prompt a\nexpect next \" a\n", "t.lesson:2: the text starts with a quote");
    expect_error("prompt a\nexpect kept >= lots\n", "t.lesson:2: expect kept needs a whole number");
    expect_error("prompt a\nexpect repeats 0\n", "t.lesson:2: expect repeats 0 is out of range");
    expect_error("prompt a\nexpect attention 0 0 prev\n", "t.lesson:2: expect attention takes: attention L H QUERY KEY OP X");
    expect_error("prompt a\nexpect attention 0 0 1 strongest\n", "t.lesson:2: expect attention takes:");
    expect_error("prompt a\nexpect attention x 0 prev >= 0.5\n", "t.lesson:2: expect attention layer needs a whole number");
    expect_error("prompt a\nexpect tokens \"\" = 1\n", "t.lesson:2: expect tokens: the text is empty");
    expect_error("prompt a\nexpect ids \"a b\" 1,,2\n", "t.lesson:2: expect ids: '1,,2' is not a list");
    expect_error("prompt a\nexpect ids \"a b\" 1,x\n", "t.lesson:2: expect ids: an id needs a whole number");
    expect_error("prompt a\nexpect top 21 >= 0.5\n", "t.lesson:2: expect top 21 is out of range [1, 20]");
    expect_error("prompt a\nexpect repeats >= \n", "t.lesson:2: expect repeats needs a whole number");
    expect_error("prompt a\nexpect repeats 1 2 3\n", "t.lesson:2: expect repeats takes: repeats [OP] N");
    Lesson m;
    ErrorMsg e2 = {{0}};
    CHECK(parse("prompt a\nexpect ids \" a\" 257\nexpect pick #5\nexpect top 3 >= 0.5\nexpect repeats <= 2\n", &m, &e2) == 0,
          "ids, pick, top, repeats OP N parse: %s", e2.text);
    if (m.n_dir == 5) {
        CHECK(m.dir[1].kind == LEXP_IDS && m.dir[1].n_ids == 1 && m.dir[1].ids[0] == 257, "ids");
        CHECK(m.dir[2].kind == LEXP_PICK && m.dir[2].flag && m.dir[2].n == 5, "pick");
        CHECK(m.dir[3].kind == LEXP_TOP && m.dir[3].n == 3 && m.dir[3].cmp == LCMP_GE, "top");
        CHECK(m.dir[4].kind == LEXP_REPEATS && m.dir[4].cmp == LCMP_LE && m.dir[4].n == 2, "repeats <= 2");
    }
    lesson_free(&m);
}

/* Quotes: closed at the end = removed; closed earlier = the text as written. */
static void test_quotes(void) {
    Lesson l;
    ErrorMsg err = {{0}};
    const char *text = "prompt \"a \\\\\"\ncaption \"Hi\" she said\ncaption say \"hi\n";
    CHECK(parse(text, &l, &err) == 0, "quotes parse: %s", err.text);
    CHECK(l.n_dir == 3, "3 directives, got %zu", l.n_dir);
    if (l.n_dir == 3) {
        CHECK(strcmp(l.dir[0].text, "a \\") == 0, "escaped backslash before the closing quote: '%s'", l.dir[0].text);
        CHECK(strcmp(l.dir[1].text, "\"Hi\" she said") == 0, "quote closed early: as written '%s'", l.dir[1].text);
        CHECK(strcmp(l.dir[2].text, "say \"hi") == 0, "a quote inside unquoted text: '%s'", l.dir[2].text);
    }
    lesson_free(&l);
}

/* issue 22: a UTF-8 byte-order mark is not part of the first directive */
static void test_bom(void) {
    Lesson l;
    ErrorMsg err = {{0}};
    const char *text = "\xEF\xBB\xBFtitle BOM\nprompt Hi\n";
    CHECK(parse(text, &l, &err) == 0, "a lesson with a BOM parses: %s", err.text);
    CHECK(l.title && strcmp(l.title, "BOM") == 0, "title after the BOM");
    lesson_free(&l);
    /* a BOM anywhere else is a character like any other (and no directive) */
    Lesson l2;
    CHECK(parse("prompt Hi\n\xEF\xBB\xBFstep\n", &l2, &err) == -1 && strstr(err.text, "t.lesson:2: unknown directive"),
          "BOM only skipped at the start: %s", err.text);
}

static void test_files(void) {
    Lesson l;
    ErrorMsg err = {{0}};
    CHECK(lesson_load(&l, "tests/fixtures/lessons/bad_directive.lesson", &err) == -1, "fixture fails");
    CHECK(strcmp(err.text, "tests/fixtures/lessons/bad_directive.lesson:4: unknown directive 'stpe' (see lessons/README.md)") == 0,
          "exact message: %s", err.text);
    CHECK(lesson_load(&l, "tests/fixtures/lessons/bad_no_reveal.lesson", &err) == -1, "no reveal fails");
    CHECK(lesson_load(&l, "tests/fixtures/lessons/bad_utf8.lesson", &err) == -1, "bad utf8 fails");
    CHECK(strstr(err.text, "bad_utf8.lesson:1: invalid UTF-8 at byte 11") != NULL, "utf8 message: %s", err.text);
    CHECK(lesson_load(&l, "tests/fixtures/lessons/missing.lesson", &err) == -1, "missing file fails");
    CHECK(strstr(err.text, "missing.lesson: cannot open") != NULL, "missing message: %s", err.text);
    CHECK(lesson_load(&l, "tests/fixtures/lessons", &err) == -1, "directory fails");
    CHECK(strstr(err.text, "tests/fixtures/lessons:") != NULL, "directory message: %s", err.text);
    /* a FIFO in place of the lesson is refused at once instead of blocking forever */
    char fifo[] = "/tmp/lesson-fifo-XXXXXX";
    if (mkdtemp(fifo)) {
        char path[64];
        snprintf(path, sizeof path, "%s/f.lesson", fifo);
        if (mkfifo(path, 0600) == 0) {
            CHECK(lesson_load(&l, path, &err) == -1 && strstr(err.text, "not a regular file"), "FIFO: %s", err.text);
            unlink(path);
        }
        rmdir(fifo);
    }
}

/* Every lesson shipped in lessons/ parses and has at least 3 beats and a title. */
static void test_shipped_lessons(void) {
    glob_t g;
    CHECK(glob("lessons/*.lesson", 0, NULL, &g) == 0 && g.gl_pathc == 12, "twelve lessons shipped");
    for (size_t i = 0; i < g.gl_pathc; i++) {
        Lesson l;
        ErrorMsg err = {{0}};
        int rc = lesson_load(&l, g.gl_pathv[i], &err);
        CHECK(rc == 0, "%s parses: %s", g.gl_pathv[i], err.text);
        if (rc == 0) {
            CHECK(l.n_beats >= 3, "%s has %zu beats", g.gl_pathv[i], l.n_beats);
            CHECK(l.title != NULL, "%s has a title", g.gl_pathv[i]);
        }
        lesson_free(&l);
    }
    globfree(&g);
}

/* attribute_vs: a token by text (its space kept) or #id, or none; nothing else. */
static void test_attribute_vs(void) {
    Lesson l;
    ErrorMsg err = {{0}};
    int rc = parse("prompt Once upon a\nattribute_vs \" day\"\nattribute_vs #1110\nattribute_vs none\n", &l, &err);
    CHECK(rc == 0 && l.n_dir == 4, "attribute_vs parses: %s", err.text);
    if (rc == 0 && l.n_dir == 4) {
        CHECK(l.dir[1].op == LOP_ATTR_VS && l.dir[1].kind == 0 && l.dir[1].flag == 0 && strcmp(l.dir[1].text, " day") == 0,
              "by text, the space kept");
        CHECK(l.dir[2].op == LOP_ATTR_VS && l.dir[2].flag == 1 && l.dir[2].n == 1110, "by id");
        CHECK(l.dir[3].op == LOP_ATTR_VS && l.dir[3].kind == 1, "none");
    }
    lesson_free(&l);
    expect_error("prompt a\nattribute_vs\n", "t.lesson:2: 'attribute_vs' needs an argument");
    expect_error("prompt a\nattribute_vs #x\n", "t.lesson:2: attribute_vs #id");
}

int main(void) {
    test_shipped_lessons();
    test_attribute_vs();
    test_beats();
    test_errors();
    test_quotes();
    test_expect_parse();
    test_bom();
    test_files();
    return check_summary("test_lesson");
}
