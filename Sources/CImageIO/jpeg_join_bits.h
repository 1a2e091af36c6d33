#ifndef TSIO_JPEG_JOIN_BITS_H
#define TSIO_JPEG_JOIN_BITS_H

/* Internal: what the coefficient join (jpeg_join.c) shares with the bit join (jpeg_join_bits.c), defined there. */

#include <stdint.h>

/* Whether `columns × rows` tiles of `tile_size` (but the last column and row) make up `width × height`, with at most
 * 64 of them each way: what both JPEG joins accept. */
int tsio_join_shape_ok(uint32_t columns, uint32_t rows, uint32_t tile_size, uint32_t width, uint32_t height);

#endif
