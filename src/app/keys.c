/* keys.c — the key table (see keys.h) and its lookups. Adding a command means adding
 * one row here (its keys and its help line) and its handler (app_update.c's table of
 * intents); the lookup and the help overlay both read this table. */
#include "keys.h"

/* UTF-8 arrows in the help text: → U+2192, ← U+2190, ↑ U+2191, ↓ U+2193, − U+2212. */
#define RIGHT_ARROW "\xE2\x86\x92"
#define LEFT_ARROW "\xE2\x86\x90"
#define UP_ARROW "\xE2\x86\x91"
#define DOWN_ARROW "\xE2\x86\x93"

#define KEY(k) {k, KEYMOD_NONE}
#define SHIFT(k) {k, KEYMOD_SHIFT}
#define CTRL(k) {k, KEYMOD_CTRL}

/* Presenter mode (a lesson) looks here first: remotes send PageUp/PageDown; Space and
 * the arrows work too. */
static const KeyCommand PRESENTER[] = {
    {INTENT_BEAT_NEXT, 0, "PageDown / Space / " RIGHT_ARROW, "next beat of the lesson",
     {KEY(SDLK_PAGEDOWN), KEY(SDLK_SPACE), KEY(SDLK_RIGHT)}},
    {INTENT_BEAT_PREV, 0, "PageUp / " LEFT_ARROW, "previous beat (rebuilt exactly)", {KEY(SDLK_PAGEUP), KEY(SDLK_LEFT)}},
    {INTENT_BEAT_FIRST, 0, "Home", "first beat", {KEY(SDLK_HOME)}},
};

