/* keys.h — the ONE key table of the window (two parts: presenter mode's keys, which a
 * lesson looks up first, and the window's): every row maps the keys (plus the modifiers
 * they need) of one command to an intent, and carries the words the help overlay (`?`)
 * shows, so the overlay can never disagree with the handlers. Keys only name intents;
 * src/app/app_update.c is the one place that applies them to the session and view.
 * Not the mouse (clicks turn into intents in app_update.c via the frame's hits). */
#ifndef KEYS_H
#define KEYS_H

#include <SDL.h>

#include "frame.h"
#include "settings.h"

/* What the user wants. A few intents carry an argument (KeyCommand.arg). */
typedef enum AppIntent {
    INTENT_NONE = 0,
    INTENT_STEP,          /* append one token (session_step) */
    INTENT_BACK,          /* remove the newest token (session_back, nothing recomputed) */
    INTENT_HOME,          /* back to the end of the prompt */
    INTENT_REROLL,        /* new dice for the pending draw */
    INTENT_DRAWS,         /* roll the pending dice many times: 100, then x10 per press up to
                             10,000, then off again (ACT_DRAWS) */
    INTENT_TOGGLE_GREEDY, /* greedy on/off */
    INTENT_KNOB,          /* select what ↑/↓ change: arg = AppKnob */
    INTENT_KNOB_UP,       /* ↑: the selected setting one notch up */
    INTENT_KNOB_DOWN,     /* ↓: one notch down */
    INTENT_TOGGLE_SINK,   /* hide key column 0 from the attention colour scale */
    INTENT_AXIS,          /* probability axis: automatic → fixed 0..100 % → log → automatic */
    INTENT_TEXT_MODE,     /* Text panel marks: plain → surprisal → seen in training → plain */
    INTENT_FORCE_RANK,    /* take the token of rank arg (1-based) as the next token */
    INTENT_NEXT_BRANCH,   /* show the next branch (wraps) */
    INTENT_EDIT_PROMPT,   /* open the prompt editor */
    INTENT_EXPORT_FRAME,  /* PNG of the whole frame */
    INTENT_EXPORT_PANEL,  /* PNG of the panel under the mouse */
    INTENT_RECORD,        /* record the steps taken into a video / stop (app_record.h) */
    INTENT_FOCUS,         /* enlarge the panel under the mouse / back to the full layout */
    INTENT_BLANK,         /* presenter: blank the screen / show it again */
    INTENT_HELP,          /* key overlay on/off */
    INTENT_FULLSCREEN,    /* F11 */
    INTENT_SCALE_UP,      /* UI scale +25 % (max 250 %) */
    INTENT_SCALE_DOWN,    /* UI scale -25 % (min 100 %) */
    INTENT_THEME,         /* light <-> dark */
    INTENT_INSIDE,        /* the next "inside the model" panel enlarged (lens, attribution, ...),
                           * after the last: the full layout again */
    INTENT_ABLATE_HEAD,   /* arg 0: switch the head shown (view.layer/head) off, or on again;
                           * arg 1: every part back on (the original numbers, bit for bit) */
    INTENT_QUIT,          /* Esc closes an overlay or the editor first (app_update.c) */
    INTENT_BEAT_NEXT,     /* presenter: the next beat of the lesson */
    INTENT_BEAT_PREV,     /* presenter: the previous beat (rebuilt exactly) */
    INTENT_BEAT_FIRST,    /* presenter: the first beat */
    INTENT_ATTR_VS,       /* attribution: why the pick and not the runner-up (the attribution panel
                           * enlarged), or again: the pick's logit alone */
    INTENT_COMPARE,       /* settings side by side: the compare panel enlarged and its columns
                           * computed as a job (again: the full layout) */
    INTENT_SAMPLER_ORDER, /* the sampler chain's order: Hugging Face's (temperature first) <->
                           * llama.cpp's (temperature last); any other order goes to HF's */
    INTENT_CLASS,         /* the class room: arg = AppClassCmd (src/app/app_class.c) */
    INTENT_COUNT
} AppIntent;

