/* viz_text.c — text into textures (viz.h): measuring, rendering, the bounded text
 * cache, and the fallback font chain for characters DejaVu lacks (emoji, CJK).
 * Why a cache: rasterising a string with FreeType and uploading it costs ~50 µs, and a
 * frame redraws hundreds of identical labels; a fixed-size set-associative cache keeps
 * that cost near zero without ever growing. Why white textures: colour is applied at
 * copy time with SDL_SetTextureColorMod (exact: 255·c/255 = c), so one texture serves
 * every colour; colour emoji go to a second layer that is never tinted.
 * Why runs: SDL_ttf draws one font per call and has no fallback, so a string is cut
 * into runs of one face each, rendered separately and put side by side on a common
 * baseline. Not a shaping engine: no kerning across runs, no bidi. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file_read.h"
#include "utf8.h"
#include "viz.h"

/* ---- the fallback chain ---------------------------------------------------------- */

void viz_fallback_close(Viz *viz) {
    for (int i = 0; i < viz->n_fallback; i++)
        if (viz->fallback[i].font) TTF_CloseFont(viz->fallback[i].font);
    memset(viz->fallback, 0, sizeof viz->fallback);
    viz->n_fallback = 0;
}

void viz_fallback_open(Viz *viz, const char *paths) {
    viz_fallback_close(viz);
    for (const char *p = paths ? paths : ""; *p && viz->n_fallback < VIZ_FALLBACK_MAX;) {
        size_t n = strcspn(p, ":");
        char path[1024];
        if (n > 0 && n < sizeof path) {
            memcpy(path, p, n);
            path[n] = '\0';
            ErrorMsg skip; /* a missing fallback is skipped; a FIFO must not block SDL_ttf */
            TTF_Font *f = file_check_regular(path, &skip) ? NULL : TTF_OpenFont(path, 32);
            if (f) {
                /* a font whose height does not follow the requested size has only fixed
                 * bitmap strikes: Noto Color Emoji (128 px, colour) is the one we chain */
                int h32 = TTF_FontHeight(f);
                TTF_SetFontSize(f, 64);
                int fixed = TTF_FontHeight(f) == h32;
                TTF_SetFontHinting(f, TTF_HINTING_NORMAL);
                viz->fallback[viz->n_fallback++] = (VizFallback){f, fixed, fixed, fixed ? 0 : 64};
            }
        }
        p += n;
        if (*p == ':') p++;
    }
}

/* Faces a run can be drawn with: the requested one, DejaVu Sans (when another DejaVu
 * face was requested: Mono and Bold cover fewer symbols), then fallback k. */
enum { FACE_OWN = -2, FACE_SANS = -1 };

static TTF_Font *face_font(const Viz *viz, int face, VizFont font, VizTextSize size) {
    if (face == FACE_OWN) return viz->fonts[font][size];
    if (face == FACE_SANS) return viz->fonts[VIZ_FONT_SANS][size];
    return viz->fallback[face].font;
}

/* A scalable fallback follows the text's pixel size (TTF_SetFontSize is cheap). */
static TTF_Font *face_at_size(Viz *viz, int face, VizFont font, VizTextSize size) {
    if (face >= 0 && !viz->fallback[face].fixed && viz->fallback[face].cur_px != viz->size_px[size]) {
        if (TTF_SetFontSize(viz->fallback[face].font, viz->size_px[size]) == 0)
            viz->fallback[face].cur_px = viz->size_px[size];
    }
    return face_font(viz, face, font, size);
}

/* The first face of the chain that has cp; FACE_OWN when none has it (SDL_ttf then
 * draws its missing-glyph box, which token labels avoid by showing bytes). */
static int face_for(const Viz *viz, VizFont font, VizTextSize size, uint32_t cp) {
    if (cp < 0x80 || TTF_GlyphIsProvided32(viz->fonts[font][size], cp)) return FACE_OWN;
    if (font != VIZ_FONT_SANS && TTF_GlyphIsProvided32(viz->fonts[VIZ_FONT_SANS][size], cp)) return FACE_SANS;
    for (int i = 0; i < viz->n_fallback; i++)
        if (TTF_GlyphIsProvided32(viz->fallback[i].font, cp)) return i;
    return FACE_OWN;
}

int viz_glyph_provided(void *ctx, uint32_t cp) {
    const Viz *viz = ctx;
    if (!viz || !viz->fonts[VIZ_FONT_SANS][VIZ_TEXT_BODY]) return 0;
    if (TTF_GlyphIsProvided32(viz->fonts[VIZ_FONT_SANS][VIZ_TEXT_BODY], cp)) return 1;
    for (int i = 0; i < viz->n_fallback; i++)
        if (TTF_GlyphIsProvided32(viz->fallback[i].font, cp)) return 1;
    return 0;
}

