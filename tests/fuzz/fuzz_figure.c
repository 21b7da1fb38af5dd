/* fuzz_figure.c — libFuzzer harness for the figure provenance reader figure_meta_parse
 * (src/figure/figure_meta.h) on arbitrary text-chunk lists. The input is split like tEXt chunk
 * payloads: keyword NUL value NUL keyword NUL value ... (a last keyword without a value
 * gets ""). Oracles:
 *   refused  -> one line "fuzz-figure: ..." naming a key the reader knows, nothing owned;
 *   accepted -> every field in range (lengths consistent, settings valid, view in range);
 *               then, on tests/fuzz/model-c65 (opened once): a state the model cannot
 *               hold (an id >= its vocabulary, a layer/head it lacks, too many tokens,
 *               an ablated part it lacks) is
 *               refused by figure_state_apply in one line; any other state is applied,
 *               rebuilt with figure_meta_build and parsed again, and must come back the
 *               same (the sidecar JSON of it holds the same entries).
 * Only the public API (figure_meta_parse, FigureState, figure_meta_build/json), so the
 * harness does not depend on how the reader parses JSON. Not the PNG codec
 * (fuzz_png_text.c). */
#include "fuzz.h"

#include <cJSON.h>
#include <math.h>

#include "figure_meta.h"
#include "gpt2_ablation.h"
#include "frame.h"
#include "json_whole.h"
#include "panel_table.h"
#include "session.h"
#include "utf8.h"

#define FUZZ_FIGURE_WHAT "fuzz-figure"
#define FUZZ_FIGURE_MAX_ENTRIES 128
/* A 65-character model (2 layers, 2 heads, 16 positions; scripts/fuzz-seeds.py makes it):
 * the sampler runs over 65 tokens, so a replay costs well under a millisecond, where the
 * reference tiny model's 50,257 took 160-670 ms each under the sanitizers. */
#define FUZZ_FIGURE_MODEL "tests/fuzz/model-c65"

/* Every key the reader knows (figure_meta.h), for the refusal oracle and the dict. */
static const char *const FUZZ_FIGURE_KEYS[] = {
    "Software", "inferscope:format", "inferscope:model", "inferscope:model_sha256", "inferscope:prompt",
    "inferscope:ids", "inferscope:n_prompt", "inferscope:step", "inferscope:branch", "inferscope:n_branches",
    "inferscope:salts", "inferscope:pending_salt", "inferscope:panel", "inferscope:focus", "inferscope:layer",
    "inferscope:head", "inferscope:contact_sheet", "inferscope:tensor", "inferscope:colormap",
    "inferscope:color_range", "inferscope:temperature", "inferscope:top_k", "inferscope:top_p",
    "inferscope:greedy", "inferscope:seed", "inferscope:theme", "inferscope:scale", "inferscope:ui_scale",
    "inferscope:size", "inferscope:top_n", "inferscope:hide_sink", "inferscope:selected_token",
    "inferscope:bpe_step", "inferscope:hide_probs", "inferscope:highlight_panel", "inferscope:highlight_token",
    "inferscope:highlight_bar", "inferscope:prob_axis", "inferscope:ablate", "inferscope:text_mode",
    "inferscope:weights", "inferscope:kernels", "inferscope:query", "inferscope:heads", "inferscope:attr_vs",
    "inferscope:draws", "inferscope:compare", "inferscope:compare_n",
};

/* ---- the reference session (opened once; freed at exit) ------------------------------ */

static Session fuzz_fig_session;
static int fuzz_fig_open;

static void fuzz_fig_cleanup(void) { session_free(&fuzz_fig_session); }

static Session *fuzz_fig_session_get(void) {
    if (!fuzz_fig_open) {
        ErrorMsg err = {{0}};
        FUZZ_ASSERT(session_open(&fuzz_fig_session, FUZZ_FIGURE_MODEL, fuzz_tokenizer_dir(), 0, GPT2_CAP_DEFAULT,
                                 &err) == 0,
                    "%s", err.text);
        fuzz_fig_open = 1;
        atexit(fuzz_fig_cleanup);
    }
    return &fuzz_fig_session;
}

