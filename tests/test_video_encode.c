/* test_video_encode.c — the video exporter's failure paths and its reader, in process:
 * a full disk (the write seam returns ENOSPC) fails with one line naming the file and
 * leaves nothing behind (no file, no temporary); the options are refused before any
 * drawing; a written video's provenance comes back through video_meta_read and
 * figure_meta_read (the state, the size); a file named .mp4 that is not a video, a
 * FIFO, a video without provenance are refused with one line. The decoding side
 * (frames, PSNR, codecs) is tests/test_export_video.sh. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "check_export.h"
#include "check_session.h"
#include "check_tmp.h"
#include "export_video.h"
#include "video_meta_read.h"

static long disk_full(int fd, const void *buf, size_t len, void *ctx) {
    int *calls = ctx;
    if ((*calls)++ == 0) return (long)write(fd, buf, len < 1000 ? len : 1000);
    errno = ENOSPC;
    return -1;
}

static int entries(const char *dir) {
    int n = 0;
    DIR *d = opendir(dir);
    if (!d) return -1;
    for (struct dirent *e; (e = readdir(d));) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

/* Writes a video of the prompt state and one step to path; 0 or -1 (err). */
static int write_video(Session *s, const char *path, const ExportOptions *o, int pictures, ErrorMsg *err) {
    VizView v = frame_default_view();
    ExportVideo *ev = NULL;
    int rc = export_video_open(&ev, path, o, 0, 0.2, err);
    for (int i = 0; rc == 0 && i < pictures; i++) {
        if (i > 0) rc = session_step(s, err);
        if (rc == 0) rc = export_video_add(ev, s, &v, o, err);
    }
    if (rc == 0) rc = export_video_write(ev, s, &v, o, err);
    export_video_free(ev);
    return rc;
}

