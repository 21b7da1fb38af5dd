/* figure_state_apply.c — puts a parsed figure state (figure_meta_parse.c) into a
 * session and view: settings, ablation, prompt, every generated token replayed with its
 * recorded dice (see figure_state_apply in figure_meta.h), all as Actions (action.h): the
 * same calls a key press or a lesson line makes. */
#include "figure_meta.h"

#include <string.h>

#include "action.h"

/* ---- applying a state: provenance replayed as actions (action.h) ------------------- */

int figure_state_apply(const FigureState *fs, Session *s, VizView *view, ErrorMsg *err) {
    const Gpt2Config *cfg = &s->model.config;
    if (fs->n_ids == 0 || fs->n_prompt < 1 || (size_t)fs->n_prompt > fs->n_ids)
        return error_set(err, "figure: no tokens to replay");
    if (fs->n_ids > (size_t)s->trace.max_pos)
        return error_set(err, "figure: %zu tokens exceed this session's context of %d", fs->n_ids, s->trace.max_pos);
    if (fs->view.layer >= cfg->n_layer || fs->view.head >= cfg->n_head)
        return error_set(err, "figure: layer %d head %d, but model %s has %d layers of %d heads", fs->view.layer,
                         fs->view.head, s->model.name, cfg->n_layer, cfg->n_head);
    if (cfg->n_head < 64 && (fs->view.lines_heads >> cfg->n_head))
        return error_set(err, "figure: inferscope:heads names a head past %d, but model %s has %d heads", cfg->n_head - 1,
                         s->model.name, cfg->n_head);
    for (size_t i = 0; i < fs->n_ids; i++)
        if (fs->ids[i] < 0 || fs->ids[i] >= session_vocab(s))
            return error_set(err, "figure: token id %d at position %zu is outside the vocabulary [0, %d)",
                             fs->ids[i], i, session_vocab(s));
    Action set = {.kind = ACT_SETTINGS, .settings = &fs->settings};
    if (action_apply(s, NULL, &set, err)) return -1;
    {
        Gpt2Ablation ab = {0}; /* empty unless the figure switched parts off */
        ErrorMsg e2 = {{0}};
        int rc = fs->ablate[0] ? gpt2_ablation_parse(&ab, cfg, fs->ablate, &e2) : 0;
        if (rc) {
            error_set(err, "figure: inferscope:ablate: %s",
                      strncmp(e2.text, "--ablate: ", 10) == 0 ? e2.text + 10 : e2.text);
        } else {
            Action abl = {.kind = ACT_ABLATE, .ablation = &ab};
            rc = action_apply(s, NULL, &abl, err);
        }
        gpt2_ablation_free(&ab);
        if (rc) return -1;
    }
    Action seed = {.kind = ACT_SEED, .seed = fs->seed};
    action_apply(s, NULL, &seed, err);

    /* the prompt: the text when it gives the same ids (then the BPE replay works) */
    int done = 0;
    if (fs->prompt && fs->prompt_len > 0) {
        ErrorMsg e2;
        Action pr = {.kind = ACT_PROMPT, .text = fs->prompt, .text_len = fs->prompt_len};
        if (action_apply(s, NULL, &pr, &e2) == 0 && s->n_prompt == fs->n_prompt &&
            memcmp(session_ids(s), fs->ids, (size_t)fs->n_prompt * sizeof *fs->ids) == 0)
            done = 1;
    }
    Action pids = {.kind = ACT_PROMPT_IDS, .ids = fs->ids, .n_ids = (size_t)fs->n_prompt};
    if (!done && action_apply(s, NULL, &pids, err)) return -1;

    /* replay: with the recorded dice the sampler usually picks the recorded token again
     * (then it is a normal step, as it was); a token the user forced is forced again */
    for (size_t p = (size_t)fs->n_prompt; p < fs->n_ids; p++) {
        Action salt = {.kind = ACT_SALT, .salt = fs->salts ? fs->salts[p - (size_t)fs->n_prompt] : 0};
        action_apply(s, NULL, &salt, err);
        int id = fs->ids[p];
        Action next = (s->has_next && s->next.chosen.id == id) ? (Action){.kind = ACT_STEP, .n = 1}
                                                                : (Action){.kind = ACT_FORCE, .id = id};
        if (action_apply(s, NULL, &next, err)) return -1;
    }
    Action pending = {.kind = ACT_SALT, .salt = fs->pending_salt};
    action_apply(s, NULL, &pending, err);
    if (session_len(s) != (int)fs->n_ids || memcmp(session_ids(s), fs->ids, fs->n_ids * sizeof *fs->ids) != 0)
        return error_set(err, "figure: replay did not reproduce the recorded tokens");
    if (fs->draws > 0) { /* the same rolls again: the same seed, position and salt */
        Action draws = {.kind = ACT_DRAWS, .n = fs->draws};
        if (action_apply(s, NULL, &draws, err)) return -1;
    }

    if (fs->n_compare) { /* the specs side by side; the window or exporter computes the columns */
        const char *specs[SEQ_COMPARE_MAX_COLS];
        for (int k = 0; k < fs->n_compare; k++) specs[k] = fs->compare[k];
        if (session_compare_set(s, specs, fs->n_compare, fs->compare_n, err)) return -1;
    }
    VizView v = fs->view;
    v.mouse_x = v.mouse_y = -1;
    v.blank = 0;
    v.show_help = 0;
    viz_view_set_attr_vs(&v, -1);
    Action vs = {.kind = ACT_ATTR_VS, .id = viz_view_attr_vs(&fs->view)}; /* validated: a token of this model */
    if (action_apply(s, &v, &vs, err)) return -1;
    *view = v;
    return 0;
}
