/* app_editor.h — the window's prompt editor (app_editor.c). */
#ifndef APP_EDITOR_H
#define APP_EDITOR_H

#include <SDL.h>

#include "app.h"

/* Opens the editor on the current prompt (cut at APP_EDIT_MAX - 1 bytes, never inside a
 * UTF-8 character). */
void app_edit_open(AppState *app);

/* A key while editing: Enter applies (a job; the editor closes when it succeeds), Esc
 * cancels, Backspace drops one character, Ctrl+U clears. Printable keys come as text. */
void app_edit_key(AppState *app, SDL_Keycode key, Uint16 mod);

/* Typed text appended (refused with a status message past APP_EDIT_MAX - 1 bytes). */
void app_edit_text(AppState *app, const char *text);

#endif
