/* video_meta_read.h — the provenance of a video inferscope wrote (video_encode.h), read
 * back through libavformat into the PNG reader's key/value list, so --open-figure parses
 * a video exactly as it parses a PNG (figure_meta_parse). Not the encoder. */
#ifndef VIDEO_META_READ_H
#define VIDEO_META_READ_H

#include "error.h"
#include "png_write.h"

/* 1 if path names a video by its extension (.mp4, .webm, .gif), else 0. */
int video_meta_is_video(const char *path);

/* Reads path's container metadata: the keys as written (Matroska's capitals folded back,
 * a GIF's comment of "key=value" lines split), width and height of the video stream.
 * Reads the whole file (a GIF's comment follows its frames). Every value is checked as
 * a PNG text chunk would be (printable, bounded). Errors name the file. out must be
 * zeroed; free with png_text_chunks_free. */
int video_meta_read(const char *path, PngTextChunks *out, ErrorMsg *err);

#endif
