#include "CImageIO.h"
#include "status.h"

#include <stdlib.h>
#include <string.h>

#include <libheif/heif.h>

/*
 * HEIC/HEIF and AVIF through libheif (HEVC through libde265, AV1 through libaom, as Debian builds it).
 * libheif reads through our input (a file or an object in storage) with the reader callbacks below; it returns
 * errors as values and never jumps. Its decode is of the whole primary image: grids (how iPhones store photos)
 * are assembled, irot/imir/clap applied, depth and auxiliary images left alone.
 */

typedef struct {
    tsio_input source;
    int64_t pos;
    int64_t size;
} heif_input;

static int64_t in_position(void *user) { return ((heif_input *)user)->pos; }

static int in_read(void *data, size_t size, void *user) {
    heif_input *in = user;
    if (in->pos < 0 || (uint64_t)in->pos + size > (uint64_t)in->size) return 1;
    long long got = tsio_input_pread(&in->source, data, size, (uint64_t)in->pos);
    if (got != (long long)size) return 1;
    in->pos += (int64_t)size;
    return 0;
}

static int in_seek(int64_t position, void *user) {
    heif_input *in = user;
    if (position < 0 || position > in->size) return 1;
    in->pos = position;
    return 0;
}

static enum heif_reader_grow_status in_wait(int64_t target, void *user) {
    return target <= ((heif_input *)user)->size ? heif_reader_grow_status_size_reached : heif_reader_grow_status_size_beyond_eof;
}

static const struct heif_reader reader = {1, in_position, in_read, in_seek, in_wait};

static uint64_t be(const uint8_t *p, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v = v << 8 | p[i];
    return v;
}

#define FOURCC(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (uint32_t)(d))

/*
 * The primary item's type and, for a grid or an overlay, the output size its descriptor gives, read from the
 * file's own boxes (meta > pitm, iinf > infe, iloc, idat), bounded: libheif 1.15 takes a grid's or an overlay's
 * output size from that descriptor and allocates it before looking at anything else, so 16 bytes claiming
 * 60,000 × 60,000 behind an `ispe` of 128 × 80 cost gigabytes (and crashed it). 0 when read; -1 when the boxes
 * cannot be followed.
 */
