#ifndef TSIO_STATUS_H
#define TSIO_STATUS_H

#include "CImageIO.h"

/* Internal helpers shared by the decoders and encoders. */

void tsio_status_clear(tsio_status *st);
void tsio_status_fail(tsio_status *st, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void tsio_status_warn(tsio_status *st, const char *message);

/* read(2) retrying EINTR: bytes read, 0 at end of file, -1 with errno set. */
long tsio_read_fd(int fd, uint8_t *buf, size_t cap);

/* Whether `columns × rows` tiles of `tile_size` (but the last column and row) make up `width × height`, with at most
 * 64 of them each way: what both JPEG joins accept. */
int tsio_join_shape_ok(uint32_t columns, uint32_t rows, uint32_t tile_size, uint32_t width, uint32_t height);

/* fstat(2) size of `fd`, or 0 when unknown. */
uint64_t tsio_fd_size(int fd);

/* An RGB matrix/TRC profile (white point and primaries as xy, one pure gamma) made by lcms2, in a malloc'd
 * buffer; 0 on failure. */
int tsio_icc_rgb_profile(double white_x, double white_y, const double primaries[6], double gamma,
                         uint8_t **profile, size_t *size);

#endif
