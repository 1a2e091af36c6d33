#ifndef CIMAGEIO_TESTING_H
#define CIMAGEIO_TESTING_H

/*
 * Hooks for the test target: each way of a two-way operation alone, and the parts the decoders use inside. The
 * server calls none of these; the C files that define them say so beside their definitions.
 */

#include "CImageIO.h"

#ifdef __cplusplus
extern "C" {
#endif

/* tsio_jpeg_join's two ways, each alone. */
/* The bits put side by side, each MCU row's first MCU's DC differences coded again: 0 also when the tiles' headers
 * differ but for their size, or their DC tables lack a category, or they have restart markers. */
int tsio_jpeg_join_bits(const uint8_t *const *tiles, const size_t *sizes, uint32_t columns, uint32_t rows,
                        uint32_t tile_size, uint32_t width, uint32_t height, const uint8_t *icc, size_t icc_size,
                        uint8_t **out, size_t *out_size, tsio_status *st);
/* The coefficients read, placed in one array and entropy-coded again with libjpeg's standard tables. */
int tsio_jpeg_join_coefficients(const uint8_t *const *tiles, const size_t *sizes, uint32_t columns, uint32_t rows,
                                uint32_t tile_size, uint32_t width, uint32_t height, const uint8_t *icc, size_t icc_size,
                                uint8_t **out, size_t *out_size, tsio_status *st);

/* 1 when `t` takes the matrix/TRC fast path (lcms2's, not a full transform). */
int tsio_icc_is_fast(const tsio_icc *t);

/* Parses a TIFF/EXIF block (starting at "II" or "MM") for tag 0x0112. */
int tsio_exif_orientation(const uint8_t *data, size_t size);

#ifdef __cplusplus
}
#endif

#endif
