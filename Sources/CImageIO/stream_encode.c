#include "CImageIO.h"
#include "status.h"

#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jpeglib.h>
#include <jerror.h>
#include <png.h>

/* Encoded bytes go through a 64 KiB buffer to write(2) on the caller's fd, retrying EINTR and short writes. */
struct sink {
    int fd;
    size_t used;
    int io_errno;
    uint8_t buffer[65536];
};

static int sink_drain(struct sink *s) {
    size_t done = 0;
    while (done < s->used) {
        ssize_t n = write(s->fd, s->buffer + done, s->used - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            s->io_errno = n < 0 ? errno : EIO;
            return -1;
        }
        done += (size_t)n;
    }
    s->used = 0;
    return 0;
}

struct tsio_writer {
    int format; /* 0 JPEG, 1 PNG */
    uint32_t width, height, rows_done;
    int failed;
    tsio_status *st;
    jmp_buf jump;
    struct sink sink;
    /* JPEG */
    struct jpeg_compress_struct cinfo;
    struct jpeg_error_mgr err;
    struct jpeg_destination_mgr dest;
    int jpeg_created;
    /* PNG */
    png_structp png;
    png_infop info;
};

static void on_jpeg_error(j_common_ptr cinfo) {
    struct tsio_writer *w = (struct tsio_writer *)cinfo->client_data;
    char text[JMSG_LENGTH_MAX];
    cinfo->err->format_message(cinfo, text);
    if (w->sink.io_errno) {
        tsio_status_fail(w->st, TSIO_ERR_IO, "write: %s", strerror(w->sink.io_errno));
    } else {
        tsio_status_fail(w->st, TSIO_ERR_CORRUPT, "JPEG encoder: %s", text);
    }
    longjmp(w->jump, 1);
}

static void on_jpeg_message(j_common_ptr cinfo, int level) { (void)cinfo; (void)level; }

static void dest_init(j_compress_ptr cinfo) {
    struct tsio_writer *w = (struct tsio_writer *)cinfo->client_data;
    w->dest.next_output_byte = w->sink.buffer;
    w->dest.free_in_buffer = sizeof w->sink.buffer;
}

static boolean dest_empty(j_compress_ptr cinfo) {
    struct tsio_writer *w = (struct tsio_writer *)cinfo->client_data;
    w->sink.used = sizeof w->sink.buffer;
    if (sink_drain(&w->sink) < 0) ERREXIT(cinfo, JERR_FILE_WRITE);
    dest_init(cinfo);
    return TRUE;
}

static void dest_term(j_compress_ptr cinfo) {
    struct tsio_writer *w = (struct tsio_writer *)cinfo->client_data;
    w->sink.used = sizeof w->sink.buffer - w->dest.free_in_buffer;
    if (sink_drain(&w->sink) < 0) ERREXIT(cinfo, JERR_FILE_WRITE);
}

static void on_png_write(png_structp png, png_bytep bytes, size_t length) {
    struct tsio_writer *w = png_get_io_ptr(png);
    while (length > 0) {
        size_t room = sizeof w->sink.buffer - w->sink.used;
        size_t n = length < room ? length : room;
        memcpy(w->sink.buffer + w->sink.used, bytes, n);
        w->sink.used += n;
        bytes += n;
        length -= n;
        if (w->sink.used == sizeof w->sink.buffer && sink_drain(&w->sink) < 0) png_error(png, "write failed");
    }
}

static void on_png_flush(png_structp png) { (void)png; }

static void on_png_error(png_structp png, png_const_charp message) {
    struct tsio_writer *w = png_get_error_ptr(png);
    if (w->sink.io_errno) {
        tsio_status_fail(w->st, TSIO_ERR_IO, "write: %s", strerror(w->sink.io_errno));
    } else {
        tsio_status_fail(w->st, TSIO_ERR_CORRUPT, "PNG encoder: %s", message);
    }
    png_longjmp(png, 1);
}

static void on_png_warning(png_structp png, png_const_charp message) {
    struct tsio_writer *w = png_get_error_ptr(png);
    tsio_status_warn(w->st, message);
}

static void writer_destroy(tsio_writer *w) {
    if (w->jpeg_created) jpeg_destroy_compress(&w->cinfo);
    if (w->png) png_destroy_write_struct(&w->png, w->info ? &w->info : NULL);
    free(w);
}

