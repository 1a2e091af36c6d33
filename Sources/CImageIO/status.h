#ifndef TSIO_STATUS_H
#define TSIO_STATUS_H

#include "CImageIO.h"
#include "CImageIOTesting.h"

/* Internal helpers shared by the decoders and encoders. */

void tsio_status_clear(tsio_status *st);
void tsio_status_fail(tsio_status *st, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void tsio_status_warn(tsio_status *st, const char *message);

/* Up to `count` bytes of `in` at `offset` (pread(2) retrying EINTR, or the caller's read function) until `count`
 * or the end: bytes read, 0 at the end, -1 with errno set. */
long long tsio_input_pread(const tsio_input *in, uint8_t *buf, size_t count, uint64_t offset);

/* The EXIF parses the decoders share (exif.c). */
/* 1 when a TIFF/EXIF block marks Adobe RGB (1998) the DCF way: ColorSpace "uncalibrated" and the interoperability
 * index "R03" (cameras set in Adobe RGB mode write no ICC profile). */
int tsio_exif_adobe_rgb(const uint8_t *data, size_t size);

/* The size of `in`: its own, or fstat(2)'s for a descriptor; 0 when unknown. */
uint64_t tsio_input_size(const tsio_input *in);

/* An RGB matrix/TRC profile (white point and primaries as xy, one pure gamma) made by lcms2, in a malloc'd
 * buffer; 0 on failure. */
int tsio_icc_rgb_profile(double white_x, double white_y, const double primaries[6], double gamma,
                         uint8_t **profile, size_t *size);

/* The ISO/JP2 box at `at` (ending before `end`): its type, where its body starts and where it ends; 0 at the end
 * or on a box that runs past `end`. 64-bit sizes and size 0 (to `end`) are understood. */
int tsio_box_next(const tsio_input *in, uint64_t at, uint64_t end, uint32_t *type, uint64_t *body, uint64_t *box_end);

#endif
