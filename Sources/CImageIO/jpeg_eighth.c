#include "jpeg_index_internal.h"
#include "status.h"

#include <stdlib.h>
#include <string.h>

/*
 * The image at 1/8, made by the entry index's scan as it goes: the scan decodes every Huffman symbol anyway, so
 * it keeps what libjpeg's decode at scale 1/8 keeps and does what that decode does with it, to the same bits:
 * - every component's DCT is scaled so its samples land at most one step from the output grid (jdmaster.c):
 *   full-rate components give one sample a block (the DC: jpeg_idct_1x1), half-rate chroma in both directions
 *   (4:2:0) a 2 x 2 IDCT (jpeg_idct_2x2, which needs some AC coefficients);
 *   other ratios are replicated (box upsampling: libjpeg has no fancy upsampling at 1/8);
 * - YCbCr to RGB with libjpeg's tables (jdcolor.c).
 * A master's thumbnail levels and its entry index then cost one pass over the entropy data instead of two.
 */

typedef struct jidx_eighth {
    int ycc;
    uint32_t out_w, out_h;             /* ceil(width / 8), ceil(height / 8) */
    uint32_t rows_out;                 /* rows at 1/8 written so far */
    int hmax, vmax;                    /* output pixels of an MCU: hmax x vmax */
    int ssize[JIDX_MAX_COMPONENTS];    /* samples a block gives in each direction: 1 or 2 */
    int hx[JIDX_MAX_COMPONENTS];       /* output pixels per sample, across and down */
    int vy[JIDX_MAX_COMPONENTS];
    uint32_t plane_w[JIDX_MAX_COMPONENTS];
    uint8_t *plane[JIDX_MAX_COMPONENTS]; /* one MCU row of samples: plane_w x (v * ssize) */
    uint32_t block_x[JIDX_MAX_BLOCKS];   /* each block of an MCU: its samples' column in the MCU's part of its plane */
    size_t block_at[JIDX_MAX_BLOCKS];    /* and the offset of its first row in the plane */
    int cr_r[256], cb_b[256];
    int32_t cr_g[256], cb_g[256];
} jidx_eighth;

/* libjpeg's post-IDCT range limit: x + 128 clamped, wrapping beyond +-512 as its 1024-entry table does. */
static inline uint8_t idct_limit(int32_t x) {
    uint32_t i = (uint32_t)x & 1023;
    return i < 128 ? (uint8_t)(i + 128) : i < 512 ? 255 : i < 896 ? 0 : (uint8_t)(i - 896);
}

static inline uint8_t clamp(int32_t x) { return x < 0 ? 0 : x > 255 ? 255 : (uint8_t)x; }

#define DESCALE(x, n) (((x) + ((int64_t)1 << ((n) - 1))) >> (n))

/* jpeg_idct_2x2 (jidctred.c): columns and rows 0, 1, 3, 5, 7 of the dequantised block. */
static void idct_2x2(const int16_t *coef, const uint16_t *q, uint8_t *out, size_t stride) {
    enum { CONST_BITS = 13, PASS1_BITS = 2 };
    int32_t ws[16];
    for (int col = 0; col < 8; col++) {
        if (col == 2 || col == 4 || col == 6) continue;
        const int16_t *in = coef + col;
        const uint16_t *qp = q + col;
        if (in[8] == 0 && in[24] == 0 && in[40] == 0 && in[56] == 0) {
            int32_t dc = (int32_t)(in[0] * qp[0]) * (1 << PASS1_BITS);
            ws[col] = dc;
            ws[8 + col] = dc;
            continue;
        }
        int64_t tmp10 = (int64_t)(in[0] * qp[0]) * (1 << (CONST_BITS + 2));
        int64_t tmp0 = (int64_t)(in[56] * qp[56]) * -5906 + (int64_t)(in[40] * qp[40]) * 6967 +
                       (int64_t)(in[24] * qp[24]) * -10426 + (int64_t)(in[8] * qp[8]) * 29692;
        ws[col] = (int32_t)DESCALE(tmp10 + tmp0, CONST_BITS - PASS1_BITS + 2);
        ws[8 + col] = (int32_t)DESCALE(tmp10 - tmp0, CONST_BITS - PASS1_BITS + 2);
    }
    for (int row = 0; row < 2; row++) {
        const int32_t *w = ws + 8 * row;
        uint8_t *o = out + (size_t)row * stride;
        if (w[1] == 0 && w[3] == 0 && w[5] == 0 && w[7] == 0) {
            o[0] = o[1] = idct_limit((int32_t)DESCALE((int64_t)w[0], PASS1_BITS + 3));
            continue;
        }
        int64_t tmp10 = (int64_t)w[0] * (1 << (CONST_BITS + 2));
        int64_t tmp0 = (int64_t)w[7] * -5906 + (int64_t)w[5] * 6967 + (int64_t)w[3] * -10426 + (int64_t)w[1] * 29692;
        o[0] = idct_limit((int32_t)DESCALE(tmp10 + tmp0, CONST_BITS + PASS1_BITS + 3 + 2));
        o[1] = idct_limit((int32_t)DESCALE(tmp10 - tmp0, CONST_BITS + PASS1_BITS + 3 + 2));
    }
}