/* Joiners and modifiers that belong to the character before them (an emoji ZWJ
 * sequence, a skin tone, VS16, a keycap): they stay in that character's run so the
 * emoji font can shape the sequence as one glyph. */
static int sticks_to_previous(uint32_t cp) {
    return cp == 0x200D || cp == 0xFE0E || cp == 0xFE0F || cp == 0x20E3 || (cp >= 0x1F3FB && cp <= 0x1F3FF) ||
           (cp >= 0xE0020 && cp <= 0xE007F);
}

#define MAX_RUNS 48

typedef struct TextRun {
    size_t off, len; /* bytes of the text */
    int face;
    int w;           /* width in pixels */
} TextRun;

/* Cuts text into runs of one face. Returns the number of runs, 1 (the whole text in the
 * requested face) when no fallback is needed, 0 if there are more than MAX_RUNS (the
 * caller then draws it in the requested face alone). */
static int split_runs(const Viz *viz, VizFont font, VizTextSize size, const char *text, TextRun *runs) {
    size_t n = strlen(text);
    int nr = 0, prev_zwj = 0;
    for (size_t i = 0; i < n;) {
        uint32_t cp = 0xFFFD;
        size_t adv = utf8_decode_one((const uint8_t *)text + i, n - i, &cp);
        if (adv == 0) {
            adv = 1; /* a stray byte: the requested face draws its replacement */
            cp = 0xFFFD;
        }
        int face = FACE_OWN;
        if (nr > 0 && (sticks_to_previous(cp) || prev_zwj) && runs[nr - 1].face >= 0 &&
            TTF_GlyphIsProvided32(viz->fallback[runs[nr - 1].face].font, cp))
            face = runs[nr - 1].face;
        else if (cp >= 0x80 && viz->n_fallback + (font != VIZ_FONT_SANS) > 0)
            face = face_for(viz, font, size, cp);
        prev_zwj = cp == 0x200D;
        if (nr > 0 && runs[nr - 1].face == face) {
            runs[nr - 1].len += adv;
        } else {
            if (nr == MAX_RUNS) return 0;
            runs[nr++] = (TextRun){i, adv, face, 0};
        }
        i += adv;
    }
    return nr;
}

/* A run's text as a C string in buf (runs longer than the buffer are cut). */
static const char *run_text(const char *text, const TextRun *r, char *buf, size_t cap) {
    size_t n = r->len < cap - 1 ? r->len : cap - 1;
    memcpy(buf, text + r->off, n);
    buf[n] = '\0';
    return buf;
}

/* Width of each run at the text's size; fixed-size glyphs scaled to the line height.
 * Returns the total. */
static int measure_runs(Viz *viz, VizFont font, VizTextSize size, const char *text, TextRun *runs, int nr) {
    int total = 0, line_h = TTF_FontHeight(viz->fonts[font][size]);
    char buf[1024];
    for (int i = 0; i < nr; i++) {
        TTF_Font *f = face_at_size(viz, runs[i].face, font, size);
        int w = 0, h = 0;
        if (TTF_SizeUTF8(f, run_text(text, &runs[i], buf, sizeof buf), &w, &h) != 0) w = 0;
        if (runs[i].face >= 0 && viz->fallback[runs[i].face].fixed) {
            int fh = TTF_FontHeight(f);
            w = fh > 0 ? (int)lround((double)w * line_h / fh) : 0;
        }
        runs[i].w = w;
        total += w;
    }
    return total;
}

int viz_text_width(const Viz *cviz, VizFont font, VizTextSize size, const char *utf8) {
    Viz *viz = (Viz *)cviz; /* only the fallback fonts' current size changes */
    TTF_Font *f = viz_font(viz, font, size);
    if (!f || !utf8 || !*utf8) return 0;
    TextRun runs[MAX_RUNS];
    int nr = split_runs(viz, font, size, utf8, runs);
    if (nr == 1 && runs[0].face == FACE_OWN) nr = 0;
    if (nr > 0) return measure_runs(viz, font, size, utf8, runs, nr);
    int w = 0, h = 0;
    if (TTF_SizeUTF8(f, utf8, &w, &h) != 0) return 0;
    return w;
}

