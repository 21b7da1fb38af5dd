/* figure_state_apply.c — puts a parsed figure state (figure_meta_parse.c) into a
 * session and view: settings, ablation, prompt, every generated token replayed with its
 * recorded dice (see figure_state_apply in figure_meta.h). */
#include "figure_meta.h"

#include <string.h>

/* ---- applying a state ------------------------------------------------------------- */

/* Sets the salt of the pending draw and recomputes the records. session_set_seed with
 * the unchanged seed is the public way to re-run the sampler for the current position. */
static void set_pending_salt(Session *s, uint32_t salt) {
    s->pending_salt = salt;
    session_set_seed(s, s->seed);
}

int figure_state_apply(const FigureState *fs, Session *s, VizView *view, ErrorMsg *err) {
    const Gpt2Config *cfg = &s->model.config;
    if (fs->n_ids == 0 || fs->n_prompt < 1 || (size_t)fs->n_prompt > fs->n_ids)
        return error_set(err, "figure: no tokens to replay");
    if (fs->n_ids > (size_t)s->trace.max_pos)
        return error_set(err, "figure: %zu tokens exceed this session's context of %d", fs->n_ids, s->trace.max_pos);
    if (fs->view.layer >= cfg->n_layer || fs->view.head >= cfg->n_head)
        return error_set(err, "figure: layer %d head %d, but model %s has %d layers of %d heads", fs->view.layer,
                         fs->view.head, s->model.name, cfg->n_layer, cfg->n_head);
    for (size_t i = 0; i < fs->n_ids; i++)
        if (fs->ids[i] < 0 || fs->ids[i] >= session_vocab(s))
            return error_set(err, "figure: token id %d at position %zu is outside the vocabulary [0, %d)",
                             fs->ids[i], i, session_vocab(s));
    if (session_set_settings(s, &fs->settings, err)) return -1;
    {
        Gpt2Ablation ab = {0}; /* empty unless the figure switched parts off */
        ErrorMsg e2 = {{0}};
        int rc = fs->ablate[0] ? gpt2_ablation_parse(&ab, cfg, fs->ablate, &e2) : 0;
        if (rc)
            error_set(err, "figure: inferscope:ablate: %s",
                      strncmp(e2.text, "--ablate: ", 10) == 0 ? e2.text + 10 : e2.text);
        else
            rc = session_set_ablation(s, &ab, err);
        gpt2_ablation_free(&ab);
        if (rc) return -1;
    }
    s->seed = fs->seed; /* refreshed by the prompt below */

    /* the prompt: the text when it gives the same ids (then the BPE replay works) */
    int done = 0;
    if (fs->prompt && fs->prompt_len > 0) {
        ErrorMsg e2;
        if (session_set_prompt(s, fs->prompt, fs->prompt_len, &e2) == 0 && s->n_prompt == fs->n_prompt &&
            memcmp(session_ids(s), fs->ids, (size_t)fs->n_prompt * sizeof *fs->ids) == 0)
            done = 1;
    }
    if (!done && session_set_prompt_ids(s, fs->ids, (size_t)fs->n_prompt, err)) return -1;

    /* replay: with the recorded dice the sampler usually picks the recorded token again
     * (then it is a normal step, as it was); a token the user forced is forced again */
    for (size_t p = (size_t)fs->n_prompt; p < fs->n_ids; p++) {
        set_pending_salt(s, fs->salts ? fs->salts[p - (size_t)fs->n_prompt] : 0);
        int id = fs->ids[p];
        int rc = (s->has_next && s->next.chosen.id == id) ? session_step(s, err) : session_force(s, id, err);
        if (rc) return -1;
    }
    set_pending_salt(s, fs->pending_salt);
    if (session_len(s) != (int)fs->n_ids || memcmp(session_ids(s), fs->ids, fs->n_ids * sizeof *fs->ids) != 0)
        return error_set(err, "figure: replay did not reproduce the recorded tokens");

    VizView v = fs->view;
    v.mouse_x = v.mouse_y = -1;
    v.blank = 0;
    v.show_help = 0;
    *view = v;
    return 0;
}
