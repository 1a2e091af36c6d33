#include "CImageIO.h"
#include "status.h"

#include <stdlib.h>
#include <string.h>

#include <webp/decode.h>
#include <webp/encode.h>
#include <webp/mux.h>

/* libwebp reports failures as return values, never through callbacks: nothing to catch here. */

static const char *encode_error(WebPEncodingError e) {
    switch (e) {
    case VP8_ENC_ERROR_OUT_OF_MEMORY: case VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY: return "out of memory";
    case VP8_ENC_ERROR_BAD_DIMENSION: return "a side over 16,383 pixels";
    case VP8_ENC_ERROR_PARTITION0_OVERFLOW: case VP8_ENC_ERROR_PARTITION_OVERFLOW: return "partition overflow";
    default: return "encoder error";
    }
}

/* Wraps a VP8 bitstream and an ICC profile in an extended WebP container (VP8X + ICCP). */
static int embed_profile(uint8_t **data, size_t *size, const uint8_t *icc, size_t icc_size, tsio_status *st) {
    WebPData image = {*data, *size}, profile = {icc, icc_size}, assembled = {NULL, 0};
    WebPMux *mux = WebPMuxNew();
    int ok = mux && WebPMuxSetImage(mux, &image, 0) == WEBP_MUX_OK && WebPMuxSetChunk(mux, "ICCP", &profile, 0) == WEBP_MUX_OK
        && WebPMuxAssemble(mux, &assembled) == WEBP_MUX_OK;
    WebPMuxDelete(mux);
    if (!ok) {
        WebPDataClear(&assembled);
        tsio_status_fail(st, TSIO_ERR_NOMEM, "WebP encoder: cannot embed the ICC profile");
        return -1;
    }
    WebPFree(*data);
    *data = (uint8_t *)assembled.bytes;
    *size = assembled.size;
    return 0;
}

int tsio_webp_encode(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride, int channels, float quality,
                     int method, const uint8_t *icc, size_t icc_size, uint8_t **out, size_t *out_size, tsio_status *st) {
    tsio_status_clear(st);
    *out = NULL;
    *out_size = 0;
    if (width == 0 || height == 0 || width > WEBP_MAX_DIMENSION || height > WEBP_MAX_DIMENSION || (channels != 3 && channels != 4)) {
        tsio_status_fail(st, TSIO_ERR_ARGUMENT, "cannot encode %ux%u with %d channels as WebP", width, height, channels);
        return -1;
    }
    WebPConfig config;
    WebPPicture picture;
    if (!WebPConfigInit(&config) || !WebPPictureInit(&picture)) {
        tsio_status_fail(st, TSIO_ERR_ARGUMENT, "libwebp version mismatch");
        return -1;
    }
    config.quality = quality;
    config.method = method;
    picture.use_argb = 0;
    picture.width = (int)width;
    picture.height = (int)height;
    WebPMemoryWriter writer;
    WebPMemoryWriterInit(&writer);
    picture.writer = WebPMemoryWrite;
    picture.custom_ptr = &writer;
    int imported = channels == 4 ? WebPPictureImportRGBA(&picture, pixels, (int)stride)
                                 : WebPPictureImportRGB(&picture, pixels, (int)stride);
    if (!imported || !WebPEncode(&config, &picture)) {
        tsio_status_fail(st, TSIO_ERR_NOMEM, "WebP encoder: %s", imported ? encode_error(picture.error_code) : "out of memory");
        WebPPictureFree(&picture);
        WebPMemoryWriterClear(&writer);
        return -1;
    }
    WebPPictureFree(&picture);
    uint8_t *data = writer.mem;
    size_t size = writer.size;
    if (icc && icc_size > 0 && embed_profile(&data, &size, icc, icc_size, st) != 0) {
        WebPFree(data);
        return -1;
    }
    /* Callers free with tsio_free (free(3)); libwebp's buffers come from its own allocator. */
    *out = malloc(size);
    if (!*out) {
        WebPFree(data);
        tsio_status_fail(st, TSIO_ERR_NOMEM, "out of memory");
        return -1;
    }
    memcpy(*out, data, size);
    *out_size = size;
    WebPFree(data);
    return 0;
}

