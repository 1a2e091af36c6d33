#include "tiff_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>
#include <unistd.h>

/*
 * TIFF and BigTIFF through libtiff. Every handle reads its input at an offset of its own, so handles on the
 * same file are independent; libtiff's errors and warnings come to this handle's status through the per-handle
 * handlers of TIFFOpenOptions, never to stderr. Strip and tile offsets are loaded on demand ("O"), so opening a
 * BigTIFF of a million tiles reads its directory, not its arrays.
 */

static tmsize_t fd_read(thandle_t h, void *buf, tmsize_t size) {
    tsio_tiff *t = (tsio_tiff *)h;
    long long n = tsio_input_pread(&t->in, buf, (size_t)size, t->pos);
    if (n < 0) return -1;
    if (n < size) t->hit_end = 1;
    t->pos += (uint64_t)n;
    return (tmsize_t)n;
}

static tmsize_t fd_write(thandle_t h, void *buf, tmsize_t size) { (void)h; (void)buf; (void)size; return -1; }

static toff_t fd_seek(thandle_t h, toff_t off, int whence) {
    tsio_tiff *t = (tsio_tiff *)h;
    uint64_t base = whence == SEEK_CUR ? t->pos : whence == SEEK_END ? t->size : 0;
    t->pos = base + (uint64_t)off;
    return t->pos;
}

static int fd_close(thandle_t h) { (void)h; return 0; }
static toff_t fd_size(thandle_t h) { return ((tsio_tiff *)h)->size; }
static int no_map(thandle_t h, void **base, toff_t *size) { (void)h; (void)base; (void)size; return 0; }
static void no_unmap(thandle_t h, void *base, toff_t size) { (void)h; (void)base; (void)size; }

static int on_error(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
    (void)tif;
    tsio_tiff *t = (tsio_tiff *)user;
    if (t->st == NULL) return 1;
    char text[160];
    vsnprintf(text, sizeof text, fmt, ap);
    tsio_status_fail(t->st, t->hit_end ? TSIO_ERR_TRUNCATED : TSIO_ERR_CORRUPT, "%s: %s", module ? module : "libtiff", text);
    t->st->offset = t->pos;
    return 1;
}

static int on_warning(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
    (void)tif; (void)module;
    tsio_tiff *t = (tsio_tiff *)user;
    if (t->st == NULL) return 1;
    char text[200];
    vsnprintf(text, sizeof text, fmt, ap);
    tsio_status_warn(t->st, text);
    return 1;
}

/* Enters a call: errors go to `st`. */
void tsio_tiff_enter(tsio_tiff *t, tsio_status *st) {
    tsio_status_clear(st);
    st->file_size = t->size;
    t->st = st;
    t->hit_end = 0;
}

int tsio_tiff_fail(tsio_tiff *t, int code, const char *what) {
    if (t->st->code == TSIO_OK) tsio_status_fail(t->st, code, "%s", what);
    return -1;
}