/* ---- oracles ---------------------------------------------------------------------------- */

static void fuzz_fig_check_text(const char *s, size_t cap, const char *field) {
    size_t n = strnlen(s, cap);
    FUZZ_ASSERT(n < cap, "%s is not NUL-terminated", field);
    FUZZ_ASSERT(utf8_validate((const uint8_t *)s, n, NULL) == 1, "%s is not UTF-8", field);
}

/* Every field of an accepted state in the range figure_meta.h promises. */
static void fuzz_fig_check_ranges(const FigureState *fs) {
    FUZZ_ASSERT(fs->n_ids >= 1 && fs->n_ids <= FIGURE_MAX_IDS && fs->ids, "n_ids %zu", fs->n_ids);
    FUZZ_ASSERT(fs->n_prompt >= 1 && (size_t)fs->n_prompt <= fs->n_ids, "n_prompt %d of %zu", fs->n_prompt, fs->n_ids);
    FUZZ_ASSERT((size_t)fs->step == fs->n_ids - (size_t)fs->n_prompt, "step %d", fs->step);
    FUZZ_ASSERT(fs->step == 0 || fs->salts, "no salts for %d steps", fs->step);
    for (size_t i = 0; i < fs->n_ids; i++) FUZZ_ASSERT(fs->ids[i] >= 0, "id %d at %zu", fs->ids[i], i);
    FUZZ_ASSERT(fs->n_branches >= 1 && fs->n_branches <= SESSION_MAX_BRANCHES && fs->branch >= 0 &&
                    fs->branch < fs->n_branches,
                "branch %d of %d", fs->branch, fs->n_branches);
    FUZZ_ASSERT(fs->prompt_len <= FIGURE_MAX_PROMPT, "prompt %zu bytes", fs->prompt_len);
    if (fs->prompt) {
        FUZZ_ASSERT(fs->prompt[fs->prompt_len] == 0, "prompt not NUL-terminated");
        FUZZ_ASSERT(utf8_validate(fs->prompt, fs->prompt_len, NULL) == 1, "prompt is not UTF-8");
    }
    FUZZ_ASSERT(viz_panel_name(fs->panel) || fs->panel == VIZ_PANEL_FRAME, "panel %d", (int)fs->panel);
    FUZZ_ASSERT(fs->contact_sheet == 0 ? fs->sheet_layer == -1 : (fs->contact_sheet == 1 && fs->sheet_layer >= -1 &&
                                                                 fs->sheet_layer < 4096),
                "contact sheet %d layer %d", fs->contact_sheet, fs->sheet_layer);
    const VizView *v = &fs->view;
    FUZZ_ASSERT(v->layer >= 0 && v->layer < 4096 && v->head >= 0 && v->head < 4096, "layer %d head %d", v->layer,
                v->head);
    FUZZ_ASSERT(v->top_n >= 1 && v->top_n <= SESSION_TOP_N, "top_n %d", v->top_n);
    FUZZ_ASSERT(v->selected_token >= -1 && v->selected_token < (int)fs->n_ids, "selected %d", v->selected_token);
    FUZZ_ASSERT(v->highlight_token >= -1 && v->highlight_token < (int)fs->n_ids, "highlight %d", v->highlight_token);
    FUZZ_ASSERT(v->highlight_panel >= -1 && v->highlight_panel < VIZ_PANEL_COUNT, "highlight panel");
    FUZZ_ASSERT(v->highlight_bar >= 0 && v->highlight_bar <= SESSION_TOP_N, "highlight bar");
    FUZZ_ASSERT(v->prob_axis_max > 0.0f && v->prob_axis_max <= 1.0f, "axis max %g", (double)v->prob_axis_max);
    ErrorMsg err = {{0}};
    FUZZ_ASSERT(sampler_settings_validate(&fs->settings, &err) == 0, "settings: %s", err.text);
    FUZZ_ASSERT(fs->settings.greedy == 0 || fs->settings.greedy == 1, "greedy %d", fs->settings.greedy);
    FUZZ_ASSERT(fs->theme == THEME_LIGHT || fs->theme == THEME_DARK, "theme %d", (int)fs->theme);
    FUZZ_ASSERT(fs->scale == 1 || fs->scale == 2 || fs->scale == 4, "scale %d", fs->scale);
    FUZZ_ASSERT(fs->ui_scale >= VIZ_UI_SCALE_MIN && fs->ui_scale <= VIZ_UI_SCALE_MAX, "ui_scale %g", (double)fs->ui_scale);
    FUZZ_ASSERT(fs->width >= 1 && fs->height >= 1 && fs->width * fs->scale <= 16384 && fs->height * fs->scale <= 16384,
                "size %dx%d", fs->width, fs->height);
    size_t sha = strlen(fs->model_sha256);
    FUZZ_ASSERT(sha == 0 || sha == 64, "sha256 of %zu digits", sha);
    fuzz_fig_check_text(fs->software, sizeof fs->software, "software");
    fuzz_fig_check_text(fs->model, sizeof fs->model, "model");
    fuzz_fig_check_text(fs->tensor, sizeof fs->tensor, "tensor");
    fuzz_fig_check_text(fs->colormap, sizeof fs->colormap, "colormap");
    fuzz_fig_check_text(fs->color_range, sizeof fs->color_range, "color_range");
}

