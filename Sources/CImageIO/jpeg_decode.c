#include "CImageIO.h"
#include "status.h"

#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

#define SOURCE_BUFFER 65536

struct tsio_jpeg {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_error_mgr err;
    struct jpeg_source_mgr src;
    struct jpeg_progress_mgr progress;
    jmp_buf jump;
    tsio_status *st;          /* the status of the call in progress */
    tsio_input in;
    const uint8_t *mem;       /* in-memory input instead of `in` (tsio_jpeg_open_mem) */
    size_t mem_size;
    uint64_t read_total;      /* bytes read from the input so far */
    uint64_t file_size;
    int started;
    int cmyk;                 /* decoding to JCS_CMYK, converted here */
    int inverted;
    uint8_t *cmyk_row;        /* one cropped row of CMYK samples */
    const tsio_icc *icc;      /* conversion to sRGB, or NULL */
    size_t cmyk_row_size;
    uint8_t buffer[SOURCE_BUFFER];
};

/* error_exit: format the library's message and jump back to the API call. */
static void on_error_exit(j_common_ptr cinfo) {
    tsio_jpeg *j = (tsio_jpeg *)cinfo->client_data;
    char text[JMSG_LENGTH_MAX];
    cinfo->err->format_message(cinfo, text);
    int code = TSIO_ERR_CORRUPT;
    int msg = cinfo->err->msg_code;
    if (msg == JERR_OUT_OF_MEMORY || msg == JERR_NO_BACKING_STORE) code = TSIO_ERR_NOMEM;
    if (msg == JERR_CONVERSION_NOTIMPL || msg == JERR_NOT_COMPILED) code = TSIO_ERR_UNSUPPORTED;
    tsio_status_fail(j->st, code, "%s", text);
    j->st->offset = j->read_total - j->src.bytes_in_buffer;
    longjmp(j->jump, 1);
}

/* Real progressive files have about ten scans; thousands are a denial of service (each scan walks every
 * coefficient again), refused as libjpeg-turbo's own scan limit does it: from the progress monitor. */
#define TSIO_MAX_SCANS 1000

static void on_progress(j_common_ptr cinfo) {
    if (!cinfo->is_decompressor) return;
    j_decompress_ptr d = (j_decompress_ptr)cinfo;
    if (d->input_scan_number > TSIO_MAX_SCANS) {
        tsio_jpeg *j = (tsio_jpeg *)cinfo->client_data;
        tsio_status_fail(j->st, TSIO_ERR_CORRUPT, "more than %d scans in a progressive JPEG", TSIO_MAX_SCANS);
        j->st->offset = j->read_total - j->src.bytes_in_buffer;
        longjmp(j->jump, 1);
    }
}

/* emit_message: collect warnings (level -1); drop trace messages. */
static void on_emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return;
    tsio_jpeg *j = (tsio_jpeg *)cinfo->client_data;
    char text[JMSG_LENGTH_MAX];
    cinfo->err->format_message(cinfo, text);
    tsio_status_warn(j->st, text);
    cinfo->err->num_warnings++;
}

static void on_output_message(j_common_ptr cinfo) { (void)cinfo; }

static void src_init(j_decompress_ptr cinfo) { (void)cinfo; }

/* fill_input_buffer: read the next chunk; the end of the file mid-image is an error. */
static boolean src_fill(j_decompress_ptr cinfo) {
    tsio_jpeg *j = (tsio_jpeg *)cinfo->client_data;
    if (j->mem != NULL) {
        /* The whole input is one buffer, handed over on the first fill. */
        if (j->read_total >= j->mem_size) {
            tsio_status_fail(j->st, TSIO_ERR_TRUNCATED, "JPEG data ends at byte %llu",
                             (unsigned long long)j->read_total);
            j->st->offset = j->read_total;
            longjmp(j->jump, 1);
        }
        j->read_total = j->mem_size;
        j->src.next_input_byte = j->mem;
        j->src.bytes_in_buffer = j->mem_size;
        return TRUE;
    }
    long long n = tsio_input_pread(&j->in, j->buffer, SOURCE_BUFFER, j->read_total);
    if (n < 0) {
        tsio_status_fail(j->st, TSIO_ERR_IO, "read failed: %s", strerror(errno));
        j->st->offset = j->read_total;
        longjmp(j->jump, 1);
    }
    if (n == 0) {
        tsio_status_fail(j->st, TSIO_ERR_TRUNCATED, "JPEG data ends at byte %llu",
                         (unsigned long long)j->read_total);
        j->st->offset = j->read_total;
        longjmp(j->jump, 1);
    }
    j->read_total += (uint64_t)n;
    j->src.next_input_byte = j->buffer;
    j->src.bytes_in_buffer = (size_t)n;
    return TRUE;
}

