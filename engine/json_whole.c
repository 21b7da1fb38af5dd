/* json_whole.c — see json_whole.h. */
#include "json_whole.h"

#include <cJSON.h>

int json_check_raw_bytes(const char *data, size_t len, const char *path, ErrorMsg *err) {
    int in_string = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)data[i];
        if (c < 0x20 && (c == 0 || in_string))
            return error_set(err, "%s: raw %s byte%s at byte %zu (not valid JSON)", path,
                             c == 0 ? "NUL" : "control", in_string ? " inside a string" : "", i);
        /* an escaped quote does not end the string; an escaped control byte is caught next */
        if (in_string && c == '\\' && i + 1 < len && (unsigned char)data[i + 1] >= 0x20) i++;
        else if (c == '"') in_string = !in_string;
    }
    return 0;
}

struct cJSON *json_parse_whole(const char *data, size_t len, const char *path, ErrorMsg *err) {
    if (json_check_raw_bytes(data, len, path, err)) return NULL;
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
