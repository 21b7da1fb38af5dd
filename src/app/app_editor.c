/* app_editor.c — the prompt editor of the window (Enter opens it): the line being
 * typed, UTF-8 aware backspace, Ctrl+U; Enter hands the text to the session as an
 * ACT_PROMPT job, Esc leaves the prompt as it was. No drawing here (the status line and
 * the text panel show the line). */
#include <string.h>

#include "app.h"
#include "app_editor.h"
#include "app_jobs.h"

void app_edit_open(AppState *app) {
    const Session *s = &app->session;
    size_t n = s->prompt ? s->prompt_len : 0;
    if (n > APP_EDIT_MAX - 1) {
        n = APP_EDIT_MAX - 1;
        while (n > 0 && (s->prompt[n] & 0xC0) == 0x80) n--; /* do not cut a UTF-8 character */
    }
    if (n) memcpy(app->edit, s->prompt, n);
    app->edit[n] = 0;
    app->edit_len = n;
    app->editing = 1;
    app->view.show_help = 0;
    app_set_status(app, 0, "editing the prompt: Enter applies, Esc cancels");
}

void app_edit_key(AppState *app, SDL_Keycode key, Uint16 mod) {
    switch (key) {
    case SDLK_RETURN:
    case SDLK_KP_ENTER: {
        /* the editor closes when the job succeeds (app_jobs.c); on an error it stays */
        Action a = {.kind = ACT_PROMPT, .text = (const uint8_t *)app->edit, .text_len = app->edit_len};
        app_act(app, &a, 0);
        return;
    }
    case SDLK_ESCAPE:
        app->editing = 0;
        app_set_status(app, 0, "prompt unchanged");
        return;
    case SDLK_BACKSPACE:
        /* drop one whole UTF-8 character: continuation bytes are 10xxxxxx */
        while (app->edit_len > 0 && (app->edit[app->edit_len - 1] & 0xC0) == 0x80) app->edit_len--;
        if (app->edit_len > 0) app->edit_len--;
        app->edit[app->edit_len] = 0;
        app->dirty = 1;
        return;
    case SDLK_u:
        if (mod & KMOD_CTRL) { /* Ctrl+U clears the line, as in a shell */
            app->edit_len = 0;
            app->edit[0] = 0;
            app->dirty = 1;
        }
        return;
    default:
        return; /* printable keys arrive as APP_INPUT_TEXT */
    }
}

void app_edit_text(AppState *app, const char *text) {
    size_t n = strnlen(text, sizeof ((AppInput *)0)->text);
    if (app->edit_len + n > APP_EDIT_MAX - 1) {
        app_set_status(app, 1, "the prompt editor holds at most %d bytes", APP_EDIT_MAX - 1);
        return;
    }
    memcpy(app->edit + app->edit_len, text, n);
    app->edit_len += n;
    app->edit[app->edit_len] = 0;
    app->dirty = 1;
}

