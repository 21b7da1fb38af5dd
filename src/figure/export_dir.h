/* export_dir.h — housekeeping of a figure folder: one lock while files are created in
 * it, and the sweep of what an interrupted export left behind.
 *
 * A figure and its sidecar are two files, and no file system renames two files at
 * once. So the sidecar is moved into place first and the PNG last: the PNG is the
 * commit point, and a PNG never exists without the sidecar that was asked for. A
 * SIGKILL between the two leaves a sidecar without its PNG, and a kill during a write
 * leaves a ".NAME.tmp-XXXXXX" file; both are of our own naming and are removed by the
 * next export into the folder. Exporters hold an flock(2) on the folder while they
 * create files, so whatever the sweep finds (it runs under the same lock) belongs to no
 * running export. Not the numbering or the writing itself (export.c, png_write.c). */
#ifndef EXPORT_DIR_H
#define EXPORT_DIR_H

#include "error.h"

/* Opens dir and takes the exclusive lock (blocking). Returns the descriptor to pass to
 * export_dir_unlock, or -1 with err when the folder cannot be opened. A file system
 * without flock still exports (the lock is then only advisory-absent: returns the fd). */
int export_dir_lock(const char *dir, ErrorMsg *err);
void export_dir_unlock(int fd);

/* Removes, in dir, our temporaries (".NNNN-NAME.png.tmp-XXXXXX", ".NNNN-NAME.json.tmp-XXXXXX")
 * and our sidecars whose PNG is missing ("NNNN-NAME.json" written by inferscope, with no
 * "NNNN-NAME.png"). Anything else is left alone. Call with the lock held. Returns the
 * number of files removed. */
int export_dir_sweep(const char *dir);

#endif
