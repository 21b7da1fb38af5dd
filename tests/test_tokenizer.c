/* test_tokenizer.c — the GPT-2 tokenizer against ../shared/reference/tokenizer: every
 * tok_public.txt case to the exact ids (with and without the word cache), decode back to
 * the exact bytes, merge histories that replay to the tokens, the decode edge cases (also
 * streamed), the invalid-UTF-8 policies, "<|endoftext|>", bad tokenizer folders, and the
 * sha256 of the shipped asset files. Not a speed test (tools/bench does that). */
#include <cJSON.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "file_read.h"
#include "tokenizer.h"

#define TOK_DIR "assets/tokenizer"

/* ---- helpers ---------------------------------------------------------------------- */

static int hexval(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Parses hex into a malloc'd buffer; "-" = empty. Returns NULL on malformed hex. */
static uint8_t *parse_hex(const char *h, size_t *n) {
    size_t l = strcmp(h, "-") == 0 ? 0 : strlen(h);
    uint8_t *b = malloc(l / 2 + 1);
    *n = l / 2;
    if (!b || l % 2) {
        free(b);
        return NULL;
    }
    for (size_t i = 0; i < l / 2; i++) {
        int hi = hexval(h[2 * i]), lo = hexval(h[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            free(b);
            return NULL;
        }
        b[i] = (uint8_t)(hi * 16 + lo);
    }
    return b;
}

/* A whole text file (NUL-terminated, caller frees), or NULL. */
static char *read_text(const char *path) {
    uint8_t *b = NULL;
    size_t n = 0;
    ErrorMsg err;
    return file_read_all(path, (size_t)64 << 20, &b, &n, &err) ? NULL : (char *)b;
}

/* Calls one(ctx, record, path) for every line of the reference file rel (JSON Lines),
 * each parsed by cJSON; a line that is not JSON fails a check. Returns how many records
 * one() counted as cases (0 when the file cannot be read, which fails a check too). */
static int each_jsonl(const char *rel, int (*one)(void *ctx, const cJSON *j, const char *path), void *ctx) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", check_ref_dir(), rel);
    char *all = read_text(path);
    CHECK(all != NULL, "cannot read %s", path);
    int cases = 0;
    for (char *line = all ? strtok(all, "\n") : NULL; line; line = strtok(NULL, "\n")) {
        cJSON *j = cJSON_Parse(line);
        CHECK(j != NULL, "%s: bad JSON line", path);
        if (j) cases += one(ctx, j, path);
        cJSON_Delete(j);
    }
    free(all);
    return cases;
}

static int ids_equal(const int32_t *a, size_t na, const int32_t *b, size_t nb) {
    return na == nb && (na == 0 || memcmp(a, b, na * sizeof *a) == 0);
}

static void print_ids(const char *what, const int32_t *v, size_t n) {
    fprintf(stderr, "  %s:", what);
    for (size_t i = 0; i < n && i < 40; i++) fprintf(stderr, " %d", v[i]);
    fprintf(stderr, "%s\n", n > 40 ? " ..." : "");
}

/* Replays a piece's merges on its single-byte tokens, exactly as a viewer would, and
 * checks each step against the recorded parts; returns 1 if it ends at the piece's ids. */
static int replay_piece(const Tokenizer *t, const TokEncoding *e, const TokPiece *p) {
    size_t n = p->len;
    int32_t *tok = malloc(n * sizeof *tok);   /* token of the part starting at byte i */
    size_t *plen = malloc(n * sizeof *plen);  /* its length in bytes, 0 = not a part start */
    int ok = tok && plen;
    for (size_t i = 0; ok && i < n; i++) {
        tok[i] = t->byte_token[e->text[p->start + i]];
        plen[i] = 1;
    }
    int32_t last_rank = -1;
    for (size_t k = 0; ok && k < p->n_merges; k++) {
        const TokMerge *m = &e->merges[p->first_merge + k];
        size_t a = m->offset;
        ok = a < n && plen[a] && a + plen[a] < n && tok[a] == m->left && tok[a + plen[a]] == m->right;
        /* encoder.py applies the lowest rank first, and in GPT-2's vocab.bpe a merge that
         * uses token X always comes after the merge that made X: ranks never decrease. */
        if (ok && m->rank < last_rank) ok = 0;
        if (!ok) break;
        last_rank = m->rank;
        size_t b = a + plen[a];
        size_t lb, la;
        tok_token_bytes(t, m->left, &la);
        tok_token_bytes(t, m->right, &lb);
        ok = la == plen[a] && lb == plen[b];
        tok[a] = m->merged;
        plen[a] += plen[b];
        plen[b] = 0;
    }
    size_t j = 0;
    for (size_t i = 0; ok && i < n; i += plen[i]) {
        ok = j < p->n_tokens && e->ids[p->first_token + j] == tok[i];
        j++;
    }
    ok = ok && j == p->n_tokens;
    free(tok);
    free(plen);
    return ok;
}

/* ---- tok_public.txt --------------------------------------------------------------- */

static void test_public_cases(Tokenizer *t) {
    char path[512];
    snprintf(path, sizeof path, "%s/tokenizer/tok_public.txt", check_ref_dir());
    FILE *f = fopen(path, "r");
    CHECK(f != NULL, "cannot open %s", path);
    if (!f) return;
    static char line[1 << 16];
    int cases = 0, exact = 0, roundtrip = 0, replayed = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        CHECK(strchr(line, '\n') != NULL, "%s: line longer than the test's buffer", path);
        int index, used;
        char name[128], hex[1 << 15];
        size_t nids;
        if (sscanf(line, "%d %127s %32767s %zu%n", &index, name, hex, &nids, &used) != 4) {
            CHECK(0, "%s: malformed line: %.60s", path, line);
            continue;
        }
        size_t n;
        uint8_t *text = parse_hex(hex, &n);
        int32_t *want = malloc((nids + 1) * sizeof *want);
        const char *p = line + used;
        int ok_parse = text && want;
        for (size_t i = 0; ok_parse && i < nids; i++) {
            int v, k;
            ok_parse = sscanf(p, "%d%n", &v, &k) == 1;
            want[i] = v;
            p += k;
        }
        CHECK(ok_parse, "%s: case %s: cannot parse", path, name);
        if (!ok_parse) {
            free(text);
            free(want);
            continue;
        }
        cases++;
        /* default options (cache on), twice (second time from the cache), and no cache */
        for (int pass = 0; pass < 3; pass++) {
            TokEncodeOptions o = {0};
            o.no_cache = pass == 2;
            TokEncoding e = {0};
            ErrorMsg err = {{0}};
            int rc = tok_encode(t, text, n, &o, &e, &err);
            CHECK(rc == 0, "case %s: encode failed: %s", name, err.text);
            int same = rc == 0 && ids_equal(e.ids, e.n_ids, want, nids);
            CHECK(same, "case %d %s (pass %d): ids differ (got %zu, want %zu)", index, name, pass,
                  e.n_ids, nids);
            if (!same) {
                print_ids("got ", e.ids, e.n_ids);
                print_ids("want", want, nids);
            }
            if (pass == 0) exact += same;
            tok_encoding_free(&e);
        }
        /* decode(ids) == text, byte for byte */
        uint8_t *dec;
        size_t dn;
        ErrorMsg err = {{0}};
        int rc = tok_decode(t, want, nids, &dec, &dn, &err);
        int rt = rc == 0 && dn == n && (n == 0 || memcmp(dec, text, n) == 0) && dec[dn] == 0;
        CHECK(rt, "case %s: decode(ids) is not the text (%zu vs %zu bytes) %s", name, dn, n, err.text);
        roundtrip += rt;
        if (rc == 0) free(dec);

        /* merge history: pieces tile the text, and each replays to its tokens */
        TokEncodeOptions o = {.record_merges = true};
        TokEncoding e = {0};
        rc = tok_encode(t, text, n, &o, &e, &err);
        CHECK(rc == 0 && ids_equal(e.ids, e.n_ids, want, nids), "case %s: ids with merges differ", name);
        size_t at = 0, tok_at = 0;
        int all = rc == 0;
        for (size_t i = 0; all && i < e.n_pieces; i++) {
            const TokPiece *pc = &e.pieces[i];
            all = pc->start == at && pc->len > 0 && pc->first_token == tok_at && pc->n_tokens >= 1 &&
                  pc->n_tokens + pc->n_merges == pc->len && replay_piece(t, &e, pc);
            at += pc->len;
            tok_at += pc->n_tokens;
        }
        all = all && at == n && tok_at == e.n_ids;
        CHECK(all, "case %s: pieces do not tile the text or merges do not replay", name);
        replayed += all;
        tok_encoding_free(&e);
        free(text);
        free(want);
    }
    fclose(f);
    printf("tok_public.txt: %d cases, %d exact ids, %d round trips, %d merge replays\n", cases, exact,
           roundtrip, replayed);
    CHECK(cases == 63, "expected the 63 public cases, read %d", cases);
}