/* What the selected directory is, and whether and how it can be read. */
static void describe(tsio_tiff *t, tsio_tiff_dir *d) {
    TIFF *tif = t->tif;
    memset(d, 0, sizeof *d);
    d->offset = TIFFCurrentDirOffset(tif);
    uint32_t w = 0, h = 0;
    TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &w);
    TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &h);
    d->width = w;
    d->height = h;
    if (TIFFIsTiled(tif)) {
        uint32_t tw = 0, th = 0;
        TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tw);
        TIFFGetField(tif, TIFFTAG_TILELENGTH, &th);
        d->tile_width = tw;
        d->tile_height = th;
    } else {
        uint32_t rps = 0;
        TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rps);
        d->rows_per_strip = rps == 0 || rps > h ? h : rps;
    }
    uint16_t v16 = 0;
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &v16); d->compression = v16;
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &v16); d->bits = v16;
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &v16); d->samples = v16;
    TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &v16); d->planar = v16;
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &v16); d->sample_format = v16;
    TIFFGetFieldDefaulted(tif, TIFFTAG_ORIENTATION, &v16); d->orientation = v16 >= 1 && v16 <= 8 ? v16 : 1;
    if (TIFFGetField(tif, TIFFTAG_RESOLUTIONUNIT, &v16)) d->resolution_unit = v16;
    float resolution = 0;
    if (TIFFGetField(tif, TIFFTAG_XRESOLUTION, &resolution) && resolution > 0) d->x_resolution = resolution;
    uint32_t subfile = 0;
    TIFFGetFieldDefaulted(tif, TIFFTAG_SUBFILETYPE, &subfile); d->subfile_type = (int)subfile;
    if (!TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &v16)) v16 = d->samples >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
    d->photometric = v16;
    uint32_t icc_size = 0;
    void *icc = NULL;
    d->has_profile = TIFFGetField(tif, TIFFTAG_ICCPROFILE, &icc_size, &icc) && icc_size > 0;

    uint16_t extra = 0, *extra_types = NULL;
    TIFFGetFieldDefaulted(tif, TIFFTAG_EXTRASAMPLES, &extra, &extra_types);
    int colour = 0;
    switch (d->photometric) {
    case PHOTOMETRIC_MINISBLACK: case PHOTOMETRIC_MINISWHITE: colour = 1; break;
    case PHOTOMETRIC_RGB: colour = 3; break;
    case PHOTOMETRIC_SEPARATED: {
        uint16_t inkset = INKSET_CMYK;
        TIFFGetFieldDefaulted(tif, TIFFTAG_INKSET, &inkset);
        colour = inkset == INKSET_CMYK && d->samples >= 4 ? 4 : 0;
        break;
    }
    case PHOTOMETRIC_YCBCR: colour = d->compression == COMPRESSION_JPEG ? 3 : 0; break;
    default: colour = 0;
    }
    /* An extra sample right after the colour ones is alpha: associated (premultiplied) when it says so, else
     * unassociated, as libvips reads 4-sample RGB whose extra sample is "unspecified". */
    if (colour > 0 && colour < 4 && d->samples > colour) {
        int type = extra > 0 && extra_types ? extra_types[0] : EXTRASAMPLE_UNSPECIFIED;
        d->alpha = type == EXTRASAMPLE_ASSOCALPHA ? 2 : 1;
    }
    t->colour_samples = colour;
    d->direct = colour > 0 && d->samples >= colour && (d->bits == 8 || d->bits == 16)
        && (d->sample_format == SAMPLEFORMAT_UINT || d->sample_format == SAMPLEFORMAT_VOID)
        && (d->planar == PLANARCONFIG_CONTIG || d->planar == PLANARCONFIG_SEPARATE)
        && d->width > 0 && d->height > 0 && (d->tile_width > 0 ? d->tile_height > 0 : d->rows_per_strip > 0);
    if (!TIFFIsCODECConfigured((uint16_t)d->compression)) {
        d->direct = 0;
        d->readable = 0;
        snprintf(d->reason, sizeof d->reason, "compression %d (%s) is not one this libtiff decodes", d->compression,
                 tsio_tiff_compression_name(d->compression));
    } else if (d->direct) {
        d->readable = 1;
    } else {
        char emsg[1024] = "";
        d->readable = d->width > 0 && d->height > 0 && TIFFRGBAImageOK(tif, emsg);
        if (d->readable) {
            d->alpha = extra > 0 && extra_types
                && (extra_types[0] == EXTRASAMPLE_ASSOCALPHA || extra_types[0] == EXTRASAMPLE_UNASSALPHA) ? 2 : 0;
        } else {
            snprintf(d->reason, sizeof d->reason, "%s", emsg[0] ? emsg : "no width or height");
        }
    }
    d->channels = d->alpha ? 4 : 3;
}

