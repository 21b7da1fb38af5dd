/* json_whole.h — parsing a file's bytes as exactly ONE JSON value (cJSON), followed only by
 * whitespace: config.json, encoder.json and vocab.json with trailing text are damaged
 * files, not the value that happens to come first. Not a JSON library (cJSON is). */
#ifndef JSON_WHOLE_H
#define JSON_WHOLE_H

#include <stddef.h>

#include "error.h"

struct cJSON;

/* The parsed value of data[0..len), or NULL with "PATH: not valid JSON" / "PATH: trailing
 * text after the JSON value (byte N)" in err. The caller cJSON_Delete()s it. */
struct cJSON *json_parse_whole(const char *data, size_t len, const char *path, ErrorMsg *err);

#endif