const char *viz_text_first_fitting(const Viz *viz, VizFont font, VizTextSize size, const char *const *choices,
                                   size_t n, int w) {
    for (size_t i = 0; i + 1 < n; i++)
        if (viz_text_width(viz, font, size, choices[i]) <= w) return choices[i];
    return n ? choices[n - 1] : "";
}

/* ---- rendering ------------------------------------------------------------------- */

static SDL_Surface *new_surface(int w, int h) {
    SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, w > 0 ? w : 1, h > 0 ? h : 1, 32, SDL_PIXELFORMAT_ARGB8888);
    if (s) SDL_FillRect(s, NULL, 0); /* transparent */
    return s;
}

/* Area-average downscale of an ARGB8888 surface (straight alpha, averaged with alpha
 * weights so transparent edges do not darken): a 128-px emoji becomes a clean 17-px
 * one, where nearest or bilinear sampling would drop most of its pixels. */
static SDL_Surface *downscale(SDL_Surface *src, int dw, int dh) {
    SDL_Surface *dst = new_surface(dw, dh);
    if (!dst || SDL_LockSurface(src) != 0) return dst;
    const Uint8 *sp = src->pixels;
    Uint8 *dp = dst->pixels;
    for (int y = 0; y < dh; y++) {
        int y0 = (int)((long long)y * src->h / dh), y1 = (int)((long long)(y + 1) * src->h / dh);
        if (y1 <= y0) y1 = y0 + 1;
        for (int x = 0; x < dw; x++) {
            int x0 = (int)((long long)x * src->w / dw), x1 = (int)((long long)(x + 1) * src->w / dw);
            if (x1 <= x0) x1 = x0 + 1;
            double sa = 0, sr = 0, sg = 0, sb = 0;
            int cnt = 0;
            for (int yy = y0; yy < y1 && yy < src->h; yy++)
                for (int xx = x0; xx < x1 && xx < src->w; xx++) {
                    Uint32 p;
                    memcpy(&p, sp + (size_t)yy * (size_t)src->pitch + (size_t)xx * 4, 4);
                    double a = (double)(p >> 24);
                    sa += a;
                    sr += a * (double)((p >> 16) & 255);
                    sg += a * (double)((p >> 8) & 255);
                    sb += a * (double)(p & 255);
                    cnt++;
                }
            Uint32 out = 0;
            if (sa > 0 && cnt > 0) {
                Uint32 a = (Uint32)lround(sa / cnt);
                out = a << 24 | (Uint32)lround(sr / sa) << 16 | (Uint32)lround(sg / sa) << 8 | (Uint32)lround(sb / sa);
            }
            memcpy(dp + (size_t)y * (size_t)dst->pitch + (size_t)x * 4, &out, 4);
        }
    }
    SDL_UnlockSurface(src);
    return dst;
}

static SDL_Texture *upload(Viz *viz, SDL_Surface *surf) {
    SDL_Texture *tex = SDL_CreateTextureFromSurface(viz->renderer, surf);
    if (!tex) {
        viz_fail(viz, "cannot upload text texture: %s", SDL_GetError());
        return NULL;
    }
    SDL_SetTextureBlendMode(tex, SDL_BLENDMODE_BLEND);
    return tex;
}

static void layers_free(VizTextLayers *t) {
    if (t->mono) SDL_DestroyTexture(t->mono);
    if (t->color) SDL_DestroyTexture(t->color);
    memset(t, 0, sizeof *t);
}

/* Renders runs side by side: glyphs of tintable faces into the white layer, colour
 * glyphs (scaled to the line height) into the colour layer; baselines aligned to the
 * requested face's. */
