/* test_class_room.c — the class room's rules without a network (src/class/): what a
 * student may type, the leading-space rule on awkward guesses with GPT-2's own tokenizer,
 * one guess per device per round, the room code, the room's size and lock, the per-address
 * limits, and the scores against hand-computed values. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "class_limits.h"
#include "class_room.h"
#include "class_score.h"
#include "class_text.h"

#define S(x) (const uint8_t *)(x), strlen(x)

static void test_text_check(void) {
    CHECK(class_text_check(S("")) == CLASS_ERR_EMPTY, "empty");
    char buf[64];
    memset(buf, 'a', 48);
    CHECK(class_text_check((const uint8_t *)buf, 48) == CLASS_OK, "48 bytes are fine");
    CHECK(class_text_check((const uint8_t *)buf, 49) == CLASS_ERR_TOO_LONG, "49 bytes are too long");
    CHECK(class_text_check(S("a\x01")) == CLASS_ERR_CONTROL, "C0 control");
    CHECK(class_text_check(S("tab\there")) == CLASS_ERR_CONTROL, "tab");
    CHECK(class_text_check(S("line\nbreak")) == CLASS_ERR_CONTROL, "newline");
    CHECK(class_text_check(S("del\x7f")) == CLASS_ERR_CONTROL, "DEL");
    CHECK(class_text_check(S("c1\xc2\x85")) == CLASS_ERR_CONTROL, "C1 (U+0085)");
    CHECK(class_text_check(S("\xe2\x80\xae" "evil")) == CLASS_ERR_CONTROL, "bidi override U+202E");
    CHECK(class_text_check(S("\xe2\x81\xa6x")) == CLASS_ERR_CONTROL, "bidi isolate U+2066");
    CHECK(class_text_check(S("\xe2\x80\xa8")) == CLASS_ERR_CONTROL, "line separator U+2028");
    CHECK(class_text_check(S("bad\xff")) == CLASS_ERR_UTF8, "invalid UTF-8");
    CHECK(class_text_check(S("\xc0\xaf")) == CLASS_ERR_UTF8, "overlong '/'");
    CHECK(class_text_check(S("caf\xc3\xa9 \xf0\x9f\x90\x89")) == CLASS_OK, "accents and emoji are fine");
    CHECK(class_text_check(S("<b>&amp;</b>")) == CLASS_OK, "markup is text (escaped when shown)");
    size_t at;
    size_t n = class_text_trim(S("  two words  "), &at);
    CHECK(at == 2 && n == 9, "trim: at %zu n %zu", at, n);
    CHECK(class_text_trim(S("   "), &at) == 0, "only spaces trim to nothing");
    CHECK(strcmp(class_error_text(CLASS_ERR_ALREADY), "You already guessed in this round.") == 0, "error text");
    CHECK(class_error_text((ClassError)999) != NULL, "out-of-range error still has a text");
    CHECK(class_secret_equal("abcd", "abcd", 4) && !class_secret_equal("abcd", "abce", 4), "secret compare");
}

/* guess after context -> (text encoded, first token, tokens) */
static void check_guess(Tokenizer *t, const char *context, const char *guess, ClassError want_e, const char *want_text,
                        int want_token, int want_n) {
    ClassGuessToken g;
    ClassError e = class_guess_encode(t, S(context), S(guess), &g);
    CHECK(e == want_e, "[%s]+[%s]: error %d, want %d", context, guess, (int)e, (int)want_e);
    if (e != CLASS_OK || want_e != CLASS_OK) return;
    CHECK(strcmp((const char *)g.text, want_text) == 0, "[%s]+[%s]: text [%s], want [%s]", context, guess,
          (const char *)g.text, want_text);
    CHECK(g.token == want_token && g.n_tokens == want_n, "[%s]+[%s]: token %d x%d, want %d x%d", context, guess,
          (int)g.token, g.n_tokens, want_token, want_n);
}

