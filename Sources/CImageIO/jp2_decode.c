#include "CImageIO.h"
#include "status.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openjpeg.h>

/*
 * JPEG 2000 through OpenJPEG. Each call makes its own codec over its own stream (reads at an offset of its own),
 * so calls on one file run on any threads at once. OpenJPEG reports through callbacks and return values, never
 * by jumping: its messages come to the call's status, never to stderr.
 */

typedef struct {
    tsio_input source;
    uint64_t pos;
    uint64_t size;
    tsio_status *st;
} jp2_input;

static OPJ_SIZE_T in_read(void *buf, OPJ_SIZE_T n, void *user) {
    jp2_input *in = user;
    if (in->pos >= in->size) return (OPJ_SIZE_T)-1;
    long long got = tsio_input_pread(&in->source, buf, n, in->pos);
    size_t done = got > 0 ? (size_t)got : 0;
    in->pos += done;
    return done == 0 ? (OPJ_SIZE_T)-1 : done;
}

static OPJ_OFF_T in_skip(OPJ_OFF_T n, void *user) {
    jp2_input *in = user;
    in->pos += (uint64_t)n;
    return n;
}

static OPJ_BOOL in_seek(OPJ_OFF_T to, void *user) {
    jp2_input *in = user;
    if (to < 0 || (uint64_t)to > in->size) return OPJ_FALSE;
    in->pos = (uint64_t)to;
    return OPJ_TRUE;
}

static void on_error(const char *msg, void *user) {
    jp2_input *in = user;
    char text[180];
    snprintf(text, sizeof text, "%s", msg);
    size_t n = strlen(text);
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == ' ')) text[--n] = 0;
    int truncated = in->pos >= in->size || strstr(text, "truncat") || strstr(text, "Stream too short");
    tsio_status_fail(in->st, truncated ? TSIO_ERR_TRUNCATED : TSIO_ERR_CORRUPT, "%s", text);
    in->st->offset = in->pos;
}

static void on_warning(const char *msg, void *user) {
    jp2_input *in = user;
    char text[180];
    snprintf(text, sizeof text, "%s", msg);
    size_t n = strlen(text);
    while (n > 0 && text[n - 1] == '\n') text[--n] = 0;
    tsio_status_warn(in->st, text);
}

static void on_info(const char *msg, void *user) { (void)msg; (void)user; }

/* A codec and stream over the input with the header read: a JP2 file or a bare code-stream, by its first bytes. */
typedef struct {
    jp2_input in;
    opj_stream_t *stream;
    opj_codec_t *codec;
    opj_image_t *image;
    int codestream;
} jp2_reader;

static void reader_close(jp2_reader *r) {
    if (r->image) opj_image_destroy(r->image);
    if (r->codec) opj_destroy_codec(r->codec);
    if (r->stream) opj_stream_destroy(r->stream);
}

