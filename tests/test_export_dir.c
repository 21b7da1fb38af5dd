/* test_export_dir.c — a figure folder after interrupted exports (issue 22): the PNG is
 * the commit point (a SIGKILL between sidecar and PNG leaves no PNG without its
 * sidecar), the next export sweeps our temporaries and orphaned sidecars and nothing
 * else, a UTF-8 model name ("modèl") survives provenance as itself (iTXt), and the
 * weights' hash names the file that was loaded, never one that replaced it. */
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
#include "frame_fill.h"
#include "session.h"
#include "sha256_file.h"

static char root[64];

static int exists(const char *dir, const char *name) {
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return access(p, F_OK) == 0;
}

static void put(const char *dir, const char *name, const char *text) {
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static ExportOptions opts(const char *dir, int sidecar) {
    ExportOptions o = check_export_opts(dir, VIZ_PANEL_TEXT, 320, 200);
    o.sidecar = sidecar;
    return o;
}

/* Kills the process when the PNG (signature byte 0x89) is about to be written: the
 * moment after the sidecar is in place. */
static long die_before_png(int fd, const void *buf, size_t len, void *ctx) {
    (void)ctx;
    if (len > 0 && ((const unsigned char *)buf)[0] == 0x89) raise(SIGKILL);
    return (long)write(fd, buf, len);
}

static void test_kill_between(Session *s) {
    char dir[128];
    snprintf(dir, sizeof dir, "%s/kill", root);
    ErrorMsg err = {{0}};
    CHECK(export_make_dir(dir, &err) == 0, "mkdir: %s", err.text);
    VizView v = frame_default_view();
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        ExportOptions o = opts(dir, 1);
        o.write_fn = die_before_png;
        ErrorMsg e2;
        export_png(s, &v, &o, NULL, 0, &e2);
        _exit(3);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "killed between sidecar and PNG (status %d)", status);
    CHECK(exists(dir, "0001-step-00-text.json") && !exists(dir, "0001-step-00-text.png"),
          "the sidecar is in place, the PNG is not: no figure without its sidecar");
    ExportOptions o = opts(dir, 1);
    char path[512];
    CHECK(export_png(s, &v, &o, path, sizeof path, &err) == 0, "next export: %s", err.text);
    CHECK(strstr(path, "/0001-step-00-text.png") && exists(dir, "0001-step-00-text.json"),
          "the orphan was swept and its number reused: %s", path);
}

static void test_sweep(Session *s) {
    char dir[128];
    snprintf(dir, sizeof dir, "%s/sweep", root);
    ErrorMsg err = {{0}};
    CHECK(export_make_dir(dir, &err) == 0, "mkdir: %s", err.text);
    const char *ours = "{\n  \"Software\": \"inferscope 0.0\",\n  \"Title\": \"x\"\n}\n";
    put(dir, ".0003-step-00-frame.png.tmp-AbC123", "half a png");      /* stale temporary */
    put(dir, ".0004-step-01-probs.json.tmp-x9Y8z7", "{");                /* stale temporary */
    put(dir, "0005-step-00-frame.json", ours);                           /* orphaned sidecar */
    put(dir, "0002-step-00-frame.png", "png");                           /* a complete pair */
    put(dir, "0002-step-00-frame.json", ours);
    put(dir, "0006-notes.json", "{\"mine\": 1}\n");                      /* not ours: kept */
    put(dir, ".notes.tmp-abcdef", "user");                               /* not numbered: kept */
    put(dir, ".0007-x.png.tmp-toolong1", "?");                           /* not mkstemp's: kept */
    put(dir, "0008-draft.txt", "user");
    VizView v = frame_default_view();
    ExportOptions o = opts(dir, 0);
    char path[512];
    CHECK(export_png(s, &v, &o, path, sizeof path, &err) == 0, "export: %s", err.text);
    CHECK(!exists(dir, ".0003-step-00-frame.png.tmp-AbC123") && !exists(dir, ".0004-step-01-probs.json.tmp-x9Y8z7"),
          "our temporaries are gone");
    CHECK(!exists(dir, "0005-step-00-frame.json"), "our orphaned sidecar is gone");
    CHECK(exists(dir, "0002-step-00-frame.png") && exists(dir, "0002-step-00-frame.json"), "a complete pair stays");
    CHECK(exists(dir, "0006-notes.json") && exists(dir, ".notes.tmp-abcdef") && exists(dir, ".0007-x.png.tmp-toolong1") &&
              exists(dir, "0008-draft.txt"), "files that are not ours stay");
    CHECK(strstr(path, "/0009-step-00-text.png") != NULL, "numbered after the highest: %s", path);
}

/* A model folder named "modèl" (a symlink to the tiny model): the provenance keeps the
 * name as UTF-8 (iTXt), the reader gets it back, nothing becomes '?'. */
