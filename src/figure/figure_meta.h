/* figure_meta.h — provenance of an exported figure: the key/value list written as PNG
 * text chunks (and as a JSON sidecar), built from a Session + VizView + export
 * options; and the reader that parses it back into a FigureState that can reopen the
 * window in exactly that state (figure_state_apply). Every value is ASCII, so every
 * chunk is a Latin-1-safe tEXt chunk: the prompt is stored as a JSON string literal
 * with \uXXXX escapes for anything outside printable ASCII.
 * Not the renderer (export.h) and not the PNG codec (png_write.h).
 *
 * Keys (all values ASCII; layer/head/branch/positions are 0-based, as in
 * TransformerLens names like blocks.3.attn.hook_pattern):
 *   Software              "inferscope 0.1.0"            (PNG-registered keyword)
 *   Title                 what the figure shows          (PNG-registered keyword)
 *   Source                the model name                 (PNG-registered keyword)
 *   inferscope:format     "1" — this layout; the reader refuses other versions
 *   inferscope:model, inferscope:model_sha256   name, SHA-256 of model.safetensors
 *   inferscope:weights    precision the weight matrices ran in ("F32", "F16", "BF16")
 *   inferscope:kernels    SIMD kernel table that computed them ("avx512", "avx2", "neon", "simd128", "scalar")
 *   inferscope:prompt     JSON string ("" when the prompt was given as ids)
 *   inferscope:ids        JSON array of every token id on screen (prompt + generated)
 *   inferscope:n_prompt, inferscope:step, inferscope:branch, inferscope:n_branches
 *   inferscope:salts      JSON array: the dice salt of each generated position
 *   inferscope:pending_salt   salt of the draw shown for the next token
 *   inferscope:draws      N rolls of the pending dice tallied over the bars (written only
 *                         when there are, so figures without are byte-identical to before)
 *   inferscope:panel, inferscope:focus, inferscope:layer, inferscope:head,
 *   inferscope:contact_sheet  ("" = single figure, "layer 3", "all layers")
 *   inferscope:tensor     trace names drawn, e.g. "blocks.3.attn.hook_pattern"
 *   inferscope:colormap, inferscope:color_range
 *   inferscope:temperature, inferscope:top_k, inferscope:top_p, inferscope:greedy,
 *   then any other sampler setting that is not at its default, one key per row of the
 *   settings table (engine/settings.h: inferscope:min_p, ...; missing = default),
 *   inferscope:seed
 *   inferscope:ablate     the parts switched off, canonical SPEC ("0.3,1.mlp",
 *                         gpt2_ablation.h); written only when something is off, so a
 *                         figure of the whole model is byte-identical to before it existed
 *   inferscope:compare    JSON array of the 2..4 specs side by side (["greedy","T=0.7"]),
 *   inferscope:compare_n  tokens per column, inferscope:compare_ids  JSON array of each
 *                         column's token ids as drawn (derived: the reader does not need
 *                         it); all three only on compare figures
 *   inferscope:theme, inferscope:scale, inferscope:ui_scale, inferscope:size (logical WxH)
 *   inferscope:top_n, inferscope:hide_sink, inferscope:selected_token,
 *   inferscope:bpe_step, inferscope:hide_probs, inferscope:highlight_panel,
 *   inferscope:highlight_token, inferscope:highlight_bar   (view settings that
 *   change pixels)
 * No creation time: the same state must give byte-identical files. */
#ifndef FIGURE_META_H
#define FIGURE_META_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "frame.h"
#include "png_write.h"
#include "sampler.h"
#include "session.h"
#include "theme.h"

#define FIGURE_META_FORMAT 1
#define FIGURE_META_MAX 64          /* entries in one provenance list */
#define FIGURE_MAX_IDS 65536        /* the reader refuses longer sequences */
#define FIGURE_MAX_PROMPT (1u << 20) /* decoded prompt bytes the reader accepts */

/* What the figure is, beyond the session and view: chosen by the exporter. */
typedef struct FigureMetaInput {
    VizPanel panel;            /* what was drawn (VIZ_PANEL_FRAME = whole window) */
    int width, height;         /* logical size (pixels = size * scale) */
    int scale;                 /* 1, 2 or 4 */
    float ui_scale;            /* 1 .. 2.5 */
    ThemeId theme;
    const char *model_sha256;  /* 64 hex digits, or NULL ("unknown") */
    int contact_sheet;         /* 0 single figure; 1 grid of heads */
    int sheet_layer;           /* with contact_sheet: the layer, or -1 = all layers */
} FigureMetaInput;