static int reader_open(jp2_reader *r, const tsio_input *source, uint32_t reduce, tsio_status *st) {
    memset(r, 0, sizeof *r);
    r->in.source = *source;
    r->in.size = tsio_input_size(source);
    r->in.st = st;
    st->file_size = r->in.size;
    uint8_t head[4] = {0};
    if (tsio_input_pread(source, head, 4, 0) != 4) {
        tsio_status_fail(st, TSIO_ERR_TRUNCATED, "the file is too short for JPEG 2000");
        return -1;
    }
    r->codestream = head[0] == 0xFF && head[1] == 0x4F;
    r->stream = opj_stream_create(64 << 10, OPJ_TRUE);
    r->codec = opj_create_decompress(r->codestream ? OPJ_CODEC_J2K : OPJ_CODEC_JP2);
    if (!r->stream || !r->codec) {
        tsio_status_fail(st, TSIO_ERR_NOMEM, "out of memory");
        return -1;
    }
    opj_stream_set_user_data(r->stream, &r->in, NULL);
    opj_stream_set_user_data_length(r->stream, r->in.size);
    opj_stream_set_read_function(r->stream, in_read);
    opj_stream_set_skip_function(r->stream, in_skip);
    opj_stream_set_seek_function(r->stream, in_seek);
    opj_set_error_handler(r->codec, on_error, &r->in);
    opj_set_warning_handler(r->codec, on_warning, &r->in);
    opj_set_info_handler(r->codec, on_info, &r->in);
    opj_dparameters_t params;
    opj_set_default_decoder_parameters(&params);
    params.cp_reduce = reduce;
    if (!opj_setup_decoder(r->codec, &params) || !opj_read_header(r->stream, r->codec, &r->image) || !r->image) {
        if (st->code == TSIO_OK) tsio_status_fail(st, TSIO_ERR_CORRUPT, "not a readable JPEG 2000 header");
        return -1;
    }
    opj_image_t *im = r->image;
    if (im->numcomps < 1 || im->x1 <= im->x0 || im->y1 <= im->y0) {
        tsio_status_fail(st, TSIO_ERR_CORRUPT, "the header gives no image");
        return -1;
    }
    for (uint32_t c = 0; c < im->numcomps; c++) {
        opj_image_comp_t *comp = &im->comps[c];
        if (comp->prec < 1 || comp->prec > 16 || comp->dx < 1 || comp->dy < 1 || comp->dx > 4 || comp->dy > 4) {
            tsio_status_fail(st, TSIO_ERR_UNSUPPORTED, "component %u: %u-bit, sampled %u x %u", c, comp->prec, comp->dx, comp->dy);
            return -1;
        }
    }
    return 0;
}

/* The colour components (1 gray or 3) and the alpha component (-1 when none) the pixels are made of. */
static void layout(const opj_image_t *im, int *colour, int *alpha) {
    int n = (int)im->numcomps;
    *alpha = -1;
    for (int c = 0; c < n; c++) if (im->comps[c].alpha) { *alpha = c; break; }
    int others = n - (*alpha >= 0 ? 1 : 0);
    *colour = others >= 3 ? 3 : 1;
    if (*alpha < 0 && (n == 2 || n == 4)) *alpha = n - 1;
}

/* The ICC profile of a JP2 file's colour box (`jp2h` > `colr`, method 2 or 3), into a malloc'd buffer. OpenJPEG hands
 * the profile over only with the decoded image, so the header's boxes are read here. */
static int jp2_profile(const tsio_input *in, uint64_t size, uint8_t **profile, size_t *profile_size) {
    uint32_t type;
    uint64_t body, end, at = 0;
    while (tsio_box_next(in, at, size, &type, &body, &end)) {
        if (type == 0x6A703268) { /* jp2h */
            uint64_t inner = body, ibody, iend;
            while (tsio_box_next(in, inner, end, &type, &ibody, &iend)) {
                uint8_t method;
                if (type == 0x636F6C72 && iend - ibody > 3 && tsio_input_pread(in, &method, 1, ibody) == 1 && (method == 2 || method == 3)) {
                    uint64_t n = iend - ibody - 3;
                    if (n == 0 || n > (16u << 20) || !(*profile = malloc(n))) return 0;
                    if (tsio_input_pread(in, *profile, n, ibody + 3) != (long long)n) { free(*profile); *profile = NULL; return 0; }
                    *profile_size = n;
                    return 1;
                }
                inner = iend;
            }
            return 0;
        }
        if (type == 0x6A703263) return 0; /* jp2c: the code-stream, after every header box */
        at = end;
    }
    return 0;
}

/* Whether the code-stream declares high-throughput (Part 15, HTJ2K) code-blocks: the SIZ marker's Rsiz bit 14, or a
 * CAP marker naming Part 15 in the main header. OpenJPEG 2.5.0 decodes such code-blocks right only when a decode
 * covers whole tiles (an area inside a tile comes back as one flat grey), so reads of these widen to whole tiles. */