static void test_guess_rule(Tokenizer *t) {
    const char *ctx = "Once upon a time";
    check_guess(t, ctx, "there", CLASS_OK, " there", 612, 1);
    check_guess(t, ctx, "  there  ", CLASS_OK, " there", 612, 1);      /* spaces trimmed, one added */
    check_guess(t, ctx, ",", CLASS_OK, ",", 11, 1);                     /* punctuation glues */
    check_guess(t, ctx, ".", CLASS_OK, ".", 13, 1);
    check_guess(t, ctx, "dragon", CLASS_OK, " dragon", 10441, 1);       /* the example */
    check_guess(t, ctx, "Dragon", CLASS_OK, " Dragon", 2851, 1);        /* capitals matter */
    check_guess(t, ctx, "the dragon", CLASS_OK, " the dragon", 262, 2); /* several words: the first */
    check_guess(t, ctx, "dragonfly", CLASS_OK, " dragonfly", 10441, 2); /* split: the first piece */
    check_guess(t, ctx, "\xf0\x9f\x90\x89", CLASS_OK, " \xf0\x9f\x90\x89", 12520, 3); /* emoji: bytes */
    check_guess(t, ctx, "'s", CLASS_OK, "'s", 338, 1);
    check_guess(t, ctx, "", CLASS_ERR_EMPTY, NULL, 0, 0);
    check_guess(t, ctx, "   ", CLASS_ERR_EMPTY, NULL, 0, 0);
    check_guess(t, ctx, "a\nb", CLASS_ERR_CONTROL, NULL, 0, 0);
    check_guess(t, "", "Once", CLASS_OK, "Once", 7454, 1);               /* start of the text */
    check_guess(t, "The end.\n", "The", CLASS_OK, "The", 464, 1);        /* after a line break */
    check_guess(t, "She said, \"", "Hi", CLASS_OK, "Hi", 17250, 1);      /* inside an opened quote */
    check_guess(t, "She said,", "\"", CLASS_OK, " \"", 366, 1);          /* a quote opens: space */
    check_guess(t, "She said, \"Hi,", "\"", CLASS_OK, "\"", 1, 1);       /* a quote closes: glued */
    check_guess(t, "a (", "big", CLASS_OK, "big", 14261, 1);             /* after an open bracket */
    CHECK(class_guess_needs_space(S("x"), S("-")) == 0, "a dash glues");
    CHECK(class_guess_needs_space(S("x"), S("(")) == 1, "an opening bracket takes the space");
}

