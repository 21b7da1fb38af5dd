/* bench_bundled.h — the bundled model as a user meets it, for `make bench`: the time to
 * load it and answer `next "Once upon a"` (what the CLI does), and the time of one step in
 * the window (session_step at several context lengths). Medians; prints, never fails. */
#ifndef BENCH_BUNDLED_H
#define BENCH_BUNDLED_H

/* model_dir: the bundled model's folder; tokenizer_dir: encoder.json + vocab.bpe.
 * If the model cannot be opened, says so and returns. */
void bench_bundled(const char *model_dir, const char *tokenizer_dir);

#endif