static int high_throughput(const tsio_input *in, uint64_t size) {
    uint64_t at = 0;
    uint8_t b[8];
    if (tsio_input_pread(in, b, 4, 0) != 4) return 0;
    if (!(b[0] == 0xFF && b[1] == 0x4F)) {
        uint32_t type;
        uint64_t body, end, box = 0;
        at = UINT64_MAX;
        for (int n = 0; n < 64 && tsio_box_next(in, box, size, &type, &body, &end); n++, box = end) {
            if (type == 0x6A703263) { at = body; break; } /* jp2c */
        }
        if (at == UINT64_MAX) return 0;
    }
    /* SOC, then SIZ: FF51, Lsiz, Rsiz. */
    if (tsio_input_pread(in, b, 6, at + 2) != 6 || b[0] != 0xFF || b[1] != 0x51) return 0;
    if ((b[4] << 8 | b[5]) & 0x4000) return 1;
    uint64_t marker = at + 2;
    for (int n = 0; n < 256; n++) {
        if (tsio_input_pread(in, b, 4, marker) != 4 || b[0] != 0xFF) return 0;
        if (b[1] == 0x90 || b[1] == 0x93) return 0; /* SOT or SOD: the main header is over */
        uint32_t length = (uint32_t)b[2] << 8 | b[3];
        if (b[1] == 0x50 && length >= 6) { /* CAP: Pcap's bit for Part 15 */
            uint8_t p[4];
            if (tsio_input_pread(in, p, 4, marker + 4) != 4) return 0;
            uint32_t pcap = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
            return (pcap >> (32 - 15)) & 1;
        }
        if (length < 2) return 0;
        marker += 2 + length;
    }
    return 0;
}

struct tsio_jp2 {
    tsio_input in;
    int high_throughput;
};

/* What tsio_jp2_open reads when asked for the header. */
static int read_header(const tsio_input *in, tsio_jp2_header *h, uint8_t **profile, size_t *profile_size, tsio_status *st) {
    memset(h, 0, sizeof *h);
    if (profile) *profile = NULL;
    jp2_reader r;
    int rc = reader_open(&r, in, 0, st);
    if (rc == 0) {
        opj_image_t *im = r.image;
        h->width = im->x1 - im->x0;
        h->height = im->y1 - im->y0;
        h->components = (int)im->numcomps;
        h->precision = (int)im->comps[0].prec;
        h->colour_space = im->color_space;
        h->codestream = r.codestream;
        uint8_t *icc = NULL;
        size_t icc_size = 0;
        h->has_profile = !r.codestream && jp2_profile(in, r.in.size, &icc, &icc_size);
        if (profile) {
            *profile = icc;
            *profile_size = icc_size;
        } else {
            free(icc);
        }
        int colour, alpha;
        layout(im, &colour, &alpha);
        h->channels = alpha >= 0 ? 4 : 3;
        h->gray = colour == 1;
        opj_codestream_info_v2_t *info = opj_get_cstr_info(r.codec);
        if (info) {
            h->tile_width = info->tdx;
            h->tile_height = info->tdy;
            h->tiles = info->tw * info->th;
            h->layers = (int)info->m_default_tile_info.numlayers;
            h->progression = info->m_default_tile_info.prg;
            h->resolutions = info->m_default_tile_info.tccp_info ? (int)info->m_default_tile_info.tccp_info[0].numresolutions : 1;
            for (uint32_t c = 1; info->m_default_tile_info.tccp_info && c < info->nbcomps; c++) {
                int n = (int)info->m_default_tile_info.tccp_info[c].numresolutions;
                if (n < h->resolutions) h->resolutions = n;
            }
            opj_destroy_cstr_info(&info);
        }
        if (h->resolutions < 1) h->resolutions = 1;
        h->high_throughput = high_throughput(in, r.in.size);
    }
    reader_close(&r);
    return rc;
}

tsio_jp2 *tsio_jp2_open(const tsio_input *in, tsio_jp2_header *h, uint8_t **profile, size_t *profile_size, tsio_status *st) {
    tsio_status_clear(st);
    if (h != NULL && read_header(in, h, profile, profile_size, st) != 0) return NULL;
    tsio_jp2 *j = malloc(sizeof *j);
    if (j == NULL) {
        if (profile && *profile) {
            free(*profile);
            *profile = NULL;
        }
        tsio_status_fail(st, TSIO_ERR_NOMEM, "out of memory");
        return NULL;
    }
    j->in = *in;
    j->high_throughput = h != NULL ? h->high_throughput : high_throughput(in, tsio_input_size(in));
    return j;
}