/* A refusal: one line from the source, naming a key the reader knows. */
static void fuzz_fig_check_refusal(const FigureState *fs, const ErrorMsg *err) {
    FUZZ_ASSERT(strncmp(err->text, FUZZ_FIGURE_WHAT ": ", sizeof FUZZ_FIGURE_WHAT + 1) == 0, "lacks source: %s",
                err->text);
    FUZZ_ASSERT(strchr(err->text, '\n') == NULL, "message spans lines: %s", err->text);
    /* a key of ours written twice is named as the file spells it (quoted, controls as
     * \xNN, cut at 60 bytes), known to the reader or not */
    int named = strstr(err->text, "provenance key \"") != NULL && strstr(err->text, "\" appears twice") != NULL;
    for (size_t k = 0; !named && k < sizeof FUZZ_FIGURE_KEYS / sizeof FUZZ_FIGURE_KEYS[0]; k++) {
        const char *key = FUZZ_FIGURE_KEYS[k], *colon = strchr(key, ':');
        named = strstr(err->text, colon ? colon + 1 : key) != NULL; /* "format", "top_k" */
    }
    /* the sampler settings' keys are the settings table's rows */
    size_t n_rows;
    const SettingRow *rows = settings_table(&n_rows);
    for (size_t k = 0; !named && k < n_rows; k++) named = strstr(err->text, rows[k].figure_key) != NULL;
    FUZZ_ASSERT(named, "message names no key: %s", err->text);
    FUZZ_ASSERT(fs->ids == NULL && fs->prompt == NULL && fs->salts == NULL && fs->n_ids == 0, "state not freed");
}

/* 1 if the figure's prompt text is exactly what its prompt ids came from, so applying the
 * state keeps the text (figure_state_apply's rule); else the figure is reopened from ids. */
static int fuzz_fig_prompt_kept(Session *s, const FigureState *fs) {
    if (!fs->prompt || fs->prompt_len == 0) return 0;
    TokEncoding e = {0};
    ErrorMsg err;
    int same = tok_encode(&s->tok, fs->prompt, fs->prompt_len, NULL, &e, &err) == 0 && e.n_ids == (size_t)fs->n_prompt;
    for (size_t i = 0; same && i < e.n_ids; i++) same = e.ids[i] == fs->ids[i];
    tok_encoding_free(&e);
    return same;
}

