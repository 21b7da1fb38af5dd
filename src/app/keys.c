/* keys.c — the key table (see keys.h) and its lookups. Adding a key means adding one
 * row here: the handler (app_update.c switches on the intent) and the help overlay
 * both read this table. */
#include "keys.h"

/* UTF-8 arrows in the help text: → U+2192, ← U+2190, ↑ U+2191, ↓ U+2193, − U+2212. */
#define RIGHT_ARROW "\xE2\x86\x92"
#define LEFT_ARROW "\xE2\x86\x90"
#define UP_ARROW "\xE2\x86\x91"
#define DOWN_ARROW "\xE2\x86\x93"

static const KeyBinding TABLE[] = {
    /* presenter mode (a lesson): remotes send PageUp/PageDown; Space and the arrows work too */
    {SDLK_PAGEDOWN, KEYMOD_NONE, INTENT_BEAT_NEXT, 0, "PageDown / Space / " RIGHT_ARROW, "next beat of the lesson", 1},
    {SDLK_SPACE, KEYMOD_NONE, INTENT_BEAT_NEXT, 0, NULL, NULL, 1},
    {SDLK_RIGHT, KEYMOD_NONE, INTENT_BEAT_NEXT, 0, NULL, NULL, 1},
    {SDLK_PAGEUP, KEYMOD_NONE, INTENT_BEAT_PREV, 0, "PageUp / " LEFT_ARROW, "previous beat (rebuilt exactly)", 1},
    {SDLK_LEFT, KEYMOD_NONE, INTENT_BEAT_PREV, 0, NULL, NULL, 1},
    {SDLK_HOME, KEYMOD_NONE, INTENT_BEAT_FIRST, 0, "Home", "first beat", 1},
    /* the window */
    {SDLK_SPACE, KEYMOD_NONE, INTENT_STEP, 0, "Space / " RIGHT_ARROW, "one step: append the next token", 0},
    {SDLK_RIGHT, KEYMOD_NONE, INTENT_STEP, 0, NULL, NULL, 0},
    {SDLK_LEFT, KEYMOD_NONE, INTENT_BACK, 0, LEFT_ARROW, "step back one token (nothing is recomputed)", 0},
    {SDLK_HOME, KEYMOD_NONE, INTENT_HOME, 0, "Home", "back to the prompt", 0},
    {SDLK_r, KEYMOD_NONE, INTENT_REROLL, 0, "R", "re-roll: new dice for the pending draw", 0},
    {SDLK_r, KEYMOD_SHIFT, INTENT_DRAWS, 0, "Shift+R",
     "roll the dice 100 / 1,000 / 10,000 times / off", 0},
    {SDLK_g, KEYMOD_NONE, INTENT_TOGGLE_GREEDY, 0, "G", "greedy (argmax) on / off", 0},
    {SDLK_t, KEYMOD_NONE, INTENT_KNOB, KNOB_TEMPERATURE, "T, then " UP_ARROW "/" DOWN_ARROW,
     "temperature \xC2\xB1" "0.1 (0 to 5)", 0},
    {SDLK_k, KEYMOD_NONE, INTENT_KNOB, KNOB_TOP_K, "K, then " UP_ARROW "/" DOWN_ARROW,
     "top-k: off, 1, 2, 3, 5, 10, 20, 40, 100, \xE2\x80\xA6", 0},
    {SDLK_p, KEYMOD_NONE, INTENT_KNOB, KNOB_TOP_P, "P, then " UP_ARROW "/" DOWN_ARROW, "top-p \xC2\xB1" "0.05", 0},
    {SDLK_l, KEYMOD_NONE, INTENT_KNOB, KNOB_LAYER, "L, then " UP_ARROW "/" DOWN_ARROW,
     "attention layer (or click a thumbnail)", 0},
    {SDLK_h, KEYMOD_NONE, INTENT_KNOB, KNOB_HEAD, "H, then " UP_ARROW "/" DOWN_ARROW, "attention head", 0},
    {SDLK_UP, KEYMOD_NONE, INTENT_KNOB_UP, 0, NULL, NULL, 0},
    {SDLK_DOWN, KEYMOD_NONE, INTENT_KNOB_DOWN, 0, NULL, NULL, 0},
    {SDLK_s, KEYMOD_NONE, INTENT_TOGGLE_SINK, 0, "S", "hide the attention sink (key 0) from the colour scale", 0},
    {SDLK_a, KEYMOD_NONE, INTENT_AXIS, 0, "A", "probability axis: auto / fixed 0\xE2\x80\x93" "100 % / log", 0},
    {SDLK_m, KEYMOD_NONE, INTENT_TEXT_MODE, 0, "M", "text marks: plain / surprisal (bits) / seen in training", 0},
    {SDLK_1, KEYMOD_NONE, INTENT_FORCE_RANK, 1, "1 \xE2\x80\xA6 9 / click a bar",
     "take the token of that rank (a new branch)", 0},
    {SDLK_2, KEYMOD_NONE, INTENT_FORCE_RANK, 2, NULL, NULL, 0},
    {SDLK_3, KEYMOD_NONE, INTENT_FORCE_RANK, 3, NULL, NULL, 0},
    {SDLK_4, KEYMOD_NONE, INTENT_FORCE_RANK, 4, NULL, NULL, 0},
    {SDLK_5, KEYMOD_NONE, INTENT_FORCE_RANK, 5, NULL, NULL, 0},
    {SDLK_6, KEYMOD_NONE, INTENT_FORCE_RANK, 6, NULL, NULL, 0},
    {SDLK_7, KEYMOD_NONE, INTENT_FORCE_RANK, 7, NULL, NULL, 0},
    {SDLK_8, KEYMOD_NONE, INTENT_FORCE_RANK, 8, NULL, NULL, 0},
    {SDLK_9, KEYMOD_NONE, INTENT_FORCE_RANK, 9, NULL, NULL, 0},
    {SDLK_TAB, KEYMOD_NONE, INTENT_NEXT_BRANCH, 0, "Tab", "next branch (every branch is kept)", 0},
    {SDLK_RETURN, KEYMOD_NONE, INTENT_EDIT_PROMPT, 0, "Enter", "edit the prompt (Enter applies, Esc cancels)", 0},
    {SDLK_KP_ENTER, KEYMOD_NONE, INTENT_EDIT_PROMPT, 0, NULL, NULL, 0},
    {SDLK_e, KEYMOD_NONE, INTENT_EXPORT_FRAME, 0, "E", "export the frame as PNG", 0},
    {SDLK_e, KEYMOD_SHIFT, INTENT_EXPORT_PANEL, 0, "Shift+E", "export the panel under the mouse", 0},
    {SDLK_f, KEYMOD_NONE, INTENT_FOCUS, 0, "F", "enlarge the panel under the mouse / back", 0},
    {SDLK_b, KEYMOD_NONE, INTENT_BLANK, 0, "B", "blank the screen (presenter) / show it", 0},
    /* '?' arrives as Shift+/ on most layouts, as SDLK_QUESTION on a few */
    {SDLK_SLASH, KEYMOD_SHIFT, INTENT_HELP, 0, "?", "this key overlay", 0},
    {SDLK_QUESTION, KEYMOD_ANY, INTENT_HELP, 0, NULL, NULL, 0},
    {SDLK_F1, KEYMOD_NONE, INTENT_HELP, 0, NULL, NULL, 0},
    {SDLK_F11, KEYMOD_NONE, INTENT_FULLSCREEN, 0, "F11", "full screen", 0},
    /* Ctrl + is Ctrl+= (or Ctrl+Shift+=) on a US keyboard, or the keypad's + */
    {SDLK_EQUALS, KEYMOD_CTRL, INTENT_SCALE_UP, 0, "Ctrl +", "larger UI (up to 250 %, for projectors)", 0},
    {SDLK_EQUALS, KEYMOD_CTRL | KEYMOD_SHIFT, INTENT_SCALE_UP, 0, NULL, NULL, 0},
    {SDLK_PLUS, KEYMOD_CTRL, INTENT_SCALE_UP, 0, NULL, NULL, 0},
    {SDLK_KP_PLUS, KEYMOD_CTRL, INTENT_SCALE_UP, 0, NULL, NULL, 0},
    {SDLK_MINUS, KEYMOD_CTRL, INTENT_SCALE_DOWN, 0, "Ctrl \xE2\x88\x92", "smaller UI (down to 100 %)", 0},
    {SDLK_KP_MINUS, KEYMOD_CTRL, INTENT_SCALE_DOWN, 0, NULL, NULL, 0},
    {SDLK_d, KEYMOD_NONE, INTENT_THEME, 0, "D", "light / dark theme", 0},
    {SDLK_i, KEYMOD_NONE, INTENT_INSIDE, 0, "I", "inside: lens, attribution, journey, q\xC2\xB7k math, lines, heads", 0},
    {SDLK_x, KEYMOD_NONE, INTENT_ABLATE_HEAD, 0, "X (Shift+X)", "head shown off / on (all back on)", 0},
    {SDLK_x, KEYMOD_SHIFT, INTENT_ABLATE_HEAD, 1, NULL, NULL, 0},
    {SDLK_v, KEYMOD_NONE, INTENT_ATTR_VS, 0, "V", "why the pick and not the runner-up / back", 0},
    {SDLK_o, KEYMOD_NONE, INTENT_SAMPLER_ORDER, 0, "O", "order: HF (T first) / llama.cpp (T last)", 0},
    {SDLK_c, KEYMOD_NONE, INTENT_COMPARE, 0, "C", "settings side by side, the same dice / back", 0},
    {SDLK_ESCAPE, KEYMOD_NONE, INTENT_QUIT, 0, "Esc / Q", "quit (Esc first closes the overlay or the editor)", 0},
    {SDLK_q, KEYMOD_NONE, INTENT_QUIT, 0, NULL, NULL, 0},
};

