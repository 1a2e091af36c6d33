/*
 * JPEG tiles joined into one JPEG by their DCT coefficients, as jpegtran crops and joins: no inverse DCT, colour
 * conversion, resampling or forward DCT, and no loss. A region that is a block of whole tiles of one pyramid level
 * (what the Universal Viewer's 512 px tiles are over 256 px tiles) is answered this way when every tile was coded
 * alike: the same components, sampling, colour space and quantisation tables.
 */
#include "CImageIO.h"
#include "status.h"
#include "jpeg_join_bits.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

struct join_error {
    struct jpeg_error_mgr mgr;
    jmp_buf jump;
    tsio_status *st;
};

static void on_join_error(j_common_ptr cinfo) {
    struct join_error *e = (struct join_error *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    cinfo->err->format_message(cinfo, text);
    tsio_status_fail(e->st, TSIO_ERR_CORRUPT, "JPEG join: %s", text);
    longjmp(e->jump, 1);
}

/* Warnings (level -1: corrupt or missing data, which libjpeg makes up) are counted, not printed. */
static void on_join_message(j_common_ptr cinfo, int level) {
    if (level < 0) cinfo->err->num_warnings++;
}

/* How the first tile was coded: every other tile must match it. */
struct coding {
    int components, max_h, max_v;
    J_COLOR_SPACE space;
    int h[MAX_COMPONENTS], v[MAX_COMPONENTS];
    UINT16 quant[MAX_COMPONENTS][DCTSIZE2];
};

/* Reads `s`'s coding (up to its coefficients) into `c`: 0 when a component has no quantisation table. */
static int read_coding(const struct jpeg_decompress_struct *s, struct coding *c) {
    memset(c, 0, sizeof *c);
    if (s->num_components < 1 || s->num_components > MAX_COMPONENTS) return 0;
    c->components = s->num_components;
    c->max_h = s->max_h_samp_factor;
    c->max_v = s->max_v_samp_factor;
    c->space = s->jpeg_color_space;
    for (int i = 0; i < s->num_components; i++) {
        const jpeg_component_info *ci = &s->comp_info[i];
        if (ci->quant_table == NULL) return 0;
        c->h[i] = ci->h_samp_factor;
        c->v[i] = ci->v_samp_factor;
        memcpy(c->quant[i], ci->quant_table->quantval, sizeof c->quant[i]);
    }
    return 1;
}


int tsio_jpeg_join_coefficients(const uint8_t *const *tiles, const size_t *sizes, uint32_t columns, uint32_t rows,
                                uint32_t tile_size, uint32_t width, uint32_t height, const uint8_t *icc, size_t icc_size,
                                uint8_t **out, size_t *out_size, tsio_status *st) {
    tsio_status_clear(st);
    *out = NULL;
    *out_size = 0;
    if (!tsio_join_shape_ok(columns, rows, tile_size, width, height)) return 0;
    struct join_error err;
    memset(&err, 0, sizeof err);
    err.st = st;
    jpeg_std_error(&err.mgr);
    err.mgr.error_exit = on_join_error;
    err.mgr.emit_message = on_join_message;
    struct jpeg_decompress_struct src;
    struct jpeg_decompress_struct *const s = &src;
    struct coding coding, other;
    struct jpeg_compress_struct dst;
    memset(&src, 0, sizeof src);
    memset(&dst, 0, sizeof dst);
    src.err = dst.err = &err.mgr;
    unsigned char *volatile buffer = NULL;
    unsigned long volatile size = 0;
    volatile int made = 0; /* 1: src made, 2: dst too */
    volatile int result = 0;
    jvirt_barray_ptr target[MAX_COMPONENTS];
    if (setjmp(err.jump)) {
        result = -1;
        goto done;
    }
    jpeg_create_decompress(&src);
    made |= 1;
    jpeg_create_compress(&dst);
    made |= 2;
    jpeg_mem_dest(&dst, (unsigned char **)&buffer, (unsigned long *)&size);

    for (uint32_t row = 0; row < rows; row++) {
        for (uint32_t column = 0; column < columns; column++) {
            uint32_t index = row * columns + column;
            uint32_t want_w = column + 1 < columns ? tile_size : width - column * tile_size;
            uint32_t want_h = row + 1 < rows ? tile_size : height - row * tile_size;
            jpeg_mem_src(s, tiles[index], (unsigned long)sizes[index]);
            jpeg_read_header(s, TRUE);
            if (s->image_width != want_w || s->image_height != want_h) { result = 0; goto done; }
            jvirt_barray_ptr *coefficients = jpeg_read_coefficients(s);
            if (err.mgr.num_warnings > 0) { /* data cut short or corrupt: libjpeg made up the rest */
                tsio_status_fail(st, TSIO_ERR_CORRUPT, "JPEG join: tile %u is damaged", index);
                result = -1;
                goto done;
            }
            if (index == 0) {
                if (!read_coding(s, &coding) || s->data_precision != 8 ||
                    tile_size % (8 * (uint32_t)s->max_h_samp_factor) != 0 ||
                    tile_size % (8 * (uint32_t)s->max_v_samp_factor) != 0) {
                    result = 0;
                    goto done;
                }
                jpeg_copy_critical_parameters(s, &dst);
                dst.image_width = width;
                dst.image_height = height;
                dst.optimize_coding = FALSE;
                uint32_t mcu_w = 8 * (uint32_t)s->max_h_samp_factor, mcu_h = 8 * (uint32_t)s->max_v_samp_factor;
                for (int c = 0; c < s->num_components; c++) {
                    const jpeg_component_info *ci = &s->comp_info[c];
                    target[c] = (*dst.mem->request_virt_barray)((j_common_ptr)&dst, JPOOL_IMAGE, TRUE,
                        (JDIMENSION)((width + mcu_w - 1) / mcu_w * ci->h_samp_factor),
                        (JDIMENSION)((height + mcu_h - 1) / mcu_h * ci->v_samp_factor), (JDIMENSION)ci->v_samp_factor);
                }
                (*dst.mem->realize_virt_arrays)((j_common_ptr)&dst);
            } else if (!read_coding(s, &other) || s->data_precision != 8 || memcmp(&other, &coding, sizeof coding) != 0) {
                result = 0;
                goto done;
            }
            for (int c = 0; c < s->num_components; c++) {
                const jpeg_component_info *ci = &s->comp_info[c];
                JDIMENSION x0 = column * tile_size / 8 * ci->h_samp_factor / s->max_h_samp_factor;
                JDIMENSION y0 = row * tile_size / 8 * ci->v_samp_factor / s->max_v_samp_factor;
                for (JDIMENSION by = 0; by < ci->height_in_blocks; by++) {
                    JBLOCKARRAY from = (*s->mem->access_virt_barray)((j_common_ptr)s, coefficients[c], by, 1, FALSE);
                    JBLOCKARRAY to = (*dst.mem->access_virt_barray)((j_common_ptr)&dst, target[c], y0 + by, 1, TRUE);
                    memcpy(to[0] + x0, from[0], ci->width_in_blocks * sizeof(JBLOCK));
                }
            }
            jpeg_finish_decompress(s);
        }
    }
    jpeg_write_coefficients(&dst, target);
    if (icc != NULL && icc_size > 0) jpeg_write_icc_profile(&dst, icc, (unsigned int)icc_size);
    jpeg_finish_compress(&dst);
    result = 1;

done:
    if (made & 2) jpeg_destroy_compress(&dst);
    if (made & 1) jpeg_destroy_decompress(&src);
    if (result == 1) {
        *out = buffer;
        *out_size = size;
    } else {
        free(buffer);
    }
    return result;
}

int tsio_jpeg_join(const uint8_t *const *tiles, const size_t *sizes, uint32_t columns, uint32_t rows,
                   uint32_t tile_size, uint32_t width, uint32_t height, const uint8_t *icc, size_t icc_size,
                   uint8_t **out, size_t *out_size, tsio_status *st) {
    int joined = tsio_jpeg_join_bits(tiles, sizes, columns, rows, tile_size, width, height, icc, icc_size, out, out_size, st);
    if (joined != 0) return joined;
    return tsio_jpeg_join_coefficients(tiles, sizes, columns, rows, tile_size, width, height, icc, icc_size, out, out_size, st);
}