static void test_room(Tokenizer *t) {
    ClassRoom r;
    ErrorMsg err;
    CHECK(class_room_init(&r, t, 50257, "12a4", 3, &err) != 0, "a code must be digits");
    CHECK(class_room_init(&r, t, 50257, "123", 3, &err) != 0, "a code has 4 digits");
    CHECK(class_room_init(&r, t, 50257, "1234", 0, &err) != 0, "a room holds at least one");
    CHECK(class_room_init(&r, t, 50257, "1234", 3, &err) == 0, "init: %s", err.text);
    const char *d1 = "0123456789abcdef0123456789abcdef", *d2 = "ffffffffffffffffffffffffffffffff",
               *d3 = "00000000000000000000000000000003", *d4 = "00000000000000000000000000000004";
    int k = -2;
    CHECK(class_room_join(&r, d1, S("1235"), S(""), &k) == CLASS_ERR_CODE && k == -1, "wrong code");
    CHECK(class_room_join(&r, d1, S("12345"), S(""), &k) == CLASS_ERR_CODE, "code with a digit more");
    CHECK(class_room_join(&r, "0123", S("1234"), S(""), &k) == CLASS_ERR_BAD_FORM, "a device token of the wrong form");
    CHECK(class_room_join(&r, "0123456789ABCDEF0123456789ABCDEF", S("1234"), S(""), &k) == CLASS_ERR_BAD_FORM,
          "device tokens are lowercase hex");
    CHECK(class_room_join(&r, d1, S("1234"), S("Ada"), &k) == CLASS_OK && k == 0, "join");
    CHECK(class_room_join(&r, d1, S("1234"), S(" Ada L. "), &k) == CLASS_OK && k == 0, "joining again: same student");
    CHECK(strcmp(r.students[0].nick, "Ada L.") == 0 && r.n_students == 1, "nickname updated, trimmed: [%s]",
          r.students[0].nick);
    CHECK(class_room_join(&r, d2, S("1234"), S("bad\x1b[31m"), &k) == CLASS_ERR_CONTROL && r.n_students == 1,
          "a nickname with an escape sequence is refused, and nobody joins");
    CHECK(class_room_join(&r, d2, S("1234"), S(""), &k) == CLASS_OK && k == 1, "second device");
    class_room_lock(&r, 1);
    CHECK(class_room_join(&r, d3, S("1234"), S(""), &k) == CLASS_ERR_LOCKED, "locked: nobody new");
    CHECK(class_room_join(&r, d2, S("1234"), S(""), &k) == CLASS_OK && k == 1, "locked: a joined device still may");
    class_room_lock(&r, 0);
    CHECK(class_room_join(&r, d3, S("1234"), S(""), &k) == CLASS_OK && k == 2, "third device");
    CHECK(class_room_join(&r, d4, S("1234"), S(""), &k) == CLASS_ERR_FULL && r.n_students == 3, "full at 3");

    CHECK(class_room_guess(&r, d1, S("there"), NULL) == CLASS_ERR_NOT_OPEN, "no round yet");
    CHECK(class_room_reveal(&r, 11, 0.5, 11, &err) != 0, "nothing to reveal");
    CHECK(class_room_open(&r, CLASS_GAME_TEXT, 4, S("Once upon a time"), &err) == 0, "open: %s", err.text);
    CHECK(class_room_open(&r, CLASS_GAME_TEXT, 4, S("Once upon a time"), &err) != 0, "open twice");
    ClassGuessToken g;
    CHECK(class_room_guess(&r, d4, S("there"), &g) == CLASS_ERR_NOT_JOINED, "not joined");
    CHECK(class_room_guess(&r, d1, S("there"), &g) == CLASS_OK && g.token == 612, "guess");
    CHECK(class_room_guess(&r, d1, S(","), &g) == CLASS_ERR_ALREADY, "one guess per device per round");
    CHECK(class_room_guess(&r, d2, S(""), &g) == CLASS_ERR_EMPTY, "an empty guess");
    CHECK(class_room_guess(&r, d2, S(","), &g) == CLASS_OK && g.token == 11, "guess 2");
    const ClassRound *c = class_room_current(&r);
    CHECK(c->n_guesses == 2 && c->guesses[0].g.token == 612 && c->guesses[0].student == 0,
          "the first guess stands: %d guesses", c->n_guesses);
    CHECK(class_room_guess_of(&r, 2) == NULL && class_room_guess_of(&r, 1)->g.token == 11, "guess_of");
    CHECK(class_room_reveal(&r, 50257, 0.5, 11, &err) != 0, "a truth outside the vocabulary");
    CHECK(class_room_reveal(&r, 11, 0.786, 11, &err) == 0 && r.phase == CLASS_PHASE_REVEALED, "reveal");
    CHECK(class_room_guess(&r, d3, S(","), &g) == CLASS_ERR_NOT_OPEN, "no guess after the reveal");
    ClassRoundScore one;
    CHECK(class_score_current(&r, &one) == 0 && one.n_right == 1 && one.n_guesses == 2, "the round's score");
    CHECK_CLOSE(one.class_bits, -log2(0.9 * 0.5 + 0.1 / 50257), 1e-12, 0, "class bits, 1 of 2 right");
    CHECK_CLOSE(one.model_bits, -log2(0.786), 1e-12, 0, "model bits");

    /* next round: everybody may guess again; a long context keeps its tail */
    char longctx[CLASS_CONTEXT_MAX + 100];
    memset(longctx, 'x', sizeof longctx);
    memcpy(longctx + sizeof longctx - 4, "end", 4);
    CHECK(class_room_open(&r, CLASS_GAME_MODEL, 5, (const uint8_t *)longctx, sizeof longctx - 1, &err) == 0, "round 2");
    CHECK(r.context_len == CLASS_CONTEXT_MAX && memcmp(r.context + CLASS_CONTEXT_MAX - 3, "end", 3) == 0,
          "the context's tail is kept (%zu bytes)", r.context_len);
    CHECK(class_room_guess(&r, d1, S("."), &g) == CLASS_OK && g.text[0] == '.', "round 2 guess");
    CHECK(class_room_current(&r)->game == CLASS_GAME_MODEL && r.n_rounds == 2, "round 2 is the model game");
    class_room_clear_names(&r);
    CHECK(r.students[0].nick[0] == 0 && r.n_students == 3, "names cleared, students kept");
    CHECK(class_room_reveal(&r, 13, 0.0, 13, &err) == 0 && class_room_current(&r)->model_p > 0,
          "a model p that underflowed still scores");
    ClassScore sc;
    CHECK(class_score_room(&r, &sc) == 0 && sc.rounds == 2 && sc.guesses == 3 && sc.right == 2, "room score %d %ld %ld",
          sc.rounds, sc.guesses, sc.right);
    class_room_free(&r);
    class_room_free(&r); /* safe twice */
}