/* The sidecar of m is one JSON object with the same entries (plain values as strings). */
static void fuzz_fig_check_sidecar(const FigureMeta *m) {
    char *json = NULL;
    size_t len = 0;
    ErrorMsg err = {{0}};
    FUZZ_ASSERT(figure_meta_json(m, &json, &len, &err) == 0, "sidecar: %s", err.text);
    cJSON *root = json_parse_whole(json, len, "sidecar", &err);
    FUZZ_ASSERT(root && cJSON_IsObject(root) && (size_t)cJSON_GetArraySize(root) == m->n, "sidecar: %s\n%s", err.text,
                json);
    for (size_t i = 0; i < m->n; i++) {
        const cJSON *it = cJSON_GetObjectItemCaseSensitive(root, m->text[i].keyword);
        FUZZ_ASSERT(it != NULL, "sidecar lacks %s", m->text[i].keyword);
        if (!m->is_json[i])
            FUZZ_ASSERT(cJSON_IsString(it) && strcmp(it->valuestring, m->values[i]) == 0, "sidecar %s differs",
                        m->text[i].keyword);
    }
    cJSON_Delete(root);
    free(json);
}

#define FUZZ_FIG_SAME(field) FUZZ_ASSERT(back.field == fs->field, "round trip changed " #field)

/* apply -> build -> parse gives the same state back. */
static void fuzz_fig_roundtrip(Session *s, const FigureState *fs) {
    VizView view;
    ErrorMsg err = {{0}};
    FUZZ_ASSERT(figure_state_apply(fs, s, &view, &err) == 0, "apply: %s", err.text);
    FigureMetaInput in = {.panel = fs->panel, .width = fs->width, .height = fs->height, .scale = fs->scale,
                          .ui_scale = fs->ui_scale, .theme = fs->theme,
                          .model_sha256 = fs->model_sha256[0] ? fs->model_sha256 : NULL,
                          .contact_sheet = fs->contact_sheet, .sheet_layer = fs->sheet_layer};
    FigureMeta m = {0};
    FUZZ_ASSERT(figure_meta_build(&m, s, &view, &in, &err) == 0, "build: %s", err.text);
    fuzz_fig_check_sidecar(&m);
    PngTextEntry items[FIGURE_META_MAX];
    for (size_t i = 0; i < m.n; i++) items[i] = (PngTextEntry){(char *)m.text[i].keyword, m.values[i]};
    PngTextChunks t = {.items = items, .count = m.n};
    FigureState back = {0};
    FUZZ_ASSERT(figure_meta_parse(&t, "rebuilt", &back, &err) == 0, "rebuilt figure refused: %s", err.text);
    FUZZ_FIG_SAME(n_ids);
    FUZZ_ASSERT(memcmp(back.ids, fs->ids, fs->n_ids * sizeof *fs->ids) == 0, "round trip changed ids");
    FUZZ_FIG_SAME(n_prompt);
    FUZZ_FIG_SAME(step);
    FUZZ_ASSERT(fs->step == 0 || memcmp(back.salts, fs->salts, (size_t)fs->step * sizeof *fs->salts) == 0,
                "round trip changed salts");
    FUZZ_FIG_SAME(pending_salt);
    FUZZ_FIG_SAME(seed);
    FUZZ_ASSERT(settings_equal(&back.settings, &fs->settings), "round trip changed the sampler settings");
    FUZZ_FIG_SAME(panel);
    FUZZ_FIG_SAME(contact_sheet);
    FUZZ_FIG_SAME(sheet_layer);
    FUZZ_FIG_SAME(view.layer);
    FUZZ_FIG_SAME(view.head);
    FUZZ_FIG_SAME(view.focus);
    FUZZ_FIG_SAME(view.top_n);
    FUZZ_FIG_SAME(view.hide_sink);
    FUZZ_FIG_SAME(view.selected_token);
    FUZZ_FIG_SAME(view.bpe_step);
    FUZZ_FIG_SAME(view.hide_probs);
    FUZZ_FIG_SAME(view.highlight_panel);
    FUZZ_FIG_SAME(view.highlight_token);
    FUZZ_FIG_SAME(view.highlight_bar);
    FUZZ_FIG_SAME(view.prob_axis);
    FUZZ_ASSERT(back.view.prob_axis_max == fs->view.prob_axis_max, "round trip changed prob_axis_max: %.9g -> %.9g",
                (double)fs->view.prob_axis_max, (double)back.view.prob_axis_max);
    FUZZ_FIG_SAME(theme);
    FUZZ_FIG_SAME(scale);
    FUZZ_FIG_SAME(ui_scale);
    FUZZ_FIG_SAME(width);
    FUZZ_FIG_SAME(height);
    FUZZ_ASSERT(strcmp(back.model_sha256, fs->model_sha256) == 0, "round trip changed model_sha256");
    if (fuzz_fig_prompt_kept(s, fs))
        FUZZ_ASSERT(back.prompt_len == fs->prompt_len && memcmp(back.prompt, fs->prompt, fs->prompt_len) == 0,
                    "round trip changed the prompt text");
    else
        FUZZ_ASSERT(back.prompt_len == 0, "a prompt given as ids came back as %zu bytes of text", back.prompt_len);
    figure_state_free(&back);
    figure_meta_free(&m);
}