static int render_runs(Viz *viz, VizFont font, VizTextSize size, const char *text, TextRun *runs, int nr,
                       VizTextLayers *out) {
    const SDL_Color white = {255, 255, 255, 255};
    TTF_Font *own = viz->fonts[font][size];
    int W = measure_runs(viz, font, size, text, runs, nr), H = TTF_FontHeight(own), asc = TTF_FontAscent(own);
    SDL_Surface *mono = new_surface(W, H), *color = NULL;
    int rc = mono ? 0 : -1, x = 0;
    char buf[1024];
    for (int i = 0; i < nr && rc == 0; i++) {
        TTF_Font *f = face_at_size(viz, runs[i].face, font, size);
        SDL_Surface *s = TTF_RenderUTF8_Blended(f, run_text(text, &runs[i], buf, sizeof buf), white);
        if (!s) {
            rc = viz_fail(viz, "cannot render text \"%.40s\": %s", text, TTF_GetError());
            break;
        }
        int is_color = runs[i].face >= 0 && viz->fallback[runs[i].face].color;
        int y = 0;
        if (runs[i].face >= 0 && viz->fallback[runs[i].face].fixed) {
            SDL_Surface *scaled = downscale(s, runs[i].w, H);
            SDL_FreeSurface(s);
            s = scaled;
        } else {
            y = asc - TTF_FontAscent(f);
        }
        if (is_color && !color) color = new_surface(W, H);
        SDL_Surface *dst = is_color ? color : mono;
        if (s && dst) {
            SDL_SetSurfaceBlendMode(s, SDL_BLENDMODE_NONE); /* copy, alpha included */
            SDL_Rect at = {x, y, s->w, s->h};
            SDL_BlitSurface(s, NULL, dst, &at);
        }
        SDL_FreeSurface(s);
        x += runs[i].w;
    }
    if (rc == 0) {
        out->mono = upload(viz, mono);
        out->color = color ? upload(viz, color) : NULL;
        out->w = W;
        out->h = H;
        if (!out->mono || (color && !out->color)) rc = -1;
    }
    if (mono) SDL_FreeSurface(mono);
    if (color) SDL_FreeSurface(color);
    if (rc) layers_free(out);
    return rc;
}

static int render_text(Viz *viz, VizFont font, VizTextSize size, const char *text, VizTextLayers *out) {
    memset(out, 0, sizeof *out);
    TTF_Font *f = viz->fonts[font][size];
    TextRun runs[MAX_RUNS];
    int nr = split_runs(viz, font, size, text, runs);
    if (nr > 1 || (nr == 1 && runs[0].face != FACE_OWN)) return render_runs(viz, font, size, text, runs, nr, out);
    const SDL_Color white = {255, 255, 255, 255};
    SDL_Surface *surf = TTF_RenderUTF8_Blended(f, text, white);
    if (!surf) return viz_fail(viz, "cannot render text \"%.40s\": %s", text, TTF_GetError());
    out->mono = upload(viz, surf);
    out->w = surf->w;
    out->h = surf->h;
    SDL_FreeSurface(surf);
    return out->mono ? 0 : -1;
}

/* ---- the cache ---------------------------------------------------------------------- */

#define CACHE_ENTRIES ((size_t)VIZ_TEXT_CACHE_SETS * VIZ_TEXT_CACHE_WAYS)

/* Pixel bytes a rendered text holds: ARGB8888, each layer w × h (the software renderer
 * keeps a surface of that size per texture; a GPU renderer the same in video memory). */
static size_t layers_bytes(const VizTextLayers *t) {
    size_t layers = (size_t)(t->mono != NULL) + (size_t)(t->color != NULL);
    return layers * (size_t)t->w * (size_t)t->h * 4;
}

/* Empties one cache slot, keeping cache_bytes the sum over the filled ones. */
static void cache_drop(Viz *viz, VizTextCacheEntry *e) {
    viz->cache_bytes -= layers_bytes(&e->tex);
    layers_free(&e->tex);
}

/* The least recently used filled slot of the whole cache, NULL when it is empty. */
static VizTextCacheEntry *cache_oldest(Viz *viz) {
    VizTextCacheEntry *old = NULL;
    for (size_t i = 0; i < CACHE_ENTRIES; i++) {
        VizTextCacheEntry *e = &viz->cache[i];
        if (e->tex.mono && (!old || e->last_used < old->last_used)) old = e;
    }
    return old;
}

size_t viz_text_cache_budget(const Viz *viz) {
    int w = 0, h = 0;
    if (!viz->renderer || SDL_GetRendererOutputSize(viz->renderer, &w, &h) != 0 || w < 1 || h < 1) w = h = 0;
    size_t screen = (size_t)w * (size_t)h * 4;
    return screen > VIZ_TEXT_CACHE_BYTES_MIN ? screen : VIZ_TEXT_CACHE_BYTES_MIN;
}

void viz_text_cache_clear(Viz *viz) {
    if (viz->cache)
        for (size_t i = 0; i < CACHE_ENTRIES; i++) cache_drop(viz, &viz->cache[i]);
    viz->cache_bytes = 0;
    layers_free(&viz->scratch);
}