const KeyBinding *keys_table(size_t *n) {
    *n = sizeof TABLE / sizeof TABLE[0];
    return TABLE;
}

static const KeyBinding *find_key(SDL_Keycode key, int mods, int presenter_rows) {
    for (size_t i = 0; i < sizeof TABLE / sizeof TABLE[0]; i++) {
        const KeyBinding *b = &TABLE[i];
        if ((b->presenter != 0) == presenter_rows && b->key == key && (b->mods == KEYMOD_ANY || b->mods == mods))
            return b;
    }
    return NULL;
}

const KeyBinding *keys_lookup_mode(SDL_Keycode key, Uint16 sdl_mod, int presenter) {
    int mods = ((sdl_mod & KMOD_SHIFT) ? KEYMOD_SHIFT : 0) | ((sdl_mod & KMOD_CTRL) ? KEYMOD_CTRL : 0);
    const KeyBinding *b = presenter ? find_key(key, mods, 1) : NULL;
    return b ? b : find_key(key, mods, 0);
}

const KeyBinding *keys_lookup(SDL_Keycode key, Uint16 sdl_mod) { return keys_lookup_mode(key, sdl_mod, 0); }

static int help_rows(VizKeyHelp *out, int n, int cap, int presenter_rows) {
    for (size_t i = 0; i < sizeof TABLE / sizeof TABLE[0] && n < cap; i++) {
        if (!TABLE[i].help_keys || (TABLE[i].presenter != 0) != presenter_rows) continue;
        out[n].keys = TABLE[i].help_keys;
        out[n].action = TABLE[i].help_action;
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
