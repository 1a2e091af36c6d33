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
    /* Set with `eighth` by jpeg_eighth.c, whose functions the scan calls through them: the scan (jpeg_index.c)
     * drives the 1/8 decode (jpeg_eighth.c), which drives the scan, without the two files calling each other. */
    int (*eighth_mcu)(struct tsio_jidx *x, jidx_bits *b, uint32_t column);
    void (*eighth_free)(struct jidx_eighth *e);
    jidx_bits bits;
};

/* The header of a JPEG stream in memory (its tables, frame and scan), ready for reading its bits from memory; its
 * entries are allocated but not made. NULL with `st` set when it is not a baseline Huffman JPEG the index handles. */
tsio_jidx *jidx_open_mem(const uint8_t *data, size_t size, tsio_status *st);

/* The MCU column of a row's entry k, and the last entry at or before MCU column c. */
static inline uint32_t jidx_entry_column(const struct tsio_jidx *x, uint32_t k) { return k == 0 ? 0 : k * x->span - 1; }
static inline uint32_t jidx_entry_before(const struct tsio_jidx *x, uint32_t c) { return (c + 1) / x->span; }


/* The source's frame header with the size `width × height`, then its scan header. */
void jidx_put_frame(jidx_writer *w, const struct tsio_jidx *x, uint32_t width, uint32_t height);


/* Decodes one MCU's symbols, adding DC differences to `pred`; with `copy`, also writes them to the extract, each
 * DC difference taken again from `out_pred` and coded with the source's tables (`own_dc`) or Annex K's. */
int jidx_mcu(const struct tsio_jidx *x, jidx_bits *b, int32_t *pred, jidx_writer *copy, int32_t *out_pred, int own_dc);

/* Whether the source's own DC tables can code a block's DC difference again, whatever it is: every category has a
 * code, and no restart markers reset the predictions. */
int jidx_own_dc_tables(const struct tsio_jidx *x);

/* Scans MCU row `rows_done` (entries recorded; with an eighth, its pixels made too) and counts it; 0, or -1 when
 * the data stops making sense there (`stopped` is set). A read error is left in the bits' io_error. */
int jidx_scan_row(struct tsio_jidx *x);


#endif
