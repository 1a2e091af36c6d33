#include "tiff_internal.h"

#include <stdlib.h>
#include <string.h>

/*
 * Rectangles of the selected directory as 8-bit RGB or RGBA, optionally box-shrunk. The pixels come chunk by
 * chunk (a tile, a strip, or for strips too large to hold one scanline): each chunk a call touches is decoded
 * once, and the last one is kept for the next call, so bands read in order decode every chunk once.
 */

static int grow(void **buf, size_t *cap, size_t need) {
    if (*cap >= need) return 1;
    void *p = realloc(*buf, need);
    if (!p) return 0;
    *buf = p;
    *cap = need;
    return 1;
}

static inline uint8_t take(const uint8_t *p, int wide) {
    if (!wide) return *p;
    uint16_t v;
    memcpy(&v, p, 2);
    return (uint8_t)((v * 255u + 32767u) / 65535u);
}

/* Row `r` of a decoded chunk `cw` pixels wide, pixels [c0, c0 + n), as 8-bit RGB(A) into `out`. */
static void convert_row(const tsio_tiff *t, const uint8_t *chunk, uint64_t plane, uint32_t cw, uint32_t r, uint32_t c0,
                        uint32_t n, uint8_t *out) {
    const tsio_tiff_dir *d = &t->dir;
    int bps = d->bits / 8, wide = d->bits == 16, colour = t->colour_samples, ch = d->channels;
    int used = colour + (d->alpha ? 1 : 0);
    const uint8_t *base[4];
    size_t step;
    if (d->planar == PLANARCONFIG_CONTIG) {
        const uint8_t *row = chunk + (size_t)r * cw * (size_t)d->samples * (size_t)bps;
        for (int s = 0; s < used; s++) base[s] = row + (size_t)s * (size_t)bps;
        step = (size_t)d->samples * (size_t)bps;
    } else {
        for (int s = 0; s < used; s++) base[s] = chunk + (size_t)s * plane + (size_t)r * cw * (size_t)bps;
        step = (size_t)bps;
    }
    if (!wide && colour == 3 && !d->alpha && d->planar == PLANARCONFIG_CONTIG && d->samples == 3) {
        memcpy(out, base[0] + (size_t)c0 * 3, (size_t)n * 3);
        return;
    }
    int invert = d->photometric == PHOTOMETRIC_MINISWHITE;
    for (uint32_t i = 0; i < n; i++) {
        size_t at = (size_t)(c0 + i) * step;
        uint8_t *px = out + (size_t)i * (size_t)ch;
        if (colour == 3) {
            px[0] = take(base[0] + at, wide);
            px[1] = take(base[1] + at, wide);
            px[2] = take(base[2] + at, wide);
        } else if (colour == 4) {
            uint8_t c = take(base[0] + at, wide), m = take(base[1] + at, wide), y = take(base[2] + at, wide),
                    k = take(base[3] + at, wide);
            if (t->cmyk_icc) {
                uint8_t *q = t->cmyk + (size_t)i * 4;
                q[0] = c; q[1] = m; q[2] = y; q[3] = k;
            } else {
                px[0] = (uint8_t)((255 - c) * (255 - k) / 255);
                px[1] = (uint8_t)((255 - m) * (255 - k) / 255);
                px[2] = (uint8_t)((255 - y) * (255 - k) / 255);
            }
        } else {
            uint8_t g = take(base[0] + at, wide);
            if (invert) g = (uint8_t)(255 - g);
            px[0] = px[1] = px[2] = g;
        }
        if (d->alpha) {
            uint8_t a = take(base[colour] + at, wide);
            px[3] = a;
            if (d->alpha == 2 && a < 255) {
                for (int c = 0; c < 3; c++) {
                    unsigned v = a == 0 ? 0 : (px[c] * 255u + a / 2u) / a;
                    px[c] = (uint8_t)(v > 255 ? 255 : v);
                }
            }
        }
    }
    if (colour == 4 && t->cmyk_icc) tsio_icc_apply(t->cmyk_icc, t->cmyk, out, n);
}

/* Where a read's converted pixels go: straight into the destination, or summed into boxes of `shrink`. */
typedef struct {
    uint8_t *dst;
    size_t stride;
    uint32_t x, y, w, h;      /* the output rectangle */
    uint32_t shrink;
    uint64_t lx0, ly0;        /* its first level pixel */
    uint32_t *sums;
} sink;