/* Makes the directory at `offset` the current one, as `d` describes it. */
static int select_dir(tsio_tiff *t, uint64_t offset, tsio_tiff_dir *d) {
    if (TIFFCurrentDirOffset(t->tif) != offset || t->dir.offset != offset) {
        if (!TIFFSetSubDirectory(t->tif, offset)) return tsio_tiff_fail(t, TSIO_ERR_CORRUPT, "cannot read the directory");
        t->chunk_id = -1;
    }
    describe(t, &t->dir);
    if (t->dir.photometric == PHOTOMETRIC_YCBCR && t->dir.compression == COMPRESSION_JPEG) {
        TIFFSetField(t->tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
    }
    if (d) *d = t->dir;
    return 0;
}

tsio_tiff *tsio_tiff_open(const tsio_input *in, tsio_status *st) {
    tsio_status_clear(st);
    tsio_tiff *t = calloc(1, sizeof *t);
    if (!t) { tsio_status_fail(st, TSIO_ERR_NOMEM, "out of memory"); return NULL; }
    t->in = *in;
    t->size = tsio_input_size(in);
    t->chunk_id = -1;
    tsio_tiff_enter(t, st);
    TIFFOpenOptions *opts = TIFFOpenOptionsAlloc();
    if (!opts) { free(t); tsio_status_fail(st, TSIO_ERR_NOMEM, "out of memory"); return NULL; }
    TIFFOpenOptionsSetMaxSingleMemAlloc(opts, TSIO_TIFF_MAX_ALLOC);
    TIFFOpenOptionsSetErrorHandlerExtR(opts, on_error, t);
    TIFFOpenOptionsSetWarningHandlerExtR(opts, on_warning, t);
    t->tif = TIFFClientOpenExt("tiff", "rO", (thandle_t)t, fd_read, fd_write, fd_seek, fd_close, fd_size, no_map,
                               no_unmap, opts);
    TIFFOpenOptionsFree(opts);
    if (!t->tif) {
        tsio_tiff_fail(t, TSIO_ERR_CORRUPT, "not a readable TIFF");
        free(t);
        return NULL;
    }
    if (select_dir(t, TIFFCurrentDirOffset(t->tif), NULL) != 0) { tsio_tiff_close(t); return NULL; }
    return t;
}

void tsio_tiff_close(tsio_tiff *t) {
    if (!t) return;
    t->st = NULL;
    if (t->tif) TIFFClose(t->tif);
    free(t->chunk);
    free(t->sums);
    free(t->row);
    free(t->cmyk);
    free(t);
}

int tsio_tiff_directories(tsio_tiff *t, tsio_tiff_dir *out, int cap, tsio_status *st) {
    tsio_tiff_enter(t, st);
    if (!TIFFSetDirectory(t->tif, 0)) return tsio_tiff_fail(t, TSIO_ERR_CORRUPT, "cannot read the first directory");
    t->chunk_id = -1;
    uint64_t subifds[TSIO_TIFF_MAX_DIRS];
    int nsub = 0, n = 0;
    {
        uint16_t count = 0;
        uint64_t *offsets = NULL;
        if (TIFFGetField(t->tif, TIFFTAG_SUBIFD, &count, &offsets) && offsets) {
            for (int i = 0; i < count && nsub < TSIO_TIFF_MAX_DIRS; i++) subifds[nsub++] = offsets[i];
        }
    }
    for (;;) {
        describe(t, &t->dir);
        if (n < cap) out[n] = t->dir;
        n++;
        if (n >= TSIO_TIFF_MAX_DIRS || TIFFLastDirectory(t->tif)) break;
        tsio_status probe = *st;
        if (!TIFFReadDirectory(t->tif)) {
            /* A broken or looping chain past the first page: the pages before it are still good. */
            tsio_status_warn(&probe, st->message[0] ? st->message : "a later directory cannot be read");
            *st = probe;
            break;
        }
    }
    for (int i = 0; i < nsub && n < TSIO_TIFF_MAX_DIRS; i++) {
        tsio_status probe = *st;
        if (!TIFFSetSubDirectory(t->tif, subifds[i])) {
            tsio_status_warn(&probe, st->message[0] ? st->message : "a SubIFD cannot be read");
            *st = probe;
            continue;
        }
        describe(t, &t->dir);
        t->dir.subifd = 1;
        if (n < cap) out[n] = t->dir;
        n++;
    }
    t->dir.offset = 0; /* the current directory is no longer the selected one */
    t->chunk_id = -1;
    return n;
}

int tsio_tiff_select(tsio_tiff *t, uint64_t offset, tsio_tiff_dir *d, tsio_status *st) {
    tsio_tiff_enter(t, st);
    return select_dir(t, offset, d);
}

void tsio_tiff_set_cmyk_icc(tsio_tiff *t, const tsio_icc *icc) {
    t->cmyk_icc = icc;
}

int tsio_tiff_icc_profile(tsio_tiff *t, uint8_t **profile, size_t *size) {
    uint32_t n = 0;
    void *data = NULL;
    if (!TIFFGetField(t->tif, TIFFTAG_ICCPROFILE, &n, &data) || !data || n == 0) return 0;
    uint8_t *copy = malloc(n);
    if (!copy) return 0;
    memcpy(copy, data, n);
    *profile = copy;
    *size = n;
    return 1;
}

const char *tsio_tiff_compression_name(int compression) {
    const TIFFCodec *c = TIFFFindCODEC((uint16_t)compression);
    return c && c->name ? c->name : "unknown";
}

