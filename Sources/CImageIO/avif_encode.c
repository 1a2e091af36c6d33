#include "CImageIO.h"
#include "status.h"

#include <stdlib.h>
#include <string.h>

#include <libheif/heif.h>

/*
 * AVIF tiles through libheif's AV1 encoder (libaom, as Debian builds libheif): libheif is already linked for
 * HEIC/AVIF sources and brings the encoder with it, where libavif would add three more AV1 libraries to the image.
 * Errors come back as values; nothing here jumps.
 */

typedef struct {
    uint8_t *data;
    size_t size;
} memory_out;

static struct heif_error write_out(struct heif_context *ctx, const void *data, size_t size, void *user) {
    (void)ctx;
    memory_out *out = user;
    struct heif_error ok = {heif_error_Ok, heif_suberror_Unspecified, "ok"};
    out->data = malloc(size ? size : 1);
    if (out->data == NULL) {
        struct heif_error err = {heif_error_Memory_allocation_error, heif_suberror_Unspecified, "out of memory"};
        return err;
    }
    memcpy(out->data, data, size);
    out->size = size;
    return ok;
}

int tsio_avif_encode(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride, int channels, int quality,
                     int speed, const uint8_t *icc, size_t icc_size, uint8_t **out, size_t *out_size, tsio_status *st) {
    tsio_status_clear(st);
    *out = NULL;
    *out_size = 0;
    if ((channels != 3 && channels != 4) || width == 0 || height == 0) {
        tsio_status_fail(st, TSIO_ERR_ARGUMENT, "%u x %u with %d channels cannot be encoded as AVIF", width, height, channels);
        return -1;
    }
    struct heif_context *ctx = heif_context_alloc();
    struct heif_encoder *encoder = NULL;
    struct heif_image *image = NULL;
    struct heif_image_handle *handle = NULL;
    memory_out written = {NULL, 0};
    const char *failed = NULL;
    struct heif_error err = {heif_error_Ok, heif_suberror_Unspecified, NULL};
    if (ctx == NULL) {
        tsio_status_fail(st, TSIO_ERR_NOMEM, "out of memory");
        return -1;
    }
    err = heif_context_get_encoder_for_format(ctx, heif_compression_AV1, &encoder);
    if (err.code != heif_error_Ok) { failed = "no AV1 encoder in libheif"; goto done; }
    heif_encoder_set_lossy_quality(encoder, quality < 0 ? 0 : quality > 100 ? 100 : quality);
    heif_encoder_set_parameter_integer(encoder, "speed", speed);
    heif_encoder_set_parameter_string(encoder, "chroma", "420");
    heif_encoder_set_parameter_integer(encoder, "threads", 1);
    err = heif_image_create((int)width, (int)height, heif_colorspace_RGB,
                            channels == 4 ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, &image);
    if (err.code != heif_error_Ok) { failed = "cannot make the picture"; goto done; }
    err = heif_image_add_plane(image, heif_channel_interleaved, (int)width, (int)height, 8);
    if (err.code != heif_error_Ok) { failed = "cannot make the picture"; goto done; }
    int plane_stride = 0;
    uint8_t *plane = heif_image_get_plane(image, heif_channel_interleaved, &plane_stride);
    if (plane == NULL || plane_stride < (int)(width * (uint32_t)channels)) { failed = "cannot make the picture"; goto done; }
    for (uint32_t y = 0; y < height; y++) memcpy(plane + (size_t)y * (size_t)plane_stride, pixels + (size_t)y * stride, (size_t)width * (size_t)channels);
    if (icc && icc_size > 0) heif_image_set_raw_color_profile(image, "prof", icc, icc_size);
    err = heif_context_encode_image(ctx, image, encoder, NULL, &handle);
    if (err.code != heif_error_Ok) { failed = "AV1 encoder"; goto done; }
    struct heif_writer writer = {1, write_out};
    err = heif_context_write(ctx, &writer, &written);
    if (err.code != heif_error_Ok) { failed = "writing the file"; goto done; }
done:
    if (handle) heif_image_handle_release(handle);
    if (image) heif_image_release(image);
    if (encoder) heif_encoder_release(encoder);
    heif_context_free(ctx);
    if (failed) {
        free(written.data);
        tsio_status_fail(st, err.code == heif_error_Memory_allocation_error ? TSIO_ERR_NOMEM : TSIO_ERR_CORRUPT, "AVIF: %s: %s",
                         failed, err.message ? err.message : "libheif error");
        return -1;
    }
    *out = written.data;
    *out_size = written.size;
    return 0;
}