static void emit(const sink *k, int ch, uint64_t row, uint64_t col, uint32_t n, const uint8_t *px) {
    if (k->shrink == 1) {
        memcpy(k->dst + (size_t)(row - k->ly0) * k->stride + (size_t)(col - k->lx0) * (size_t)ch, px, (size_t)n * (size_t)ch);
        return;
    }
    uint32_t *sum = k->sums + (size_t)((row / k->shrink) - k->y) * k->w * (size_t)ch;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t *s = sum + (size_t)((col + i) / k->shrink - k->x) * (size_t)ch;
        for (int c = 0; c < ch; c++) s[c] += px[(size_t)i * (size_t)ch + (size_t)c];
    }
}

/* Divides the box sums by how many level pixels each box held (fewer at the level's right and bottom edges). */
static void finish(const sink *k, int ch, uint64_t lx1, uint64_t ly1) {
    if (k->shrink == 1) return;
    for (uint32_t j = 0; j < k->h; j++) {
        uint64_t top = (uint64_t)(k->y + j) * k->shrink;
        uint64_t rows = (top + k->shrink < ly1 ? top + k->shrink : ly1) - top;
        for (uint32_t i = 0; i < k->w; i++) {
            uint64_t left = (uint64_t)(k->x + i) * k->shrink;
            uint64_t n = rows * ((left + k->shrink < lx1 ? left + k->shrink : lx1) - left);
            const uint32_t *s = k->sums + ((size_t)j * k->w + i) * (size_t)ch;
            uint8_t *o = k->dst + (size_t)j * k->stride + (size_t)i * (size_t)ch;
            for (int c = 0; c < ch; c++) o[c] = (uint8_t)((s[c] + n / 2) / n);
        }
    }
}

/* Decodes chunk (`cx`, `cy`) of the grid into t->chunk, every plane the conversion reads. */
static int load_chunk(tsio_tiff *t, uint32_t cx, uint32_t cy, uint32_t cw, uint32_t chh) {
    const tsio_tiff_dir *d = &t->dir;
    TIFF *tif = t->tif;
    int tiled = d->tile_width > 0;
    uint32_t id = tiled ? TIFFComputeTile(tif, cx * cw, cy * chh, 0, 0) : TIFFComputeStrip(tif, cy * chh, 0);
    if ((int64_t)id == t->chunk_id) return 0;
    t->chunk_id = -1;
    int planes = d->planar == PLANARCONFIG_SEPARATE ? t->colour_samples + (d->alpha ? 1 : 0) : 1;
    if (!grow((void **)&t->chunk, &t->chunk_cap, (size_t)t->plane_bytes * (size_t)planes)) {
        return tsio_tiff_fail(t, TSIO_ERR_NOMEM, "out of memory for a tile");
    }
    for (int s = 0; s < planes; s++) {
        uint32_t sid = tiled ? TIFFComputeTile(tif, cx * cw, cy * chh, 0, (uint16_t)s) : TIFFComputeStrip(tif, cy * chh, (uint16_t)s);
        uint8_t *into = t->chunk + (size_t)s * t->plane_bytes;
        tmsize_t got = tiled ? TIFFReadEncodedTile(tif, sid, into, (tmsize_t)t->plane_bytes)
                             : TIFFReadEncodedStrip(tif, sid, into, (tmsize_t)t->plane_bytes);
        if (got < 0) return tsio_tiff_fail(t, t->hit_end ? TSIO_ERR_TRUNCATED : TSIO_ERR_CORRUPT, "a tile or strip cannot be decoded");
        if ((uint64_t)got < t->plane_bytes) memset(into + got, 0, (size_t)(t->plane_bytes - (uint64_t)got));
    }
    t->chunk_id = id;
    return 0;
}

/*
 * Rows [r0, r1) and columns [c0, c1) (the level's) of JPEG tile `id`, whose top-left pixel is (`tx`, `ty`), decoded
 * from the tile's own stream: the rows above are entropy-decoded only, the rows below not at all, and columns outside
 * (but one iMCU each side) are not transformed, where libtiff's codec decodes every tile whole. The pixels are the
 * whole decode's (TIFFSourceTests compares them). 1 when done, 0 when the tile is not
 * such a stream or libjpeg fails on it (the caller decodes it through libtiff), -1 out of memory.
 */
