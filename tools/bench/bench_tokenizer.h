/* bench_tokenizer.h — tokenizer speed for `make bench`: encodes the TinyStories head
 * files (../shared/corpus, about 1.7 MB) several times and prints median tokens/s and
 * MB/s, with and without the word cache. Not a test: it prints, it never fails. */
#ifndef BENCH_TOKENIZER_H
#define BENCH_TOKENIZER_H

/* tokenizer_dir holds encoder.json + vocab.bpe. The corpus folder is
 * $INFERSCOPE_CORPUS or ../shared/corpus; if its files are missing, says so and returns. */
void bench_tokenizer(const char *tokenizer_dir);

#endif
