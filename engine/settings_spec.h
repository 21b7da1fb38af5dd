/* settings_spec.h — one sampler setting written as a short SPEC, the way people say it
 * on a slide: "greedy", "T=0.7", "top-k=40", "top-p=0.9,T=1.5", "min-p=0.05". A spec is
 * comma-separated KEY=VALUE items (or a bare word for an on/off row: "greedy") applied
 * on top of sampler_settings_default(). Keys are read off the settings table, so a row
 * added later (a penalty, ...) is accepted with no edit here: each row answers to its
 * name ("top_k"), lesson word, word ("top-k"), flag without the dashes, and the short
 * forms of its title and status prefixes ("T" from "T="). Values go through
 * settings_parse, the one parser every reader uses, so "top-k=abc" is refused with the
 * same range as --top-k. Not the chain (sampler.h) and not how settings are written
 * (settings_format_line).
 *
 * Usage:
 *     SamplerSettings set;
 *     if (settings_spec_parse("top-p=0.9,T=1.5", &set, &err)) fail(err.text);
 *     // err: "'top-q=3': unknown setting 'top-q' (temperature/T, top-k, ...)"
 */
#ifndef SETTINGS_SPEC_H
#define SETTINGS_SPEC_H

#include <stddef.h>

#include "error.h"
#include "settings.h"

/* Longest spec accepted (bytes); longer is an error, not a truncation. */
#define SETTINGS_SPEC_MAX 256

/* Parses spec into *out (every row not named keeps its default). Errors (empty spec or
 * item, unknown key, a key twice, a value refused by its row, a value for a row that is
 * on/off only, settings that do not validate) are one line starting with the spec in
 * quotes; *out is unchanged on error. Returns 0 or -1. */
int settings_spec_parse(const char *spec, SamplerSettings *out, ErrorMsg *err);

/* The row a spec key names ("T", "temp", "top-k", "top_k", "min-p", ...; case does not
 * matter), or NULL. */
const SettingRow *settings_spec_key(const char *key, size_t n);

/* The keys a spec accepts, one per row, for messages and --help: "temperature/T, top-k,
 * top-p, greedy, min-p". Returns the length, like snprintf. */
int settings_spec_keys(char *buf, size_t cap);

#endif