static int read_jpeg_part(tsio_tiff *t, const sink *k, uint32_t id, uint64_t tx, uint64_t ty, uint64_t r0, uint64_t r1,
                          uint64_t c0, uint64_t c1) {
    uint8_t *stream = NULL;
    size_t n = 0;
    int found = tsio_tiff_tile_stream(t, id, &stream, &n);
    if (found <= 0) return found;
    t->chunk_id = -1;
    tsio_status js;
    tsio_info info;
    uint32_t x = (uint32_t)(c0 - tx), y = (uint32_t)(r0 - ty), rows = (uint32_t)(r1 - r0);
    uint32_t out_w = 0, out_h = 0, crop_x = 0, crop_w = 0;
    tsio_jpeg *j = tsio_jpeg_open_mem(stream, n, 0, &info, &js);
    int rc = j != NULL && tsio_jpeg_start(j, 1, x, (uint32_t)(c1 - c0), &out_w, &out_h, &crop_x, &crop_w, &js) == 0 ? 1 : -1;
    if (rc == 1 && (y + rows > out_h || !grow((void **)&t->chunk, &t->chunk_cap, (size_t)crop_w * 3 * rows))) {
        tsio_status_clear(&js);
        tsio_status_fail(&js, y + rows > out_h ? TSIO_ERR_CORRUPT : TSIO_ERR_NOMEM,
                         y + rows > out_h ? "a JPEG tile shorter than the tile height" : "out of memory for a tile");
        rc = -1;
    }
    /* libjpeg-turbo's skip decodes the iMCU row it ends in, so fancy upsampling has the chroma rows above. */
    if (rc == 1 && y > 0 && tsio_jpeg_skip(j, y, &js) != (int64_t)y) rc = -1;
    if (rc == 1 && tsio_jpeg_read(j, t->chunk, (size_t)crop_w * 3, rows, &js) != (int64_t)rows) rc = -1;
    for (uint32_t r = 0; rc == 1 && r < rows; r++) {
        emit(k, 3, r0 + r, c0, (uint32_t)(c1 - c0), t->chunk + ((size_t)r * crop_w + (x - crop_x)) * 3);
    }
    /* A tile libjpeg cannot read this way is left to libtiff's codec, so a damaged tile is reported (or made up,
     * with a warning) as when it is read whole; only running out of memory stops here. */
    if (rc == 1 && js.warning_count > 0) tsio_status_warn(t->st, js.warning);
    if (rc == -1) rc = js.code == TSIO_ERR_NOMEM ? tsio_tiff_fail(t, TSIO_ERR_NOMEM, js.message) : 0;
    if (j) tsio_jpeg_close(j);
    free(stream);
    return rc;
}

/* Tiles or strips, each decoded whole. */
static int read_chunks(tsio_tiff *t, const sink *k, uint64_t lx1, uint64_t ly1) {
    const tsio_tiff_dir *d = &t->dir;
    int tiled = d->tile_width > 0, ch = d->channels;
    uint32_t cw = tiled ? d->tile_width : d->width, chh = tiled ? d->tile_height : d->rows_per_strip;
    if (!grow((void **)&t->row, &t->row_cap, (size_t)cw * 4)) return tsio_tiff_fail(t, TSIO_ERR_NOMEM, "out of memory");
    for (uint64_t cy = k->ly0 / chh; cy * chh < ly1; cy++) {
        for (uint64_t cx = k->lx0 / cw; cx * cw < lx1; cx++) {
            uint64_t r0 = cy * chh > k->ly0 ? cy * chh : k->ly0, r1 = (cy + 1) * chh < ly1 ? (cy + 1) * chh : ly1;
            uint64_t c0 = cx * cw > k->lx0 ? cx * cw : k->lx0, c1 = (cx + 1) * cw < lx1 ? (cx + 1) * cw : lx1;
            /* Part of a JPEG tile: decoded from its stream, no more of it than the part needs. */
            if (tiled && d->compression == COMPRESSION_JPEG && ch == 3 &&
                (r0 > cy * chh || r1 < (cy + 1) * chh || c0 > cx * cw || c1 < (cx + 1) * cw)) {
                int done = read_jpeg_part(t, k, TIFFComputeTile(t->tif, (uint32_t)(cx * cw), (uint32_t)(cy * chh), 0, 0),
                                          cx * cw, cy * chh, r0, r1, c0, c1);
                if (done < 0) return -1;
                if (done > 0) continue;
            }
            if (load_chunk(t, (uint32_t)cx, (uint32_t)cy, cw, chh) != 0) return -1;
            for (uint64_t r = r0; r < r1; r++) {
                uint8_t *px = k->shrink == 1 ? k->dst + (size_t)(r - k->ly0) * k->stride + (size_t)(c0 - k->lx0) * (size_t)ch : t->row;
                convert_row(t, t->chunk, t->plane_bytes, cw, (uint32_t)(r - cy * chh), (uint32_t)(c0 - cx * cw),
                            (uint32_t)(c1 - c0), px);
                if (k->shrink != 1) emit(k, ch, r, c0, (uint32_t)(c1 - c0), px);
            }
        }
    }
    return 0;
}