/* ---- tok_decode_edge.jsonl -------------------------------------------------------- */

/* Bytes a streaming decoder must still hold after the last token: the incomplete
 * trailing character (README §3.4). Cases not listed end on a complete character or on
 * bytes that can never become valid, so nothing is held. */
static size_t expected_held(const char *name) {
    static const struct { const char *name; size_t held; } H[] = {
        {"emoji_prefix_1", 2},  /* F0 9F */
        {"emoji_prefix_2", 3},  /* F0 9F A6 */
        {"btc_prefix_2", 2},    /* E2 82 */
        {"text_then_partial", 3}, /* abc F0 9F A6 */
    };
    for (size_t i = 0; i < sizeof H / sizeof H[0]; i++)
        if (strcmp(H[i].name, name) == 0) return H[i].held;
    return 0;
}

/* One record of tok_decode_edge.jsonl: decoded whole and streamed. Returns 1 if it was a case. */
static int decode_edge_case(void *ctx, const cJSON *j, const char *path) {
    const Tokenizer *t = ctx;
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(j, "case"));
    const char *hex = cJSON_GetStringValue(cJSON_GetObjectItem(j, "bytes_hex"));
    const cJSON *jids = cJSON_GetObjectItem(j, "ids");
    if (!name || !hex || !cJSON_IsArray(jids)) {
        CHECK(0, "%s: record without case/bytes_hex/ids", path);
        return 0;
    }
    size_t n_ids = (size_t)cJSON_GetArraySize(jids), nb;
    int32_t ids[16];
    CHECK(n_ids <= 16, "case %s: too many ids", name);
    for (size_t i = 0; i < n_ids && i < 16; i++) ids[i] = (int32_t)cJSON_GetArrayItem(jids, (int)i)->valueint;
    uint8_t *want = parse_hex(hex, &nb);
    uint8_t *dec = NULL;
    size_t dn = 0;
    ErrorMsg err = {{0}};
    int rc = tok_decode(t, ids, n_ids, &dec, &dn, &err);
    CHECK(rc == 0 && want && dn == nb && memcmp(dec, want, nb) == 0, "case %s: decode bytes differ", name);
    free(dec);

    /* streamed: same bytes overall, the incomplete tail only comes out of flush */
    TokStream s = {0};
    uint8_t got[256];
    size_t gn = 0;
    for (size_t i = 0; i < n_ids; i++) {
        const uint8_t *o;
        size_t on;
        CHECK(tok_stream_push(&s, t, ids[i], &o, &on, &err) == 0, "case %s: push failed", name);
        if (gn + on <= sizeof got) memcpy(got + gn, o, on);
        gn += on;
    }
    size_t before_flush = gn;
    const uint8_t *o;
    size_t on;
    tok_stream_flush(&s, &o, &on);
    if (gn + on <= sizeof got) memcpy(got + gn, o, on);
    gn += on;
    CHECK(gn == nb && want && memcmp(got, want, nb) == 0, "case %s: streamed bytes differ", name);
    CHECK(nb - before_flush == expected_held(name), "case %s: held back %zu bytes, want %zu", name,
          nb - before_flush, expected_held(name));
    tok_stream_free(&s);
    free(want);
    return 1;
}

