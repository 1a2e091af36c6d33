#include "CImageIO.h"
#include "status.h"

#include <errno.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

#define SOURCE_BUFFER 65536

struct tsio_png {
    png_structp png;
    png_infop info;
    tsio_status *st;
    tsio_input in;
    const uint8_t *mem;       /* in-memory input instead of `in` (tsio_png_open_mem) */
    size_t mem_size;
    const uint8_t *window;    /* buffer or mem: where the buffered bytes are */
    uint64_t read_total;
    uint64_t file_size;
    uint32_t width, height;
    size_t rowbytes;          /* as libpng delivers rows: two bytes a sample for a 16-bit file */
    int wide;                 /* 16-bit samples, narrowed (or converted) to 8 bits here */
    int interlaced;
    uint32_t next_row;
    uint8_t *whole;           /* Adam7 files only: the decoded image */
    png_bytep *row_pointers;  /* Adam7 files only: into `whole`; kept here so a longjmp out of png_read_image
                                 cannot leak them (found by fuzzing) */
    uint8_t *scratch;         /* one row as libpng delivers it: for skipping, and 16-bit rows before narrowing */
    const tsio_icc *icc;      /* conversion to sRGB, or NULL */
    size_t buffered, position;
    uint8_t buffer[SOURCE_BUFFER];
};

static void on_error(png_structp png, png_const_charp message) {
    tsio_png *p = png_get_error_ptr(png);
    tsio_status_fail(p->st, TSIO_ERR_CORRUPT, "%s", message);
    p->st->offset = p->read_total - (p->buffered - p->position);
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp message) {
    tsio_png *p = png_get_error_ptr(png);
    tsio_status_warn(p->st, message);
}

/* png_set_read_fn callback: buffered reads; the end of the file is a truncation. */
static void on_read(png_structp png, png_bytep out, size_t length) {
    tsio_png *p = png_get_io_ptr(png);
    while (length > 0) {
        if (p->position == p->buffered && p->mem != NULL) {
            if (p->read_total >= p->mem_size) {
                tsio_status_fail(p->st, TSIO_ERR_TRUNCATED, "PNG data ends at byte %llu",
                                 (unsigned long long)p->read_total);
                p->st->offset = p->read_total;
                png_longjmp(png, 1);
            }
            p->read_total = p->mem_size;
            p->window = p->mem;
            p->buffered = p->mem_size;
            p->position = 0;
        }
        if (p->position == p->buffered) {
            long long n = tsio_input_pread(&p->in, p->buffer, SOURCE_BUFFER, p->read_total);
            if (n < 0) {
                tsio_status_fail(p->st, TSIO_ERR_IO, "read failed: %s", strerror(errno));
                p->st->offset = p->read_total;
                png_longjmp(png, 1);
            }
            if (n == 0) {
                tsio_status_fail(p->st, TSIO_ERR_TRUNCATED, "PNG data ends at byte %llu",
                                 (unsigned long long)p->read_total);
                p->st->offset = p->read_total;
                png_longjmp(png, 1);
            }
            p->read_total += (uint64_t)n;
            p->window = p->buffer;
            p->buffered = (size_t)n;
            p->position = 0;
        }
        size_t step = p->buffered - p->position;
        if (step > length) step = length;
        memcpy(out, p->window + p->position, step);
        p->position += step;
        out += step;
        length -= step;
    }
}