/* A strip too large to hold: a scanline at a time (libtiff restarts the strip when a read goes back). */
static int read_scanlines(tsio_tiff *t, const sink *k, uint64_t lx1, uint64_t ly1) {
    const tsio_tiff_dir *d = &t->dir;
    int ch = d->channels, planes = d->planar == PLANARCONFIG_SEPARATE ? t->colour_samples + (d->alpha ? 1 : 0) : 1;
    uint64_t line = (uint64_t)TIFFScanlineSize64(t->tif);
    if (line == 0) return tsio_tiff_fail(t, TSIO_ERR_CORRUPT, "no scanline size");
    t->chunk_id = -1;
    if (!grow((void **)&t->chunk, &t->chunk_cap, (size_t)line * (size_t)planes)
        || !grow((void **)&t->row, &t->row_cap, (size_t)d->width * 4)) {
        return tsio_tiff_fail(t, TSIO_ERR_NOMEM, "out of memory");
    }
    for (uint64_t r = k->ly0; r < ly1; r++) {
        for (int s = 0; s < planes; s++) {
            if (TIFFReadScanline(t->tif, t->chunk + (size_t)s * line, (uint32_t)r, (uint16_t)s) < 0) {
                return tsio_tiff_fail(t, t->hit_end ? TSIO_ERR_TRUNCATED : TSIO_ERR_CORRUPT, "a row cannot be decoded");
            }
        }
        convert_row(t, t->chunk, line, d->width, 0, (uint32_t)k->lx0, (uint32_t)(lx1 - k->lx0), t->row);
        emit(k, ch, r, k->lx0, (uint32_t)(lx1 - k->lx0), t->row);
    }
    return 0;
}

/*
 * Anything else libtiff can read (palette, CMYK with extra samples, Lab, 1-bit, YCbCr without JPEG, old JPEG, …)
 * through its RGBA interface, in bands of whole rows starting on a tile or strip row: its code for subsampled
 * YCbCr and for column offsets is where malformed files crash it, so every band is the full width from an aligned row.
 */
static int read_rgba(tsio_tiff *t, const sink *k, uint64_t lx1, uint64_t ly1) {
    const tsio_tiff_dir *d = &t->dir;
    int ch = d->channels;
    uint32_t w = d->width;
    uint32_t chunk = d->tile_width > 0 ? d->tile_height : d->rows_per_strip;
    if (chunk == 0) chunk = 1;
    uint32_t band = chunk;
    while (band > 16 && (uint64_t)w * band * 4 > (16u << 20)) band /= 2;
    if ((uint64_t)w * band * 4 > (64u << 20)) return tsio_tiff_fail(t, TSIO_ERR_UNSUPPORTED, "rows too wide for libtiff's RGBA interface");
    char emsg[1024] = "";
    TIFFRGBAImage img;
    if (!TIFFRGBAImageBegin(&img, t->tif, 0, emsg)) return tsio_tiff_fail(t, TSIO_ERR_UNSUPPORTED, emsg);
    img.req_orientation = ORIENTATION_TOPLEFT;
    img.orientation = ORIENTATION_TOPLEFT; /* orientation is applied above this layer, as for JPEG */
    img.col_offset = 0;
    int rc = 0;
    t->chunk_id = -1;
    if (!grow((void **)&t->chunk, &t->chunk_cap, (size_t)w * band * 4) || !grow((void **)&t->row, &t->row_cap, (size_t)w * 4)) {
        rc = tsio_tiff_fail(t, TSIO_ERR_NOMEM, "out of memory");
    }
    for (uint64_t r = k->ly0 - k->ly0 % band; rc == 0 && r < ly1; r += band) {
        uint32_t rows = (uint32_t)(d->height - r < band ? d->height - r : band);
        img.row_offset = (int)r;
        uint32_t *raster = (uint32_t *)t->chunk;
        memset(raster, 0, (size_t)w * rows * 4);
        if (!TIFFRGBAImageGet(&img, raster, w, rows)) {
            rc = tsio_tiff_fail(t, t->hit_end ? TSIO_ERR_TRUNCATED : TSIO_ERR_CORRUPT, "the image cannot be decoded");
            break;
        }
        for (uint32_t j = 0; j < rows; j++) {
            if (r + j < k->ly0 || r + j >= ly1) continue;
            const uint32_t *src = raster + (size_t)j * w + k->lx0;
            uint32_t n = (uint32_t)(lx1 - k->lx0);
            for (uint32_t i = 0; i < n; i++) {
                uint32_t p = src[i];
                uint8_t *px = t->row + (size_t)i * (size_t)ch, a = (uint8_t)TIFFGetA(p);
                px[0] = (uint8_t)TIFFGetR(p);
                px[1] = (uint8_t)TIFFGetG(p);
                px[2] = (uint8_t)TIFFGetB(p);
                if (ch == 4) {
                    px[3] = a;
                    for (int c = 0; c < 3 && a < 255; c++) {
                        unsigned v = a == 0 ? 0 : (px[c] * 255u + a / 2u) / a;
                        px[c] = (uint8_t)(v > 255 ? 255 : v);
                    }
                }
            }
            emit(k, ch, r + j, k->lx0, n, t->row);
        }
    }
    TIFFRGBAImageEnd(&img);
    return rc;
}

