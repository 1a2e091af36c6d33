#ifndef TSIO_TIFF_INTERNAL_H
#define TSIO_TIFF_INTERNAL_H

#include "status.h"

#include <tiffio.h>

/* Largest single allocation libtiff may make for us (a tile or strip buffer, a tag array). */
#define TSIO_TIFF_MAX_ALLOC ((tmsize_t)256 << 20)
/* Decoded strips larger than this are read a scanline at a time instead of whole. */
#define TSIO_TIFF_MAX_CHUNK ((uint64_t)64 << 20)

struct tsio_tiff {
    TIFF *tif;
    tsio_input in;
    uint64_t pos;
    uint64_t size;
    int hit_end;              /* a read came back short: errors are truncation */
    tsio_status *st;          /* where the current call's errors and warnings go */
    tsio_tiff_dir dir;        /* the selected directory */
    int colour_samples;       /* 1 or 3 samples before the extra ones */
    uint8_t *chunk;           /* the decoded tile or strip `chunk_id` (planes one after another when separate) */
    size_t chunk_cap;
    int64_t chunk_id;
    uint64_t plane_bytes;     /* bytes of one plane of one chunk */
    uint32_t *sums;           /* box sums of a shrunk read */
    size_t sums_cap;
    uint8_t *row;             /* one converted row of a chunk */
    size_t row_cap;
    const tsio_icc *cmyk_icc; /* converts CMYK samples to RGB; NULL: the naive formula */
    uint8_t *cmyk;            /* one row of CMYK samples for it */
    size_t cmyk_cap;
};

/* Starts a call: libtiff's errors and warnings go to `st` until the next one. */
void tsio_tiff_enter(tsio_tiff *t, tsio_status *st);
/* Records `what` as the error unless libtiff's handler already said something more precise; returns -1. */
int tsio_tiff_fail(tsio_tiff *t, int code, const char *what);
/* Tile `id` of the selected directory as a standalone JPEG (its stream with the JPEGTables put in front), in a
 * malloc'd buffer: 1. 0 when the directory's tiles are not JPEG-compressed 8-bit YCbCr or RGB of three contiguous
 * samples, or the stream does not parse as a baseline JPEG of the tile's size whose colours a decoder takes as the
 * TIFF says; -1 on a read error. */
int tsio_tiff_tile_stream(tsio_tiff *t, uint32_t id, uint8_t **out, size_t *size);

#endif