static void test_decode_edge(const Tokenizer *t) {
    int cases = each_jsonl("tokenizer/tok_decode_edge.jsonl", decode_edge_case, (void *)t);
    CHECK(cases == 11, "expected 11 decode edge cases, read %d", cases);

    /* a held tail is completed by the next token: 🦱 = [8582, 99, 109] emits nothing
     * until the last token, then all four bytes at once */
    TokStream s = {0};
    const int32_t emoji[3] = {8582, 99, 109};
    size_t lens[3];
    ErrorMsg err;
    for (int i = 0; i < 3; i++) {
        const uint8_t *o;
        tok_stream_push(&s, t, emoji[i], &o, &lens[i], &err);
        if (i == 2) CHECK(lens[2] == 4 && memcmp(o, "\xF0\x9F\xA6\xB1", 4) == 0, "emoji not emitted whole");
    }
    CHECK(lens[0] == 0 && lens[1] == 0, "emoji prefix emitted early (%zu, %zu)", lens[0], lens[1]);
    const uint8_t *o;
    size_t on;
    CHECK(tok_stream_push(&s, t, 50257, &o, &on, &err) == -1 && strstr(err.text, "50257"),
          "stream: bad id not reported: %s", err.text);
    tok_stream_free(&s);
}

/* ---- tok_invalid_utf8.jsonl ------------------------------------------------------- */