static int primary_item(const tsio_input *in, uint64_t size, uint32_t *type, uint64_t *out_w, uint64_t *out_h) {
    uint32_t box;
    uint64_t body, end, at = 0, meta = 0, meta_end = 0;
    for (int n = 0; n < 64 && tsio_box_next(in, at, size, &box, &body, &end); n++, at = end) {
        if (box == FOURCC('m', 'e', 't', 'a')) { meta = body + 4; meta_end = end; break; }
    }
    if (meta == 0) return -1;
    uint64_t primary = UINT64_MAX, iinf = 0, iinf_end = 0, iloc = 0, iloc_end = 0, idat = 0;
    uint8_t b[16];
    at = meta;
    for (int n = 0; n < 64 && tsio_box_next(in, at, meta_end, &box, &body, &end); n++, at = end) {
        if (box == FOURCC('p', 'i', 't', 'm')) {
            if (end - body < 6 || tsio_input_pread(in, b, 8 <= end - body ? 8 : 6, body) < 6) return -1;
            primary = b[0] == 0 ? be(b + 4, 2) : (end - body >= 8 ? be(b + 4, 4) : UINT64_MAX);
        } else if (box == FOURCC('i', 'i', 'n', 'f')) {
            iinf = body;
            iinf_end = end;
        } else if (box == FOURCC('i', 'l', 'o', 'c')) {
            iloc = body;
            iloc_end = end;
        } else if (box == FOURCC('i', 'd', 'a', 't')) {
            idat = body;
        }
    }
    if (primary == UINT64_MAX || iinf == 0 || iloc == 0) return -1;
    /* iinf: version, flags, entry count (16 or 32 bits), then infe boxes of version 2 or 3. */
    if (tsio_input_pread(in, b, 1, iinf) != 1) return -1;
    *type = 0;
    at = iinf + (b[0] == 0 ? 6 : 8);
    for (int n = 0; n < 4096 && tsio_box_next(in, at, iinf_end, &box, &body, &end); n++, at = end) {
        if (box != FOURCC('i', 'n', 'f', 'e') || end - body < 12 || tsio_input_pread(in, b, 14 <= end - body ? 14 : 12, body) < 12) continue;
        if (b[0] < 2) continue;
        uint64_t id = b[0] == 2 ? be(b + 4, 2) : be(b + 4, 4);
        if (id == primary) { *type = (uint32_t)be(b + (b[0] == 2 ? 8 : 10), 4); break; }
    }
    if (*type == 0) return -1;
    *out_w = *out_h = 0;
    if (*type != FOURCC('g', 'r', 'i', 'd') && *type != FOURCC('i', 'o', 'v', 'l')) return 0;
    /* iloc: where the descriptor is (a file offset, or an offset into idat). */
    if (tsio_input_pread(in, b, 8, iloc) != 8) return -1;
    int version = b[0], offset_size = b[4] >> 4, length_size = b[4] & 15, base_size = b[5] >> 4;
    int index_size = version >= 1 ? (b[5] & 15) : 0;
    int id_size = version < 2 ? 2 : 4;
    uint64_t count = version < 2 ? be(b + 6, 2) : 0;
    at = iloc + 6;
    if (version >= 2) {
        if (tsio_input_pread(in, b, 4, at) != 4) return -1;
        count = be(b, 4);
        at += 4;
    } else {
        at += 2;
    }
    if (offset_size > 8 || length_size > 8 || base_size > 8 || index_size > 8) return -1;
    for (uint64_t k = 0; k < count && k < 65536 && at < iloc_end; k++) {
        uint8_t e[8];
        if (tsio_input_pread(in, e, (size_t)id_size, at) != id_size) return -1;
        uint64_t id = be(e, id_size);
        at += (uint64_t)id_size;
        int method = 0;
        if (version >= 1) {
            if (tsio_input_pread(in, e, 2, at) != 2) return -1;
            method = e[1] & 15;
            at += 2;
        }
        at += 2; /* data reference index */
        if (tsio_input_pread(in, e, (size_t)base_size, at) != base_size) return -1;
        uint64_t base = be(e, base_size);
        at += (uint64_t)base_size;
        if (tsio_input_pread(in, e, 2, at) != 2) return -1;
        uint64_t extents = be(e, 2);
        at += 2;
        uint64_t first = UINT64_MAX;
        for (uint64_t x = 0; x < extents && x < 65536; x++) {
            at += (uint64_t)index_size;
            if (tsio_input_pread(in, e, (size_t)offset_size, at) != offset_size) return -1;
            if (x == 0) first = be(e, offset_size);
            at += (uint64_t)offset_size + (uint64_t)length_size;
        }
        if (id != primary) continue;
        if (first == UINT64_MAX || (method == 1 && idat == 0) || method > 1) return -1;
        uint64_t where = (method == 1 ? idat : 0) + base + first;
        long long got = tsio_input_pread(in, b, 16, where);
        if (got < 2) return -1;
        int wide = b[1] & 1, field = wide ? 4 : 2;
        uint64_t sizes = *type == FOURCC('g', 'r', 'i', 'd') ? 4 : 10;
        if ((uint64_t)got < sizes + 2 * (uint64_t)field) return -1;
        *out_w = be(b + sizes, field);
        *out_h = be(b + sizes + field, field);
        return 0;
    }
    return -1;
}

struct tsio_heif {
    heif_input in;
    void *memory;             /* what tsio_heif_open_mem reads from (freed on close) */
    struct heif_context *context;
    struct heif_image_handle *handle;
    tsio_heif_header header;
};

static void fail(tsio_status *st, struct heif_error err, const char *what, int64_t size) {
    int code = err.subcode == heif_suberror_Security_limit_exceeded ? TSIO_ERR_UNSUPPORTED
        : err.code == heif_error_Memory_allocation_error ? TSIO_ERR_NOMEM
        : err.code == heif_error_Unsupported_filetype || err.code == heif_error_Unsupported_feature ? TSIO_ERR_UNSUPPORTED
        : err.code == heif_error_Decoder_plugin_error && err.subcode == heif_suberror_Unsupported_codec ? TSIO_ERR_UNSUPPORTED
        : err.subcode == heif_suberror_End_of_data ? TSIO_ERR_TRUNCATED : TSIO_ERR_CORRUPT;
    tsio_status_fail(st, code, "%s: %s", what, err.message ? err.message : "libheif error");
    if (code == TSIO_ERR_TRUNCATED) st->offset = (uint64_t)size;
}

void tsio_heif_close(tsio_heif *h) {
    if (h == NULL) return;
    if (h->handle) heif_image_handle_release(h->handle);
    if (h->context) heif_context_free(h->context);
    free(h->memory);
    free(h);
}

/* An input over bytes in memory (an encoded AVIF tile): `user` is a tsio_memory. */
typedef struct {
    const uint8_t *data;
    size_t size;
} tsio_memory;

static long long memory_read(void *user, uint8_t *dst, size_t n, uint64_t at) {
    const tsio_memory *m = user;
    if (at >= m->size) return 0;
    size_t k = m->size - (size_t)at < n ? m->size - (size_t)at : n;
    memcpy(dst, m->data + at, k);
    return (long long)k;
}