static void src_skip(j_decompress_ptr cinfo, long count) {
    tsio_jpeg *j = (tsio_jpeg *)cinfo->client_data;
    while (count > 0) {
        if (j->src.bytes_in_buffer == 0) src_fill(cinfo);
        size_t step = (size_t)count < j->src.bytes_in_buffer ? (size_t)count : j->src.bytes_in_buffer;
        j->src.next_input_byte += step;
        j->src.bytes_in_buffer -= step;
        count -= (long)step;
    }
}

static void src_term(j_decompress_ptr cinfo) { (void)cinfo; }

static void fill_info(tsio_jpeg *j, tsio_info *info) {
    struct jpeg_decompress_struct *c = &j->cinfo;
    memset(info, 0, sizeof *info);
    info->width = c->image_width;
    info->height = c->image_height;
    info->components = c->num_components;
    info->channels = 3;
    info->bit_depth = c->data_precision;
    info->progressive = c->progressive_mode ? 1 : 0;
    info->restart_interval = (int)c->restart_interval;
    info->adobe_inverted = c->saw_Adobe_marker ? 1 : 0;
    switch (c->jpeg_color_space) {
    case JCS_GRAYSCALE: info->color_space = TSIO_COLOR_GRAY; break;
    case JCS_CMYK: info->color_space = TSIO_COLOR_CMYK; break;
    case JCS_YCCK: info->color_space = TSIO_COLOR_YCCK; break;
    default: info->color_space = TSIO_COLOR_RGB; break;
    }
    info->ycbcr = c->jpeg_color_space == JCS_YCbCr;
    info->chroma_subsampled = 0;
    for (int i = 1; i < c->num_components; i++) {
        if (c->comp_info[i].h_samp_factor != c->comp_info[0].h_samp_factor ||
            c->comp_info[i].v_samp_factor != c->comp_info[0].v_samp_factor) {
            info->chroma_subsampled = 1;
        }
    }
    info->orientation = 1;
    for (jpeg_saved_marker_ptr m = c->marker_list; m != NULL; m = m->next) {
        if (m->marker == JPEG_APP0 + 1 && m->data_length > 6 && memcmp(m->data, "Exif\0\0", 6) == 0) {
            info->orientation = tsio_exif_orientation(m->data + 6, m->data_length - 6);
            info->exif_adobe_rgb = tsio_exif_adobe_rgb(m->data + 6, m->data_length - 6);
            break;
        }
    }
}