/* One record of tok_invalid_utf8.jsonl: refused by default, replaced on request. */
static int invalid_utf8_case(void *ctx, const cJSON *j, const char *path) {
    Tokenizer *t = ctx;
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(j, "case"));
    const char *hex = cJSON_GetStringValue(cJSON_GetObjectItem(j, "utf8_hex"));
    const cJSON *off = cJSON_GetObjectItem(j, "first_invalid_byte_offset");
    const cJSON *pol = cJSON_GetObjectItem(j, "policy_replace");
    const char *rhex = cJSON_GetStringValue(cJSON_GetObjectItem(pol, "utf8_hex"));
    const cJSON *jids = cJSON_GetObjectItem(pol, "ids");
    if (!name || !hex || !cJSON_IsNumber(off) || !rhex || !cJSON_IsArray(jids)) {
        CHECK(0, "%s: record missing fields", path);
        return 0;
    }
    size_t n, rn;
    uint8_t *text = parse_hex(hex, &n), *rtext = parse_hex(rhex, &rn);

    TokEncoding e = {0};
    ErrorMsg err = {{0}};
    char want_msg[64];
    snprintf(want_msg, sizeof want_msg, "invalid UTF-8 at byte %d", off->valueint);
    int rc = tok_encode(t, text, n, NULL, &e, &err);
    CHECK(rc == -1 && strstr(err.text, want_msg) && e.ids == NULL,
          "case %s: reject: got rc %d '%s', want '%s'", name, rc, err.text, want_msg);

    TokEncodeOptions o = {.utf8 = TOK_UTF8_REPLACE};
    rc = tok_encode(t, text, n, &o, &e, &err);
    size_t nw = (size_t)cJSON_GetArraySize(jids);
    int32_t want[32];
    for (size_t i = 0; i < nw && i < 32; i++) want[i] = (int32_t)cJSON_GetArrayItem(jids, (int)i)->valueint;
    CHECK(rc == 0 && ids_equal(e.ids, e.n_ids, want, nw), "case %s: replace ids differ", name);
    CHECK(rc == 0 && e.text_len == rn && memcmp(e.text, rtext, rn) == 0,
          "case %s: replaced text differs", name);
    tok_encoding_free(&e);
    free(text);
    free(rtext);
    return 1;
}

static void test_invalid_utf8(Tokenizer *t) {
    int cases = each_jsonl("tokenizer/tok_invalid_utf8.jsonl", invalid_utf8_case, t);
    CHECK(cases == 5, "expected 5 invalid-UTF-8 cases, read %d", cases);
}

/* ---- special token, lookups, merges of one word, errors ---------------------------- */

