/* check_tmp.h — a test's scratch folder, made and removed one way: /tmp/NAME.XXXXXX by
 * mkdtemp, removed with everything in it at the end. Not for files the test must keep. */
#ifndef CHECK_TMP_H
#define CHECK_TMP_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Makes /tmp/NAME.XXXXXX into dir (cap >= 32 + strlen(name)). Returns 0, or -1 after
 * saying why on stderr (the test cannot run without it). */
static inline int check_tmpdir_make(char *dir, size_t cap, const char *name) {
    snprintf(dir, cap, "/tmp/%s.XXXXXX", name);
    if (mkdtemp(dir)) return 0;
    perror("mkdtemp");
    return -1;
}

/* Removes dir and everything below it (complains on stderr if that fails). */
static inline void check_tmpdir_remove(const char *dir) {
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

/* Number of temporaries (".NAME.tmp-XXXXXX", engine/file_write.h) left in dir; -1 if dir
 * cannot be read. */
static inline int check_tmpdir_temps(const char *dir) {
    DIR *d = opendir(dir);
    int n = 0;
    if (!d) return -1;
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] == '.' && strstr(e->d_name, ".tmp-")) n++;
    closedir(d);
    return n;
}

#endif