struct tsio_webp {
    const uint8_t *data;
    size_t size;
    uint32_t width, height, next;
    int channels;
    uint8_t *pixels;          /* the whole picture, for reads of part of it */
};

tsio_webp *tsio_webp_open_mem(const uint8_t *data, size_t size, tsio_info *info, tsio_status *st) {
    tsio_status_clear(st);
    memset(info, 0, sizeof *info);
    WebPBitstreamFeatures features;
    if (WebPGetFeatures(data, size, &features) != VP8_STATUS_OK || features.width <= 0 || features.height <= 0) {
        tsio_status_fail(st, TSIO_ERR_CORRUPT, "not a WebP image libwebp can read");
        return NULL;
    }
    if (features.has_animation) {
        tsio_status_fail(st, TSIO_ERR_UNSUPPORTED, "an animated WebP (its frames are not shown; save one frame as a still)");
        return NULL;
    }
    tsio_webp *w = calloc(1, sizeof *w);
    if (w == NULL) {
        tsio_status_fail(st, TSIO_ERR_NOMEM, "out of memory");
        return NULL;
    }
    w->data = data;
    w->size = size;
    w->width = (uint32_t)features.width;
    w->height = (uint32_t)features.height;
    w->channels = features.has_alpha ? 4 : 3;
    info->width = w->width;
    info->height = w->height;
    info->channels = w->channels;
    info->components = info->channels;
    info->color_space = features.has_alpha ? TSIO_COLOR_RGBA : TSIO_COLOR_RGB;
    info->bit_depth = 8;
    info->orientation = 1;
    return w;
}

/* The picture decoded into `dst` (`stride` bytes a row); 0, or -1 with `st` set. */
static int decode_into(const tsio_webp *w, uint8_t *dst, size_t stride, tsio_status *st) {
    size_t bytes = stride * w->height;
    uint8_t *done = w->channels == 4 ? WebPDecodeRGBAInto(w->data, w->size, dst, bytes, (int)stride)
                                     : WebPDecodeRGBInto(w->data, w->size, dst, bytes, (int)stride);
    if (!done) {
        tsio_status_fail(st, TSIO_ERR_CORRUPT, "the WebP data cannot be decoded");
        return -1;
    }
    return 0;
}

int64_t tsio_webp_read(tsio_webp *w, uint8_t *dst, size_t stride, uint32_t rows, tsio_status *st) {
    tsio_status_clear(st);
    size_t row_bytes = (size_t)w->width * (size_t)w->channels;
    if (stride < row_bytes) {
        tsio_status_fail(st, TSIO_ERR_ARGUMENT, "a stride of %zu bytes is short of a row's %zu", stride, row_bytes);
        return -1;
    }
    if (rows > w->height - w->next) rows = w->height - w->next;
    if (rows == 0) return 0;
    if (w->next == 0 && rows == w->height && w->pixels == NULL) {
        if (decode_into(w, dst, stride, st) != 0) return -1;
        w->next = w->height;
        return rows;
    }
    if (w->pixels == NULL) {
        w->pixels = malloc(row_bytes * w->height);
        if (w->pixels == NULL) {
            tsio_status_fail(st, TSIO_ERR_NOMEM, "out of memory for a %u x %u WebP", w->width, w->height);
            return -1;
        }
        if (decode_into(w, w->pixels, row_bytes, st) != 0) {
            free(w->pixels);
            w->pixels = NULL;
            return -1;
        }
    }
    for (uint32_t k = 0; k < rows; k++) memcpy(dst + (size_t)k * stride, w->pixels + (size_t)(w->next + k) * row_bytes, row_bytes);
    w->next += rows;
    return rows;
}

void tsio_webp_close(tsio_webp *w) {
    if (w == NULL) return;
    free(w->pixels);
    free(w);
}