static void test_score(void) {
    ClassRoundScore s;
    const int a[] = {5, 5, 7, 9};
    CHECK(class_score_round(a, 4, 5, 10, 0.1, 0.25, 5, &s) == 0, "score");
    /* q(5) = 0.9 * 2/4 + 0.1/10 = 0.46 */
    CHECK_CLOSE(s.class_bits, 1.1202942337177118, 1e-12, 0, "class bits");
    CHECK(s.n_right == 2 && s.n_guesses == 4 && s.plurality_hit == 1.0 && s.model_hit == 1, "counts");
    CHECK_CLOSE(s.model_bits, 2.0, 1e-12, 0, "model bits of p = 1/4");
    const int b[] = {2, 1};
    CHECK(class_score_round(b, 2, 2, 10, 0.1, 0.5, 1, &s) == 0, "tie");
    CHECK(s.plurality_hit == 0.5 && s.model_hit == 0 && s.n_right == 1, "a 2-way tie holding the truth counts 1/2");
    CHECK_CLOSE(s.class_bits, 1.1202942337177118, 1e-12, 0, "q = 0.9 * 1/2 + 0.01");
    const int c[] = {1, 1};
    CHECK(class_score_round(c, 2, 3, 10, 0.1, 0.125, 1, &s) == 0, "unseen truth");
    CHECK_CLOSE(s.class_bits, -log2(0.01), 1e-12, 0, "nobody chose it: lambda/V");
    CHECK(s.plurality_hit == 0.0 && s.n_right == 0, "no hit");
    CHECK(class_score_round(c, 0, 3, 10, 0.1, 0.5, 1, &s) == -1, "no guesses");
    CHECK(class_score_round(c, 2, 3, 10, 0.0, 0.5, 1, &s) == -1, "lambda 0 would give infinite bits");
    CHECK(class_score_round(c, 2, 3, 10, 0.1, 0.0, 1, &s) == -1, "model p 0");
    CHECK(class_score_round(c, 2, 3, 0, 0.1, 0.5, 1, &s) == -1, "V 0");
    ClassScore t = {0};
    CHECK(class_score_hit_rate(&t) == 0 && class_score_bits(&t) == 0, "empty score is 0");
    ClassRoundScore r1, r2, r3;
    class_score_round(a, 4, 5, 10, 0.1, 0.25, 5, &r1);
    class_score_round(b, 2, 2, 10, 0.1, 0.5, 1, &r2);
    class_score_round(c, 2, 3, 10, 0.1, 0.125, 1, &r3);
    class_score_add(&t, &r1), class_score_add(&t, &r2), class_score_add(&t, &r3);
    CHECK_CLOSE(class_score_hit_rate(&t), 3.0 / 8.0, 1e-12, 0, "hit rate = right / guesses");
    CHECK_CLOSE(class_score_plurality_rate(&t), 1.5 / 3.0, 1e-12, 0, "plurality rate");
    CHECK_CLOSE(class_score_bits(&t), (2 * 1.1202942337177118 + 6.643856189774724) / 3, 1e-12, 0, "class bits mean");
    CHECK_CLOSE(class_score_model_hit_rate(&t), 1.0 / 3.0, 1e-12, 0, "model hit rate");
    CHECK_CLOSE(class_score_model_bits(&t), (2.0 + 1.0 + 3.0) / 3, 1e-12, 0, "model bits mean");
}