/* The setting ↑/↓ change, chosen with T, K, P, L, H. */
typedef enum AppKnob {
    KNOB_NONE = 0,
    KNOB_TEMPERATURE,
    KNOB_TOP_K,
    KNOB_TOP_P,
    KNOB_LAYER,
    KNOB_HEAD,
    KNOB_COUNT
} AppKnob;

/* The teacher's class-room commands (INTENT_CLASS's arg). */
typedef enum AppClassCmd {
    CLASS_CMD_ROOM = 0, /* open the room / close it (everything about the students forgotten) */
    CLASS_CMD_ROUND,    /* open a round here / reveal the open one */
    CLASS_CMD_NEXT,     /* reveal if open, one token on, open the next round */
    CLASS_CMD_LOCK,     /* nobody new may join / they may again */
    CLASS_CMD_CLEAR,    /* forget every nickname */
    CLASS_CMD_NAMES,    /* the top students by nickname shown / hidden */
    CLASS_CMD_GAME,     /* guess the text <-> guess the model's pick (for the next round) */
    CLASS_CMD_EXPORT,   /* the rounds' results as CSV and JSON into the export folder (no names) */
} AppClassCmd;

/* Modifier sets a binding needs. Shift and Ctrl must match exactly (E vs Shift+E);
 * Alt, GUI, Caps and Num Lock are ignored. KEYMOD_ANY accepts any modifiers. */
enum { KEYMOD_NONE = 0, KEYMOD_SHIFT = 1, KEYMOD_CTRL = 2, KEYMOD_ANY = 4 };

/* One key, or a key with Shift/Ctrl. */
typedef struct KeyChord {
    SDL_Keycode key; /* 0 ends a KeyCommand's list */
    int mods;        /* KEYMOD_* */
} KeyChord;

enum { KEY_CHORDS_MAX = 4 };

/* A row of the key table: one command, the keys that give it and the help line that
 * names them, side by side so the overlay cannot list keys the table does not bind. */
typedef struct KeyCommand {
    AppIntent intent;
    int arg;                 /* INTENT_KNOB: an AppKnob; INTENT_FORCE_RANK: the rank (1-based) */
    const char *help_keys;   /* "Space / →" for the overlay; NULL = described by another
                              * row (2 … 9 by 1's, ↑/↓ by the knobs') */
    const char *help_action; /* "one step: append the next token" */
    KeyChord chords[KEY_CHORDS_MAX];
} KeyCommand;

/* A table (static storage) and its length: presenter 1, the keys of presenter mode (a
 * lesson), which go before the window's own binding of the same key; 0, the window's. */
const KeyCommand *keys_table(int presenter, size_t *n);

/* The command for a key press (SDL keysym + SDL modifier state), or NULL. presenter: 1
 * in a lesson (its rows first, then the window's), 0 outside (presenter rows skipped). */
const KeyCommand *keys_lookup_mode(SDL_Keycode key, Uint16 sdl_mod, int presenter);
/* keys_lookup_mode outside a lesson. */
const KeyCommand *keys_lookup(SDL_Keycode key, Uint16 sdl_mod);

/* Fills out[0..cap) with the help rows (commands that have help text): in a lesson
 * (presenter 1) the presenter rows first, then the rest in table order; returns how
 * many were written. */
int keys_help_mode(VizKeyHelp *out, int cap, int presenter);
/* keys_help_mode outside a lesson. */
int keys_help(VizKeyHelp *out, int cap);

/* "temperature", "top-k", "top-p", "layer", "head"; "" for KNOB_NONE. */
const char *keys_knob_name(AppKnob k);

/* The top-k ladder ↑/↓ walk (the settings table's): 0 (off), 1, 2, 3, 5, 10, 20, 40,
 * 100, 200, 500, ... Returns the next value above (dir > 0) or below (dir < 0) k,
 * clamped to the ends. */
int keys_top_k_step(int k, int dir);

/* The settings-table row a knob changes (temperature, top-k, top-p), or NULL for the
 * knobs that are not sampler settings (layer, head). */
const SettingRow *keys_knob_setting(AppKnob k);

#endif
