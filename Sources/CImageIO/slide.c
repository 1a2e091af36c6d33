/* Whole-slide images through OpenSlide: the vendor check, levels, properties, associated images, and regions
 * composited over the slide's background into RGB. OpenSlide reports errors by a sticky message on the handle
 * (never by exiting): each call here checks it and turns it into a tsio_status. */
#include <stdlib.h>
#include <string.h>
#include <openslide/openslide.h>
#include "CImageIO.h"
#include "status.h"

struct tsio_slide {
    openslide_t *osr;
};

/* Rows read from OpenSlide at a time: its ARGB scratch is at most this many rows of the widest region asked. */
#define SLIDE_STRIP_ROWS 64

const char *tsio_slide_vendor(const char *path) {
    return openslide_detect_vendor(path);
}

tsio_slide *tsio_slide_open(const char *path, tsio_status *st) {
    openslide_t *osr = openslide_open(path);
    if (osr == NULL) {
        tsio_status_fail(st, TSIO_ERR_UNSUPPORTED, "OpenSlide does not read this file");
        return NULL;
    }
    const char *error = openslide_get_error(osr);
    if (error != NULL) {
        tsio_status_fail(st, TSIO_ERR_CORRUPT, "%s", error);
        openslide_close(osr);
        return NULL;
    }
    tsio_slide *slide = calloc(1, sizeof *slide);
    if (slide == NULL) {
        openslide_close(osr);
        tsio_status_fail(st, TSIO_ERR_NOMEM, "out of memory");
        return NULL;
    }
    slide->osr = osr;
    return slide;
}

void tsio_slide_close(tsio_slide *slide) {
    if (slide == NULL) return;
    openslide_close(slide->osr);
    free(slide);
}

int32_t tsio_slide_level_count(tsio_slide *slide) {
    return openslide_get_level_count(slide->osr);
}

int tsio_slide_level(tsio_slide *slide, int32_t level, int64_t *width, int64_t *height, double *downsample) {
    openslide_get_level_dimensions(slide->osr, level, width, height);
    *downsample = openslide_get_level_downsample(slide->osr, level);
    return openslide_get_error(slide->osr) == NULL && *width > 0 && *height > 0 && *downsample >= 1 ? 0 : -1;
}

const char *tsio_slide_property(tsio_slide *slide, const char *name) {
    return openslide_get_property_value(slide->osr, name);
}

const char *const *tsio_slide_associated_names(tsio_slide *slide) {
    return openslide_get_associated_image_names(slide->osr);
}

int tsio_slide_associated_size(tsio_slide *slide, const char *name, int64_t *width, int64_t *height) {
    openslide_get_associated_image_dimensions(slide->osr, name, width, height);
    return *width > 0 && *height > 0 && openslide_get_error(slide->osr) == NULL ? 0 : -1;
}

/* Premultiplied ARGB over an opaque background colour, to RGB. */
static void composite(const uint32_t *argb, size_t count, uint8_t *rgb, uint32_t background) {
    const uint32_t br = (background >> 16) & 0xFF, bg = (background >> 8) & 0xFF, bb = background & 0xFF;
    for (size_t i = 0; i < count; i++) {
        const uint32_t p = argb[i], a = p >> 24, rest = 255 - a;
        rgb[3 * i] = (uint8_t)(((p >> 16) & 0xFF) + (br * rest + 127) / 255);
        rgb[3 * i + 1] = (uint8_t)(((p >> 8) & 0xFF) + (bg * rest + 127) / 255);
        rgb[3 * i + 2] = (uint8_t)((p & 0xFF) + (bb * rest + 127) / 255);
    }
}

static int failed(tsio_slide *slide, tsio_status *st) {
    const char *error = openslide_get_error(slide->osr);
    if (error == NULL) return 0;
    tsio_status_fail(st, TSIO_ERR_CORRUPT, "%s", error);
    return 1;
}

int tsio_slide_read(tsio_slide *slide, int32_t level, int64_t x, int64_t y, double downsample, int64_t width,
                    int64_t height, uint8_t *rgb, size_t stride, uint32_t background, tsio_status *st) {
    if (width <= 0 || height <= 0 || width > (1 << 20)) {
        tsio_status_fail(st, TSIO_ERR_ARGUMENT, "a region of %lld x %lld", (long long)width, (long long)height);
        return -1;
    }
    if (failed(slide, st)) return -1;
    int64_t strip = height < SLIDE_STRIP_ROWS ? height : SLIDE_STRIP_ROWS;
    uint32_t *argb = malloc((size_t)width * (size_t)strip * sizeof *argb);
    if (argb == NULL) {
        tsio_status_fail(st, TSIO_ERR_NOMEM, "out of memory for a region %lld pixels wide", (long long)width);
        return -1;
    }
    for (int64_t row = 0; row < height; row += strip) {
        int64_t rows = height - row < strip ? height - row : strip;
        /* x, y are in level 0's frame; the rows below are `downsample` level-0 rows each. */
        openslide_read_region(slide->osr, argb, x, y + (int64_t)((double)row * downsample), level, width, rows);
        if (failed(slide, st)) { free(argb); return -1; }
        for (int64_t r = 0; r < rows; r++) {
            composite(argb + (size_t)r * (size_t)width, (size_t)width, rgb + (size_t)(row + r) * stride, background);
        }
    }
    free(argb);
    return 0;
}

int tsio_slide_read_associated(tsio_slide *slide, const char *name, uint8_t *rgb, int64_t width, int64_t height,
                               uint32_t background, tsio_status *st) {
    int64_t w = 0, h = 0;
    if (tsio_slide_associated_size(slide, name, &w, &h) != 0 || w != width || h != height) {
        tsio_status_fail(st, TSIO_ERR_CORRUPT, "the associated image %s cannot be read", name);
        return -1;
    }
    uint32_t *argb = malloc((size_t)w * (size_t)h * sizeof *argb);
    if (argb == NULL) {
        tsio_status_fail(st, TSIO_ERR_NOMEM, "out of memory for a %lld x %lld associated image", (long long)w, (long long)h);
        return -1;
    }
    openslide_read_associated_image(slide->osr, name, argb);
    if (failed(slide, st)) { free(argb); return -1; }
    composite(argb, (size_t)w * (size_t)h, rgb, background);
    free(argb);
    return 0;
}