tsio_heif *tsio_heif_open_mem(const uint8_t *data, size_t size, tsio_heif_header *out, tsio_status *st) {
    tsio_memory *memory = malloc(sizeof *memory);
    if (memory == NULL) {
        tsio_status_fail(st, TSIO_ERR_NOMEM, "out of memory");
        return NULL;
    }
    memory->data = data;
    memory->size = size;
    tsio_input in;
    memset(&in, 0, sizeof in);
    in.fd = -1;
    in.read = memory_read;
    in.context = memory;
    in.size = size;
    tsio_heif *h = tsio_heif_open(&in, 1 << 14, out, st);
    if (h == NULL) free(memory);
    else h->memory = memory;
    return h;
}

tsio_heif *tsio_heif_open(const tsio_input *in, uint32_t max_side, tsio_heif_header *out, tsio_status *st) {
    tsio_status_clear(st);
    tsio_heif *h = calloc(1, sizeof *h);
    if (h == NULL) {
        tsio_status_fail(st, TSIO_ERR_NOMEM, "out of memory");
        return NULL;
    }
    h->in.source = *in;
    h->in.size = (int64_t)tsio_input_size(in);
    st->file_size = (uint64_t)h->in.size;
    h->context = heif_context_alloc();
    if (h->context == NULL) {
        tsio_status_fail(st, TSIO_ERR_NOMEM, "out of memory");
        tsio_heif_close(h);
        return NULL;
    }
    if (max_side > 0) heif_context_set_maximum_image_size_limit(h->context, (int)(max_side > INT32_MAX ? INT32_MAX : max_side));
    struct heif_error err = heif_context_read_from_reader(h->context, &reader, &h->in, NULL);
    if (err.code != heif_error_Ok) {
        fail(st, err, "not a readable HEIF file", h->in.size);
        tsio_heif_close(h);
        return NULL;
    }
    err = heif_context_get_primary_image_handle(h->context, &h->handle);
    if (err.code != heif_error_Ok) {
        fail(st, err, "no primary image", h->in.size);
        tsio_heif_close(h);
        return NULL;
    }
    tsio_heif_header *hd = &h->header;
    int w = heif_image_handle_get_width(h->handle), ht = heif_image_handle_get_height(h->handle);
    if (w <= 0 || ht <= 0) {
        tsio_status_fail(st, TSIO_ERR_CORRUPT, "the primary image has no size");
        tsio_heif_close(h);
        return NULL;
    }
    uint32_t type = 0;
    uint64_t out_w = 0, out_h = 0;
    if (primary_item(in, (uint64_t)h->in.size, &type, &out_w, &out_h) != 0) {
        tsio_status_fail(st, TSIO_ERR_CORRUPT, "the primary image's boxes (pitm, iinf, iloc) cannot be followed");
        tsio_heif_close(h);
        return NULL;
    }
    /* A grid or overlay is no larger than the image its ispe (turned as libheif turns it) says. */
    uint64_t longer = (uint64_t)(w > ht ? w : ht);
    if ((out_w || out_h) && (out_w > longer || out_h > longer || out_w * out_h > (uint64_t)w * (uint64_t)ht)) {
        tsio_status_fail(st, TSIO_ERR_CORRUPT, "its %s claims %llu x %llu pixels where the image is %d x %d",
                         type == FOURCC('g', 'r', 'i', 'd') ? "grid" : "overlay", (unsigned long long)out_w,
                         (unsigned long long)out_h, w, ht);
        tsio_heif_close(h);
        return NULL;
    }
    hd->width = (uint32_t)w;
    hd->height = (uint32_t)ht;
    hd->channels = heif_image_handle_has_alpha_channel(h->handle) ? 4 : 3;
    hd->bit_depth = heif_image_handle_get_luma_bits_per_pixel(h->handle);
    hd->depth_images = heif_image_handle_has_depth_image(h->handle);
    hd->images = heif_context_get_number_of_top_level_images(h->context);
    enum heif_color_profile_type profile = heif_image_handle_get_color_profile_type(h->handle);
    hd->has_profile = profile == heif_color_profile_type_prof || profile == heif_color_profile_type_rICC;
    uint8_t head[64] = {0};
    long long got = tsio_input_pread(in, head, sizeof head, 0);
    if (got >= 12) {
        heif_brand2 brand = heif_read_main_brand(head, (int)got);
        hd->avif = brand == heif_fourcc_to_brand("avif") || brand == heif_fourcc_to_brand("avis");
        heif_brand2 *brands = NULL;
        int count = 0;
        if (!hd->avif && heif_list_compatible_brands(head, (int)got, &brands, &count).code == heif_error_Ok) {
            for (int i = 0; i < count; i++) if (brands[i] == heif_fourcc_to_brand("avif")) hd->avif = 1;
            for (int i = 0; i < count; i++) if (brands[i] == heif_fourcc_to_brand("heic") || brands[i] == heif_fourcc_to_brand("heix")) hd->avif = 0;
        }
        if (brands) heif_free_list_of_compatible_brands(brands);
    }
    if (out) *out = *hd;
    return h;
}