static void set_transforms(tsio_png *p, tsio_info *info) {
    png_structp png = p->png;
    png_infop pi = p->info;
    int color = png_get_color_type(png, pi);
    int depth = png_get_bit_depth(png, pi);
    int has_trns = png_get_valid(png, pi, PNG_INFO_tRNS) != 0;
    memset(info, 0, sizeof *info);
    info->width = png_get_image_width(png, pi);
    info->height = png_get_image_height(png, pi);
    info->bit_depth = depth;
    info->components = png_get_channels(png, pi);
    info->orientation = 1;
    switch (color) {
    case PNG_COLOR_TYPE_GRAY: info->color_space = TSIO_COLOR_GRAY; break;
    case PNG_COLOR_TYPE_GRAY_ALPHA: info->color_space = TSIO_COLOR_GRAY_ALPHA; break;
    case PNG_COLOR_TYPE_PALETTE: info->color_space = TSIO_COLOR_PALETTE; break;
    case PNG_COLOR_TYPE_RGB_ALPHA: info->color_space = TSIO_COLOR_RGBA; break;
    default: info->color_space = TSIO_COLOR_RGB; break;
    }
    p->interlaced = png_get_interlace_type(png, pi) != PNG_INTERLACE_NONE;
    info->progressive = p->interlaced;

#ifdef PNG_eXIf_SUPPORTED
    png_uint_32 exif_size = 0;
    png_bytep exif = NULL;
    if (png_get_eXIf_1(png, pi, &exif_size, &exif) != 0 && exif != NULL) {
        info->orientation = tsio_exif_orientation(exif, exif_size);
        info->exif_adobe_rgb = tsio_exif_adobe_rgb(exif, exif_size);
    }
#endif

    if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (color == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (has_trns) png_set_tRNS_to_alpha(png);
    p->wide = depth == 16; /* kept at 16 bits so a colour transform sees every bit; narrowed in tsio_png_read */
    if (color == PNG_COLOR_TYPE_GRAY || color == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
    if (p->interlaced) (void)png_set_interlace_handling(png);
    png_read_update_info(png, pi);
    info->channels = png_get_channels(png, pi);
    p->rowbytes = png_get_rowbytes(png, pi);
    p->width = info->width;
    p->height = info->height;
}

static tsio_png *open_input(const tsio_input *in, const uint8_t *mem, size_t mem_size, tsio_info *info, tsio_status *st) {
    tsio_status_clear(st);
    tsio_png *p = calloc(1, sizeof *p);
    if (p == NULL) {
        tsio_status_fail(st, TSIO_ERR_NOMEM, "out of memory opening a PNG decoder");
        return NULL;
    }
    p->st = st;
    if (in != NULL) p->in = *in;
    p->mem = mem;
    p->mem_size = mem_size;
    p->file_size = mem != NULL ? mem_size : tsio_input_size(in);
    st->file_size = p->file_size;
    p->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, p, on_error, on_warning);
    if (p->png == NULL) {
        tsio_status_fail(st, TSIO_ERR_NOMEM, "png_create_read_struct failed");
        free(p);
        return NULL;
    }
    if (setjmp(png_jmpbuf(p->png))) {
        tsio_png_close(p);
        return NULL;
    }
    p->info = png_create_info_struct(p->png);
    if (p->info == NULL) png_error(p->png, "png_create_info_struct failed");
    png_set_read_fn(p->png, p, on_read);
    /* Dimensions are checked by the caller against its pixel limit; keep libpng's own
       1,000,000 x 1,000,000 ceiling and cap ancillary chunk memory at 8 MiB. */
    png_set_chunk_malloc_max(p->png, 8u << 20);
    png_read_info(p->png, p->info);
    set_transforms(p, info);
    return p;
}

/* Adam7: the only way to get a row is to decode the whole image once. */
static void decode_whole(tsio_png *p) {
    if ((uint64_t)p->rowbytes * p->height > (uint64_t)SIZE_MAX / 2) {
        png_error(p->png, "interlaced image too large to decode");
    }
    p->whole = malloc(p->rowbytes * p->height);
    if (p->whole == NULL) {
        tsio_status_fail(p->st, TSIO_ERR_NOMEM, "out of memory for an interlaced %ux%u image",
                         p->width, p->height);
        png_longjmp(p->png, 1);
    }
    p->row_pointers = malloc(sizeof(png_bytep) * p->height);
    if (p->row_pointers == NULL) png_error(p->png, "out of memory for row pointers");
    for (uint32_t y = 0; y < p->height; y++) p->row_pointers[y] = p->whole + (size_t)y * p->rowbytes;
    png_read_image(p->png, p->row_pointers);
    free(p->row_pointers);
    p->row_pointers = NULL;
}

int64_t tsio_png_read(tsio_png *p, uint8_t *dst, size_t stride, uint32_t rows, tsio_status *st) {
    tsio_status_clear(st);
    p->st = st;
    st->file_size = p->file_size;
    if (setjmp(png_jmpbuf(p->png))) {
        st->rows_done = p->next_row;
        return -1;
    }
    if (p->interlaced && p->whole == NULL) decode_whole(p);
    if (!p->interlaced && (dst == NULL || p->wide) && p->scratch == NULL) {
        p->scratch = malloc(p->rowbytes);
        if (p->scratch == NULL) png_error(p->png, "out of memory for a row");
    }
    uint32_t done = 0;
    while (done < rows && p->next_row < p->height) {
        uint8_t *out = dst != NULL ? dst + (size_t)done * stride : NULL;
        const uint8_t *row;
        if (p->interlaced) {
            row = p->whole + (size_t)p->next_row * p->rowbytes;
        } else {
            uint8_t *into = out != NULL && !p->wide ? out : p->scratch;
            png_read_row(p->png, into, NULL);
            row = into;
        }
        if (out != NULL && p->wide) {
            if (p->icc != NULL) {
                tsio_icc_apply(p->icc, row, out, p->width);
            } else {
                size_t samples = p->rowbytes / 2;
                for (size_t i = 0; i < samples; i++) out[i] = row[2 * i];
            }
        } else if (out != NULL) {
            if (row != out) memcpy(out, row, p->rowbytes);
            if (p->icc != NULL) tsio_icc_apply(p->icc, out, out, p->width);
        }
        p->next_row++;
        done++;
    }
    return (int64_t)done;
}

int tsio_png_icc_profile(tsio_png *p, uint8_t **profile, size_t *size) {
    png_charp name = NULL;
    png_bytep data = NULL;
    png_uint_32 length = 0;
    int compression = 0;
    *profile = NULL;
    *size = 0;
    if (png_get_iCCP(p->png, p->info, &name, &compression, &data, &length) == PNG_INFO_iCCP && data != NULL && length > 0) {
        uint8_t *copy = malloc(length);
        if (copy == NULL) return 0;
        memcpy(copy, data, length);
        *profile = copy;
        *size = length;
        return 1;
    }
    int intent = 0;
    if (png_get_sRGB(p->png, p->info, &intent) == PNG_INFO_sRGB) return 0;
    /* sRGB's primaries and white (D65); its curve is close to a gamma of 2.2, which untagged files are taken as. */
    double primaries[6] = {0.64, 0.33, 0.30, 0.60, 0.15, 0.06}, wx = 0.3127, wy = 0.3290, file_gamma = 1.0 / 2.2;
    int have_gamma = png_get_gAMA(p->png, p->info, &file_gamma) == PNG_INFO_gAMA;
    int have_chrm = png_get_cHRM(p->png, p->info, &wx, &wy, &primaries[0], &primaries[1], &primaries[2], &primaries[3],
                                 &primaries[4], &primaries[5]) == PNG_INFO_cHRM;
    if (!have_gamma && !have_chrm) return 0;
    static const double srgb[8] = {0.64, 0.33, 0.30, 0.60, 0.15, 0.06, 0.3127, 0.3290};
    double given[8] = {primaries[0], primaries[1], primaries[2], primaries[3], primaries[4], primaries[5], wx, wy};
    int like_srgb = file_gamma > 0.44 && file_gamma < 0.47;
    for (int i = 0; i < 8 && like_srgb; i++) like_srgb = given[i] > srgb[i] - 0.01 && given[i] < srgb[i] + 0.01;
    if (like_srgb || file_gamma <= 0.01 || file_gamma > 10) return 0;
    return tsio_icc_rgb_profile(wx, wy, primaries, 1.0 / file_gamma, profile, size);
}

void tsio_png_set_icc(tsio_png *p, const tsio_icc *t) { p->icc = t; }

void tsio_png_close(tsio_png *p) {
    if (p == NULL) return;
    if (p->png != NULL) png_destroy_read_struct(&p->png, p->info != NULL ? &p->info : NULL, NULL);
    free(p->whole);
    free(p->row_pointers);
    free(p->scratch);
    free(p);
}

tsio_png *tsio_png_open(const tsio_input *in, tsio_info *info, tsio_status *st) {
    return open_input(in, NULL, 0, info, st);
}

tsio_png *tsio_png_open_mem(const uint8_t *data, size_t size, tsio_info *info, tsio_status *st) {
    if (data == NULL || size == 0) {
        tsio_status_clear(st);
        tsio_status_fail(st, TSIO_ERR_TRUNCATED, "PNG data ends at byte 0");
        return NULL;
    }
    return open_input(NULL, data, size, info, st);
}
