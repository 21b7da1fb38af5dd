/* test_export.c — figure export on the reference tiny model, headless: golden images
 * (tolerance 2 levels per channel, golden.h), byte-identical repeat exports, 2x =
 * the same layout at twice the pixels, provenance read back and applied to a fresh
 * session (same ids, settings, head, pixels), the SHA-256 of the weights against
 * shared/reference/SHA256SUMS, a process killed mid-write, and the folder errors. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "check_export.h"
#include "export.h"
#include "figure_meta.h"
#include "file_read.h"
#include "frame_fill.h"
#include "golden.h"
#include "session.h"
#include "sha256_file.h"

#define MAX_PNG_BYTES ((size_t)64 << 20) /* the figures here are small: a bound all the same */

static char model_dir[512], tok_dir[512];
static char tmp_root[64];

static int open_session(Session *s) {
    ErrorMsg err = {{0}};
    int rc = session_open(s, model_dir, tok_dir, 0, GPT2_CAP_DEFAULT, &err);
    CHECK(rc == 0, "session_open: %s", err.text);
    return rc;
}

/* A session with a prompt and two generated tokens at fixed dice. */
static int make_state(Session *s, const char *prompt, int steps) {
    ErrorMsg err = {{0}};
    if (open_session(s)) return -1;
    session_set_seed(s, 7);
    int rc = session_set_prompt(s, (const uint8_t *)prompt, strlen(prompt), &err);
    for (int i = 0; rc == 0 && i < steps; i++) rc = session_step(s, &err);
    CHECK(rc == 0, "prompt/steps: %s", err.text);
    return rc;
}


/* Visible (not dot-) files in dir. */
static int count_visible(const char *dir, int *hidden) {
    DIR *d = opendir(dir);
    int n = 0;
    if (hidden) *hidden = 0;
    if (!d) return -1;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        if (e->d_name[0] == '.') {
            if (hidden) (*hidden)++;
        } else {
            n++;
        }
    }
    closedir(d);
    return n;
}