/* The provenance list. text[i] is ready for png_write_file; values are owned. */
typedef struct FigureMeta {
    PngText text[FIGURE_META_MAX];   /* keyword: static string; value: values[i] */
    char *values[FIGURE_META_MAX];   /* owned */
    unsigned char is_json[FIGURE_META_MAX]; /* 1: the value is already a JSON literal
                                             * (number, array, string with quotes) */
    size_t n;
} FigureMeta;

/* Builds the list for the session's current screen. m must be zeroed or freed.
 * Returns 0, or -1 with err (out of memory) and *m freed. */
int figure_meta_build(FigureMeta *m, const Session *s, const VizView *view,
                      const FigureMetaInput *in, ErrorMsg *err);
/* Frees the values; safe on a zeroed struct and twice. */
void figure_meta_free(FigureMeta *m);

/* The same list as one JSON object ({"Software": "inferscope 0.1.0", "inferscope:ids":
 * [464, 3290], ...}), for the --sidecar file. *out is malloc'd (caller frees), ASCII,
 * ends with a newline. Returns 0 or -1 (out of memory). */
int figure_meta_json(const FigureMeta *m, char **out, size_t *len, ErrorMsg *err);

/* The state a figure records, parsed back and validated. */
typedef struct FigureState {
    char software[64];
    char model[128];
    char ablate[1024];         /* canonical SPEC of the parts switched off, "" = none */
    char model_sha256[65];     /* "" when the figure said "unknown" */
    uint8_t *prompt;           /* owned, decoded UTF-8 (NUL-terminated), NULL if none */
    size_t prompt_len;
    int *ids;                  /* owned (n_ids) */
    size_t n_ids;
    int n_prompt;              /* 1 <= n_prompt <= n_ids */
    uint32_t *salts;           /* owned (n_ids - n_prompt), may be NULL when 0 */
    uint32_t pending_salt;
    int draws;                 /* inferscope:draws: rolls tallied over the bars, 0 = none */
    int step, branch, n_branches;
    VizPanel panel;
    int contact_sheet, sheet_layer;
    VizView view;              /* layer, head and the other recorded view fields;
                                * the rest as frame_default_view() */
    char tensor[128];
    char colormap[32];
    char color_range[64];
    SamplerSettings settings;  /* validated */
    uint64_t seed;
    ThemeId theme;
    int scale;                 /* 1, 2 or 4 */
    float ui_scale;
    int width, height;         /* logical size */
    char compare[SEQ_COMPARE_MAX_COLS][SETTINGS_SPEC_MAX + 1]; /* inferscope:compare, checked
                                * by settings_spec_parse (n_compare 0: not a compare figure) */
    int n_compare;
    int compare_n;             /* inferscope:compare_n: tokens per column */
} FigureState;

/* Reads path's text chunks (png_read_text_chunks; a .mp4/.webm/.gif's container metadata,
 * video_meta_read) and parses every field above.
 * Everything is validated (these files come from the internet): numbers in range,
 * strict JSON for the prompt and arrays, lengths consistent (step = n_ids - n_prompt,
 * one salt per generated token). out must be zeroed or freed. Returns 0, or -1 with
 * err naming the file and the field ("x.png: inferscope:top_p: 1.5 is outside
 * [0, 1]"); out is then freed. */
int figure_meta_read(const char *path, FigureState *out, ErrorMsg *err);
/* The same on an already-read chunk list; `what` names the source in errors. */
int figure_meta_parse(const PngTextChunks *t, const char *what, FigureState *out, ErrorMsg *err);
/* Frees the owned arrays; safe on a zeroed struct and twice. */
void figure_state_free(FigureState *fs);

/* Puts the session and view into the figure's state: sampler settings and seed, the
 * prompt (the text when it tokenizes to the recorded prompt ids, so the BPE replay is
 * there too; else the ids), then every generated token replayed with its recorded
 * dice (session_step when the sampler picks it again, session_force otherwise), the
 * pending dice, and the view (layer, head, top_n...). The recorded ablation (none when
 * the figure has no inferscope:ablate) is switched on first. Afterwards session_ids() equals
 * fs->ids exactly. Errors (sequence longer than the session's context, an id outside
 * the vocabulary, a layer/head the model does not have) return -1 with err; the
 * session is then valid but may hold part of the state. The branch number is not
 * restored (a figure records one sequence, not the whole branch tree). */
int figure_state_apply(const FigureState *fs, Session *s, VizView *view, ErrorMsg *err);

/* The trace tensor(s) a panel draws, e.g. "blocks.3.attn.hook_pattern" for the
 * attention panel at layer 3; "logits" for the probability bars. */
void figure_tensor_name(VizPanel panel, int layer, char *buf, size_t cap);

#endif