/* The AC coefficients of one block, in natural order, as libjpeg's decode_mcu stores them. */
static int decode_ac(jidx_bits *b, const jidx_huff *ac, int16_t *coef) {
    for (int k = 1; k < 64; k++) {
        uint32_t code;
        int len;
        int sym = jidx_decode(b, ac, &code, &len);
        if (sym < 0) return -1;
        int r = sym >> 4, s = sym & 15;
        if (s) {
            k += r;
            coef[jidx_natural_order[k]] = (int16_t)jidx_extend(jidx_get(b, s), s);
        } else {
            if (r != 15) break;
            k += 15;
        }
    }
    return 0;
}

/* One MCU of the 1/8 decode: its symbols decoded, each block's samples at 1/8 written to the planes. */
static int eighth_mcu(tsio_jidx *x, jidx_bits *b, uint32_t column) {
    jidx_eighth *e = x->eighth;
    for (int k = 0; k < x->blocks; k++) {
        int ci = x->block_comp[k];
        const jidx_comp *comp = &x->comp[ci];
        int s = e->ssize[ci];
        uint8_t *out = e->plane[ci] + e->block_at[k] + column * (uint32_t)(comp->h * s) + e->block_x[k];
        if (jidx_dc(b, &x->dc[comp->dc], &x->pred[ci]) == INT32_MIN) return -1;
        const uint16_t *q = x->qt[comp->q];
        if (s == 1) {
            if (jidx_skip_ac(b, &x->ac[comp->ac]) != 0) return -1;
            int32_t dc = (int32_t)((int16_t)x->pred[ci] * q[0]);
            *out = idct_limit((int32_t)DESCALE((int64_t)dc, 3));
        } else {
            int16_t coef[64] = {0};
            coef[0] = (int16_t)x->pred[ci];
            if (decode_ac(b, &x->ac[comp->ac], coef) != 0) return -1;
            idct_2x2(coef, q, out, e->plane_w[ci]);
        }
    }
    return 0;
}

static void eighth_free(jidx_eighth *e) {
    if (e == NULL) return;
    for (int i = 0; i < JIDX_MAX_COMPONENTS; i++) free(e->plane[i]);
    free(e);
}