int tsio_heif_profile(const tsio_heif *h, uint8_t **out, size_t *size) {
    *out = NULL;
    *size = 0;
    if (!h->header.has_profile) return 0;
    size_t n = heif_image_handle_get_raw_color_profile_size(h->handle);
    if (n == 0 || n > (16u << 20) || !(*out = malloc(n))) return 0;
    if (heif_image_handle_get_raw_color_profile(h->handle, *out).code != heif_error_Ok) {
        free(*out);
        *out = NULL;
        return 0;
    }
    *size = n;
    return 1;
}

int tsio_heif_metadata(const tsio_heif *h, int xmp, uint8_t **out, size_t *size) {
    *out = NULL;
    *size = 0;
    heif_item_id ids[16];
    int count = heif_image_handle_get_list_of_metadata_block_IDs(h->handle, xmp ? "mime" : "Exif", ids, 16);
    for (int i = 0; i < count; i++) {
        if (xmp) {
            const char *type = heif_image_handle_get_metadata_content_type(h->handle, ids[i]);
            if (type == NULL || strcmp(type, "application/rdf+xml") != 0) continue;
        }
        size_t n = heif_image_handle_get_metadata_size(h->handle, ids[i]);
        if (n < (xmp ? 1u : 4u) || n > (4u << 20)) continue;
        uint8_t *data = malloc(n);
        if (data == NULL) return 0;
        if (heif_image_handle_get_metadata(h->handle, ids[i], data).code != heif_error_Ok) {
            free(data);
            continue;
        }
        size_t skip = 0;
        if (!xmp) { /* Exif items start with the offset of the TIFF header past these 4 bytes */
            uint32_t offset = (uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 | (uint32_t)data[2] << 8 | data[3];
            if (offset > n - 4) { free(data); continue; }
            skip = 4 + offset;
        }
        *size = n - skip;
        *out = malloc(*size ? *size : 1);
        if (*out) memcpy(*out, data + skip, *size);
        free(data);
        return *out != NULL;
    }
    return 0;
}

int tsio_heif_decode(const tsio_heif *h, uint8_t *dst, size_t stride, int channels, tsio_status *st) {
    tsio_status_clear(st);
    if (channels != 3 && channels != 4) {
        tsio_status_fail(st, TSIO_ERR_ARGUMENT, "%d channels asked for", channels);
        return -1;
    }
    struct heif_decoding_options *options = heif_decoding_options_alloc();
    if (options == NULL) {
        tsio_status_fail(st, TSIO_ERR_NOMEM, "out of memory");
        return -1;
    }
    options->convert_hdr_to_8bit = 1;
    /* AV1 through libaom rather than dav1d: libheif 1.15's dav1d plugin leaks 240 bytes on every stream dav1d
     * refuses (found by the avif fuzz target); libaom decodes a photo in about the same time. */
    if (h->header.avif && options->version >= 4) options->decoder_id = "aom";
    struct heif_image *image = NULL;
    struct heif_error err = heif_decode_image(h->handle, &image, heif_colorspace_RGB,
                                              channels == 4 ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, options);
    heif_decoding_options_free(options);
    if (err.code != heif_error_Ok || image == NULL) {
        fail(st, err, "the image cannot be decoded", h->in.size);
        if (image) heif_image_release(image);
        return -1;
    }
    int plane_stride = 0;
    const uint8_t *plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &plane_stride);
    int w = heif_image_get_width(image, heif_channel_interleaved), ht = heif_image_get_height(image, heif_channel_interleaved);
    int bits = heif_image_get_bits_per_pixel_range(image, heif_channel_interleaved);
    /* Anything but the whole picture in 8-bit samples is an error: never a buffer partly filled. */
    if (plane == NULL || w != (int)h->header.width || ht != (int)h->header.height || bits != 8 || plane_stride < w * channels) {
        tsio_status_fail(st, TSIO_ERR_CORRUPT, "libheif decoded %d x %d at %d bits where the header gives %u x %u",
                         w, ht, bits, h->header.width, h->header.height);
        heif_image_release(image);
        return -1;
    }
    for (int y = 0; y < ht; y++) memcpy(dst + (size_t)y * stride, plane + (size_t)y * (size_t)plane_stride, (size_t)w * (size_t)channels);
    heif_image_release(image);
    return 0;
}
