/* json_whole.c — see json_whole.h. */
#include "json_whole.h"

#include <cJSON.h>

struct cJSON *json_parse_whole(const char *data, size_t len, const char *path, ErrorMsg *err) {
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(data, len, &end, 0);
    if (!root) {
        error_set(err, "%s: not valid JSON", path);
        return NULL;
    }
    size_t at = end ? (size_t)(end - data) : len;
    while (at < len && (data[at] == ' ' || data[at] == '\t' || data[at] == '\n' || data[at] == '\r')) at++;
    if (at < len) {
        cJSON_Delete(root);
        error_set(err, "%s: trailing text after the JSON value (byte %zu)", path, at);
        return NULL;
    }
    return root;
}