int tsio_jidx_eighth_begin(tsio_jidx *x, int ycc, tsio_status *st) {
    tsio_status_clear(st);
    if (x->started || x->eighth != NULL || (x->ncomp != 1 && x->ncomp != 3)) return 0;
    jidx_eighth *e = calloc(1, sizeof *e);
    if (e == NULL) {
        tsio_status_fail(st, TSIO_ERR_NOMEM, "out of memory for a 1/8 decode");
        return -1;
    }
    e->ycc = x->ncomp == 3 && ycc;
    e->out_w = (x->width + 7) / 8;
    e->out_h = (x->height + 7) / 8;
    e->hmax = (int)x->mcu_w / 8;
    e->vmax = (int)x->mcu_h / 8;
    for (int i = 0; i < x->ncomp; i++) {
        const jidx_comp *c = &x->comp[i];
        /* jdmaster.c: scale a subsampled component's DCT up rather than upsample it, while the ratio allows. */
        int s = 1;
        while (s < 8 && e->hmax % (c->h * s * 2) == 0 && e->vmax % (c->v * s * 2) == 0) s *= 2;
        e->ssize[i] = s;
        e->hx[i] = e->hmax / (c->h * s);
        e->vy[i] = e->vmax / (c->v * s);
        if (s > 2 || !x->qt_defined[c->q] || e->hx[i] * c->h * s != e->hmax || e->vy[i] * c->v * s != e->vmax) {
            eighth_free(e);
            return 0;
        }
        e->plane_w[i] = x->mcu_cols * (uint32_t)(c->h * s);
        e->plane[i] = malloc((size_t)e->plane_w[i] * (size_t)(c->v * s));
        if (e->plane[i] == NULL) {
            eighth_free(e);
            tsio_status_fail(st, TSIO_ERR_NOMEM, "out of memory for a 1/8 decode");
            return -1;
        }
    }
    for (int i = 0; i < 256; i++) {
        int64_t v = i - 128;
        e->cr_r[i] = (int)((91881 * v + 32768) >> 16);   /* FIX(1.40200) */
        e->cb_b[i] = (int)((116130 * v + 32768) >> 16);  /* FIX(1.77200) */
        e->cr_g[i] = (int32_t)(-46802 * v);              /* -FIX(0.71414) */
        e->cb_g[i] = (int32_t)(-22554 * v + 32768);      /* -FIX(0.34414), plus a half */
    }
    int nth[JIDX_MAX_COMPONENTS] = {0};
    for (int k = 0; k < x->blocks; k++) {
        int ci = x->block_comp[k], n = nth[ci]++, h = x->comp[ci].h, s = e->ssize[ci];
        e->block_x[k] = (uint32_t)(n % h * s);
        e->block_at[k] = (size_t)(n / h * s) * e->plane_w[ci];
    }
    x->eighth = e;
    x->eighth_mcu = eighth_mcu;
    x->eighth_free = eighth_free;
    return e->vmax;
}

/* Output row `r` (of the MCU row just decoded) in RGB. */
static void emit(const tsio_jidx *x, const jidx_eighth *e, int r, uint8_t *dst) {
    const uint8_t *p0 = e->plane[0] + (size_t)(r / e->vy[0]) * e->plane_w[0];
    if (x->ncomp == 1) {
        for (uint32_t i = 0; i < e->out_w; i++) {
            uint8_t g = p0[i / (uint32_t)e->hx[0]];
            dst[3 * i] = dst[3 * i + 1] = dst[3 * i + 2] = g;
        }
        return;
    }
    const uint8_t *p1 = e->plane[1] + (size_t)(r / e->vy[1]) * e->plane_w[1];
    const uint8_t *p2 = e->plane[2] + (size_t)(r / e->vy[2]) * e->plane_w[2];
    uint32_t h0 = (uint32_t)e->hx[0], h1 = (uint32_t)e->hx[1], h2 = (uint32_t)e->hx[2];
    for (uint32_t i = 0; i < e->out_w; i++) {
        int y = p0[i / h0], cb = p1[i / h1], cr = p2[i / h2];
        if (e->ycc) {
            dst[3 * i] = clamp(y + e->cr_r[cr]);
            dst[3 * i + 1] = clamp(y + ((e->cb_g[cb] + e->cr_g[cr]) >> 16));
            dst[3 * i + 2] = clamp(y + e->cb_b[cb]);
        } else {
            dst[3 * i] = (uint8_t)y;
            dst[3 * i + 1] = (uint8_t)cb;
            dst[3 * i + 2] = (uint8_t)cr;
        }
    }
}

int64_t tsio_jidx_eighth_row(tsio_jidx *x, const tsio_input *in, uint8_t *dst, size_t stride, tsio_status *st) {
    tsio_status_clear(st);
    jidx_eighth *e = x->eighth;
    if (e == NULL) {
        tsio_status_fail(st, TSIO_ERR_ARGUMENT, "no 1/8 decode begun");
        return -1;
    }
    if (x->rows_done >= x->mcu_rows) return 0;
    jidx_bits *b = &x->bits;
    b->in = *in;
    if (!x->started) {
        jidx_bits_seek(b, x->data_start * 8);
        x->started = 1;
    }
    if (x->stopped || jidx_scan_row(x) != 0) {
        if (b->io_error) {
            tsio_status_fail(st, TSIO_ERR_IO, "read failed: %s", strerror(b->io_error));
            return -1;
        }
        tsio_status_warn(st, "the JPEG data stops making sense: later rows are not indexed");
        return -2;
    }
    int64_t n = 0;
    for (int r = 0; r < e->vmax && e->rows_out < e->out_h; r++, n++, e->rows_out++) emit(x, e, r, dst + (size_t)r * stride);
    return n;
}