static void rm_dir(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    char p[1024];
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

static void test_sha256(void) {
    ErrorMsg err = {{0}};
    char hex[65];
    char p[128];
    snprintf(p, sizeof p, "%s/abc.txt", tmp_root);
    FILE *f = fopen(p, "wb");
    fputs("abc", f);
    fclose(f);
    CHECK(sha256_file(p, hex, &err) == 0, "sha256 abc: %s", err.text);
    /* FIPS 180-2 appendix B.1 test vector */
    CHECK(strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") == 0, "sha256(abc) = %s", hex);
    unlink(p);

    /* the tiny model's weights against the reference's own SHA256SUMS */
    char sums[600], want[65] = "";
    snprintf(sums, sizeof sums, "%s/SHA256SUMS", check_ref_dir());
    FILE *sf = fopen(sums, "r");
    char line[512];
    while (sf && fgets(line, sizeof line, sf))
        if (strstr(line, "models/tiny/model.safetensors")) sscanf(line, "%64s", want);
    if (sf) fclose(sf);
    CHECK(strlen(want) == 64, "SHA256SUMS lists the tiny model");
    char wpath[600];
    snprintf(wpath, sizeof wpath, "%s/model.safetensors", model_dir);
    Sha256Cache c = {0};
    const char *h1 = NULL, *h2 = NULL;
    CHECK(sha256_file_cached(&c, wpath, &h1, &err) == 0 && h1 && strcmp(h1, want) == 0, "tiny sha %s want %s",
          h1 ? h1 : "(none)", want);
    CHECK(sha256_file_cached(&c, wpath, &h2, &err) == 0 && h2 == c.hex && c.valid, "second call from the cache");
    CHECK(sha256_file("/nonexistent/x", hex, &err) == -1 && strstr(err.text, "/nonexistent/x"), "missing: %s",
          err.text);
    CHECK(sha256_file("/tmp", hex, &err) == -1 && strstr(err.text, "/tmp: is a directory"), "folder: %s", err.text);
}

static void test_golden_and_determinism(void) {
    Session s;
    if (make_state(&s, "Once upon a time, there was", 2)) return;
    ErrorMsg err = {{0}};
    VizView v = frame_default_view();
    v.layer = 1;
    v.head = 2;
    ExportImage img = {0}, att = {0};
    ExportOptions o = check_export_opts(tmp_root, VIZ_PANEL_FRAME, 1280, 720);
    CHECK(export_render(&s, &v, &o, &img, &err) == 0, "render frame: %s", err.text);
    if (img.rgba) CHECK(golden_compare(img.rgba, img.w, img.h, "tests/golden/export_frame.png", 2) == 0, "frame golden");
    ExportOptions oa = check_export_opts(tmp_root, VIZ_PANEL_ATTENTION, 640, 480);
    CHECK(export_render(&s, &v, &oa, &att, &err) == 0, "render attention: %s", err.text);
    if (att.rgba)
        CHECK(golden_compare(att.rgba, att.w, att.h, "tests/golden/export_attention.png", 2) == 0, "attention golden");

    /* the same state twice: byte-identical files under two numbers */
    char dir[128], p1[512], p2[512];
    snprintf(dir, sizeof dir, "%s/same", tmp_root);
    ExportOptions od = check_export_opts(dir, VIZ_PANEL_ATTENTION, 640, 480);
    CHECK(export_png(&s, &v, &od, p1, sizeof p1, &err) == 0, "export 1: %s", err.text);
    CHECK(export_png(&s, &v, &od, p2, sizeof p2, &err) == 0, "export 2: %s", err.text);
    CHECK(strstr(p1, "/0001-step-02-attention-L1H2.png") != NULL, "name 1: %s", p1);
    CHECK(strstr(p2, "/0002-step-02-attention-L1H2.png") != NULL, "name 2: %s", p2);
    uint8_t *b1 = NULL, *b2 = NULL;
    size_t n1 = 0, n2 = 0;
    CHECK(file_read_all(p1, MAX_PNG_BYTES, &b1, &n1, &err) == 0 &&
              file_read_all(p2, MAX_PNG_BYTES, &b2, &n2, &err) == 0,
          "read back: %s", err.text);
    CHECK(n1 == n2 && n1 > 1000 && b1 && b2 && memcmp(b1, b2, n1) == 0, "identical bytes (%zu vs %zu)", n1, n2);
    free(b1);
    free(b2);
    /* the written pixels are the rendered ones */
    int w = 0, h = 0, ch = 0;
    unsigned char *px = stbi_load(p1, &w, &h, &ch, 4);
    CHECK(px && att.rgba && w == att.w && h == att.h && memcmp(px, att.rgba, (size_t)w * h * 4) == 0,
          "file pixels = rendered pixels");
    stbi_image_free(px);

    /* a visibly different state gives different pixels (the test can fail) */
    ExportImage other = {0};
    VizView v2 = v;
    v2.head = 3;
    CHECK(export_render(&s, &v2, &oa, &other, &err) == 0, "render head 3");
    CHECK(other.rgba && att.rgba && memcmp(other.rgba, att.rgba, (size_t)att.w * att.h * 4) != 0,
          "another head, other pixels");
    export_image_free(&other);
    export_image_free(&img);
    export_image_free(&att);
    rm_dir(dir);
    session_free(&s);
}

/* 2x: exactly twice the pixels; box-filtered down it is close to 1x (same layout; the
 * text is hinted at another size and line heights round differently, so only a loose
 * tolerance holds: mean |diff| <= 16 levels, >= 85% of pixels within 48 levels on
 * every channel, and means of 8x8 blocks (glyph edges averaged away) within 6 levels). */
static void test_scale(void) {
    Session s;
    if (make_state(&s, "Once upon a time, there was", 1)) return;
    ErrorMsg err = {{0}};
    VizView v = frame_default_view();
    ExportImage a = {0}, b = {0};
    ExportOptions o1 = check_export_opts(tmp_root, VIZ_PANEL_FRAME, 1280, 720);
    ExportOptions o2 = o1;
    o2.scale = 2;
    CHECK(export_render(&s, &v, &o1, &a, &err) == 0, "1x: %s", err.text);
    CHECK(export_render(&s, &v, &o2, &b, &err) == 0, "2x: %s", err.text);
    CHECK(b.w == 2 * a.w && b.h == 2 * a.h && a.w == 1280 && a.h == 720, "2x is %dx%d for %dx%d", b.w, b.h, a.w, a.h);
    if (a.rgba && b.rgba && b.w == 2 * a.w && b.h == 2 * a.h) {
        double sum = 0;
        size_t close = 0, n = (size_t)a.w * a.h;
        for (int y = 0; y < a.h; y++)
            for (int x = 0; x < a.w; x++) {
                int worst = 0;
                for (int c = 0; c < 3; c++) {
                    size_t r0 = ((size_t)(2 * y) * b.w + 2 * x) * 4 + c, r1 = r0 + (size_t)b.w * 4;
                    int avg = (b.rgba[r0] + b.rgba[r0 + 4] + b.rgba[r1] + b.rgba[r1 + 4] + 2) / 4;
                    int d = abs(avg - a.rgba[((size_t)y * a.w + x) * 4 + c]);
                    sum += d;
                    if (d > worst) worst = d;
                }
                if (worst <= 48) close++;
            }
        double mean = sum / (3.0 * n), frac = (double)close / n;
        /* layout alone: 8x8 blocks of the 1x image against 16x16 blocks of the 2x one,
         * which averages away glyph edges but not a moved panel, bar or cell */
        double bsum = 0;
        size_t nb = 0;
        for (int by = 0; by + 8 <= a.h; by += 8)
            for (int bx = 0; bx + 8 <= a.w; bx += 8)
                for (int c = 0; c < 3; c++) {
                    double s1 = 0, s2 = 0;
                    for (int y = 0; y < 8; y++)
                        for (int x = 0; x < 8; x++) s1 += a.rgba[((size_t)(by + y) * a.w + bx + x) * 4 + c];
                    for (int y = 0; y < 16; y++)
                        for (int x = 0; x < 16; x++)
                            s2 += b.rgba[((size_t)(2 * by + y) * b.w + 2 * bx + x) * 4 + c];
                    bsum += fabs(s1 / 64 - s2 / 256);
                    nb++;
                }
        double bmean = bsum / (double)nb;
        printf("scale: 2x box-filtered vs 1x: mean |diff| %.2f levels, %.1f%% of pixels within 48; "
               "8x8-block means differ by %.2f levels\n", mean, 100 * frac, bmean);
        CHECK(mean <= 16.0 && frac >= 0.85, "2x downscaled differs from 1x: mean %.2f, %.1f%% close", mean, 100 * frac);
        CHECK(bmean <= 6.0, "2x layout differs from 1x: block means differ by %.2f", bmean);
        /* and a frame of a different layout is far from it (the check can fail) */
        ExportImage c = {0};
        VizView vf = v;
        vf.focus = VIZ_PANEL_PROBS;
        CHECK(export_render(&s, &vf, &o1, &c, &err) == 0, "focus render");
        double s2 = 0;
        for (size_t i = 0; c.rgba && i < n * 4; i++) s2 += abs((int)c.rgba[i] - (int)a.rgba[i]);
        CHECK(s2 / (4.0 * n) > 2 * bmean, "another layout differs more (%.2f)", s2 / (4.0 * n));
        export_image_free(&c);
    }
    export_image_free(&a);
    CHECK(export_render(&s, &v, &(ExportOptions){.scale = 3, .assets_dir = "assets"}, &a, &err) == -1 &&
              strstr(err.text, "scale 3"), "scale 3 refused: %s", err.text);
    export_image_free(&a);
    export_image_free(&b);
    session_free(&s);
}

/* Non-default everything, exported, read back, applied to a fresh session. */
static void test_round_trip(void) {
    Session s, t;
    if (open_session(&s)) return;
    if (open_session(&t)) { session_free(&s); return; }
    ErrorMsg err = {{0}};
    SamplerSettings set = {.temperature = 0.8f, .top_k = 40, .top_p = 0.9f, .greedy = 0, .repetition_penalty = 1.0f};
    CHECK(session_set_settings(&s, &set, &err) == 0, "settings: %s", err.text);
    session_set_seed(&s, 12345678901234ULL);
    /* UTF-8 beyond Latin-1 (é, —, emoji) must survive the ASCII-only tEXt chunks */
    const char *prompt = "Caf\xc3\xa9 \"quoted\" \xe2\x80\x94 na\xc3\xafve \xf0\x9f\x98\x80\\ story";
    CHECK(session_set_prompt(&s, (const uint8_t *)prompt, strlen(prompt), &err) == 0, "prompt: %s", err.text);
    CHECK(session_step(&s, &err) == 0, "step");
    session_reroll(&s);
    session_reroll(&s);
    CHECK(session_step(&s, &err) == 0, "step after reroll");
    CHECK(session_force(&s, 13, &err) == 0, "force: %s", err.text);
    CHECK(session_step(&s, &err) == 0, "step");
    session_reroll(&s);
    VizView v = frame_default_view();
    v.layer = 1;
    v.head = 3;
    v.top_n = 12;
    v.selected_token = 2;
    viz_view_set_attr_vs(&v, 13); /* the attribution's contrast token (inferscope:attr_vs) */
    char dir[128], p1[512], p2[512];
    snprintf(dir, sizeof dir, "%s/rt", tmp_root);
    ExportOptions o = check_export_opts(dir, VIZ_PANEL_FRAME, 900, 560);
    o.theme = THEME_DARK;
    o.sidecar = 1;
    CHECK(export_png(&s, &v, &o, p1, sizeof p1, &err) == 0, "export: %s", err.text);

    FigureState fs = {0};
    CHECK(figure_meta_read(p1, &fs, &err) == 0, "read: %s", err.text);
    CHECK(fs.n_ids == (size_t)session_len(&s) && fs.ids &&
              memcmp(fs.ids, session_ids(&s), fs.n_ids * sizeof *fs.ids) == 0, "ids read back");
    CHECK(fs.n_prompt == s.n_prompt && fs.step == 4, "n_prompt %d step %d", fs.n_prompt, fs.step);
    CHECK(fs.prompt_len == strlen(prompt) && fs.prompt && memcmp(fs.prompt, prompt, fs.prompt_len) == 0,
          "UTF-8 prompt read back exactly");
    CHECK(fs.settings.temperature == 0.8f && fs.settings.top_k == 40 && fs.settings.top_p == 0.9f &&
              !fs.settings.greedy, "settings read back");
    CHECK(fs.seed == 12345678901234ULL, "seed %llu", (unsigned long long)fs.seed);
    CHECK(fs.view.layer == 1 && fs.view.head == 3 && fs.view.top_n == 12 && fs.view.selected_token == 2,
          "view read back");
    CHECK(viz_view_attr_vs(&fs.view) == 13, "attr_vs read back: %d", viz_view_attr_vs(&fs.view));
    CHECK(fs.panel == VIZ_PANEL_FRAME && fs.theme == THEME_DARK && fs.scale == 1 && fs.width == 900 &&
              fs.height == 560, "figure options read back");
    CHECK(fs.salts && fs.salts[1] == 2 && fs.pending_salt == 1, "dice salts read back");
    CHECK(strcmp(fs.model, "tiny") == 0 && strlen(fs.model_sha256) == 64, "model %s", fs.model);
    CHECK(strcmp(fs.tensor, "blocks.1.attn.hook_pattern logits") == 0, "tensor %s", fs.tensor);
    CHECK(strcmp(fs.colormap, "viridis") == 0 && strncmp(fs.software, "inferscope ", 11) == 0, "colormap, software");

    VizView v2;
    CHECK(figure_state_apply(&fs, &t, &v2, &err) == 0, "apply: %s", err.text);
    CHECK(session_len(&t) == session_len(&s) && memcmp(session_ids(&t), session_ids(&s),
                                                        (size_t)session_len(&s) * sizeof(int)) == 0, "same ids");
    CHECK(t.n_prompt == s.n_prompt && t.prompt_enc.n_ids == s.prompt_enc.n_ids, "prompt text reused (BPE replay)");
    CHECK(t.seed == s.seed && t.settings.top_k == 40 && t.pending_salt == s.pending_salt, "seed, settings, dice");
    CHECK(t.has_next && s.has_next && t.next.u == s.next.u && t.next.chosen.id == s.next.chosen.id,
          "same pending draw");
    CHECK(v2.layer == 1 && v2.head == 3 && v2.top_n == 12, "same head");
    CHECK(viz_view_attr_vs(&v2) == 13, "same contrast token: %d", viz_view_attr_vs(&v2));
    ExportOptions o2 = check_export_opts(dir, VIZ_PANEL_TOKENS, 10, 10);
    check_options_from_figure(&o2, &fs);
    o2.sidecar = 1;
    CHECK(export_png(&t, &v2, &o2, p2, sizeof p2, &err) == 0, "re-export: %s", err.text);
    uint8_t *b1 = NULL, *b2 = NULL;
    size_t n1 = 0, n2 = 0;
    CHECK(file_read_all(p1, MAX_PNG_BYTES, &b1, &n1, &err) == 0 &&
              file_read_all(p2, MAX_PNG_BYTES, &b2, &n2, &err) == 0,
          "read both: %s", err.text);
    CHECK(n1 == n2 && b1 && b2 && memcmp(b1, b2, n1) == 0, "reopened figure re-exports byte-identically");
    free(b1);
    free(b2);
    figure_state_free(&fs);
    figure_state_free(&fs); /* twice is safe */

    /* the layer the model does not have */
    FigureState bad = {0};
    CHECK(figure_meta_read(p1, &bad, &err) == 0, "reread");
    bad.view.layer = 5;
    CHECK(figure_state_apply(&bad, &t, &v2, &err) == -1 && strstr(err.text, "layer 5"), "layer 5: %s", err.text);
    figure_state_free(&bad);
    /* a contrast token this model does not have: refused, naming it */
    FigureState bad_vs = {0};
    CHECK(figure_meta_read(p1, &bad_vs, &err) == 0, "reread");
    viz_view_set_attr_vs(&bad_vs.view, session_vocab(&t));
    CHECK(figure_state_apply(&bad_vs, &t, &v2, &err) == -1 && strstr(err.text, "vocabulary"), "attr_vs: %s",
          err.text);
    figure_state_free(&bad_vs);
    rm_dir(dir);
    session_free(&s);
    session_free(&t);
}

/* One provenance field replaced by a hostile value: the reader must refuse it with
 * the key named, never crash. */
static void test_reader_validation(void) {
    Session s;
    if (make_state(&s, "Once upon a time", 1)) return;
    ErrorMsg err = {{0}};
    VizView v = frame_default_view();
    FigureMetaInput in = {.panel = VIZ_PANEL_ATTENTION, .width = 8, .height = 8, .scale = 1, .ui_scale = 1,
                          .theme = THEME_LIGHT};
    FigureMeta m = {0};
    CHECK(figure_meta_build(&m, &s, &v, &in, &err) == 0, "build");
    uint8_t px[8 * 8 * 4];
    memset(px, 200, sizeof px);
    static const struct { const char *key, *value, *expect; } cases[] = {
        {"inferscope:top_p", "1.5", "inferscope:top_p"},
        {"inferscope:top_p", "nan", "inferscope:top_p"},
        {"inferscope:temperature", "-1", "inferscope:temperature"},
        {"inferscope:ids", "[7454,-1]", "inferscope:ids"},
        {"inferscope:ids", "[7454,2402", "inferscope:ids"},
        {"inferscope:ids", "[]", "inferscope:ids"},
        {"inferscope:ids", "[99999999999]", "inferscope:ids"},
        {"inferscope:prompt", "\"bad \\x escape\"", "inferscope:prompt"},
        {"inferscope:prompt", "\"\\ud800 lone\"", "inferscope:prompt"},
        {"inferscope:prompt", "no quotes", "inferscope:prompt"},
        {"inferscope:step", "3", "inferscope:step"},
        {"inferscope:n_prompt", "0", "inferscope:n_prompt"},
        {"inferscope:salts", "[1,2,3]", "inferscope:salts"},
        {"inferscope:layer", "-2", "inferscope:layer"},
        {"inferscope:seed", "-5", "inferscope:seed"},
        {"inferscope:seed", "99999999999999999999999", "inferscope:seed"},
        {"inferscope:panel", "sideways", "inferscope:panel"},
        {"inferscope:theme", "neon", "inferscope:theme"},
        {"inferscope:scale", "3", "inferscope:scale"},
        {"inferscope:size", "8x", "inferscope:size"},
        {"inferscope:size", "99999x8", "inferscope:size"},
        {"inferscope:format", "2", "format"},
        {"inferscope:model_sha256", "xyz", "inferscope:model_sha256"},
        {"inferscope:top_n", "500", "inferscope:top_n"},
        {"inferscope:greedy", "1 ", "inferscope:greedy"},
        {"inferscope:ids", NULL, "inferscope:ids"}, /* missing key */
    };
    char path[256];
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        PngText t[FIGURE_META_MAX];
        size_t n = 0;
        int found = 0;
        for (size_t i = 0; i < m.n; i++) {
            if (strcmp(m.text[i].keyword, cases[k].key) == 0) {
                found = 1;
                if (!cases[k].value) continue;
                t[n++] = (PngText){m.text[i].keyword, cases[k].value};
            } else {
                t[n++] = m.text[i];
            }
        }
        CHECK(found, "case %zu: key %s exists", k, cases[k].key);
        snprintf(path, sizeof path, "%s/bad-%02zu.png", tmp_root, k);
        CHECK(png_write_file(path, px, 8, 8, 4, 32, t, n, NULL, &err) == 0, "write case %zu: %s", k, err.text);
        FigureState fs = {0};
        int rc = figure_meta_read(path, &fs, &err);
        CHECK(rc == -1 && strstr(err.text, cases[k].expect) && strstr(err.text, path),
              "case %zu (%s=%s): rc %d, '%s'", k, cases[k].key, cases[k].value ? cases[k].value : "(missing)", rc,
              err.text);
        CHECK(fs.ids == NULL && fs.prompt == NULL, "case %zu: nothing left allocated", k);
        unlink(path);
    }
    /* every value cut at every length, and a few hostile values, straight into the
     * parser (no file): it must answer 0 or -1 and never read out of bounds (ASan) */
    {
        PngTextEntry items[FIGURE_META_MAX];
        char buf[4096];
        static const char *hostile[] = {"", "-", "[", "]", "\"", "\"\\", "\"\\u12", "[1,,2]", "[1 2]",
                                        "1e999", "0x10", "  7", "18446744073709551616", "[4294967296]"};
        size_t cases_run = 0, accepted = 0;
        for (size_t k = 0; k < m.n; k++) {
            size_t vlen = strlen(m.values[k]);
            size_t n_variants = vlen + sizeof hostile / sizeof hostile[0];
            for (size_t var = 0; var < n_variants; var++) {
                for (size_t i = 0; i < m.n; i++) {
                    items[i].keyword = (char *)m.text[i].keyword;
                    items[i].value = m.values[i];
                }
                if (var < vlen) {
                    memcpy(buf, m.values[k], var);
                    buf[var] = '\0';
                } else {
                    snprintf(buf, sizeof buf, "%s", hostile[var - vlen]);
                }
                items[k].value = buf;
                PngTextChunks t = {.items = items, .count = m.n, .width = 8, .height = 8};
                FigureState fs = {0};
                ErrorMsg e2 = {{0}};
                int rc = figure_meta_parse(&t, "mutant", &fs, &e2);
                cases_run++;
                if (rc == 0) {
                    accepted++;
                    CHECK(fs.n_ids >= 1 && fs.n_prompt >= 1 && (size_t)fs.n_prompt <= fs.n_ids,
                          "accepted mutant of %s is consistent", m.text[k].keyword);
                } else {
                    CHECK(strncmp(e2.text, "mutant: ", 8) == 0, "mutant error names the source: %s", e2.text);
                }
                figure_state_free(&fs);
            }
        }
        printf("reader: %zu mutated provenance lists, %zu accepted (plain-text fields)\n", cases_run, accepted);
        CHECK(cases_run > 300 && accepted < cases_run / 2, "mutation cases ran (%zu, %zu accepted)", cases_run,
              accepted);
    }
    /* the unmodified list parses */
    snprintf(path, sizeof path, "%s/good.png", tmp_root);
    CHECK(png_write_file(path, px, 8, 8, 4, 32, m.text, m.n, NULL, &err) == 0, "write good");
    FigureState fs = {0};
    CHECK(figure_meta_read(path, &fs, &err) == 0, "good parses: %s", err.text);
    figure_state_free(&fs);
    unlink(path);
    /* a key of ours twice is refused (the first value used to win in silence); another
     * key repeated (two Comment chunks) is the PNG's business */
    {
        PngTextEntry items[FIGURE_META_MAX + 2];
        for (size_t i = 0; i < m.n; i++) items[i] = (PngTextEntry){(char *)m.text[i].keyword, (char *)m.values[i]};
        items[m.n] = (PngTextEntry){"Comment", "one"};
        items[m.n + 1] = (PngTextEntry){"Comment", "two"};
        PngTextChunks t = {.items = items, .count = m.n + 2, .width = 8, .height = 8};
        CHECK(figure_meta_parse(&t, "two comments", &fs, &err) == 0, "two Comment chunks: %s", err.text);
        figure_state_free(&fs);
        items[m.n + 1] = (PngTextEntry){"inferscope:seed", "5"};
        int rc = figure_meta_parse(&t, "dup", &fs, &err);
        CHECK(rc == -1 && strcmp(err.text, "dup: provenance key \"inferscope:seed\" appears twice") == 0,
              "inferscope:seed twice: rc %d '%s'", rc, err.text);
        figure_state_free(&fs);
    }
    /* not a PNG at all */
    CHECK(figure_meta_read("tests/check.h", &fs, &err) == -1 && strstr(err.text, "tests/check.h"), "not a png: %s",
          err.text);
    figure_meta_free(&m);
    figure_meta_free(&m);
    session_free(&s);
}

/* ---- write failures ---------------------------------------------------------------- */

/* Writes the first half of the file for real, then the process dies (SIGKILL: no
 * handler, no cleanup) — a crash or power cut in the middle of an export. */
static long die_halfway(int fd, const void *buf, size_t len, void *ctx) {
    (void)ctx;
    ssize_t n = write(fd, buf, len / 2);
    (void)n;
    raise(SIGKILL);
    return -1;
}

static long disk_full(int fd, const void *buf, size_t len, void *ctx) {
    int *calls = ctx;
    if ((*calls)++ == 0) return (long)write(fd, buf, len < 1000 ? len : 1000);
    errno = ENOSPC;
    return -1;
}

/* Fails only the sidecar: its bytes are the JSON object, starting with '{' (the PNG
 * starts with its signature byte 0x89). */
static long fail_sidecar(int fd, const void *buf, size_t len, void *ctx) {
    int *json_calls = ctx;
    if (len > 0 && ((const char *)buf)[0] == '{') {
        (*json_calls)++;
        errno = ENOSPC;
        return -1;
    }
    return (long)write(fd, buf, len);
}

/* The prompt literal decoded (cJSON, in pieces around \u0000): the bytes are written out
 * by hand here from RFC 8259 §7, NUL bytes included (a --prompt-file may hold them). */
static void test_prompt_literals(void) {
    Session s;
    if (make_state(&s, "Once upon a time", 0)) return;
    ErrorMsg err = {{0}};
    VizView v = frame_default_view();
    FigureMetaInput in = {.panel = VIZ_PANEL_TOKENS, .width = 8, .height = 8, .scale = 1, .ui_scale = 1,
                          .theme = THEME_LIGHT};
    FigureMeta m = {0};
    CHECK(figure_meta_build(&m, &s, &v, &in, &err) == 0, "build");
    static const struct { const char *literal, *bytes; size_t n; } ok[] = {
        {"\"\"", "", 0},
        {"\"a\\u0000b\"", "a\0b", 3},
        {"\"\\u0000\"", "\0", 1},
        {"\"\\u0000\\u0000x\\u0000\"", "\0\0x\0", 4},
        {"\"\\\\u0000\"", "\\u0000", 6}, /* an escaped backslash, then plain text */
        {"\"caf\\u00e9 \\ud83d\\ude00\\/\\b\\f\\n\\r\\t\\\"\"", "caf\xC3\xA9 \xF0\x9F\x98\x80/\b\f\n\r\t\"", 17},
        {"\"\\u00E9\\u2014\"", "\xC3\xA9\xE2\x80\x94", 5},
    };
    static const char *bad[] = {"\"a\\uZZZZb\"", "\"\\u00\"", "\"caf\xC3\xA9\"", "\"a\"b\"", "\"ab\\\"",
                                "\"\\ud83d\\u0000\"", "\"\\ude00\"", "\"\\q\"", "\"tab\there\"", "\"x\\u0000"};
    PngTextEntry items[FIGURE_META_MAX];
    size_t at = m.n;
    for (size_t i = 0; i < m.n; i++) {
        items[i] = (PngTextEntry){(char *)m.text[i].keyword, m.values[i]};
        if (strcmp(m.text[i].keyword, "inferscope:prompt") == 0) at = i;
    }
    CHECK(at < m.n, "the list has a prompt");
    if (at == m.n) goto done;
    PngTextChunks t = {.items = items, .count = m.n};
    for (size_t k = 0; k < sizeof ok / sizeof ok[0]; k++) {
        items[at].value = (char *)ok[k].literal;
        FigureState fs = {0};
        int rc = figure_meta_parse(&t, "lit", &fs, &err);
        CHECK(rc == 0 && fs.prompt_len == ok[k].n && (ok[k].n == 0 || memcmp(fs.prompt, ok[k].bytes, ok[k].n) == 0),
              "literal %zu (%s): rc %d, %zu bytes (want %zu): %s", k, ok[k].literal, rc, fs.prompt_len, ok[k].n,
              rc ? err.text : "");
        figure_state_free(&fs);
    }
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        items[at].value = (char *)bad[k];
        FigureState fs = {0};
        int rc = figure_meta_parse(&t, "lit", &fs, &err);
        CHECK(rc == -1 && strstr(err.text, "lit: inferscope:prompt: ") == err.text && fs.prompt == NULL,
              "bad literal %zu (%s) refused naming the key: rc %d '%s'", k, bad[k], rc, err.text);
        figure_state_free(&fs);
    }
    items[at].value = m.values[at];
    /* the id arrays: digits only, so the grammar is the writer's */
    static const char *bad_ids[] = {"[1e3]", "[-0]", "[1.0]", "[[464]]", "[464,]", "[ 464 ", "464"};
    for (size_t i = 0; i < m.n; i++)
        if (strcmp(m.text[i].keyword, "inferscope:ids") == 0) at = i;
    {
        /* the writer's ids with JSON white space around every number parse the same */
        char spaced[512];
        size_t o = 0;
        spaced[o++] = ' ';
        for (const char *c = m.values[at]; *c && o + 4 < sizeof spaced; c++) {
            if (*c == ',') o += (size_t)snprintf(spaced + o, sizeof spaced - o, " ,\t");
            else spaced[o++] = *c;
        }
        spaced[o++] = '\n';
        spaced[o] = '\0';
        items[at].value = spaced;
        FigureState fs = {0};
        int rc = figure_meta_parse(&t, "lit", &fs, &err);
        CHECK(rc == 0 && fs.n_ids == (size_t)session_len(&s) &&
                  memcmp(fs.ids, session_ids(&s), fs.n_ids * sizeof *fs.ids) == 0,
              "spaced ids '%s' parse to the session's: rc %d %s", spaced, rc, rc ? err.text : "");
        figure_state_free(&fs);
    }
    for (size_t k = 0; k < sizeof bad_ids / sizeof bad_ids[0]; k++) {
        items[at].value = (char *)bad_ids[k];
        FigureState fs = {0};
        int rc = figure_meta_parse(&t, "lit", &fs, &err);
        CHECK(rc == -1 && strstr(err.text, "lit: inferscope:ids: ") == err.text && fs.ids == NULL,
              "bad ids %s refused naming the key: rc %d '%s'", bad_ids[k], rc, err.text);
        figure_state_free(&fs);
    }
done:
    figure_meta_free(&m);
    session_free(&s);
}