tsio_writer *tsio_writer_open(int fd, int format, uint32_t width, uint32_t height, int channels,
                              int quality_or_level, const uint8_t *icc, size_t icc_size, tsio_status *st) {
    tsio_status_clear(st);
    int jpeg_ok = format == 0 && (channels == 1 || channels == 3);
    int png_ok = format == 1 && channels >= 1 && channels <= 4;
    if (width == 0 || height == 0 || !(jpeg_ok || png_ok)) {
        tsio_status_fail(st, TSIO_ERR_ARGUMENT, "cannot stream %ux%u with %d channels as %s",
                         width, height, channels, format == 0 ? "JPEG" : "PNG");
        return NULL;
    }
    tsio_writer *w = calloc(1, sizeof *w);
    if (w == NULL) {
        tsio_status_fail(st, TSIO_ERR_NOMEM, "out of memory for an image writer");
        return NULL;
    }
    w->format = format;
    w->width = width;
    w->height = height;
    w->st = st;
    w->sink.fd = fd;
    if (format == 0) {
        w->cinfo.err = jpeg_std_error(&w->err);
        w->err.error_exit = on_jpeg_error;
        w->err.emit_message = on_jpeg_message;
        w->cinfo.client_data = w;
        if (setjmp(w->jump)) {
            writer_destroy(w);
            return NULL;
        }
        jpeg_create_compress(&w->cinfo);
        w->jpeg_created = 1;
        w->dest.init_destination = dest_init;
        w->dest.empty_output_buffer = dest_empty;
        w->dest.term_destination = dest_term;
        w->cinfo.dest = &w->dest;
        w->cinfo.image_width = width;
        w->cinfo.image_height = height;
        w->cinfo.input_components = channels;
        w->cinfo.in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
        jpeg_set_defaults(&w->cinfo);
        int q = quality_or_level;
        jpeg_set_quality(&w->cinfo, q < 1 ? 1 : (q > 100 ? 100 : q), TRUE);
        jpeg_start_compress(&w->cinfo, TRUE);
        if (icc != NULL && icc_size > 0) jpeg_write_icc_profile(&w->cinfo, icc, (unsigned int)icc_size);
        return w;
    }
    static const int types[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                 PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
    w->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, w, on_png_error, on_png_warning);
    if (w->png == NULL) {
        tsio_status_fail(st, TSIO_ERR_NOMEM, "png_create_write_struct failed");
        free(w);
        return NULL;
    }
    w->info = png_create_info_struct(w->png);
    if (w->info == NULL || setjmp(png_jmpbuf(w->png))) {
        if (w->info == NULL) tsio_status_fail(st, TSIO_ERR_NOMEM, "png_create_info_struct failed");
        writer_destroy(w);
        return NULL;
    }
    int level = quality_or_level;
    png_set_write_fn(w->png, w, on_png_write, on_png_flush);
    png_set_compression_level(w->png, level < 0 ? 0 : (level > 9 ? 9 : level));
    png_set_filter(w->png, 0, level <= 3 ? PNG_FILTER_SUB : PNG_ALL_FILTERS);
    png_set_IHDR(w->png, w->info, width, height, 8, types[channels], PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (icc != NULL && icc_size > 0) png_set_iCCP(w->png, w->info, "icc", PNG_COMPRESSION_TYPE_BASE, icc, (png_uint_32)icc_size);
    png_write_info(w->png, w->info);
    return w;
}

int tsio_writer_rows(tsio_writer *w, const uint8_t *pixels, size_t stride, uint32_t rows, tsio_status *st) {
    tsio_status_clear(st);
    w->st = st;
    if (w->failed || rows > w->height - w->rows_done) {
        tsio_status_fail(st, TSIO_ERR_ARGUMENT, "%u rows given after %u of %u", rows, w->rows_done, w->height);
        w->failed = 1;
        return -1;
    }
    if (w->format == 0) {
        if (setjmp(w->jump)) {
            w->failed = 1;
            return -1;
        }
        for (uint32_t y = 0; y < rows; y++) {
            JSAMPROW row = (JSAMPROW)(pixels + (size_t)y * stride);
            jpeg_write_scanlines(&w->cinfo, &row, 1);
        }
    } else {
        if (setjmp(png_jmpbuf(w->png))) {
            w->failed = 1;
            return -1;
        }
        for (uint32_t y = 0; y < rows; y++) png_write_row(w->png, (png_const_bytep)(pixels + (size_t)y * stride));
    }
    w->rows_done += rows;
    return 0;
}

int tsio_writer_finish(tsio_writer *w, tsio_status *st) {
    tsio_status_clear(st);
    w->st = st;
    int result = -1;
    if (w->failed || w->rows_done != w->height) {
        tsio_status_fail(st, TSIO_ERR_ARGUMENT, "image ended after %u of %u rows", w->rows_done, w->height);
    } else if (w->format == 0) {
        if (setjmp(w->jump) == 0) {
            jpeg_finish_compress(&w->cinfo);
            result = 0;
        }
    } else {
        if (setjmp(png_jmpbuf(w->png)) == 0) {
            png_write_end(w->png, w->info);
            if (sink_drain(&w->sink) < 0) {
                tsio_status_fail(st, TSIO_ERR_IO, "write: %s", strerror(w->sink.io_errno));
            } else {
                result = 0;
            }
        }
    }
    writer_destroy(w);
    return result;
}

void tsio_writer_abort(tsio_writer *w) {
    if (w != NULL) writer_destroy(w);
}
