#include "jpeg_index_internal.h"
#include "status.h"

#include <stdlib.h>
#include <string.h>

/*
 * An extract is a JPEG of its own: the source's tables and frame with the extract's size, and the entropy
 * data of its MCUs copied bit for bit, except the DC differences that cross its edge: the first block of each
 * component in a row is coded again from the extract's previous block (the source's previous block is outside it).
 * - When the source's DC tables have a code for every category and it has no restart markers, those tables stay:
 *   only each row's first MCU is decoded, and the bits from there to the last entry inside the row are copied
 *   whole, with no symbol decoded (the entry index knows, every 256 pixels of a row, where its bits start and the DC
 *   predictions).
 * - Otherwise every DC difference is coded again with the standard DC table of JPEG Annex K, which has a code
 *   for every difference (the source's optimised table may not), so every block is decoded.
 */

static const uint8_t DC_COUNTS[16] = {0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0};
static const uint8_t DC_VALUES[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
/* Codes and lengths of DC categories 0..11 under DC_COUNTS, canonical order. */
static const uint16_t DC_CODE[12] = {0x0, 0x2, 0x3, 0x4, 0x5, 0x6, 0xE, 0x1E, 0x3E, 0x7E, 0xFE, 0x1FE};
static const uint8_t DC_LEN[12] = {2, 3, 3, 3, 3, 3, 4, 5, 6, 7, 8, 9};



int jidx_mcu(const tsio_jidx *x, jidx_bits *b, int32_t *pred, jidx_writer *copy, int32_t *out_pred, int own_dc) {
    for (int k = 0; k < x->blocks; k++) {
        int ci = x->block_comp[k];
        const jidx_comp *comp = &x->comp[ci];
        if (jidx_dc(b, &x->dc[comp->dc], &pred[ci]) == INT32_MIN) return -1;
        const jidx_huff *ac = &x->ac[comp->ac];
        if (!copy) {
            if (jidx_skip_ac(b, ac) != 0) return -1;
            continue;
        }
        int32_t diff = pred[ci] - out_pred[ci];
        out_pred[ci] = pred[ci];
        uint32_t mag = (uint32_t)(diff < 0 ? -diff : diff);
        int cat = 0;
        while (mag >> cat) cat++;
        if (cat > 11) return -1;
        if (own_dc) jidx_put_bits(copy, x->dc[comp->dc].enc_code[cat], x->dc[comp->dc].enc_len[cat]);
        else jidx_put_bits(copy, DC_CODE[cat], DC_LEN[cat]);
        jidx_put_bits(copy, (uint32_t)(diff < 0 ? diff - 1 : diff), cat);
        if (jidx_pass_ac(b, ac, copy) != 0) return -1;
    }
    return 0;
}

int jidx_own_dc_tables(const tsio_jidx *x) {
    if (x->restart) return 0;
    for (int t = 0; t < 4; t++) {
        if (!x->dc_used[t]) continue;
        for (int cat = 0; cat <= 11; cat++) if (x->dc[t].enc_len[cat] == 0) return 0;
    }
    return 1;
}


static void put_header(jidx_writer *w, const tsio_jidx *x, uint32_t width, uint32_t height, int own_dc) {
    static const uint8_t soi[2] = {0xFF, 0xD8};
    jidx_put_raw(w, soi, 2);
    jidx_put_raw(w, x->header, x->header_len);
    for (int t = 0; t < 4 && !own_dc; t++) {
        if (!x->dc_used[t]) continue;
        uint8_t dht[5] = {0xFF, 0xC4, 0, 2 + 1 + 16 + 12, (uint8_t)t};
        jidx_put_raw(w, dht, 5);
        jidx_put_raw(w, DC_COUNTS, 16);
        jidx_put_raw(w, DC_VALUES, 12);
    }
    jidx_put_frame(w, x, width, height);
}

void jidx_put_frame(jidx_writer *w, const tsio_jidx *x, uint32_t width, uint32_t height) {
    uint8_t sof[32];
    memcpy(sof, x->sof, x->sof_len);
    sof[5] = (uint8_t)(height >> 8);
    sof[6] = (uint8_t)height;
    sof[7] = (uint8_t)(width >> 8);
    sof[8] = (uint8_t)width;
    jidx_put_raw(w, sof, x->sof_len);
    jidx_put_raw(w, x->sos, x->sos_len);
}

int tsio_jidx_extract(const tsio_jidx *x, const tsio_input *in, uint32_t r0, uint32_t r1, uint32_t c0, uint32_t c1,
                      uint8_t **out, size_t *out_size, uint32_t *copied_rows, tsio_status *st) {
    tsio_status_clear(st);
    *out = NULL;
    *out_size = 0;
    /* Whether the rows are indexed is the caller's to know (rows_done belongs to a scan that may be running);
     * entries exist for every row, so rows not yet scanned only give an extract that fails its own checks. */
    if (r0 >= r1 || r1 > x->mcu_rows || c0 >= c1 || c1 > x->mcu_cols) {
        tsio_status_fail(st, TSIO_ERR_ARGUMENT, "MCU rows %u..<%u, columns %u..<%u outside the %u x %u MCUs",
                         r0, r1, c0, c1, x->mcu_cols, x->mcu_rows);
        return -1;
    }
    jidx_bits *b = malloc(sizeof *b);
    if (b == NULL) {
        tsio_status_fail(st, TSIO_ERR_NOMEM, "out of memory for a JPEG extract");
        return -1;
    }
    b->in = *in;
    b->mem = NULL;
    b->io_error = 0;
    jidx_writer w = {0};
    uint32_t width = (c1 * x->mcu_w < x->width ? c1 * x->mcu_w : x->width) - c0 * x->mcu_w;
    uint32_t height = (r1 * x->mcu_h < x->height ? r1 * x->mcu_h : x->height) - r0 * x->mcu_h;
    int own_dc = jidx_own_dc_tables(x);
    put_header(&w, x, width, height, own_dc);
    int32_t out_pred[JIDX_MAX_COMPONENTS] = {0};
    int bad = 0;
    uint32_t whole = 0;
    for (uint32_t r = r0; r < r1 && !bad; r++) {
        uint32_t first = jidx_entry_before(x, c0), start = jidx_entry_column(x, first);
        const jidx_entry *row = &x->entries[(size_t)r * x->per_row];
        int32_t pred[JIDX_MAX_COMPONENTS];
        for (int i = 0; i < JIDX_MAX_COMPONENTS; i++) pred[i] = row[first].dc[i];
        jidx_bits_seek(b, row[first].bit);
        /* The last entry inside the row's part, when the bits up to it can be copied whole. */
        uint32_t last = jidx_entry_before(x, c1);
        int jump = own_dc && last < x->per_row && jidx_entry_column(x, last) > c0;
        for (uint32_t c = start; c < c1 && !bad; c++) {
            uint64_t mcu = (uint64_t)r * x->mcu_cols + c;
            if (x->restart && c != start && mcu % x->restart == 0) {
                if (jidx_bits_restart(b, (int)(mcu / x->restart - 1)) != 0) bad = 1;
                memset(pred, 0, sizeof pred);
            }
            if (!bad && jidx_mcu(x, b, pred, c >= c0 ? &w : NULL, out_pred, own_dc) != 0) bad = 1;
            if (!bad && jump && c == c0) {
                uint64_t here = jidx_bits_position(b);
                const jidx_entry *e = &row[last];
                if (here == UINT64_MAX || jidx_overran(b) || jidx_copy_bits(b, &w, here, e->bit) != 0) {
                    bad = 1;
                    break;
                }
                for (int i = 0; i < JIDX_MAX_COMPONENTS; i++) pred[i] = out_pred[i] = e->dc[i];
                jidx_bits_seek(b, e->bit);
                c = jidx_entry_column(x, last) - 1;
                whole++;
            }
        }
        if (jidx_overran(b)) bad = 1;
    }
    if (copied_rows) *copied_rows = whole;
    int io = b->io_error;
    free(b);
    if (!bad) {
        if (w.nbits > 0) jidx_put_bits(&w, 0x7F, 8 - w.nbits);
        jidx_put_byte(&w, 0xFF);
        jidx_put_byte(&w, 0xD9);
    }
    if (io || bad || w.failed) {
        free(w.data);
        if (io) tsio_status_fail(st, TSIO_ERR_IO, "read failed: %s", strerror(io));
        else if (w.failed) tsio_status_fail(st, TSIO_ERR_NOMEM, "out of memory for a JPEG extract");
        else tsio_status_fail(st, TSIO_ERR_CORRUPT, "the JPEG data under MCU rows %u..<%u is not what its index says", r0, r1);
        return -1;
    }
    *out = w.data;
    *out_size = w.len;
    return 0;
}
