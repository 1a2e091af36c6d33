#ifndef TSIO_JPEG_ENTROPY_H
#define TSIO_JPEG_ENTROPY_H

/*
 * Internal: the pieces of a baseline JPEG entropy decoder the entry index needs (jpeg_index.c,
 * jpeg_extract.c). It decodes Huffman symbols only (no coefficients, no IDCT), reads the file with pread(2)
 * through a window so it can start at any recorded bit, and knows the file offset of every bit it has not yet
 * used.
 */

#include "CImageIO.h"

#include <sys/types.h>

#define JIDX_WINDOW 65536
#define JIDX_MEM_WINDOW 4096
#define JIDX_MAX_COMPONENTS 4
#define JIDX_MAX_BLOCKS 10    /* blocks in one MCU, as the standard limits it */
#ifndef JIDX_SKIP_BITS
#define JIDX_SKIP_BITS 12     /* lookahead of the AC skip table */
#endif

/* A Huffman table ready for decoding: 9-bit lookahead, then the canonical code walk for longer codes. */
typedef struct jidx_huff {
    int defined;
    uint8_t look_len[512];    /* 0: code longer than 9 bits */
    uint8_t look_sym[512];
    int32_t maxcode[18];      /* largest code of each length, -1 when none; [17] a sentinel */
    int32_t valoffset[17];
    uint8_t vals[256];
    /* For skipping AC symbols: per JIDX_SKIP_BITS bits ahead, the first symbol's bits used by code and extra bits
     * (bits 0-4; 0: look the long way) and coefficients passed (bits 5-11: run + 1, 16 for ZRL, 64 at the end of
     * the block); then the same for it and the symbol after it together, when that one fits in the bits ahead too
     * (bits 12-16 and 17-23; else the first's again). */
    uint32_t skip[1 << JIDX_SKIP_BITS];
    /* For coding DC categories again (an extract's first blocks): each symbol 0..15's code and its length, 0 when
     * the table has no code for it. */
    uint16_t enc_code[16];
    uint8_t enc_len[16];
} jidx_huff;

/* Reads entropy-coded bits, unstuffing 0xFF00, stopping at a marker (then feeding zeros, as libjpeg does). From a
 * file through a window (`fd`), or from a stream in memory (`mem`: offsets are the stream's, copied into the window a
 * few KB at a time, since a join reads a few rows of a tile at each place). */
typedef struct jidx_bits {
    int fd;
    const uint8_t *mem;       /* NULL: read from fd */
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

/* One component of the scan: its tables and its blocks in an MCU. */
typedef struct jidx_comp {
    int dc, ac;               /* table numbers */
    int h, v;
    int q;                    /* quantisation table number (the frame's) */
} jidx_comp;

/* Where decoding of one row of MCUs can start: a bit of the file and the DC predictions there. */
typedef struct jidx_entry {
    uint64_t bit;             /* file offset * 8 + bits of that byte already used */
    int16_t dc[JIDX_MAX_COMPONENTS];
} jidx_entry;

/* Zigzag position to natural (row-major) position, libjpeg's jpeg_natural_order with its 16 entries past the end
 * where a corrupt run lands. */
extern const uint8_t jidx_natural_order[64 + 16];

int jidx_build_huff(jidx_huff *t, const uint8_t counts[16], const uint8_t *vals, int nvals);
void jidx_bits_seek(jidx_bits *b, uint64_t bit);
/* Loads bytes until more than 56 bits are unread, byte by byte (markers, the window's end). */
void jidx_bits_fill(jidx_bits *b);
uint64_t jidx_bits_position(const jidx_bits *b);
/* At a restart boundary: drops the partial byte, checks for RSTn (n = `expected` & 7) and steps past it. */
int jidx_bits_restart(jidx_bits *b, int expected);
/* The longest code's symbol, after the lookahead missed. -1 on a bad code. */
int jidx_decode_slow(jidx_bits *b, const jidx_huff *t, uint32_t *code, int *len);

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

/* Decodes one symbol; its code and length are returned too (for copying). -1 on a bad code. */
static inline __attribute__((always_inline)) int jidx_decode(jidx_bits *b, const jidx_huff *t, uint32_t *code, int *len) {
    if (b->left < 16) jidx_fill(b);
    uint32_t look = (uint32_t)(b->buf >> (b->left - 9)) & 511;
    int l = t->look_len[look];
    if (l) {
        *code = look >> (9 - l);
        *len = l;
        b->left -= l;
        return t->look_sym[look];
    }
    return jidx_decode_slow(b, t, code, len);
}

static inline int32_t jidx_extend(uint32_t v, int s) {
    return s == 0 ? 0 : (v < (1u << (s - 1)) ? (int32_t)v - (1 << s) + 1 : (int32_t)v);
}

/* A block's DC difference added to `*pred`; the difference, or INT32_MIN on a bad code. */
static inline int32_t jidx_dc(jidx_bits *b, const jidx_huff *t, int32_t *pred) {
    uint32_t code;
    int len;
    int s = jidx_decode(b, t, &code, &len);
    if (s < 0 || s > 15) return INT32_MIN;
    int32_t diff = jidx_extend(jidx_get(b, s), s);
    *pred += diff;
    return diff;
}

/* The AC symbols of one block, passed over: the scan's inner loop, kept lean. The bit buffer stays in registers
 * for the loop, since each symbol's lookup waits on the last one's length. */
static inline int jidx_skip_ac(jidx_bits *b, const jidx_huff *ac) {
    uint64_t buf = b->buf;
    int left = b->left;
    for (int i = 1; i < 64;) {
        if (left < 32) {
            b->buf = buf;
            b->left = left;
            jidx_fill(b);
            buf = b->buf;
            left = b->left;
        }
        uint32_t e = ac->skip[(uint32_t)(buf >> (left - JIDX_SKIP_BITS)) & ((1u << JIDX_SKIP_BITS) - 1)];
        if (e) {
            /* Both symbols, unless the first ends the block at its last coefficient (no EOB follows then). */
            if (i + (int)((e >> 5) & 127) < 64) {
                left -= (e >> 12) & 31;
                i += (int)(e >> 17);
            } else {
                left -= e & 31;
                i += (int)((e >> 5) & 127);
            }
            continue;
        }
        uint32_t code;
        int len;
        b->left = left;
        int sym = jidx_decode(b, ac, &code, &len);
        if (sym < 0) return -1;
        left = b->left;
        int r = sym >> 4, n = sym & 15;
        if (n) {
            i += r + 1;
            left -= n;
        } else {
            if (r != 15) break;
            i += 16;
        }
    }
    b->left = left;
    return 0;
}

/* True when bits past the end of the data (fill zeros) have been used. */
static inline int jidx_overran(const jidx_bits *b) { return b->zeros * 8 > b->left; }

#endif
