/* sampler_settings.c — what the settings mean for the chain: which stages would change
 * something (sampler_stage_active) and which of those the order leaves out
 * (sampler_settings_ignored). Not the settings themselves, their ranges, defaults or the
 * order as text (settings.c, the table) and not the chain (sampler.c). */
#include "sampler.h"

int sampler_stage_active(const SamplerSettings *set, SamplerStage stage) {
    switch (stage) {
    case SAMPLER_STAGE_PENALTIES:
        return set->repetition_penalty != 1.0f || set->frequency_penalty != 0.0f ||
               set->presence_penalty != 0.0f;
    case SAMPLER_STAGE_TEMPERATURE: return set->temperature != 1.0f;
    case SAMPLER_STAGE_TOP_K: return set->top_k > 0;
    case SAMPLER_STAGE_TOP_P: return set->top_p < 1.0f;
    case SAMPLER_STAGE_MIN_P: return set->min_p > 0.0f;
    case SAMPLER_STAGE_GREEDY: return 1;
    case SAMPLER_STAGE_END: break;
    }
    return 0;
}

unsigned sampler_settings_ignored(const SamplerSettings *set) {
    uint8_t order[SAMPLER_N_STAGES];
    int n = sampler_settings_order(set, order);
    unsigned in_order = 0, ignored = 0;
    for (int i = 0; i < n; i++) in_order |= 1u << order[i];
    for (int st = SAMPLER_STAGE_PENALTIES; st <= SAMPLER_STAGE_MIN_P; st++)
        if (sampler_stage_active(set, (SamplerStage)st) && !(in_order & (1u << st)))
            ignored |= 1u << st;
    /* T = 0 is greedy, wherever temperature sits */
    if (set->temperature == 0.0f) ignored &= ~(1u << SAMPLER_STAGE_TEMPERATURE);
    return ignored;
}