/* The window, and a lesson for every key PRESENTER does not take. */
static const KeyCommand WINDOW[] = {
    /* stepping and the dice */
    {INTENT_STEP, 0, "Space / " RIGHT_ARROW, "one step: append the next token", {KEY(SDLK_SPACE), KEY(SDLK_RIGHT)}},
    {INTENT_BACK, 0, LEFT_ARROW, "step back one token (nothing is recomputed)", {KEY(SDLK_LEFT)}},
    {INTENT_HOME, 0, "Home", "back to the prompt", {KEY(SDLK_HOME)}},
    {INTENT_REROLL, 0, "R", "re-roll: new dice for the pending draw", {KEY(SDLK_r)}},
    {INTENT_DRAWS, 0, "Shift+R", "roll the dice 100 / 1,000 / 10,000 times / off", {SHIFT(SDLK_r)}},
    {INTENT_TOGGLE_GREEDY, 0, "G", "greedy (argmax) on / off", {KEY(SDLK_g)}},
    /* the knobs: a letter selects, the arrows turn */
    {INTENT_KNOB, KNOB_TEMPERATURE, "T, then " UP_ARROW "/" DOWN_ARROW, "temperature \xC2\xB1" "0.1 (0 to 5)",
     {KEY(SDLK_t)}},
    {INTENT_KNOB, KNOB_TOP_K, "K, then " UP_ARROW "/" DOWN_ARROW,
     "top-k: off, 1, 2, 3, 5, 10, 20, 40, 100, \xE2\x80\xA6", {KEY(SDLK_k)}},
    {INTENT_KNOB, KNOB_TOP_P, "P, then " UP_ARROW "/" DOWN_ARROW, "top-p \xC2\xB1" "0.05", {KEY(SDLK_p)}},
    {INTENT_KNOB, KNOB_LAYER, "L, then " UP_ARROW "/" DOWN_ARROW, "attention layer (or click a thumbnail)",
     {KEY(SDLK_l)}},
    {INTENT_KNOB, KNOB_HEAD, "H, then " UP_ARROW "/" DOWN_ARROW, "attention head", {KEY(SDLK_h)}},
    {INTENT_KNOB_UP, 0, NULL, NULL, {KEY(SDLK_UP)}},
    {INTENT_KNOB_DOWN, 0, NULL, NULL, {KEY(SDLK_DOWN)}},
    /* what the panels show */
    {INTENT_TOGGLE_SINK, 0, "S", "hide the attention sink (key 0) from the colour scale", {KEY(SDLK_s)}},
    {INTENT_AXIS, 0, "A", "probability axis: auto / fixed 0\xE2\x80\x93" "100 % / log", {KEY(SDLK_a)}},
    {INTENT_TEXT_MODE, 0, "M", "text marks: plain / surprisal (bits) / seen in training", {KEY(SDLK_m)}},
    /* taking a token: 1 … 9 by rank (a new branch) */
    {INTENT_FORCE_RANK, 1, "1 \xE2\x80\xA6 9 / click a bar", "take the token of that rank (a new branch)",
     {KEY(SDLK_1)}},
    {INTENT_FORCE_RANK, 2, NULL, NULL, {KEY(SDLK_2)}},
    {INTENT_FORCE_RANK, 3, NULL, NULL, {KEY(SDLK_3)}},
    {INTENT_FORCE_RANK, 4, NULL, NULL, {KEY(SDLK_4)}},
    {INTENT_FORCE_RANK, 5, NULL, NULL, {KEY(SDLK_5)}},
    {INTENT_FORCE_RANK, 6, NULL, NULL, {KEY(SDLK_6)}},
    {INTENT_FORCE_RANK, 7, NULL, NULL, {KEY(SDLK_7)}},
    {INTENT_FORCE_RANK, 8, NULL, NULL, {KEY(SDLK_8)}},
    {INTENT_FORCE_RANK, 9, NULL, NULL, {KEY(SDLK_9)}},
    {INTENT_NEXT_BRANCH, 0, "Tab", "next branch (every branch is kept)", {KEY(SDLK_TAB)}},
    {INTENT_EDIT_PROMPT, 0, "Enter", "edit the prompt (Enter applies, Esc cancels)",
     {KEY(SDLK_RETURN), KEY(SDLK_KP_ENTER)}},
    /* figures and the room */
    {INTENT_EXPORT_FRAME, 0, "E", "export the frame as PNG", {KEY(SDLK_e)}},
    {INTENT_EXPORT_PANEL, 0, "Shift+E", "export the panel under the mouse", {SHIFT(SDLK_e)}},
    {INTENT_RECORD, 0, "W", "record your steps into a video (MP4 beside E's) / stop", {KEY(SDLK_w)}},
    {INTENT_FOCUS, 0, "F", "enlarge the panel under the mouse / back", {KEY(SDLK_f)}},
    {INTENT_BLANK, 0, "B", "blank the screen (presenter) / show it", {KEY(SDLK_b)}},
    /* '?' arrives as Shift+/ on most layouts, as SDLK_QUESTION (any modifiers) on a few */
    {INTENT_HELP, 0, "?", "this key overlay", {SHIFT(SDLK_SLASH), {SDLK_QUESTION, KEYMOD_ANY}, KEY(SDLK_F1)}},
    {INTENT_FULLSCREEN, 0, "F11", "full screen", {KEY(SDLK_F11)}},
    /* Ctrl + is Ctrl+= (or Ctrl+Shift+=) on a US keyboard, or the keypad's + */
    {INTENT_SCALE_UP, 0, "Ctrl +", "larger UI (up to 250 %, for projectors)",
     {CTRL(SDLK_EQUALS), {SDLK_EQUALS, KEYMOD_CTRL | KEYMOD_SHIFT}, CTRL(SDLK_PLUS), CTRL(SDLK_KP_PLUS)}},
    {INTENT_SCALE_DOWN, 0, "Ctrl \xE2\x88\x92", "smaller UI (down to 100 %)", {CTRL(SDLK_MINUS), CTRL(SDLK_KP_MINUS)}},
    {INTENT_THEME, 0, "D", "light / dark theme", {KEY(SDLK_d)}},
    /* inside the model */
    {INTENT_INSIDE, 0, "I", "inside: lens, attribution, journey, q\xC2\xB7k math, lines, heads", {KEY(SDLK_i)}},
    {INTENT_ABLATE_HEAD, 0, "X (Shift+X)", "head shown off / on (all back on)", {KEY(SDLK_x)}},
    {INTENT_ABLATE_HEAD, 1, NULL, NULL, {SHIFT(SDLK_x)}},
    {INTENT_ATTR_VS, 0, "V", "why the pick and not the runner-up / back", {KEY(SDLK_v)}},
    {INTENT_SAMPLER_ORDER, 0, "O", "order: HF (T first) / llama.cpp (T last)", {KEY(SDLK_o)}},
    {INTENT_COMPARE, 0, "C", "settings side by side, the same dice / back", {KEY(SDLK_c)}},
    /* the class room: students guess on their phones (src/class/README.md) */
    {INTENT_CLASS, CLASS_CMD_ROOM, "J", "class room: open it (join address, code, QR) / close it", {KEY(SDLK_j)}},
    {INTENT_CLASS, CLASS_CMD_ROUND, "Y", "class: open a round here / reveal the answer", {KEY(SDLK_y)}},
    {INTENT_CLASS, CLASS_CMD_NEXT, "N", "class: next round (reveal, one token on, open)", {KEY(SDLK_n)}},
    {INTENT_CLASS, CLASS_CMD_GAME, "Z", "class: guess the text / guess the model's pick", {KEY(SDLK_z)}},
    {INTENT_CLASS, CLASS_CMD_LOCK, "Shift+J", "class: lock the room (nobody new) / unlock", {SHIFT(SDLK_j)}},
    {INTENT_CLASS, CLASS_CMD_NAMES, "Shift+N (Ctrl+N)", "class: top students by nickname / forget every name",
     {SHIFT(SDLK_n)}},
    {INTENT_CLASS, CLASS_CMD_CLEAR, NULL, NULL, {CTRL(SDLK_n)}},
    {INTENT_CLASS, CLASS_CMD_EXPORT, "U", "class: export the rounds as CSV + JSON (no names)", {KEY(SDLK_u)}},
    {INTENT_QUIT, 0, "Esc / Q", "quit (Esc first closes the overlay or the editor)", {KEY(SDLK_ESCAPE), KEY(SDLK_q)}},
};

