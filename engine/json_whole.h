/* json_whole.h — parsing a file's bytes as exactly ONE JSON value (cJSON), followed only by
 * whitespace: config.json, encoder.json and vocab.json with trailing text are damaged
 * files, not the value that happens to come first. Not a JSON library (cJSON is). */
#ifndef JSON_WHOLE_H
#define JSON_WHOLE_H

#include <stddef.h>

#include "error.h"

struct cJSON;

/* 0 if data[0..len) holds no byte JSON forbids that cJSON lets through: a NUL anywhere
 * (cJSON's strings are C strings: "gpt\0x" would be read as "gpt"), or a raw control
 * character inside a string (JSON wants it escaped). Else -1 with err: "PATH: raw NUL
 * byte inside a string at byte N (not valid JSON)". */
int json_check_raw_bytes(const char *data, size_t len, const char *path, ErrorMsg *err);

/* The parsed value of data[0..len), or NULL with "PATH: not valid JSON" / "PATH: trailing
 * text after the JSON value (byte N)" / json_check_raw_bytes's message in err. The caller
 * cJSON_Delete()s it. */
struct cJSON *json_parse_whole(const char *data, size_t len, const char *path, ErrorMsg *err);

#endif