void tsio_jp2_close(tsio_jp2 *j) { free(j); }

static inline int to8(int32_t v, const opj_image_comp_t *comp) {
    if (comp->sgnd) v += 1 << (comp->prec - 1);
    int max = (1 << comp->prec) - 1;
    if (v < 0) v = 0;
    if (v > max) v = max;
    return comp->prec == 8 ? v : (int)(((int64_t)v * 255 + max / 2) / max);
}

static inline uint8_t clamp8(int v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }

int tsio_jp2_read(const tsio_jp2 *j, uint32_t reduce, uint32_t x, uint32_t y, uint32_t w, uint32_t h, uint8_t *dst,
                  size_t stride, int channels, tsio_status *st) {
    tsio_status_clear(st);
    jp2_reader r;
    if (reader_open(&r, &j->in, reduce, st) != 0) { reader_close(&r); return -1; }
    opj_image_t *im = r.image;
    uint64_t scale = (uint64_t)1 << reduce;
    uint64_t rw = ((uint64_t)(im->x1 - im->x0) + scale - 1) / scale, rh = ((uint64_t)(im->y1 - im->y0) + scale - 1) / scale;
    if (w == 0 || h == 0 || x + (uint64_t)w > rw || y + (uint64_t)h > rh) {
        tsio_status_fail(st, TSIO_ERR_ARGUMENT, "region outside the image");
        reader_close(&r);
        return -1;
    }
    uint64_t origin_x = im->x0, origin_y = im->y0;
    uint64_t ax0 = im->x0 + (uint64_t)x * scale, ay0 = im->y0 + (uint64_t)y * scale;
    uint64_t ax1 = im->x0 + (uint64_t)(x + w) * scale, ay1 = im->y0 + (uint64_t)(y + h) * scale;
    if (ax1 > im->x1) ax1 = im->x1;
    if (ay1 > im->y1) ay1 = im->y1;
    if (j->high_throughput) {
        /* Whole tiles, then the area cut from them below (the samples are placed from ax0, ay0). */
        opj_codestream_info_v2_t *info = opj_get_cstr_info(r.codec);
        if (info == NULL || info->tdx == 0 || info->tdy == 0) {
            if (info) opj_destroy_cstr_info(&info);
            tsio_status_fail(st, TSIO_ERR_CORRUPT, "the code-stream gives no tile grid");
            reader_close(&r);
            return -1;
        }
        uint64_t tx0 = info->tx0, ty0 = info->ty0, tdx = info->tdx, tdy = info->tdy;
        opj_destroy_cstr_info(&info);
        ax0 = ax0 < tx0 ? ax0 : tx0 + (ax0 - tx0) / tdx * tdx;
        ay0 = ay0 < ty0 ? ay0 : ty0 + (ay0 - ty0) / tdy * tdy;
        ax1 = ax1 <= tx0 ? ax1 : tx0 + (ax1 - tx0 + tdx - 1) / tdx * tdx;
        ay1 = ay1 <= ty0 ? ay1 : ty0 + (ay1 - ty0 + tdy - 1) / tdy * tdy;
        if (ax0 < im->x0) ax0 = im->x0;
        if (ay0 < im->y0) ay0 = im->y0;
        if (ax1 > im->x1) ax1 = im->x1;
        if (ay1 > im->y1) ay1 = im->y1;
    }
    if (!opj_set_decode_area(r.codec, im, (OPJ_INT32)ax0, (OPJ_INT32)ay0, (OPJ_INT32)ax1, (OPJ_INT32)ay1)
        || !opj_decode(r.codec, r.stream, im) || !opj_end_decompress(r.codec, r.stream)) {
        if (st->code == TSIO_OK) tsio_status_fail(st, TSIO_ERR_CORRUPT, "the code-stream cannot be decoded");
        reader_close(&r);
        return -1;
    }
    int colour, alpha;
    layout(im, &colour, &alpha);
    int sycc = colour == 3 && (im->color_space == OPJ_CLRSPC_SYCC || im->color_space == OPJ_CLRSPC_EYCC);
    const opj_image_comp_t *comps[4];
    int order[4] = {0, colour == 3 ? 1 : 0, colour == 3 ? 2 : 0, alpha};
    for (int k = 0; k < 4; k++) comps[k] = order[k] >= 0 ? &im->comps[order[k]] : NULL;
    for (int k = 0; k < 4; k++) {
        if (comps[k] && (!comps[k]->data || comps[k]->w == 0 || comps[k]->h == 0)) {
            tsio_status_fail(st, TSIO_ERR_CORRUPT, "component %d has no decoded samples", order[k]);
            reader_close(&r);
            return -1;
        }
    }
    /* The decoded samples of a component start at the area's origin on its own reduced grid; request pixel
     * (x + i) is at the image origin's reduced column plus x + i. */
    uint64_t ox = (origin_x + scale - 1) / scale, oy = (origin_y + scale - 1) / scale;
    int64_t first_u[4] = {0}, first_t[4] = {0};
    for (int k = 0; k < 4; k++) {
        if (!comps[k]) continue;
        first_u[k] = (int64_t)((((ax0 + comps[k]->dx - 1) / comps[k]->dx) + scale - 1) / scale);
        first_t[k] = (int64_t)((((ay0 + comps[k]->dy - 1) / comps[k]->dy) + scale - 1) / scale);
        /* Fewer samples than the area holds (beyond the one a rounded-down edge may lack) is a decode that fell
         * short: an error, never an edge repeated across the picture. */
        int64_t last_u = (int64_t)((ox + x + w - 1) / comps[k]->dx) - first_u[k];
        int64_t last_t = (int64_t)((oy + y + h - 1) / comps[k]->dy) - first_t[k];
        if (first_u[k] > (int64_t)((ox + x) / comps[k]->dx) + 1 || first_t[k] > (int64_t)((oy + y) / comps[k]->dy) + 1
            || last_u > (int64_t)comps[k]->w || last_t > (int64_t)comps[k]->h) {
            tsio_status_fail(st, TSIO_ERR_TRUNCATED, "component %d decoded %u x %u samples, fewer than the area holds",
                             order[k], comps[k]->w, comps[k]->h);
            reader_close(&r);
            return -1;
        }
    }
    for (uint32_t j = 0; j < h; j++) {
        uint8_t *row = dst + (size_t)j * stride;
        for (uint32_t i = 0; i < w; i++) {
            int v[4] = {0, 0, 0, 255};
            for (int k = 0; k < (channels == 4 ? 4 : 3); k++) {
                const opj_image_comp_t *c = comps[k];
                if (!c) continue;
                int64_t u = (int64_t)((ox + x + i) / c->dx) - first_u[k], t = (int64_t)((oy + y + j) / c->dy) - first_t[k];
                if (u < 0) u = 0;
                if (t < 0) t = 0;
                if (u >= (int64_t)c->w) u = c->w - 1;
                if (t >= (int64_t)c->h) t = c->h - 1;
                int32_t s = c->data[(size_t)t * c->w + (size_t)u];
                v[k] = sycc && (k == 1 || k == 2) ? (int)(((int64_t)s + (c->sgnd ? 0 : -(1 << (c->prec - 1)))) * 255 / ((1 << c->prec) - 1))
                                                  : to8(s, c);
            }
            uint8_t *px = row + (size_t)i * (size_t)channels;
            if (sycc) {
                int yy = v[0], cb = v[1], cr = v[2];
                px[0] = clamp8(yy + (int)(1.402 * cr + 0.5));
                px[1] = clamp8(yy - (int)(0.344136 * cb + 0.714136 * cr + (cb + cr < 0 ? -0.5 : 0.5)));
                px[2] = clamp8(yy + (int)(1.772 * cb + 0.5));
            } else {
                px[0] = (uint8_t)v[0];
                px[1] = (uint8_t)v[1];
                px[2] = (uint8_t)v[2];
            }
            if (channels == 4) px[3] = (uint8_t)v[3];
        }
    }
    reader_close(&r);
    return 0;
}
