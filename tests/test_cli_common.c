/* test_cli_common.c — the CLI helpers: id lists, JSON escaping. */
#include <string.h>

#include "check.h"
#include "cli.h"

static void test_parse_ids(void) {
    int *ids;
    size_t n;
    ErrorMsg err;
    CHECK(cli_parse_ids("7454,2402, 257 640", 50257, &ids, &n, &err) == 0, "parse ok");
    CHECK(n == 4 && ids[0] == 7454 && ids[3] == 640, "values n=%zu", n);
    free(ids);
    CHECK(cli_parse_ids("1,50257", 50257, &ids, &n, &err) == -1, "out of vocab rejected");
    CHECK(strstr(err.text, "50257") != NULL, "message names the id: %s", err.text);
    CHECK(cli_parse_ids("12x", 50257, &ids, &n, &err) == -1, "garbage rejected");
    CHECK(cli_parse_ids("", 50257, &ids, &n, &err) == -1, "empty rejected");
}

static void test_json_string(void) {
    char buf[128] = {0};
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    const uint8_t s[] = {'a', '"', '\n', 0, 0xC3, 0xA9, 0xFF};
    cli_json_string(f, s, sizeof s);
    fclose(f);
    /* the invalid byte 0xFF as PEP 383's \udcff: Python's os.fsencode(json.loads(..)) restores it */
    CHECK(strcmp(buf, "\"a\\\"\\n\\u0000\xC3\xA9\\udcff\"") == 0, "escaped: %s", buf);
}

int main(void) {
    test_parse_ids();
    test_json_string();
    return check_summary("test_cli_common");
}