static void test_failures(void) {
    Session s;
    if (make_state(&s, "Once upon a time", 0)) return;
    ErrorMsg err = {{0}};
    VizView v = frame_default_view();
    char dir[128], path[512];

    /* killed mid-write: no file under the final name, only a hidden temporary that the
     * numbering ignores */
    snprintf(dir, sizeof dir, "%s/crash", tmp_root);
    CHECK(export_make_dir(dir, &err) == 0, "mkdir: %s", err.text);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        ExportOptions o = check_export_opts(dir, VIZ_PANEL_FRAME, 1920, 1080);
        o.write_fn = die_halfway;
        ErrorMsg e2;
        export_png(&s, &v, &o, NULL, 0, &e2);
        _exit(3); /* not reached when the hook fires */
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "child killed mid-write (status %d)", status);
    int hidden = 0;
    CHECK(count_visible(dir, &hidden) == 0, "no figure after the crash");
    CHECK(hidden == 1, "one hidden temporary left by the crash (%d)", hidden);
    char final[512];
    snprintf(final, sizeof final, "%s/0001-step-00-frame.png", dir);
    CHECK(access(final, F_OK) != 0, "final name absent");
    CHECK(export_next_number(dir) == 1, "the temporary is not counted as a figure");
    ExportOptions ok = check_export_opts(dir, VIZ_PANEL_TEXT, 320, 200);
    CHECK(export_png(&s, &v, &ok, path, sizeof path, &err) == 0 && strstr(path, "/0001-step-00-text.png"),
          "next export after the crash: %s %s", path, err.text);
    CHECK(count_visible(dir, &hidden) == 1 && hidden == 0, "the next export swept the crash's temporary (%d)", hidden);
    rm_dir(dir);

    /* disk full: one clear line naming the path, nothing left behind */
    snprintf(dir, sizeof dir, "%s/full", tmp_root);
    int calls = 0;
    ExportOptions of = check_export_opts(dir, VIZ_PANEL_FRAME, 640, 400);
    of.write_fn = disk_full;
    of.write_ctx = &calls;
    CHECK(export_png(&s, &v, &of, path, sizeof path, &err) == -1 && strstr(err.text, "disk full") &&
              strstr(err.text, dir) && !strchr(err.text, '\n'), "disk full: %s", err.text);
    CHECK(count_visible(dir, &hidden) == 0 && hidden == 0, "nothing left after disk full");
    CHECK(path[0] == '\0', "no path reported on failure");

    /* the sidecar fails: the PNG is taken back too */
    int json_calls = 0;
    ExportOptions osc = check_export_opts(dir, VIZ_PANEL_TEXT, 320, 200);
    osc.sidecar = 1;
    osc.write_fn = fail_sidecar;
    osc.write_ctx = &json_calls;
    CHECK(export_png(&s, &v, &osc, path, sizeof path, &err) == -1 && strstr(err.text, ".json") && json_calls == 1,
          "sidecar fails: %s", err.text);
    CHECK(count_visible(dir, &hidden) == 0 && hidden == 0, "no PNG without its sidecar");
    rm_dir(dir);

    /* the folder is a file */
    snprintf(dir, sizeof dir, "%s/afile", tmp_root);
    FILE *f = fopen(dir, "w");
    if (f) fclose(f);
    ExportOptions oa = check_export_opts(dir, VIZ_PANEL_TEXT, 320, 200);
    CHECK(export_png(&s, &v, &oa, path, sizeof path, &err) == -1 && strstr(err.text, dir) &&
              strstr(err.text, "is a file"), "folder is a file: %s", err.text);
    char sub[256];
    snprintf(sub, sizeof sub, "%s/deeper", dir);
    oa.dir = sub;
    CHECK(export_png(&s, &v, &oa, path, sizeof path, &err) == -1 && strstr(err.text, "is a file"),
          "parent is a file: %s", err.text);
    unlink(dir);

    /* a folder nobody can write to (not even root: /proc/self refuses new files) */
    oa.dir = "/proc/self";
    CHECK(export_png(&s, &v, &oa, path, sizeof path, &err) == -1 && strstr(err.text, "/proc/self"),
          "unwritable folder: %s", err.text);
    oa.dir = "/proc/self/inferscope-figures";
    CHECK(export_png(&s, &v, &oa, path, sizeof path, &err) == -1 && strstr(err.text, "cannot create the folder"),
          "uncreatable folder: %s", err.text);
    session_free(&s);
}

