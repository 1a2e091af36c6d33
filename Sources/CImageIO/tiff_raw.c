/*
 * A JPEG-compressed TIFF tile handed over as the JPEG it already is: the tile's abbreviated stream with the
 * directory's shared tables (the JPEGTables tag) put back in front, so a tile the file holds at exactly the size and
 * place asked for is served without being decoded and encoded again. A TIFF says in its Photometric tag whether the
 * JPEG holds YCbCr or RGB; a standalone JPEG says it with markers: YCbCr is what decoders assume without one, RGB
 * gets an Adobe segment declaring no colour transform.
 */
#include "tiff_internal.h"

#include <stdlib.h>
#include <string.h>

/* Largest tile stream handed over as it is: anything larger is decoded the ordinary way. */
#define TSIO_TIFF_MAX_RAW_TILE ((uint64_t)4 << 20)

/* Walks the markers of a whole JPEG stream up to its scan: a baseline or extended Huffman frame of 8-bit samples,
 * `w × h`, with three components, and the stream ends with EOI; and a decoder reading it alone takes its colours as
 * the TIFF says (`rgb`: no JFIF segment, which would make them YCbCr; YCbCr: components not named R, G and B, which
 * would make them RGB). 1 when it is, 0 when not. */
static int plausible(const uint8_t *p, size_t n, uint32_t w, uint32_t h, int rgb) {
    if (n < 4 || p[0] != 0xFF || p[1] != 0xD8 || p[n - 2] != 0xFF || p[n - 1] != 0xD9) return 0;
    size_t i = 2;
    int frame = 0;
    while (i + 4 <= n) {
        if (p[i] != 0xFF) return 0;
        uint8_t m = p[i + 1];
        if (m == 0xFF) { i++; continue; }
        size_t len = ((size_t)p[i + 2] << 8) | p[i + 3];
        if (len < 2 || i + 2 + len > n) return 0;
        if (m == 0xE0 && rgb && len >= 7 && memcmp(p + i + 4, "JFIF", 5) == 0) return 0;
        if (m == 0xC0 || m == 0xC1) {
            if (len != 8 + 3 * 3) return 0;
            const uint8_t *f = p + i + 4;
            uint32_t fh = ((uint32_t)f[1] << 8) | f[2], fw = ((uint32_t)f[3] << 8) | f[4];
            if (f[0] != 8 || fw != w || fh != h || f[5] != 3) return 0;
            if (!rgb && f[6] == 'R' && f[9] == 'G' && f[12] == 'B') return 0;
            frame = 1;
        } else if (m >= 0xC2 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC) {
            return 0; /* progressive, lossless or arithmetic: left to the decoder */
        } else if (m == 0xDA) {
            return frame;
        }
        i += 2 + len;
    }
    return 0;
}

