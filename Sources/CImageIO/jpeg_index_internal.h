#ifndef TSIO_JPEG_INDEX_INTERNAL_H
#define TSIO_JPEG_INDEX_INTERNAL_H

#include "jpeg_entropy.h"

#include <stdlib.h>

/* Pixels of a row between two entries (rounded to whole MCUs). Entry k > 0 is at the MCU just before k spans, so
 * an extract of a 256-pixel-aligned region with one MCU of context on its left (for chroma upsampling) starts at an
 * entry exactly, and one with a context MCU on its right ends two MCUs past one. */
#define JIDX_SPAN_PIXELS 256
/* Tables, quantisation and the JFIF/Adobe segments kept for the extracts' headers. */
#define JIDX_MAX_HEADER (1 << 20)

struct tsio_jidx {
    uint32_t width, height;
    int ncomp;                          /* components in the frame and in its one scan */
    jidx_comp comp[JIDX_MAX_COMPONENTS]; /* in scan order */
    int blocks;                         /* blocks in an MCU */
    int block_comp[JIDX_MAX_BLOCKS];    /* the component of each */
    uint32_t mcu_w, mcu_h, mcu_cols, mcu_rows;
    uint32_t span;                      /* MCUs between two entries of a row */
    uint32_t per_row;                   /* entries in a row: at MCU 0, span - 1, 2 span - 1, ... */
    uint32_t restart;                   /* restart interval in MCUs, 0 for none */
    jidx_huff dc[4], ac[4];
    int dc_used[4];
    uint16_t qt[4][64];                 /* quantisation tables in natural order (for the 1/8 decode) */
    int qt_defined[4];
    uint8_t *header;                    /* kept segments, markers included */
    size_t header_len;
    uint8_t sof[32];
    size_t sof_len;
    uint8_t sos[32];
    size_t sos_len;
    uint64_t data_start;                /* file offset of the first entropy-coded byte */
    jidx_entry *entries;                /* per_row entries for each of mcu_rows rows */
    /* The scan, continued by each tsio_jidx_scan call. */
    uint32_t rows_done;
    int stopped;                        /* the data stopped making sense: no more rows */
    int started;
    int32_t pred[JIDX_MAX_COMPONENTS];
    uint32_t restarts;
    struct jidx_eighth *eighth;         /* the 1/8 decode riding on the scan, when asked for */
    jidx_bits bits;
};

/* The header of a JPEG stream in memory (its tables, frame and scan), ready for reading its bits from memory; its
 * entries are allocated but not made. NULL with `st` set when it is not a baseline Huffman JPEG the index handles. */
tsio_jidx *jidx_open_mem(const uint8_t *data, size_t size, tsio_status *st);

/* The MCU column of a row's entry k, and the last entry at or before MCU column c. */
static inline uint32_t jidx_entry_column(const struct tsio_jidx *x, uint32_t k) { return k == 0 ? 0 : k * x->span - 1; }
static inline uint32_t jidx_entry_before(const struct tsio_jidx *x, uint32_t c) { return (c + 1) / x->span; }

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

/* The source's frame header with the size `width × height`, then its scan header. */
void jidx_put_frame(jidx_writer *w, const struct tsio_jidx *x, uint32_t width, uint32_t height);

/* The entropy-coded bits of the source `b` reads from bit `from` up to `to` (positions as jidx_bits_position gives
 * them), unstuffed and written as they are. -1 when a marker or the data's end is met on the way. */
int jidx_copy_bits(jidx_bits *b, jidx_writer *w, uint64_t from, uint64_t to);

/* Decodes one MCU's symbols, adding DC differences to `pred`; with `copy`, also writes them to the extract, each
 * DC difference taken again from `out_pred` and coded with the source's tables (`own_dc`) or Annex K's. */
int jidx_mcu(const struct tsio_jidx *x, jidx_bits *b, int32_t *pred, jidx_writer *copy, int32_t *out_pred, int own_dc);

/* Whether the source's own DC tables can code a block's DC difference again, whatever it is: every category has a
 * code, and no restart markers reset the predictions. */
int jidx_own_dc_tables(const struct tsio_jidx *x);

/* Scans MCU row `rows_done` (entries recorded; with an eighth, its pixels made too) and counts it; 0, or -1 when
 * the data stops making sense there (`stopped` is set). A read error is left in the bits' io_error. */
int jidx_scan_row(struct tsio_jidx *x);

/* One MCU of the 1/8 decode: its symbols decoded, each block's samples at 1/8 written to the planes. */
int jidx_eighth_mcu(struct tsio_jidx *x, jidx_bits *b, uint32_t column);
void jidx_eighth_free(struct jidx_eighth *e);

#endif