static void test_numbering(void) {
    char dir[128], p[256];
    snprintf(dir, sizeof dir, "%s/num", tmp_root);
    ErrorMsg err = {{0}};
    CHECK(export_next_number(dir) == 1, "missing folder: 1");
    CHECK(export_make_dir(dir, &err) == 0, "mkdir");
    CHECK(export_next_number(dir) == 1, "empty folder: 1");
    const char *names[] = {"0041-step-00-frame.png", "0007-x.json", ".0099-step-00-frame.png.tmp-abc", "notes.txt",
                           "12.png", "2024-report.pdf"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        FILE *f = fopen(p, "w");
        if (f) fclose(f);
    }
    CHECK(export_next_number(dir) == 2025, "after 2024-report.pdf: %d", export_next_number(dir));
    snprintf(p, sizeof p, "%s/2024-report.pdf", dir);
    unlink(p);
    CHECK(export_next_number(dir) == 42, "after 0041 (hidden temp ignored): %d", export_next_number(dir));
    rm_dir(dir);

    /* contact sheet: one file, the layer's heads in a grid, provenance says so */
    Session s;
    if (make_state(&s, "Once upon a time", 1)) return;
    VizView v = frame_default_view();
    ExportOptions o = check_export_opts(dir, VIZ_PANEL_FRAME, 960, 540);
    char path[512];
    CHECK(export_contact_sheet(&s, &v, &o, 1, path, sizeof path, &err) == 0 &&
              strstr(path, "/0001-step-01-attention-L1-heads.png"), "sheet: %s %s", path, err.text);
    FigureState fs = {0};
    CHECK(figure_meta_read(path, &fs, &err) == 0 && fs.contact_sheet && fs.sheet_layer == 1 &&
              fs.panel == VIZ_PANEL_ATTENTION, "sheet provenance: %s", err.text);
    figure_state_free(&fs);
    ExportImage img = {0};
    CHECK(export_render_contact_sheet(&s, &v, &o, -1, &img, &err) == 0, "all-layers sheet: %s", err.text);
    /* tiny: 2 layers x 4 heads asked at 960x540: grown so each cell holds a heatmap of at
     * least 240x264 logical px, plus the sheet's label columns (160) and header (220) */
    CHECK(img.w == 160 + 4 * 240 && img.h == 220 + 2 * 264, "sheet size %dx%d", img.w, img.h);
    export_image_free(&img);
    CHECK(export_contact_sheet(&s, &v, &o, 7, path, sizeof path, &err) == -1 && strstr(err.text, "layer 7"),
          "missing layer: %s", err.text);
    rm_dir(dir);
    session_free(&s);
}

int main(void) {
    setenv("SDL_VIDEODRIVER", "dummy", 1);
    setenv("INFERSCOPE_FALLBACK_FONTS", "", 1); /* goldens: the same fonts on every machine */
    setenv("SDL_RENDER_DRIVER", "software", 1);
    snprintf(model_dir, sizeof model_dir, "%s/models/tiny", check_ref_dir());
    snprintf(tok_dir, sizeof tok_dir, "assets/tokenizer");
    snprintf(tmp_root, sizeof tmp_root, "/tmp/inferscope-test-export-XXXXXX");
    if (!mkdtemp(tmp_root)) {
        CHECK(0, "mkdtemp: %s", strerror(errno));
        return check_summary("test_export");
    }
    test_sha256();
    test_golden_and_determinism();
    test_scale();
    test_round_trip();
    test_reader_validation();
    test_prompt_literals();
    test_failures();
    test_numbering();
    rm_dir(tmp_root);
    return check_summary("test_export");
}