static tsio_jpeg *open_input(const tsio_input *in, const uint8_t *mem, size_t mem_size, uint64_t max_memory,
                             tsio_info *info, tsio_status *st) {
    tsio_status_clear(st);
    tsio_jpeg *j = calloc(1, sizeof *j);
    if (j == NULL) {
        tsio_status_fail(st, TSIO_ERR_NOMEM, "out of memory opening a JPEG decoder");
        return NULL;
    }
    j->st = st;
    if (in != NULL) j->in = *in;
    j->mem = mem;
    j->mem_size = mem_size;
    j->file_size = mem != NULL ? mem_size : tsio_input_size(in);
    st->file_size = j->file_size;
    j->cinfo.err = jpeg_std_error(&j->err);
    j->err.error_exit = on_error_exit;
    j->err.emit_message = on_emit_message;
    j->err.output_message = on_output_message;
    j->cinfo.client_data = j;
    if (setjmp(j->jump)) {
        tsio_jpeg_close(j);
        return NULL;
    }
    jpeg_create_decompress(&j->cinfo);
    if (max_memory > 0) j->cinfo.mem->max_memory_to_use = (long)max_memory;
    j->progress.progress_monitor = on_progress;
    j->cinfo.progress = &j->progress;
    j->src.init_source = src_init;
    j->src.fill_input_buffer = src_fill;
    j->src.skip_input_data = src_skip;
    j->src.resync_to_restart = jpeg_resync_to_restart;
    j->src.term_source = src_term;
    j->cinfo.src = &j->src;
    jpeg_save_markers(&j->cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(&j->cinfo, JPEG_APP0 + 2, 0xFFFF);
    jpeg_read_header(&j->cinfo, TRUE);
    fill_info(j, info);
    return j;
}

tsio_jpeg *tsio_jpeg_open(const tsio_input *in, uint64_t max_memory, tsio_info *info, tsio_status *st) {
    return open_input(in, NULL, 0, max_memory, info, st);
}

tsio_jpeg *tsio_jpeg_open_mem(const uint8_t *data, size_t size, uint64_t max_memory, tsio_info *info, tsio_status *st) {
    if (data == NULL || size == 0) {
        tsio_status_clear(st);
        tsio_status_fail(st, TSIO_ERR_TRUNCATED, "JPEG data ends at byte 0");
        return NULL;
    }
    return open_input(NULL, data, size, max_memory, info, st);
}

int tsio_jpeg_start(tsio_jpeg *j, int scale_denom, uint32_t crop_x, uint32_t crop_w,
                    uint32_t *out_w, uint32_t *out_h,
                    uint32_t *crop_x_out, uint32_t *crop_w_out, tsio_status *st) {
    tsio_status_clear(st);
    j->st = st;
    st->file_size = j->file_size;
    if (j->started) {
        tsio_status_fail(st, TSIO_ERR_ARGUMENT, "decoder already started");
        return -1;
    }
    if (scale_denom != 1 && scale_denom != 2 && scale_denom != 4 && scale_denom != 8) {
        tsio_status_fail(st, TSIO_ERR_ARGUMENT, "scale must be 1/1, 1/2, 1/4 or 1/8, not 1/%d", scale_denom);
        return -1;
    }
    if (setjmp(j->jump)) return -1;
    struct jpeg_decompress_struct *c = &j->cinfo;
    c->scale_num = 1;
    c->scale_denom = (unsigned int)scale_denom;
    if (c->jpeg_color_space == JCS_CMYK || c->jpeg_color_space == JCS_YCCK) {
        c->out_color_space = JCS_CMYK;
        j->cmyk = 1;
        j->inverted = c->saw_Adobe_marker ? 1 : 0;
    } else {
        c->out_color_space = JCS_RGB;
    }
    jpeg_start_decompress(c);
    j->started = 1;
    *out_w = c->output_width;
    *out_h = c->output_height;
    if (crop_w == 0 || crop_x >= c->output_width || crop_w > c->output_width - crop_x) {
        tsio_status_fail(st, TSIO_ERR_ARGUMENT, "crop %u+%u outside the scaled width %u",
                         crop_x, crop_w, c->output_width);
        return -1;
    }
    JDIMENSION x = crop_x, w = crop_w;
    if (x != 0 || w != c->output_width) {
        /* One iMCU more on each side: fancy upsampling replicates the samples at the crop's edges (visible
         * with h2v1 chroma at 1/2 and 1/4), so the edges libjpeg makes must lie outside what was asked for. */
        JDIMENSION imcu = (JDIMENSION)(c->max_h_samp_factor * c->min_DCT_scaled_size);
        JDIMENSION left = x < imcu ? x : imcu;
        x -= left;
        w += left;
        w = w + imcu < c->output_width - x ? w + imcu : c->output_width - x;
        jpeg_crop_scanline(c, &x, &w);
    }
    *crop_x_out = x;
    *crop_w_out = w;
    if (j->cmyk) {
        j->cmyk_row_size = (size_t)w * 4;
        j->cmyk_row = malloc(j->cmyk_row_size);
        if (j->cmyk_row == NULL) {
            tsio_status_fail(st, TSIO_ERR_NOMEM, "out of memory for a CMYK row of %u pixels", w);
            return -1;
        }
    }
    return 0;
}

/* What every call on a started decoder does first: `st` cleared and kept for the error handlers; 0, or -1 with `st`
 * set when the decoder was not started. */
static int begin_call(tsio_jpeg *j, tsio_status *st) {
    tsio_status_clear(st);
    j->st = st;
    st->file_size = j->file_size;
    if (!j->started) {
        tsio_status_fail(st, TSIO_ERR_ARGUMENT, "decoder not started");
        return -1;
    }
    return 0;
}

int64_t tsio_jpeg_skip(tsio_jpeg *j, uint32_t rows, tsio_status *st) {
    if (begin_call(j, st) != 0) return -1;
    if (setjmp(j->jump)) return -1;
    if (rows == 0) return 0;
    return (int64_t)jpeg_skip_scanlines(&j->cinfo, rows);
}

/* Naive CMYK -> RGB, as libvips does without a profile: R = (1-C)(1-K). */
static void cmyk_to_rgb(const uint8_t *src, uint8_t *dst, uint32_t width, int inverted) {
    for (uint32_t i = 0; i < width; i++) {
        unsigned c = src[4 * i], m = src[4 * i + 1], y = src[4 * i + 2], k = src[4 * i + 3];
        if (!inverted) {
            c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k;
        }
        dst[3 * i] = (uint8_t)((c * k + 127) / 255);
        dst[3 * i + 1] = (uint8_t)((m * k + 127) / 255);
        dst[3 * i + 2] = (uint8_t)((y * k + 127) / 255);
    }
}

int64_t tsio_jpeg_read(tsio_jpeg *j, uint8_t *dst, size_t stride, uint32_t rows, tsio_status *st) {
    if (begin_call(j, st) != 0) return -1;
    struct jpeg_decompress_struct *c = &j->cinfo;
    volatile uint32_t done = 0;
    if (setjmp(j->jump)) {
        st->rows_done = c->output_scanline;
        return -1;
    }
    while (done < rows && c->output_scanline < c->output_height) {
        if (j->cmyk) {
            JSAMPROW row = j->cmyk_row;
            if (jpeg_read_scanlines(c, &row, 1) != 1) break;
            if (j->icc != NULL) tsio_icc_apply(j->icc, j->cmyk_row, dst + (size_t)done * stride, c->output_width);
            else cmyk_to_rgb(j->cmyk_row, dst + (size_t)done * stride, c->output_width, j->inverted);
            done++;
        } else {
            JSAMPROW rowp[16];
            uint32_t want = rows - done;
            if (want > 16) want = 16;
            for (uint32_t i = 0; i < want; i++) rowp[i] = dst + (size_t)(done + i) * stride;
            JDIMENSION got = jpeg_read_scanlines(c, rowp, want);
            if (got == 0) break;
            for (JDIMENSION i = 0; j->icc != NULL && i < got; i++) tsio_icc_apply(j->icc, rowp[i], rowp[i], c->output_width);
            done += got;
        }
    }
    return (int64_t)done;
}

int tsio_jpeg_icc_profile(tsio_jpeg *j, uint8_t **profile, size_t *size) {
    JOCTET *data = NULL;
    unsigned int length = 0;
    *profile = NULL;
    *size = 0;
    tsio_status st = {0};
    j->st = &st;
    if (setjmp(j->jump)) return 0; /* a broken chain of APP2 segments: as if there were none */
    if (!jpeg_read_icc_profile(&j->cinfo, &data, &length) || data == NULL) return 0;
    *profile = data;
    *size = length;
    return 1;
}

void tsio_jpeg_set_icc(tsio_jpeg *j, const tsio_icc *t) { j->icc = t; }

void tsio_jpeg_close(tsio_jpeg *j) {
    if (j == NULL) return;
    jpeg_destroy_decompress(&j->cinfo);
    free(j->cmyk_row);
    free(j);
}
