#ifndef TSIO_JPEG_BITS_H
#define TSIO_JPEG_BITS_H

/*
 * Internal: the one bit reader and the one bit writer of the JPEG entry index, its extracts and joins
 * (jpeg_index.c, jpeg_eighth.c, jpeg_extract.c, jpeg_join_bits.c). The reader takes entropy-coded bits from a file
 * through a window (reads at any offset, so it can start at any recorded bit) or from memory, and knows the file offset of
 * every bit it has not used; the writer appends bytes and bits, stuffing 0xFF, to a growing buffer.
 */

#include "CImageIO.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/types.h>

#define JIDX_WINDOW 65536
#define JIDX_MEM_WINDOW 4096

/* Reads entropy-coded bits, unstuffing 0xFF00, stopping at a marker (then feeding zeros, as libjpeg does). From a
 * file through a window (`in`), or from a stream in memory (`mem`: offsets are the stream's, copied into the window a
 * few KB at a time, since a join reads a few rows of a tile at each place). */
typedef struct jidx_bits {
    tsio_input in;
    const uint8_t *mem;       /* NULL: read from `in` */
    uint64_t mem_size;
    uint64_t win_off;         /* file offset of win[0] */
    uint32_t win_len;
    uint32_t pos;             /* next raw byte in win */
    uint64_t buf;             /* unread bits are the low `left` bits */
    int left;
    uint64_t ring[8];         /* file offsets of the last 8 data bytes loaded (UINT64_MAX: a fill zero) */
    uint64_t loaded;
    int zeros;                /* fill zeros loaded after a marker or the end of the file */
    int marker;               /* the marker code met (0xD0..0xD7, ...), -1 at the end of the file, 0 none */
    uint64_t marker_off;      /* file offset of the marker's 0xFF */
    int io_error;
    uint8_t win[JIDX_WINDOW];
} jidx_bits;

void jidx_bits_seek(jidx_bits *b, uint64_t bit);
/* Loads bytes until more than 56 bits are unread, byte by byte (markers, the window's end). */
void jidx_bits_fill(jidx_bits *b);
uint64_t jidx_bits_position(const jidx_bits *b);
/* At a restart boundary: drops the partial byte, checks for RSTn (n = `expected` & 7) and steps past it. */
int jidx_bits_restart(jidx_bits *b, int expected);

/* Reads up to `n` (at most JIDX_WINDOW) bytes of the file at `off` into the window, retrying EINTR (in memory: up to
 * JIDX_MEM_WINDOW of them); the bytes read, 0 at the end of the data, -1 on an error (kept in io_error). The window's
 * bookkeeping is the caller's. */
ssize_t jidx_bits_load(jidx_bits *b, uint64_t off, size_t n);

/* The 8 bytes at `p` as one big-endian number. */
static inline uint64_t jidx_load_be64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = (v << 8) | p[i];
    return v;
}

/* Flags (at least) the bytes of `v` that are 0xFF: zero when none is. */
static inline uint64_t jidx_ff_bytes(uint64_t v) {
    uint64_t inverted = ~v;
    return (inverted - 0x0101010101010101ull) & ~inverted & 0x8080808080808080ull;
}

/* jidx_bits_fill, all the bytes that fit at once while none of them is 0xFF (the usual case inside entropy
 * data). */
static inline __attribute__((always_inline)) void jidx_fill(jidx_bits *b) {
    if (b->left <= 56 && !b->marker && b->win_len - b->pos >= 8) {
        uint64_t v = jidx_load_be64(b->win + b->pos);
        int n = (64 - b->left) >> 3;
        uint64_t wanted = n == 8 ? ~0ull : ~(~0ull >> (8 * n));
        if ((jidx_ff_bytes(v) & wanted) == 0) {
            uint64_t off = b->win_off + b->pos;
            for (int i = 0; i < n; i++) b->ring[(b->loaded + (uint64_t)i) & 7] = off + (uint64_t)i;
            b->loaded += (uint64_t)n;
            b->buf = n == 8 ? v : (b->buf << (8 * n)) | (v >> (64 - 8 * n));
            b->left += 8 * n;
            b->pos += (uint32_t)n;
            return;
        }
    }
    if (b->left <= 56) jidx_bits_fill(b);
}

static inline __attribute__((always_inline)) uint32_t jidx_get(jidx_bits *b, int n) {
    if (n == 0) return 0;
    if (b->left < n) jidx_fill(b);
    b->left -= n;
    return (uint32_t)(b->buf >> b->left) & ((1u << n) - 1);
}

/* True when bits past the end of the data (fill zeros) have been used. */
static inline int jidx_overran(const jidx_bits *b) { return b->zeros * 8 > b->left; }

/* A JPEG being written (an extract, a join): bytes in a growing buffer and entropy-coded bits waiting for a byte. */
typedef struct jidx_writer {
    uint8_t *data;
    size_t len, cap;
    uint64_t acc;
    int nbits;
    int failed;
} jidx_writer;

static inline void jidx_put_byte(jidx_writer *w, uint8_t byte) {
    if (w->len == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 65536;
        uint8_t *grown = realloc(w->data, cap);
        if (grown == NULL) {
            w->failed = 1;
            return;
        }
        w->data = grown;
        w->cap = cap;
    }
    w->data[w->len++] = byte;
}

static inline void jidx_put_raw(jidx_writer *w, const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n && !w->failed; i++) jidx_put_byte(w, p[i]);
}

/* Appends the low `n` bits of `value` (n <= 32), stuffing a zero after every 0xFF byte: four bytes at once while
 * none of them is 0xFF (the usual case inside entropy data), else a byte at a time. */
static inline void jidx_put_bits(jidx_writer *w, uint64_t value, int n) {
    if (n == 0) return;
    w->acc = (w->acc << n) | (value & ((1ull << n) - 1));
    w->nbits += n;
    while (w->nbits >= 32 && w->len + 4 <= w->cap) {
        uint32_t word = (uint32_t)(w->acc >> (w->nbits - 32));
        if (jidx_ff_bytes(word) != 0) break; /* a 0xFF among them (the zero high bytes are not) */
        w->data[w->len] = (uint8_t)(word >> 24);
        w->data[w->len + 1] = (uint8_t)(word >> 16);
        w->data[w->len + 2] = (uint8_t)(word >> 8);
        w->data[w->len + 3] = (uint8_t)word;
        w->len += 4;
        w->nbits -= 32;
    }
    while (w->nbits >= 8) {
        uint8_t byte = (uint8_t)(w->acc >> (w->nbits - 8));
        w->nbits -= 8;
        if (w->len + 2 <= w->cap) {
            w->data[w->len++] = byte;
            if (byte == 0xFF) w->data[w->len++] = 0;
            continue;
        }
        jidx_put_byte(w, byte);
        if (byte == 0xFF) jidx_put_byte(w, 0);
    }
}

/* Bits `left` up to `mark` of the bit buffer (consumed since the last flush), written to `w`. */
static inline void jidx_put_consumed(jidx_writer *w, uint64_t buf, int mark, int left) {
    int n = mark - left;
    uint64_t bits = buf >> left;
    if (n > 32) {
        jidx_put_bits(w, bits >> 32, n - 32);
        n = 32;
    }
    jidx_put_bits(w, bits, n);
}

/* The entropy-coded bits of the source `b` reads from bit `from` up to `to` (positions as jidx_bits_position gives
 * them), unstuffed and written as they are. -1 when a marker or the data's end is met on the way. */
int jidx_copy_bits(jidx_bits *b, jidx_writer *w, uint64_t from, uint64_t to);

#endif