static void test_special_and_lookups(Tokenizer *t) {
    static const uint8_t eot[] = "<|endoftext|>";
    const int32_t plain[7] = {27, 91, 437, 1659, 5239, 91, 29};
    TokEncoding e = {0};
    ErrorMsg err = {{0}};
    CHECK(tok_encode(t, eot, 13, NULL, &e, &err) == 0 && ids_equal(e.ids, e.n_ids, plain, 7),
          "<|endoftext|> is not plain text by default");
    tok_encoding_free(&e);
    TokEncodeOptions o = {.allow_special = true};
    CHECK(tok_encode(t, eot, 13, &o, &e, &err) == 0 && e.n_ids == 1 && e.ids[0] == TOK_EOT &&
              e.n_pieces == 1 && e.pieces[0].special,
          "<|endoftext|> with allow_special is not [50256]");
    tok_encoding_free(&e);
    /* between words: "Hi<|endoftext|> there" -> Hi, EOT, " there" */
    static const uint8_t mixed[] = "Hi<|endoftext|> there";
    CHECK(tok_encode(t, mixed, sizeof mixed - 1, &o, &e, &err) == 0 && e.n_ids == 3 && e.ids[1] == TOK_EOT &&
              e.ids[0] == 17250 && e.ids[2] == 612 && e.pieces[1].start == 2 && e.pieces[1].len == 13,
          "special inside text: got %zu ids", e.n_ids);
    tok_encoding_free(&e);

    CHECK(tok_vocab_size(t) == 50257, "vocab size %zu", tok_vocab_size(t));
    CHECK(t->n_merges == 50000, "merges %zu", t->n_merges);
    CHECK(strcmp(tok_token_text(t, TOK_EOT), "<|endoftext|>") == 0, "text of 50256");
    CHECK(strcmp(tok_token_text(t, 2402), "\xC4\xA0upon") == 0, "text of 2402 is '%s'", tok_token_text(t, 2402));
    CHECK(strcmp(tok_token_text(t, 198), "\xC4\x8A") == 0, "text of 198 (newline) is not 'Ċ'");
    size_t len;
    const uint8_t *b = tok_token_bytes(t, 2402, &len);
    CHECK(len == 5 && memcmp(b, " upon", 5) == 0, "bytes of 2402");
    CHECK(tok_token_bytes(t, 50257, &len) == NULL && len == 0, "id 50257 must be out of range");
    CHECK(tok_token_bytes(t, -1, &len) == NULL && tok_token_text(t, -1) == NULL, "id -1 must be out of range");
    CHECK(tok_lookup_bytes(t, (const uint8_t *)" upon", 5) == 2402, "lookup ' upon'");
    CHECK(tok_lookup_bytes(t, (const uint8_t *)"\0", 1) == 188, "NUL byte token is %d",
          tok_lookup_bytes(t, (const uint8_t *)"\0", 1));

    /* merges of " upon": Ġ u p o n -> ... -> Ġupon, ending at the one token 2402 */
    o = (TokEncodeOptions){.record_merges = true};
    static const uint8_t upon[] = " upon";
    CHECK(tok_encode(t, upon, 5, &o, &e, &err) == 0 && e.n_ids == 1 && e.ids[0] == 2402 && e.n_merges == 4 &&
              e.merges[e.n_merges - 1].merged == 2402 && e.merges[0].rank < e.merges[1].rank,
          "merge history of ' upon'");
    tok_encoding_free(&e);

    /* NUL inside the text is an ordinary byte */
    static const uint8_t nul[] = {'a', 0, 'b'};
    CHECK(tok_encode(t, nul, 3, NULL, &e, &err) == 0 && e.n_ids == 3 && e.ids[1] == 188,
          "a\\0b not encoded as 3 tokens");
    tok_encoding_free(&e);

    /* \s is Unicode White_Space, as in Python's regex: U+180E is NOT a space (PCRE2's own
     * \s says it is), so "x\u180e\u180ey" splits as x | U+180E U+180E | y (python-regex
     * findall with GPT-2's pattern), not x | U+180E | U+180E | y. */
    static const uint8_t mvs[] = "x\xE1\xA0\x8E\xE1\xA0\x8Ey";
    CHECK(tok_encode(t, mvs, sizeof mvs - 1, NULL, &e, &err) == 0 && e.n_pieces == 3 && e.pieces[1].start == 1 &&
              e.pieces[1].len == 6,
          "U+180E split into %zu pieces, want 3", e.n_pieces);
    tok_encoding_free(&e);

    /* decode: out-of-range ids are named */
    int32_t bad[2] = {7454, 60000};
    uint8_t *dec;
    size_t dn;
    CHECK(tok_decode(t, bad, 2, &dec, &dn, &err) == -1 && strstr(err.text, "60000") && dec == NULL,
          "decode of id 60000: '%s'", err.text);
}

static void write_file(const char *path, const char *s) {
    FILE *f = fopen(path, "wb");
    if (!f) return;
    fputs(s, f);
    fclose(f);
}