static void test_limits(void) {
    static ClassLimits l;
    class_limits_init(&l, 2);
    CHECK(l.devices_per_addr == 2, "devices per address");
    ClassAddrSlot *s = class_limits_slot(&l, "10.0.0.1", 100.0);
    int ok = 0;
    for (int i = 0; i < 40; i++) ok += class_limits_take(s, 100.0);
    CHECK(ok == (int)CLASS_RATE_BURST, "a burst of %d at once, got %d", (int)CLASS_RATE_BURST, ok);
    ok = 0;
    for (int i = 0; i < 20; i++) ok += class_limits_take(s, 101.0);
    CHECK(ok == (int)CLASS_RATE_PER_S, "one second later, %d more (got %d)", (int)CLASS_RATE_PER_S, ok);
    CHECK(class_limits_slot(&l, "10.0.0.1", 101.0) == s, "the same slot for the same address");
    CHECK(class_limits_slot(&l, "10.0.0.2", 101.0) != s, "another address, another slot");
    CHECK(class_limits_slot(&l, "", 101.0) == class_limits_slot(&l, NULL, 101.0), "an unknown address: one slot");
    for (int i = 0; i < CLASS_CODE_TRIES; i++) {
        CHECK(class_limits_code_allowed(s, 102.0), "try %d allowed", i);
        class_limits_code_wrong(s, 102.0);
    }
    CHECK(!class_limits_code_allowed(s, 110.0), "after %d wrong codes, no more", CLASS_CODE_TRIES);
    CHECK(class_limits_code_allowed(s, 100.0 + CLASS_CODE_WINDOW_S + 1), "a minute later, again");
    /* a full table forgets the least recently seen address */
    class_limits_init(&l, 2);
    for (int i = 0; i < CLASS_LIMIT_SLOTS; i++) {
        char a[32];
        snprintf(a, sizeof a, "10.1.%d.%d", i / 256, i % 256);
        class_limits_slot(&l, a, 1.0 + i)->devices = 1;
    }
    ClassAddrSlot *n = class_limits_slot(&l, "10.9.9.9", 5000.0);
    CHECK(n->devices == 0 && strcmp(n->addr, "10.9.9.9") == 0, "a new address in a full table");
    int kept = 0;
    for (int i = 0; i < CLASS_LIMIT_SLOTS; i++) kept += strcmp(l.slot[i].addr, "10.1.0.0") == 0;
    CHECK(kept == 0, "the oldest address (10.1.0.0) was the one forgotten");
}

int main(void) {
    test_text_check();
    test_score();
    test_limits();
    Tokenizer t = {0};
    ErrorMsg err;
    if (tok_load(&t, "assets/tokenizer", &err)) {
        CHECK(0, "tokenizer: %s", err.text);
        return check_summary("test_class_room");
    }
    test_guess_rule(&t);
    test_room(&t);
    tok_free(&t);
    return check_summary("test_class_room");
}