int tsio_tiff_read(tsio_tiff *t, uint32_t x, uint32_t y, uint32_t w, uint32_t h, uint32_t shrink, uint8_t *dst,
                   size_t stride, tsio_status *st) {
    tsio_tiff_enter(t, st);
    const tsio_tiff_dir *d = &t->dir;
    if (!d->readable) { tsio_status_fail(st, TSIO_ERR_UNSUPPORTED, "%s", d->reason); return -1; }
    uint64_t sw = ((uint64_t)d->width + shrink - 1) / shrink, sh = ((uint64_t)d->height + shrink - 1) / shrink;
    if (shrink < 1 || w == 0 || h == 0 || (uint64_t)x + w > sw || (uint64_t)y + h > sh) {
        tsio_status_fail(st, TSIO_ERR_ARGUMENT, "region outside the image");
        return -1;
    }
    int ch = d->channels;
    sink k = {dst, stride, x, y, w, h, shrink, (uint64_t)x * shrink, (uint64_t)y * shrink, NULL};
    uint64_t lx1 = (uint64_t)(x + w) * shrink, ly1 = (uint64_t)(y + h) * shrink;
    if (lx1 > d->width) lx1 = d->width;
    if (ly1 > d->height) ly1 = d->height;
    if (shrink > 1) {
        size_t n = (size_t)w * h * (size_t)ch;
        if (!grow((void **)&t->sums, &t->sums_cap, n * sizeof(uint32_t))) {
            tsio_status_fail(st, TSIO_ERR_NOMEM, "out of memory for a %u x %u region", w, h);
            return -1;
        }
        memset(t->sums, 0, n * sizeof(uint32_t));
        k.sums = t->sums;
    }
    /* Room for a row of CMYK samples before any row is converted. */
    if (t->colour_samples == 4 && t->cmyk_icc && !grow((void **)&t->cmyk, &t->cmyk_cap, (size_t)d->width * 4)) {
        tsio_status_fail(st, TSIO_ERR_NOMEM, "out of memory");
        return -1;
    }
    int rc;
    if (!d->direct) {
        rc = read_rgba(t, &k, lx1, ly1);
    } else {
        int tiled = d->tile_width > 0;
        t->plane_bytes = (uint64_t)(tiled ? TIFFTileSize64(t->tif) : TIFFStripSize64(t->tif));
        if (t->plane_bytes == 0) {
            rc = tsio_tiff_fail(t, TSIO_ERR_CORRUPT, "tiles or strips of no size");
        } else if (t->plane_bytes <= TSIO_TIFF_MAX_CHUNK) {
            rc = read_chunks(t, &k, lx1, ly1);
        } else if (!tiled && d->compression != COMPRESSION_JPEG) {
            rc = read_scanlines(t, &k, lx1, ly1);
        } else {
            tsio_status_fail(st, TSIO_ERR_UNSUPPORTED, "%s of %llu bytes each, over the limit of %llu",
                             tiled ? "tiles" : "JPEG strips", (unsigned long long)t->plane_bytes,
                             (unsigned long long)TSIO_TIFF_MAX_CHUNK);
            rc = -1;
        }
    }
    if (rc != 0) return -1;
    finish(&k, ch, lx1, ly1);
    return 0;
}
