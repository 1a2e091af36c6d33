#ifndef TSIO_STATUS_H
#define TSIO_STATUS_H

#include "CImageIO.h"
#include "CImageIOTesting.h"

/* Internal helpers shared by the decoders and encoders. */

void tsio_status_clear(tsio_status *st);
void tsio_status_fail(tsio_status *st, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void tsio_status_warn(tsio_status *st, const char *message);

/* read(2) retrying EINTR: bytes read, 0 at end of file, -1 with errno set. */
long tsio_read_fd(int fd, uint8_t *buf, size_t cap);

/* The EXIF parses the decoders share (exif.c). */
/* 1 when a TIFF/EXIF block marks Adobe RGB (1998) the DCF way: ColorSpace "uncalibrated" and the interoperability
 * index "R03" (cameras set in Adobe RGB mode write no ICC profile). */
int tsio_exif_adobe_rgb(const uint8_t *data, size_t size);

/* fstat(2) size of `fd`, or 0 when unknown. */
uint64_t tsio_fd_size(int fd);

/* An RGB matrix/TRC profile (white point and primaries as xy, one pure gamma) made by lcms2, in a malloc'd
 * buffer; 0 on failure. */
int tsio_icc_rgb_profile(double white_x, double white_y, const double primaries[6], double gamma,
                         uint8_t **profile, size_t *size);

#endif
