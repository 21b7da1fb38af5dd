/* gpt2_save.h — a model in memory to a HuggingFace GPT-2 folder (config.json +
 * model.safetensors): matrices in the model's weight dtype (w.dtype), vectors as F32.
 * For `inferscope convert` and the benchmark's model files. Not the loader. */
#ifndef GPT2_SAVE_H
#define GPT2_SAVE_H

#include "error.h"
#include "gpt2_model.h"

/* Writes dir/model.safetensors and dir/config.json (creating dir if missing); each file
 * through a temporary name and a rename. Refuses (-1, err) if either already exists. */
int gpt2_model_save(const Gpt2Model *m, const char *dir, ErrorMsg *err);

#endif
