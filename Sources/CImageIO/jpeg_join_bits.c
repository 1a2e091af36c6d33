/*
 * JPEG tiles joined by their entropy-coded bits. When every tile is coded alike — the same tables, frame and scan
 * header byte for byte but for the frame's size — with DC tables that have a code for every category and no restart
 * markers (what libjpeg writes with its standard tables, and a TIFF's tiles with their shared JPEGTables), each MCU
 * row of the joined JPEG is the tiles' MCU rows one after another, bit for bit. Only the first MCU of each is
 * decoded, to code its blocks' DC differences again from the block before it in the join (the tile's own first
 * block is a difference from the tile's row before); the symbols of the rest are passed over to find where the row
 * ends. No coefficient is kept or coded again, which the coefficient join (jpeg_join.c) does for everything else.
 */
#include "jpeg_index_internal.h"
#include "status.h"
#include "jpeg_join_bits.h"

#include <string.h>

/* The offset of the frame header (SOF0 or SOF1) among the markers before `end`, 0 when there is none. */
static size_t frame_at(const uint8_t *p, size_t end) {
    size_t i = 2;
    while (i + 4 <= end) {
        if (p[i] != 0xFF) return 0;
        uint8_t m = p[i + 1];
        if (m == 0xFF) { i++; continue; }
        if (m == 0xC0 || m == 0xC1) return i;
        if (m == 0x01 || (m >= 0xD0 && m <= 0xD7)) { i += 2; continue; }
        i += 2 + ((size_t)p[i + 2] << 8 | p[i + 3]);
    }
    return 0;
}

/* The profile as APP2 "ICC_PROFILE" segments, as jpeg_write_icc_profile writes them: 0, or -1 when it needs more
 * than 255. */
static int put_icc(jidx_writer *w, const uint8_t *icc, size_t n) {
    const size_t most = 65519;
    size_t count = (n + most - 1) / most;
    if (count > 255) return -1;
    for (size_t k = 0; k < count; k++) {
        size_t part = n - k * most < most ? n - k * most : most, len = 2 + 14 + part;
        uint8_t head[18] = {0xFF, 0xE2, (uint8_t)(len >> 8), (uint8_t)len, 'I', 'C', 'C', '_', 'P', 'R', 'O', 'F', 'I',
                            'L', 'E', 0, (uint8_t)(k + 1), (uint8_t)count};
        jidx_put_raw(w, head, sizeof head);
        jidx_put_raw(w, icc + k * most, part);
    }
    return 0;
}

int tsio_join_shape_ok(uint32_t columns, uint32_t rows, uint32_t tile_size, uint32_t width, uint32_t height) {
    return columns > 0 && rows > 0 && columns <= 64 && rows <= 64 && tile_size > 0 &&
           width > (columns - 1) * tile_size && width <= columns * tile_size &&
           height > (rows - 1) * tile_size && height <= rows * tile_size;
}

