/* panel_status.c — draw_status_line: one line of facts about what is on screen
 * (model, size and weight precision, layer/head, sampler settings, seed, step, branch, last step time)
 * on the left, and the latest message on the right — an error drawn with a "⚠ error:"
 * marker and the error colour, so it is recognisable without colour too. Items that do
 * not fit are dropped from the end of the left list; the message keeps up to half. */
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "panels.h"

#define SEP "  \xE2\x94\x82  " /* a thin vertical bar between items */
#define WARN_MARK "\xE2\x9A\xA0 error: " /* ⚠ U+26A0, in all three DejaVu faces */

/* "16.1 M": parameter counts the way papers write them. */
static void format_params(size_t n, char *buf, size_t cap) {
    double x = (double)n;
    if (x >= 1e9) snprintf(buf, cap, "%.2f B params", x / 1e9);
    else if (x >= 1e6) snprintf(buf, cap, "%.1f M params", x / 1e6);
    else if (x >= 1e3) snprintf(buf, cap, "%.1f k params", x / 1e3);
    else snprintf(buf, cap, "%zu params", n);
}

/* "T 0.80 · top-k 40 · top-p 0.95" or "greedy (argmax)": the settings table's words,
 * as the probs title has them. */
static void format_sampler(const SamplerRecord *rec, char *buf, size_t cap) {
    if (!rec) snprintf(buf, cap, "sampler: -");
    else settings_format_line(&rec->settings, rec->greedy, SETTINGS_STATUS, buf, cap);
}

int draw_status_line(Viz *viz, Rect r, const VizFrame *f) {
    if (r.w <= 0 || r.h <= 0) return 0;
    const Theme *th = viz->theme;
    int rc = 0;
    rc |= draw_set_clip(viz, &r);
    rc |= draw_fill_rect(viz, r, th->panel);
    rc |= draw_fill_rect(viz, (Rect){r.x, r.y, r.w, 1}, th->panel_border);
    Rect in = rect_inset4(r, viz_px(viz, 10), 1, viz_px(viz, 10), 0);
    if (!f) return draw_set_clip(viz, NULL) || rc ? -1 : 0;

    /* right: the message, up to half the line */
    if (f->status && *f->status) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s%s", f->status_is_error ? WARN_MARK : "", f->status);
        VizFont font = f->status_is_error ? VIZ_FONT_BOLD : VIZ_FONT_SANS;
        int w = viz_text_width(viz, font, VIZ_TEXT_BODY, msg);
        int maxw = in.w * (f->status_is_error ? 50 : 30) / 100; /* errors may take more */
        if (w > maxw) w = maxw;
        Rect mr = rect_cut_right(&in, w);
        if (f->status_is_error) {
            /* a tinted band behind the error so it catches the eye at a distance */
            SDL_Color ec = th->error;
            Rect band = rect_inset4(mr, -viz_px(viz, 6), viz_px(viz, 2), -viz_px(viz, 6), viz_px(viz, 2));
            rc |= draw_fill_rect(viz, band, color_mix(th->panel, ec, 0.12f));
            rc |= draw_rect_outline(viz, band, ec, 1);
        }
        TextStyle ms = {.font = font, .size = VIZ_TEXT_BODY, .valign = VIZ_ALIGN_MIDDLE,
                        .color = f->status_is_error ? th->error : th->text};
        rc |= draw_text_in_rect(viz, mr, msg, &ms);
        rect_cut_right(&in, viz_px(viz, 18));
    }

    /* panels that left content out at this size: name them and offer F (the panel
     * under the mouse alone), in the accent colour, before the facts */
    if (viz->cramped_mask) {
        char hint[160] = "F enlarges:";
        for (int p = VIZ_PANEL_TOKENS; p < VIZ_PANEL_COUNT; p++) {
            if (!(viz->cramped_mask & (1u << (unsigned)p))) continue;
            size_t k = strlen(hint);
            snprintf(hint + k, sizeof hint - k, "%s %s", k > 11 ? "," : "", viz_panel_name((VizPanel)p));
        }
        /* the longest wording that fits in half of what is left */
        if (viz_text_width(viz, VIZ_FONT_BOLD, VIZ_TEXT_BODY, hint) > in.w / 2) snprintf(hint, sizeof hint, "F: enlarge");
        int w = viz_text_width(viz, VIZ_FONT_BOLD, VIZ_TEXT_BODY, hint);
        if (w <= in.w / 2) {
            TextStyle hs = {.font = VIZ_FONT_BOLD, .size = VIZ_TEXT_BODY, .valign = VIZ_ALIGN_MIDDLE, .color = th->accent};
            rc |= draw_text_in_rect(viz, rect_cut_right(&in, w), hint, &hs);
            rect_cut_right(&in, viz_px(viz, 18));
        }
    }

    /* left: the facts, in order of importance; stop at the first that does not fit */
    char item[8][160];
    int n = 0;
    char params[48];
    format_params(f->n_params, params, sizeof params);
    /* the precision the weights ran in: a figure made from F16 weights says so */
    snprintf(item[n++], sizeof item[0], "%s \xC2\xB7 %s%s%s", f->model_name ? f->model_name : "model", params,
             f->weights ? " \xC2\xB7 " : "", f->weights ? f->weights : "");
    snprintf(item[n++], sizeof item[0], "layer %d \xC2\xB7 head %d", f->view.layer, f->view.head);
    format_sampler(f->rec ? f->rec : f->prev_rec, item[n++], sizeof item[0]);
    snprintf(item[n++], sizeof item[0], "seed %llu", (unsigned long long)f->seed);
    snprintf(item[n++], sizeof item[0], "step %d", f->step);
    if (f->n_branches > 0) snprintf(item[n++], sizeof item[0], "branch %d/%d", f->branch + 1, f->n_branches);
    if (f->last_step_ms >= 0) snprintf(item[n++], sizeof item[0], "%.1f ms/step", f->last_step_ms);
    int x = in.x;
    int sep_w = viz_text_width(viz, VIZ_FONT_SANS, VIZ_TEXT_BODY, SEP);
    for (int i = 0; i < n; i++) {
        VizFont font = i == 0 ? VIZ_FONT_BOLD : VIZ_FONT_SANS; /* the model name leads */
        int w = viz_text_width(viz, font, VIZ_TEXT_BODY, item[i]);
        int need = (i ? sep_w : 0) + w;
        if (x + need > in.x + in.w) break;
        TextStyle s = {.font = font, .size = VIZ_TEXT_BODY, .color = th->text, .valign = VIZ_ALIGN_MIDDLE};
        if (i) {
            TextStyle sp = s;
            sp.font = VIZ_FONT_SANS;
            sp.color = th->text_muted;
            rc |= draw_text(viz, x, in.y + in.h / 2, SEP, &sp, NULL);
            x += sep_w;
        }
        rc |= draw_text(viz, x, in.y + in.h / 2, item[i], &s, NULL);
        x += w;
    }
    rc |= draw_set_clip(viz, NULL);
    return rc || viz->has_error ? -1 : 0;
}