int main(void) {
    setenv("SDL_VIDEODRIVER", "dummy", 1);
    char dir[128], path[512];
    if (check_tmpdir_make(dir, sizeof dir, "test_video_encode")) return 1;
    Session s;
    if (check_open_bundled(&s)) return check_summary("test_video_encode");
    ErrorMsg err = {{0}};
    session_set_seed(&s, 3);
    CHECK(session_set_prompt(&s, (const uint8_t *)"Once upon a time", 16, &err) == 0, "prompt: %s", err.text);
    ExportOptions o = check_export_opts(NULL, VIZ_PANEL_PROBS, 320, 200);

    /* a full disk, for each container: one line naming the file, nothing left */
    const char *kinds[] = {"mp4", "webm", "gif"};
    for (int k = 0; k < 3; k++) {
        int calls = 0;
        ExportOptions of = o;
        of.write_fn = disk_full;
        of.write_ctx = &calls;
        snprintf(path, sizeof path, "%s/full.%s", dir, kinds[k]);
        int rc = write_video(&s, path, &of, 1, &err);
        CHECK(rc == -1 && strstr(err.text, "disk full") && strstr(err.text, path) && !strchr(err.text, '\n'),
              "%s: disk full: %s", kinds[k], err.text);
        CHECK(calls >= 2, "%s: the seam was used (%d calls)", kinds[k], calls);
        CHECK(entries(dir) == 0 && check_tmpdir_temps(dir) == 0, "%s: nothing left after disk full (%d entries)",
              kinds[k], entries(dir));
    }

    /* refused before anything is drawn */
    ExportVideo *ev = NULL;
    snprintf(path, sizeof path, "%s/x.gif", dir);
    CHECK(export_video_open(&ev, path, &o, 30, 1.0, &err) == -1 && strstr(err.text, "hundredths"), "gif fps 30: %s",
          err.text);
    CHECK(export_video_open(&ev, path, &o, 0, 0.0, &err) == -1 && strstr(err.text, "beat-seconds"), "beat 0: %s",
          err.text);
    CHECK(export_video_open(&ev, path, &o, 0, -2.0, &err) == -1 && strstr(err.text, "beat-seconds"), "beat -2: %s",
          err.text);
    snprintf(path, sizeof path, "%s/x.mov", dir);
    CHECK(export_video_open(&ev, path, &o, 0, 1.0, &err) == -1 && strstr(err.text, "not a video name"), "mov: %s",
          err.text);
    ExportOptions odd = check_export_opts(NULL, VIZ_PANEL_PROBS, 321, 200);
    snprintf(path, sizeof path, "%s/x.mp4", dir);
    CHECK(export_video_open(&ev, path, &odd, 0, 1.0, &err) == -1 && strstr(err.text, "even sides"), "odd: %s", err.text);
    CHECK(ev == NULL && entries(dir) == 0, "nothing opened or written");

    /* a written video's provenance, read back as --open-figure reads it */
    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "%s/ok.%s", dir, kinds[k]);
        CHECK(write_video(&s, path, &o, 2, &err) == 0, "%s: %s", kinds[k], err.text);
        PngTextChunks t = {0};
        CHECK(video_meta_read(path, &t, &err) == 0, "%s: read back: %s", kinds[k], err.text);
        CHECK(t.width == 320 && t.height == 200, "%s: %ux%u", kinds[k], t.width, t.height);
        const char *panel = png_text_find(&t, "inferscope:panel"), *title = png_text_find(&t, "Title");
        CHECK(panel && strcmp(panel, "probs") == 0, "%s: panel %s", kinds[k], panel ? panel : "(none)");
        CHECK(title && strstr(title, "step"), "%s: Title %s", kinds[k], title ? title : "(none)");
        png_text_chunks_free(&t);
        FigureState fs = {0};
        CHECK(figure_meta_read(path, &fs, &err) == 0, "%s: figure_meta_read: %s", kinds[k], err.text);
        CHECK(fs.n_ids == (size_t)session_len(&s) && fs.ids && fs.ids[fs.n_ids - 1] == session_ids(&s)[fs.n_ids - 1],
              "%s: %zu ids, the last state's (%d)", kinds[k], fs.n_ids, session_len(&s));
        figure_state_free(&fs);
        CHECK(write_video(&s, path, &o, 1, &err) == -1 && strstr(err.text, "already exists"), "%s: not overwritten: %s",
              kinds[k], err.text);
        session_back(&s, 1);
    }

    /* hostile files named like videos */
    snprintf(path, sizeof path, "%s/junk.mp4", dir);
    FILE *f = fopen(path, "wb");
    if (f) {
        fputs("this is not an mp4 at all, only words", f);
        fclose(f);
    }
    FigureState fs = {0};
    CHECK(figure_meta_read(path, &fs, &err) == -1 && strstr(err.text, "junk.mp4") && !strchr(err.text, '\n'),
          "junk: %s", err.text);
    snprintf(path, sizeof path, "%s/fifo.webm", dir);
    CHECK(mkfifo(path, 0600) == 0, "mkfifo");
    CHECK(figure_meta_read(path, &fs, &err) == -1 && strstr(err.text, "not a regular file"), "fifo: %s", err.text);
    snprintf(path, sizeof path, "%s/none.gif", dir);
    CHECK(figure_meta_read(path, &fs, &err) == -1 && strstr(err.text, "none.gif"), "missing: %s", err.text);
    /* a GIF whose comment is not ours: refused by name, not parsed as provenance */
    snprintf(path, sizeof path, "%s/ok.gif", dir);
    char cmd[1400];
    snprintf(cmd, sizeof cmd,
             "python3 -c \"import sys; d=open(sys.argv[1],'rb').read(); i=d.rfind(b'\\x21\\xfe'); "
             "open(sys.argv[2],'wb').write(d[:i]+b'\\x21\\xfe\\x05hello\\x00\\x3b')\" %s %s/other.gif",
             path, dir);
    if (system(cmd) == 0) {
        snprintf(path, sizeof path, "%s/other.gif", dir);
        CHECK(figure_meta_read(path, &fs, &err) == -1 && strstr(err.text, "not inferscope provenance"),
              "foreign comment: %s", err.text);
    }
    figure_state_free(&fs);
    session_free(&s);
    check_tmpdir_remove(dir);
    return check_summary("test_video_encode");
}