static void test_bad_dirs(void) {
    Tokenizer t;
    ErrorMsg err = {{0}};
    CHECK(tok_load(&t, "/nonexistent/tok", &err) == -1 && strstr(err.text, "/nonexistent/tok/encoder.json"),
          "missing dir: '%s'", err.text);
    tok_free(&t);
    tok_free(&t); /* twice: free must leave a zeroed, freeable struct */

    char dir[] = "/tmp/inferscope_tok_XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(0, "mkdtemp failed");
        return;
    }
    char enc[128], voc[128];
    snprintf(enc, sizeof enc, "%s/encoder.json", dir);
    snprintf(voc, sizeof voc, "%s/vocab.bpe", dir);
    write_file(enc, "{\"a\": 0, ");
    CHECK(tok_load(&t, dir, &err) == -1 && strstr(err.text, "encoder.json") && strstr(err.text, "JSON"),
          "truncated encoder.json: '%s'", err.text);
    write_file(enc, "{\"a\": 0}");
    CHECK(tok_load(&t, dir, &err) == -1 && strstr(err.text, "encoder.json"), "tiny encoder.json: '%s'",
          err.text);
    /* the real encoder.json with a broken vocab.bpe: the error names file and line */
    char cmd[512];
    snprintf(cmd, sizeof cmd, "cp %s/encoder.json %s", TOK_DIR, enc);
    CHECK(system(cmd) == 0, "copy encoder.json");
    write_file(voc, "#version: 0.2\n\xC4\xA0 t\nno_space_here\n");
    CHECK(tok_load(&t, dir, &err) == -1 && strstr(err.text, "vocab.bpe:3"), "bad vocab line: '%s'", err.text);
    write_file(voc, "#version: 0.2\nzzqq xxyy\n");
    CHECK(tok_load(&t, dir, &err) == -1 && strstr(err.text, "vocab.bpe:2"), "unknown merge: '%s'", err.text);
    tok_free(&t);
    unlink(enc);
    unlink(voc);
    rmdir(dir);
}

/* assets/tokenizer/README.md lists the sha256 of both files; they must match. */
static void test_asset_hashes(void) {
    char *readme = read_text(TOK_DIR "/README.md");
    CHECK(readme != NULL, "cannot read " TOK_DIR "/README.md");
    if (!readme) return;
    const char *files[2] = {"encoder.json", "vocab.bpe"};
    for (int i = 0; i < 2; i++) {
        char pat[64], want[65] = {0}, got[65] = {0};
        snprintf(pat, sizeof pat, "| `%s` |", files[i]); /* the table row */
        const char *row = strstr(readme, pat);
        const char *h = row ? strchr(row + strlen(pat), '`') : NULL; /* bytes column has none */
        while (h && strspn(h + 1, "0123456789abcdef") != 64) h = strchr(h + 1, '`');
        if (h) memcpy(want, h + 1, 64);
        CHECK(h != NULL, "README has no sha256 for %s", files[i]);
        char cmd[256];
        snprintf(cmd, sizeof cmd, "sha256sum %s/%s", TOK_DIR, files[i]);
        FILE *p = popen(cmd, "r");
        if (!p) { /* no processes (WebAssembly under Node) */
            printf("SKIPPED: tokenizer asset sha256: popen(\"%s\") failed: %s\n", cmd, strerror(errno));
            continue;
        }
        if (fscanf(p, "%64s", got) != 1) got[0] = 0;
        pclose(p);
        CHECK(h && strcmp(got, want) == 0, "%s: sha256 %s, README says %s", files[i], got, want);
    }
    free(readme);
}

int main(void) {
    Tokenizer t = {0};
    ErrorMsg err = {{0}};
    int rc = tok_load(&t, TOK_DIR, &err);
    CHECK(rc == 0, "tok_load: %s", err.text);
    if (rc == 0) {
        printf("tokenizer: %zu tokens, %zu merges, regex JIT %s\n", t.n_vocab, t.n_merges, t.jit ? "on" : "off");
        test_public_cases(&t);
        test_decode_edge(&t);
        test_invalid_utf8(&t);
        test_special_and_lookups(&t);
    }
    tok_free(&t);
    test_bad_dirs();
    test_asset_hashes();
    return check_summary("test_tokenizer");
}