/* A state the model cannot hold is refused before the session changes. Returns 1 if so. */
static int fuzz_fig_refused_by_model(Session *s, const FigureState *fs) {
    int fits = fs->n_ids <= (size_t)s->trace.max_pos && fs->view.layer < s->model.config.n_layer &&
               fs->view.head < s->model.config.n_head;
    for (size_t i = 0; fits && i < fs->n_ids; i++) fits = fs->ids[i] < session_vocab(s);
    if (fits && fs->ablate[0]) { /* parts this model lacks (block 5 of 2, head 3 of 2) */
        Gpt2Ablation ab = {0};
        ErrorMsg e = {{0}};
        fits = gpt2_ablation_parse(&ab, &s->model.config, fs->ablate, &e) == 0;
        gpt2_ablation_free(&ab);
    }
    if (fits) return 0;
    VizView view;
    ErrorMsg err = {{0}};
    FUZZ_ASSERT(figure_state_apply(fs, s, &view, &err) == -1, "a state beyond the model was applied");
    FUZZ_ASSERT(strncmp(err.text, "figure: ", 8) == 0 && strchr(err.text, '\n') == NULL, "bad refusal: %s", err.text);
    return 1;
}

/* Returns 1 if the reader accepted the list, 0 if it refused it. */
static int fuzz_figure_one(const uint8_t *data, size_t size) {
    /* keyword NUL value NUL ...: one NUL-terminated copy, entries pointing into it */
    char *buf = malloc(size + 2);
    FUZZ_ASSERT(buf != NULL, "out of memory");
    memcpy(buf, data, size);
    buf[size] = buf[size + 1] = '\0';
    PngTextEntry items[FUZZ_FIGURE_MAX_ENTRIES];
    size_t n = 0;
    for (size_t at = 0; at < size && n < FUZZ_FIGURE_MAX_ENTRIES;) {
        char *key = buf + at;
        at += strlen(key) + 1;
        char *value = at <= size ? buf + at : buf + size + 1;
        at += strlen(value) + 1;
        items[n++] = (PngTextEntry){key, value};
    }
    PngTextChunks t = {.items = items, .count = n};
    FigureState fs = {0};
    ErrorMsg err = {{0}};
    int accepted = figure_meta_parse(&t, FUZZ_FIGURE_WHAT, &fs, &err) == 0;
    if (!accepted) {
        fuzz_fig_check_refusal(&fs, &err);
    } else {
        fuzz_fig_check_ranges(&fs);
        Session *s = fuzz_fig_session_get();
        if (!fuzz_fig_refused_by_model(s, &fs)) fuzz_fig_roundtrip(s, &fs);
    }
    figure_state_free(&fs);
    free(buf);
    return accepted;
}

FUZZ_ENTRY(fuzz_figure_one)