int tsio_tiff_tile_stream(tsio_tiff *t, uint32_t id, uint8_t **out, size_t *size) {
    const tsio_tiff_dir *d = &t->dir;
    TIFF *tif = t->tif;
    int rgb = d->photometric == PHOTOMETRIC_RGB;
    if (d->compression != COMPRESSION_JPEG || (d->photometric != PHOTOMETRIC_YCBCR && !rgb) || d->samples != 3 || d->bits != 8 ||
        d->planar != PLANARCONFIG_CONTIG || d->alpha || d->tile_width == 0 || d->tile_height == 0 ||
        d->tile_width > 65535 || d->tile_height > 65535 || id >= TIFFNumberOfTiles(tif)) {
        return 0;
    }
    int err = 0;
    uint64_t raw = TIFFGetStrileByteCountWithErr(tif, id, &err);
    if (err || raw < 4 || raw > TSIO_TIFF_MAX_RAW_TILE) return 0;
    uint32_t tables_n = 0;
    const uint8_t *tables = NULL;
    if (!TIFFGetField(tif, TIFFTAG_JPEGTABLES, &tables_n, &tables) || !tables) tables_n = 0;
    /* The tables are a stream of their own, SOI … EOI: what lies between goes after the tile's SOI. */
    if (tables_n != 0 && (tables_n < 4 || tables[0] != 0xFF || tables[1] != 0xD8 || tables[tables_n - 2] != 0xFF ||
                          tables[tables_n - 1] != 0xD9)) {
        return 0;
    }
    /* APP14 "Adobe", version 100, no flags, transform 0: the three components are R, G and B. */
    static const uint8_t adobe[16] = {0xFF, 0xEE, 0x00, 0x0E, 'A', 'd', 'o', 'b', 'e', 0x00, 0x64, 0, 0, 0, 0, 0};
    size_t inner = (tables_n ? tables_n - 4 : 0) + (rgb ? sizeof adobe : 0);
    uint8_t *buf = malloc((size_t)raw + inner);
    if (!buf) return tsio_tiff_fail(t, TSIO_ERR_NOMEM, "out of memory for a tile");
    tmsize_t got = TIFFReadRawTile(tif, id, buf + inner, (tmsize_t)raw);
    if (got != (tmsize_t)raw || buf[inner] != 0xFF || buf[inner + 1] != 0xD8) {
        free(buf);
        if (got < 0 && t->hit_end) return tsio_tiff_fail(t, TSIO_ERR_TRUNCATED, "a tile lies past the end of the file");
        return 0;
    }
    /* SOI, then the tables, then the tile after its own SOI, which the tables' last two bytes overwrite: the tile's
     * markers are already where they belong. */
    buf[0] = 0xFF;
    buf[1] = 0xD8;
    if (rgb) memcpy(buf + 2, adobe, sizeof adobe);
    if (tables_n) memcpy(buf + 2 + (rgb ? sizeof adobe : 0), tables + 2, tables_n - 4);
    size_t n = (size_t)raw + inner;
    if (!plausible(buf, n, d->tile_width, d->tile_height, rgb)) {
        free(buf);
        return 0;
    }
    *out = buf;
    *size = n;
    return 1;
}

int tsio_tiff_jpeg_tile(tsio_tiff *t, uint32_t x, uint32_t y, uint8_t **out, size_t *size, tsio_status *st) {
    tsio_tiff_enter(t, st);
    const tsio_tiff_dir *d = &t->dir;
    if (d->tile_width == 0 || d->tile_height == 0 || x % d->tile_width || y % d->tile_height ||
        (uint64_t)x + d->tile_width > d->width || (uint64_t)y + d->tile_height > d->height) {
        return 0;
    }
    return tsio_tiff_tile_stream(t, TIFFComputeTile(t->tif, x, y, 0, 0), out, size);
}

static size_t extents(tsio_tiff *t, uint32_t x, uint32_t y, uint32_t w, uint32_t h, uint64_t *offsets, uint64_t *counts,
                      size_t capacity);

size_t tsio_tiff_tile_extents(tsio_tiff *t, uint32_t x, uint32_t y, uint32_t w, uint32_t h, uint64_t *offsets,
                              uint64_t *counts, size_t capacity) {
    const tsio_tiff_dir *d = &t->dir;
    if (d->tile_width == 0 || d->tile_height == 0 || w == 0 || h == 0 || x >= d->width || y >= d->height) return 0;
    tsio_status st;
    tsio_tiff_enter(t, &st);
    size_t n = extents(t, x, y, w, h, offsets, counts, capacity);
    t->st = NULL;
    return n;
}

static size_t extents(tsio_tiff *t, uint32_t x, uint32_t y, uint32_t w, uint32_t h, uint64_t *offsets, uint64_t *counts,
                      size_t capacity) {
    const tsio_tiff_dir *d = &t->dir;
    uint64_t x1 = (uint64_t)x + w > d->width ? d->width : (uint64_t)x + w;
    uint64_t y1 = (uint64_t)y + h > d->height ? d->height : (uint64_t)y + h;
    size_t n = 0;
    for (uint64_t ty = y - y % d->tile_height; ty < y1; ty += d->tile_height) {
        for (uint64_t tx = x - x % d->tile_width; tx < x1; tx += d->tile_width) {
            if (n == capacity) return n;
            int err = 0;
            uint32_t id = TIFFComputeTile(t->tif, (uint32_t)tx, (uint32_t)ty, 0, 0);
            uint64_t offset = TIFFGetStrileOffsetWithErr(t->tif, id, &err);
            uint64_t count = err ? 0 : TIFFGetStrileByteCountWithErr(t->tif, id, &err);
            if (err || count == 0) continue;
            offsets[n] = offset;
            counts[n] = count;
            n++;
        }
    }
    return n;
}
