#ifndef TSIO_JPEG_ENTROPY_H
#define TSIO_JPEG_ENTROPY_H

/*
 * Internal: the pieces of a baseline JPEG entropy decoder the entry index needs (jpeg_index.c, jpeg_eighth.c,
 * jpeg_extract.c): Huffman tables and symbols only (no coefficients, no IDCT), over the bit reader of jpeg_bits.h.
 */

#include "CImageIO.h"
#include "jpeg_bits.h"

#include <sys/types.h>

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
/* The longest code's symbol, after the lookahead missed. -1 on a bad code. */
int jidx_decode_slow(jidx_bits *b, const jidx_huff *t, uint32_t *code, int *len);



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
 * for the loop, since each symbol's lookup waits on the last one's length. With `copy`, the bits passed over (codes
 * and values, unchanged) are also written to it, in runs of up to 64 at each refill instead of symbol by symbol: an
 * extract's rows. Always inlined, so the scan's calls (`copy` NULL) keep no trace of the copying. */
static inline __attribute__((always_inline)) int jidx_pass_ac(jidx_bits *b, const jidx_huff *ac, jidx_writer *copy) {
    uint64_t buf = b->buf;
    int left = b->left, mark = left;
    for (int i = 1; i < 64;) {
        if (left < 32) {
            if (copy) jidx_put_consumed(copy, buf, mark, left);
            b->buf = buf;
            b->left = left;
            jidx_fill(b);
            buf = b->buf;
            left = mark = b->left;
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
    if (copy) jidx_put_consumed(copy, buf, mark, left);
    b->left = left;
    return 0;
}

static inline int jidx_skip_ac(jidx_bits *b, const jidx_huff *ac) { return jidx_pass_ac(b, ac, NULL); }


#endif
