/* model_vocab.h — which vocabulary a model gets, so that any GPT-2-family checkpoint
 * opens: its own tokenizer files when its folder has them, else GPT-2's tokenizer when
 * the model has at least its rows (more rows = a padded vocabulary, e.g. nanoGPT's
 * 50,304: the extra rows are never sampled or shown), else token ids only. The choice
 * is the session's (src/session/session.c); the tokenizers themselves are engine/tokenizer.h. */
#ifndef MODEL_VOCAB_H
#define MODEL_VOCAB_H

#include <stddef.h>

#include "error.h"
#include "tokenizer.h"

/* Opens tok for the model in model_dir with model_rows embedding rows, trying in order:
 *   1. model_dir/encoder.json + vocab.bpe     the model's own GPT-2-style BPE
 *   2. model_dir/vocab.json + merges.txt      the same under HuggingFace's file names
 *   3. model_dir/vocab.json (id -> text)      a model's own small vocabulary
 *   4. gpt2_dir (encoder.json + vocab.bpe)    when model_rows >= its size
 *   5. ids only (token i is shown as "⟨i⟩")
 * The vocabulary must not be larger than model_rows. desc receives one line for `info`
 * and the window ("GPT-2 tokenizer: 50,257 of 50,304 rows (47 padding rows never
 * sampled)"). On error *tok is zeroed and err names the file. */
int model_vocab_open(Tokenizer *tok, const char *model_dir, int model_rows, const char *gpt2_dir, char *desc,
                     size_t desc_cap, ErrorMsg *err);

#endif
