/* colormap_data.h — private to colormap.c: the 256-entry sequential tables
 * (viridis, cividis), sRGB components in 0..1, row i is t = i/255. Not public API:
 * panels call colormap_sample() instead. */
#ifndef COLORMAP_DATA_H
#define COLORMAP_DATA_H

extern const float COLORMAP_VIRIDIS_TABLE[256][3];
extern const float COLORMAP_CIVIDIS_TABLE[256][3];

#endif
