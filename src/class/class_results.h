/* class_results.h — the rounds of a class room as files the teacher keeps: CSV (one row
 * per round: the truth, how many guessed and were right, the class's and the model's
 * top-1 and bits) and JSON (the same, with each round's guesses tallied by token, and
 * the running score). Aggregates only: no nickname and no device token is written, so
 * an exported file names no student. Written only when the teacher asks (the U key);
 * through engine/file_write.h (a temporary created new, then linked onto a free name). */
#ifndef CLASS_RESULTS_H
#define CLASS_RESULTS_H

#include <stddef.h>

#include "class_room.h"
#include "error.h"
#include "strbuf.h"

/* The rounds as CSV / JSON into b (appended). -1 on no memory (b->oom). */
int class_results_csv(const ClassRoom *r, StrBuf *b);
int class_results_json(const ClassRoom *r, StrBuf *b);

/* Writes csv and json (made by the two above: built under the server's lock, written
 * after it, so a slow disk never holds the students' requests) into dir (which must
 * exist) as class-rounds-NNNN.csv and .json, NNNN the first number free for both; their
 * paths into csv_path / json_path (cap bytes each). -1 with err naming the file (a write
 * error, disk full, no free number); then neither file is left. */
int class_results_write(const StrBuf *csv, const StrBuf *json, const char *dir, char *csv_path, char *json_path,
                        size_t cap, ErrorMsg *err);

#endif
