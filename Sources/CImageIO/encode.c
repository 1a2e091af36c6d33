#include "CImageIO.h"
#include "status.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <png.h>

struct jpeg_encoder {
    struct jpeg_compress_struct cinfo;
    struct jpeg_error_mgr err;
    jmp_buf jump;
    tsio_status *st;
};

static void on_jpeg_error(j_common_ptr cinfo) {
    struct jpeg_encoder *e = (struct jpeg_encoder *)cinfo->client_data;
    char text[JMSG_LENGTH_MAX];
    cinfo->err->format_message(cinfo, text);
    tsio_status_fail(e->st, TSIO_ERR_CORRUPT, "JPEG encoder: %s", text);
    longjmp(e->jump, 1);
}

static void on_jpeg_message(j_common_ptr cinfo, int level) { (void)cinfo; (void)level; }

int tsio_jpeg_encode(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride,
                     int channels, int quality, int subsample, const uint8_t *icc, size_t icc_size,
                     uint8_t **out, size_t *out_size, tsio_status *st) {
    tsio_status_clear(st);
    *out = NULL;
    *out_size = 0;
    if (width == 0 || height == 0 || (channels != 1 && channels != 3)) {
        tsio_status_fail(st, TSIO_ERR_ARGUMENT, "cannot encode %ux%u with %d channels as JPEG",
                         width, height, channels);
        return -1;
    }
    struct jpeg_encoder e;
    memset(&e, 0, sizeof e);
    e.st = st;
    e.cinfo.err = jpeg_std_error(&e.err);
    e.err.error_exit = on_jpeg_error;
    e.err.emit_message = on_jpeg_message;
    e.cinfo.client_data = &e;
    /* jpeg_mem_dest keeps these up to date; volatile so longjmp leaves them readable. */
    unsigned char *volatile buffer = NULL;
    unsigned long volatile size = 0;
    if (setjmp(e.jump)) {
        jpeg_destroy_compress(&e.cinfo);
        free(buffer);
        return -1;
    }
    jpeg_create_compress(&e.cinfo);
    jpeg_mem_dest(&e.cinfo, (unsigned char **)&buffer, (unsigned long *)&size);
    e.cinfo.image_width = width;
    e.cinfo.image_height = height;
    e.cinfo.input_components = channels;
    e.cinfo.in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&e.cinfo);
    jpeg_set_quality(&e.cinfo, quality < 1 ? 1 : (quality > 100 ? 100 : quality), TRUE);
    e.cinfo.optimize_coding = FALSE;
    if (channels == 3) {
        int factor = subsample ? 2 : 1;
        e.cinfo.comp_info[0].h_samp_factor = factor;
        e.cinfo.comp_info[0].v_samp_factor = factor;
        e.cinfo.comp_info[1].h_samp_factor = 1;
        e.cinfo.comp_info[1].v_samp_factor = 1;
        e.cinfo.comp_info[2].h_samp_factor = 1;
        e.cinfo.comp_info[2].v_samp_factor = 1;
    }
    jpeg_start_compress(&e.cinfo, TRUE);
    if (icc != NULL && icc_size > 0) jpeg_write_icc_profile(&e.cinfo, icc, (unsigned int)icc_size);
    while (e.cinfo.next_scanline < height) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)e.cinfo.next_scanline * stride);
        jpeg_write_scanlines(&e.cinfo, &row, 1);
    }
    jpeg_finish_compress(&e.cinfo);
    jpeg_destroy_compress(&e.cinfo);
    *out = buffer;
    *out_size = size;
    return 0;
}

struct png_sink {
    uint8_t *data;
    size_t size, capacity;
    int failed;
};

static void on_png_write(png_structp png, png_bytep bytes, size_t length) {
    struct png_sink *sink = png_get_io_ptr(png);
    if (sink->size + length > sink->capacity) {
        size_t capacity = sink->capacity ? sink->capacity : 16384;
        while (capacity < sink->size + length) capacity *= 2;
        uint8_t *grown = realloc(sink->data, capacity);
        if (grown == NULL) {
            sink->failed = 1;
            png_error(png, "out of memory for the encoded PNG");
        }
        sink->data = grown;
        sink->capacity = capacity;
    }
    memcpy(sink->data + sink->size, bytes, length);
    sink->size += length;
}

static void on_png_flush(png_structp png) { (void)png; }

static void on_png_error(png_structp png, png_const_charp message) {
    tsio_status *st = png_get_error_ptr(png);
    tsio_status_fail(st, TSIO_ERR_CORRUPT, "PNG encoder: %s", message);
    png_longjmp(png, 1);
}

static void on_png_warning(png_structp png, png_const_charp message) {
    tsio_status_warn(png_get_error_ptr(png), message);
}

int tsio_png_encode(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride,
                    int channels, int level, const uint8_t *icc, size_t icc_size,
                    uint8_t **out, size_t *out_size, tsio_status *st) {
    tsio_status_clear(st);
    *out = NULL;
    *out_size = 0;
    static const int types[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                 PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
    if (width == 0 || height == 0 || channels < 1 || channels > 4) {
        tsio_status_fail(st, TSIO_ERR_ARGUMENT, "cannot encode %ux%u with %d channels as PNG",
                         width, height, channels);
        return -1;
    }
    struct png_sink sink = {0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, st, on_png_error, on_png_warning);
    if (png == NULL) {
        tsio_status_fail(st, TSIO_ERR_NOMEM, "png_create_write_struct failed");
        return -1;
    }
    png_infop info = png_create_info_struct(png);
    if (info == NULL || setjmp(png_jmpbuf(png))) {
        if (info == NULL) tsio_status_fail(st, TSIO_ERR_NOMEM, "png_create_info_struct failed");
        png_destroy_write_struct(&png, info != NULL ? &info : NULL);
        free(sink.data);
        return -1;
    }
    png_set_write_fn(png, &sink, on_png_write, on_png_flush);
    png_set_compression_level(png, level < 0 ? 0 : (level > 9 ? 9 : level));
    png_set_filter(png, 0, level <= 3 ? PNG_FILTER_SUB : PNG_ALL_FILTERS);
    png_set_IHDR(png, info, width, height, 8, types[channels], PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (icc != NULL && icc_size > 0) png_set_iCCP(png, info, "icc", PNG_COMPRESSION_TYPE_BASE, icc, (png_uint_32)icc_size);
    png_write_info(png, info);
    for (uint32_t y = 0; y < height; y++) {
        png_write_row(png, (png_const_bytep)(pixels + (size_t)y * stride));
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    *out = sink.data;
    *out_size = sink.size;
    return 0;
}

void tsio_free(void *p) { free(p); }