static void test_utf8_model_name(void) {
    char link_dir[128], model[256], dir[128], path[512];
    snprintf(link_dir, sizeof link_dir, "%s/mod\xc3\xa8l", root);
    snprintf(model, sizeof model, "%s/models/tiny", check_ref_dir());
    char abs[4096];
    CHECK(realpath(model, abs) != NULL && symlink(abs, link_dir) == 0, "symlink: %s", strerror(errno));
    Session s;
    ErrorMsg err = {{0}};
    if (session_open(&s, link_dir, "assets/tokenizer", 0, GPT2_CAP_DEFAULT, &err)) {
        CHECK(0, "open %s: %s", link_dir, err.text);
        return;
    }
    CHECK(strcmp(s.model.name, "mod\xc3\xa8l") == 0, "model name %s", s.model.name);
    CHECK(session_set_prompt(&s, (const uint8_t *)"Once", 4, &err) == 0, "prompt: %s", err.text);
    snprintf(dir, sizeof dir, "%s/utf8", root);
    VizView v = frame_default_view();
    ExportOptions o = opts(dir, 1);
    CHECK(export_png(&s, &v, &o, path, sizeof path, &err) == 0, "export: %s", err.text);
    FigureState fs = {0};
    CHECK(figure_meta_read(path, &fs, &err) == 0, "read: %s", err.text);
    CHECK(strcmp(fs.model, "mod\xc3\xa8l") == 0, "model read back as '%s'", fs.model);
    figure_state_free(&fs);
    /* the chunk itself: iTXt "inferscope:model", no compression, no language, the bytes */
    FILE *f = fopen(path, "rb");
    static unsigned char buf[1 << 20];
    size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (f) fclose(f);
    static const char chunk[] = "iTXtinferscope:model\0\0\0\0\0mod\xc3\xa8l";
    int found = 0;
    for (size_t i = 0; i + sizeof chunk - 1 <= n && !found; i++) found = memcmp(buf + i, chunk, sizeof chunk - 1) == 0;
    CHECK(found, "an iTXt chunk holds the model name as UTF-8");
    session_free(&s);
}

static int copy_file(const char *from, const char *to) {
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", from, to);
    return system(cmd);
}

/* The weights' hash is of the file that was loaded: replaced (rename) or rewritten
 * after loading, the provenance says "unknown" instead of naming other bytes. */
static void test_hash_of_loaded(void) {
    char model[256], m[160], path[512], f[300], dir[160];
    snprintf(model, sizeof model, "%s/models/tiny", check_ref_dir());
    snprintf(m, sizeof m, "%s/m", root);
    CHECK(export_make_dir(m, &(ErrorMsg){{0}}) == 0, "mkdir");
    const char *files[] = {"config.json", "model.safetensors"};
    for (int i = 0; i < 2; i++) {
        char a[400], b[400];
        snprintf(a, sizeof a, "%s/%s", model, files[i]);
        snprintf(b, sizeof b, "%s/%s", m, files[i]);
        CHECK(copy_file(a, b) == 0, "copy %s", files[i]);
    }
    Session s;
    ErrorMsg err = {{0}};
    if (session_open(&s, m, "assets/tokenizer", 0, GPT2_CAP_DEFAULT, &err)) {
        CHECK(0, "open: %s", err.text);
        return;
    }
    char hex[SHA256_HEX_LEN + 1], want[SHA256_HEX_LEN + 1];
    snprintf(f, sizeof f, "%s/model.safetensors", m);
    CHECK(sha256_file(f, want, &err) == 0, "hash: %s", err.text);
    CHECK(export_weights_sha256(&s, NULL, hex, &err) == 0 && strcmp(hex, want) == 0, "loaded: %s", hex);
    /* replaced by rename (what a re-download does): another inode */
    char other[320];
    snprintf(other, sizeof other, "%s/new.safetensors", m);
    CHECK(copy_file(f, other) == 0 && rename(other, f) == 0, "replace");
    CHECK(export_weights_sha256(&s, NULL, hex, &err) == 1 && strstr(err.text, "changed on disk"), "replaced: %s",
          err.text);
    snprintf(dir, sizeof dir, "%s/after", root);
    VizView v = frame_default_view();
    ExportOptions o = opts(dir, 0);
    CHECK(session_set_prompt(&s, (const uint8_t *)"Once", 4, &err) == 0 &&
              export_png(&s, &v, &o, path, sizeof path, &err) == 0, "export: %s", err.text);
    FigureState fs = {0};
    CHECK(figure_meta_read(path, &fs, &err) == 0 && fs.model_sha256[0] == '\0', "provenance: unknown ('%s')",
          fs.model_sha256);
    figure_state_free(&fs);
    session_free(&s);
}

static void rm_tree(const char *dir) {
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

int main(void) {
    setenv("SDL_VIDEODRIVER", "dummy", 1);
    setenv("SDL_RENDER_DRIVER", "software", 1);
    snprintf(root, sizeof root, "/tmp/inferscope-test-export-dir-XXXXXX");
    if (!mkdtemp(root)) {
        CHECK(0, "mkdtemp: %s", strerror(errno));
        return check_summary("test_export_dir");
    }
    Session s;
    char model[256];
    snprintf(model, sizeof model, "%s/models/tiny", check_ref_dir());
    ErrorMsg err = {{0}};
    if (session_open(&s, model, "assets/tokenizer", 0, GPT2_CAP_DEFAULT, &err) == 0 &&
        session_set_prompt(&s, (const uint8_t *)"Once upon a time", 16, &err) == 0) {
        test_kill_between(&s);
        test_sweep(&s);
        session_free(&s);
    } else {
        CHECK(0, "session: %s", err.text);
    }
    test_utf8_model_name();
    test_hash_of_loaded();
    rm_tree(root);
    return check_summary("test_export_dir");
}