const KeyCommand *keys_table(int presenter, size_t *n) {
    *n = presenter ? sizeof PRESENTER / sizeof PRESENTER[0] : sizeof WINDOW / sizeof WINDOW[0];
    return presenter ? PRESENTER : WINDOW;
}

static const KeyCommand *find_key(SDL_Keycode key, int mods, int presenter) {
    size_t n;
    const KeyCommand *t = keys_table(presenter, &n);
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < KEY_CHORDS_MAX && t[i].chords[j].key; j++)
            if (t[i].chords[j].key == key && (t[i].chords[j].mods == KEYMOD_ANY || t[i].chords[j].mods == mods))
                return &t[i];
    return NULL;
}

const KeyCommand *keys_lookup_mode(SDL_Keycode key, Uint16 sdl_mod, int presenter) {
    int mods = ((sdl_mod & KMOD_SHIFT) ? KEYMOD_SHIFT : 0) | ((sdl_mod & KMOD_CTRL) ? KEYMOD_CTRL : 0);
    const KeyCommand *c = presenter ? find_key(key, mods, 1) : NULL;
    return c ? c : find_key(key, mods, 0);
}

const KeyCommand *keys_lookup(SDL_Keycode key, Uint16 sdl_mod) { return keys_lookup_mode(key, sdl_mod, 0); }

static int help_rows(VizKeyHelp *out, int n, int cap, int presenter) {
    size_t rows;
    const KeyCommand *t = keys_table(presenter, &rows);
    for (size_t i = 0; i < rows && n < cap; i++) {
        if (!t[i].help_keys) continue;
        out[n].keys = t[i].help_keys;
        out[n].action = t[i].help_action;
        n++;
    }
    return n;
}

int keys_help_mode(VizKeyHelp *out, int cap, int presenter) {
    int n = presenter ? help_rows(out, 0, cap, 1) : 0;
    return help_rows(out, n, cap, 0);
}

int keys_help(VizKeyHelp *out, int cap) { return keys_help_mode(out, cap, 0); }

const char *keys_knob_name(AppKnob k) {
    static const char *const NAMES[KNOB_COUNT] = {"", "temperature", "top-k", "top-p", "layer", "head"};
    return ((int)k >= 0 && k < KNOB_COUNT) ? NAMES[k] : "";
}

int keys_top_k_step(int k, int dir) {
    return (int)settings_knob_next(settings_row(SETTING_TOP_K), (double)k, dir);
}

const SettingRow *keys_knob_setting(AppKnob k) {
    switch (k) {
    case KNOB_TEMPERATURE: return settings_row(SETTING_TEMPERATURE);
    case KNOB_TOP_K: return settings_row(SETTING_TOP_K);
    case KNOB_TOP_P: return settings_row(SETTING_TOP_P);
    default: return NULL;
    }
}