/* FNV-1a (Fowler–Noll–Vo) over the key bytes: fast, good spread for short strings. */
static Uint64 key_hash(VizFont font, VizTextSize size, int px, const char *s) {
    Uint64 h = 1469598103934665603ULL;
    h = (h ^ (Uint64)font) * 1099511628211ULL;
    h = (h ^ (Uint64)size) * 1099511628211ULL;
    h = (h ^ (Uint64)px) * 1099511628211ULL;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/* The cache entry of (font, size, text) at the size's current pixel size, or NULL. */
static VizTextCacheEntry *cache_find(Viz *viz, VizFont font, VizTextSize size, const char *utf8, Uint64 hash) {
    int px = viz->size_px[size];
    VizTextCacheEntry *set = viz->cache + (hash % VIZ_TEXT_CACHE_SETS) * VIZ_TEXT_CACHE_WAYS;
    for (int i = 0; i < VIZ_TEXT_CACHE_WAYS; i++) {
        VizTextCacheEntry *e = &set[i];
        if (e->tex.mono && e->hash == hash && e->font == (unsigned char)font && e->size == (unsigned char)size &&
            e->px == (unsigned short)px && strcmp(e->text, utf8) == 0)
            return e;
    }
    return NULL;
}

int viz_text_width_cached(Viz *viz, VizFont font, VizTextSize size, const char *utf8) {
    if (viz->cache && utf8 && *utf8 && viz_font(viz, font, size) && strlen(utf8) < VIZ_TEXT_CACHE_KEY_MAX) {
        VizTextCacheEntry *e = cache_find(viz, font, size, utf8, key_hash(font, size, viz->size_px[size], utf8));
        if (e) return e->tex.w;
    }
    return viz_text_width(viz, font, size, utf8);
}

int viz_text_layers(Viz *viz, VizFont font, VizTextSize size, const char *utf8, VizTextLayers *out) {
    memset(out, 0, sizeof *out);
    TTF_Font *f = viz_font(viz, font, size);
    if (!f) return viz_fail(viz, "viz_text_layers: bad font %d / size %d", (int)font, (int)size);
    if (!utf8 || !*utf8) { /* SDL_ttf refuses "" ("Text has zero width"): nothing to draw */
        out->h = TTF_FontHeight(f);
        return 0;
    }
    viz->tick++;
    size_t len = strlen(utf8);
    int px = viz->size_px[size];
    if (len >= VIZ_TEXT_CACHE_KEY_MAX || !viz->cache) {
        layers_free(&viz->scratch);
        if (render_text(viz, font, size, utf8, &viz->scratch) != 0) return -1;
        *out = viz->scratch;
        return 0;
    }
    Uint64 hash = key_hash(font, size, px, utf8);
    VizTextCacheEntry *hit = cache_find(viz, font, size, utf8, hash);
    if (hit) {
        hit->last_used = viz->tick;
        viz->cache_hits++;
        *out = hit->tex;
        return 0;
    }
    VizTextCacheEntry *set = viz->cache + (hash % VIZ_TEXT_CACHE_SETS) * VIZ_TEXT_CACHE_WAYS;
    VizTextCacheEntry *victim = &set[0];
    for (int i = 0; i < VIZ_TEXT_CACHE_WAYS; i++) {
        VizTextCacheEntry *e = &set[i];
        /* prefer an empty slot, else the least recently used one */
        if (!victim->tex.mono) continue;
        if (!e->tex.mono || e->last_used < victim->last_used) victim = e;
    }
    viz->cache_misses++;
    VizTextLayers t;
    if (render_text(viz, font, size, utf8, &t) != 0) return -1;
    size_t bytes = layers_bytes(&t), budget = viz_text_cache_budget(viz);
    if (bytes > budget) { /* larger than the whole cache: drawn uncached */
        layers_free(&viz->scratch);
        viz->scratch = t;
        *out = t;
        return 0;
    }
    cache_drop(viz, victim);
    /* room for it: the oldest texts anywhere go (the callers hold no texture across
     * lookups, viz_text_layers' contract); ends, as bytes <= the bound */
    VizTextCacheEntry *old;
    while (viz->cache_bytes + bytes > budget && (old = cache_oldest(viz))) cache_drop(viz, old);
    viz->cache_bytes += bytes;
    victim->tex = t;
    victim->last_used = viz->tick;
    victim->hash = hash;
    victim->font = (unsigned char)font;
    victim->size = (unsigned char)size;
    victim->px = (unsigned short)px;
    memcpy(victim->text, utf8, len + 1);
    *out = t;
    return 0;
}

SDL_Texture *viz_text_texture(Viz *viz, VizFont font, VizTextSize size, const char *utf8, int *w, int *h) {
    VizTextLayers t;
    int rc = viz_text_layers(viz, font, size, utf8, &t);
    *w = rc == 0 ? t.w : 0;
    *h = rc == 0 ? t.h : 0;
    return rc == 0 ? t.mono : NULL;
}