int tsio_jpeg_join_bits(const uint8_t *const *tiles, const size_t *sizes, uint32_t columns, uint32_t rows,
                        uint32_t tile_size, uint32_t width, uint32_t height, const uint8_t *icc, size_t icc_size,
                        uint8_t **out, size_t *out_size, tsio_status *st) {
    tsio_status_clear(st);
    *out = NULL;
    *out_size = 0;
    if (!tsio_join_shape_ok(columns, rows, tile_size, width, height)) return 0;
    tsio_status header;
    tsio_jidx *x = jidx_open_mem(tiles[0], sizes[0], &header);
    if (x == NULL) return 0;
    uint32_t count = columns * rows;
    int result = 0, damaged = -1;
    jidx_bits *b = &x->bits; /* pointed at each tile's stream in turn */
    uint64_t *pos = malloc(count * sizeof *pos);
    int32_t (*pred)[JIDX_MAX_COMPONENTS] = calloc(count, sizeof *pred);
    jidx_writer w = {0};
    size_t start = (size_t)x->data_start, sof = frame_at(tiles[0], start);
    if (pos == NULL || pred == NULL) {
        tsio_status_fail(st, TSIO_ERR_NOMEM, "out of memory joining JPEG tiles");
        result = -1;
        goto done;
    }
    if (!jidx_own_dc_tables(x) || sof == 0 || tile_size % x->mcu_w != 0 || tile_size % x->mcu_h != 0) goto done;
    /* Every tile's header is the first one's but for the frame's size, which is the part of the join it covers. */
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *t = tiles[i];
        uint32_t want_w = i % columns + 1 < columns ? tile_size : width - (i % columns) * tile_size;
        uint32_t want_h = i / columns + 1 < rows ? tile_size : height - (i / columns) * tile_size;
        if (sizes[i] <= start || memcmp(t, tiles[0], sof + 5) != 0 ||
            memcmp(t + sof + 9, tiles[0] + sof + 9, start - sof - 9) != 0 ||
            (uint32_t)(t[sof + 5] << 8 | t[sof + 6]) != want_h || (uint32_t)(t[sof + 7] << 8 | t[sof + 8]) != want_w) {
            goto done;
        }
    }
    static const uint8_t soi[2] = {0xFF, 0xD8};
    jidx_put_raw(&w, soi, 2);
    jidx_put_raw(&w, x->header, x->header_len);
    if (icc != NULL && icc_size > 0 && put_icc(&w, icc, icc_size) != 0) goto done;
    jidx_put_frame(&w, x, width, height);
    for (uint32_t i = 0; i < count; i++) pos[i] = (uint64_t)start * 8;
    int32_t out_pred[JIDX_MAX_COMPONENTS] = {0};
    for (uint32_t tr = 0; tr < rows && damaged < 0; tr++) {
        uint32_t th = tr + 1 < rows ? tile_size : height - tr * tile_size;
        for (uint32_t k = 0; k < (th + x->mcu_h - 1) / x->mcu_h && damaged < 0; k++) {
            for (uint32_t c = 0; c < columns && damaged < 0; c++) {
                uint32_t i = tr * columns + c, tw = c + 1 < columns ? tile_size : width - c * tile_size;
                b->mem = tiles[i];
                b->mem_size = sizes[i];
                jidx_bits_seek(b, pos[i]);
                /* The row's first MCU with its DC differences coded again, then the rest of the row as it is. */
                if (jidx_mcu(x, b, pred[i], &w, out_pred, 1) != 0) { damaged = (int)i; break; }
                uint64_t from = jidx_bits_position(b);
                for (uint32_t m = 1; m < (tw + x->mcu_w - 1) / x->mcu_w; m++) {
                    if (jidx_mcu(x, b, pred[i], NULL, NULL, 1) != 0) { damaged = (int)i; break; }
                }
                uint64_t to = jidx_bits_position(b);
                if (damaged >= 0 || from == UINT64_MAX || to == UINT64_MAX || jidx_overran(b) ||
                    jidx_copy_bits(b, &w, from, to) != 0) {
                    damaged = (int)i;
                    break;
                }
                pos[i] = to;
                memcpy(out_pred, pred[i], sizeof out_pred);
            }
        }
    }
    if (damaged >= 0) {
        tsio_status_fail(st, TSIO_ERR_CORRUPT, "JPEG join: tile %d is damaged", damaged);
        result = -1;
        goto done;
    }
    if (w.nbits > 0) jidx_put_bits(&w, 0x7F, 8 - w.nbits);
    jidx_put_byte(&w, 0xFF);
    jidx_put_byte(&w, 0xD9);
    if (w.failed) {
        tsio_status_fail(st, TSIO_ERR_NOMEM, "out of memory joining JPEG tiles");
        result = -1;
        goto done;
    }
    result = 1;
    *out = w.data;
    *out_size = w.len;
    w.data = NULL;

done:
    free(w.data);
    free(pred);
    free(pos);
    tsio_jidx_close(x);
    return result;
}
