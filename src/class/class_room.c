/* class_room.c — the room's rules as pure functions on a plain struct (class_room.h). */
#include "class_room.h"

#include <stdlib.h>
#include <string.h>

static int is_digits(const char *s, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9') return 0;
    return 1;
}

static int is_device(const char *d) {
    if (!d) return 0;
    for (size_t i = 0; i < CLASS_DEVICE_LEN; i++) {
        char c = d[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return 0;
    }
    return d[CLASS_DEVICE_LEN] == 0;
}

int class_room_init(ClassRoom *r, Tokenizer *tok, size_t n_vocab, const char *code, int max_students,
                    ErrorMsg *err) {
    memset(r, 0, sizeof *r);
    if (!code || strlen(code) != CLASS_CODE_LEN || !is_digits(code, CLASS_CODE_LEN))
        return error_set(err, "room code: want %d digits", CLASS_CODE_LEN);
    if (max_students < 1 || max_students > CLASS_MAX_STUDENTS_LIMIT)
        return error_set(err, "room size %d is outside [1, %d]", max_students, CLASS_MAX_STUDENTS_LIMIT);
    r->students = calloc((size_t)max_students, sizeof *r->students);
    r->rounds = calloc(CLASS_MAX_ROUNDS, sizeof *r->rounds);
    if (!r->students || !r->rounds) {
        class_room_free(r);
        return error_set(err, "room: out of memory");
    }
    memcpy(r->code, code, CLASS_CODE_LEN + 1);
    r->max_students = max_students;
    r->tok = tok;
    r->n_vocab = n_vocab;
    return 0;
}

void class_room_free(ClassRoom *r) {
    if (r->rounds)
        for (int i = 0; i < r->n_rounds; i++) free(r->rounds[i].guesses);
    free(r->rounds);
    free(r->students);
    memset(r, 0, sizeof *r);
}

int class_room_find(const ClassRoom *r, const char *device) {
    if (!is_device(device)) return -1;
    int found = -1;
    /* every entry is compared in constant time, so the time says nothing either */
    for (int i = 0; i < r->n_students; i++)
        if (class_secret_equal(r->students[i].device, device, CLASS_DEVICE_LEN)) found = i;
    return found;
}

ClassError class_room_join(ClassRoom *r, const char *device, const uint8_t *code, size_t code_len,
                           const uint8_t *nick, size_t nick_len, int *student) {
    *student = -1;
    if (code_len != CLASS_CODE_LEN || !class_secret_equal((const char *)code, r->code, CLASS_CODE_LEN))
        return CLASS_ERR_CODE;
    size_t at = 0, n = class_text_trim(nick, nick_len, &at);
    if (n) {
        ClassError e = class_text_check(nick + at, n);
        if (e != CLASS_OK) return e;
    }
    int k = class_room_find(r, device);
    if (k < 0) {
        if (!is_device(device)) return CLASS_ERR_BAD_FORM;
        if (r->locked) return CLASS_ERR_LOCKED;
        if (r->n_students >= r->max_students) return CLASS_ERR_FULL;
        k = r->n_students++;
        memcpy(r->students[k].device, device, CLASS_DEVICE_LEN + 1);
        r->students[k].nick[0] = 0;
    }
    if (n) {
        memcpy(r->students[k].nick, nick + at, n);
        r->students[k].nick[n] = 0;
    }
    *student = k;
    return CLASS_OK;
}

const ClassGuess *class_room_guess_of(const ClassRoom *r, int student) {
    const ClassRound *c = class_room_current(r);
    if (!c || student < 0) return NULL;
    for (int i = 0; i < c->n_guesses; i++)
        if (c->guesses[i].student == student) return &c->guesses[i];
    return NULL;
}

ClassError class_room_guess(ClassRoom *r, const char *device, const uint8_t *text, size_t len,
                            ClassGuessToken *out) {
    int k = class_room_find(r, device);
    if (k < 0) return CLASS_ERR_NOT_JOINED;
    if (r->phase != CLASS_PHASE_OPEN) return CLASS_ERR_NOT_OPEN;
    if (class_room_guess_of(r, k)) return CLASS_ERR_ALREADY;
    ClassGuessToken g;
    ClassError e = class_guess_encode(r->tok, r->context, r->context_len, text, len, &g);
    if (e != CLASS_OK) return e;
    ClassRound *c = &r->rounds[r->n_rounds - 1];
    if (c->n_guesses == c->cap) {
        int cap = c->cap ? c->cap * 2 : 32;
        ClassGuess *more = realloc(c->guesses, (size_t)cap * sizeof *more);
        if (!more) return CLASS_ERR_NOMEM;
        c->guesses = more;
        c->cap = cap;
    }
    c->guesses[c->n_guesses++] = (ClassGuess){.student = k, .g = g};
    if (out) *out = g;
    return CLASS_OK;
}

int class_room_open(ClassRoom *r, ClassGame game, int pos, const uint8_t *context, size_t cn, ErrorMsg *err) {
    if (r->phase == CLASS_PHASE_OPEN) return error_set(err, "a round is open: reveal it first");
    if (r->n_rounds >= CLASS_MAX_ROUNDS) return error_set(err, "the room has played %d rounds, its most", CLASS_MAX_ROUNDS);
    size_t keep = cn > CLASS_CONTEXT_MAX ? CLASS_CONTEXT_MAX : cn;
    memcpy(r->context, context + (cn - keep), keep);
    r->context[keep] = 0;
    r->context_len = keep;
    r->rounds[r->n_rounds++] = (ClassRound){.game = game, .pos = pos, .truth = -1, .model_top = -1};
    r->phase = CLASS_PHASE_OPEN;
    return 0;
}

int class_room_reveal(ClassRoom *r, int truth, double model_p, int model_top, ErrorMsg *err) {
    if (r->phase != CLASS_PHASE_OPEN) return error_set(err, "no round is open");
    if (truth < 0 || (size_t)truth >= r->n_vocab) return error_set(err, "token %d is not in the vocabulary", truth);
    ClassRound *c = &r->rounds[r->n_rounds - 1];
    c->truth = truth;
    /* p in (0, 1]: a p that underflowed to 0 still scores (as 1e-300, ~997 bits) */
    c->model_p = model_p > 1.0 ? 1.0 : model_p > 1e-300 ? model_p : 1e-300;
    c->model_top = model_top;
    r->phase = CLASS_PHASE_REVEALED;
    return 0;
}

void class_room_lock(ClassRoom *r, int locked) { r->locked = locked != 0; }

void class_room_clear_names(ClassRoom *r) {
    for (int i = 0; i < r->n_students; i++) memset(r->students[i].nick, 0, sizeof r->students[i].nick);
}
