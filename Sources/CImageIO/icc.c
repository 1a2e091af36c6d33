#include "CImageIO.h"
#include "status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <math.h>

#include <lcms2.h>

/*
 * Colour conversion to sRGB with lcms2. Each transform has a context of its own whose error handler writes
 * lcms2's message into the status of the call that made it, so a broken profile never prints or aborts: it
 * comes back as NULL with a message. Transforms are made without lcms2's one-pixel cache, so one transform is
 * used by many threads at once.
 */

/* Four 32-bit lanes (GCC and Clang vector extensions: SSE2 on x86-64, NEON on arm64). */
typedef int32_t tsio_v4 __attribute__((vector_size(16)));

struct tsio_icc {
    cmsContext context;
    cmsHTRANSFORM transform;
    /* The fast path for matrix/TRC profiles (most camera and editing spaces): each sample to linear light
     * through a table, one 3 x 3 matrix to sRGB's primaries, and a 4096-entry table back to sRGB's curve. The
     * table and the matrix are joined: `contribution[c][v]` is what sample value v of channel c adds to the
     * linear R, G and B out (Q28), so a pixel is three vector loads and two adds, with no multiply. */
    int fast;
    int channels;             /* 3, or 4 with alpha copied */
    tsio_v4 contribution[3][256];
    uint8_t encode[4096];     /* indexed by linear light in 4096 steps */
};

static void on_lcms_error(cmsContext context, cmsUInt32Number code, const char *text) {
    (void)code;
    tsio_status *st = cmsGetContextUserData(context);
    if (st != NULL) tsio_status_fail(st, TSIO_ERR_CORRUPT, "%s", text);
}

/* sRGB's curve, linear light to the 8-bit code. */
static uint8_t srgb_encode(double v) {
    double e = v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055;
    double code = e * 255 + 0.5;
    return (uint8_t)(code < 0 ? 0 : code > 255 ? 255 : code);
}

/* The colorants of a matrix/TRC profile (D50, as the profile connection space has them) as columns. */
static int colorants(cmsHPROFILE p, double m[9]) {
    const cmsCIEXYZ *r = cmsReadTag(p, cmsSigRedColorantTag), *g = cmsReadTag(p, cmsSigGreenColorantTag),
                    *b = cmsReadTag(p, cmsSigBlueColorantTag);
    if (r == NULL || g == NULL || b == NULL) return 0;
    double c[9] = {r->X, g->X, b->X, r->Y, g->Y, b->Y, r->Z, g->Z, b->Z};
    memcpy(m, c, sizeof c);
    return 1;
}

static int invert3(const double m[9], double out[9]) {
    double det = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6]);
    if (fabs(det) < 1e-12) return 0;
    out[0] = (m[4] * m[8] - m[5] * m[7]) / det;
    out[1] = (m[2] * m[7] - m[1] * m[8]) / det;
    out[2] = (m[1] * m[5] - m[2] * m[4]) / det;
    out[3] = (m[5] * m[6] - m[3] * m[8]) / det;
    out[4] = (m[0] * m[8] - m[2] * m[6]) / det;
    out[5] = (m[2] * m[3] - m[0] * m[5]) / det;
    out[6] = (m[3] * m[7] - m[4] * m[6]) / det;
    out[7] = (m[1] * m[6] - m[0] * m[7]) / det;
    out[8] = (m[0] * m[4] - m[1] * m[3]) / det;
    return 1;
}

/*
 * Sets up the fast path when `in` is a matrix/TRC profile with no lookup tables (which relative colorimetric
 * would prefer) and the pixels are RGB or RGBA; gray and CMYK profiles go through lcms2. The result is what
 * lcms2 computes: relative colorimetric between two matrix/TRC profiles is their colorants' matrices joined
 * in D50.
 */
static void setup_fast(tsio_icc *t, cmsHPROFILE in, cmsHPROFILE srgb, int layout) {
    if (layout != TSIO_ICC_RGB && layout != TSIO_ICC_RGBA) return;
    if (!cmsIsMatrixShaper(in) || cmsIsTag(in, cmsSigAToB0Tag) || cmsIsTag(in, cmsSigAToB1Tag) ||
        cmsIsTag(in, cmsSigDToB1Tag)) return;
    double out_m[9], out_inv[9], in_m[9];
    if (!colorants(srgb, out_m) || !invert3(out_m, out_inv)) return;
    const cmsToneCurve *curves[3] = {cmsReadTag(in, cmsSigRedTRCTag), cmsReadTag(in, cmsSigGreenTRCTag),
                                     cmsReadTag(in, cmsSigBlueTRCTag)};
    if (curves[0] == NULL || curves[1] == NULL || curves[2] == NULL || !colorants(in, in_m)) return;
    int32_t matrix[9]; /* Q14 */
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++) {
            double sum = 0;
            for (int k = 0; k < 3; k++) sum += out_inv[r * 3 + k] * in_m[k * 3 + c];
            matrix[r * 3 + c] = (int32_t)lround(sum * 16384);
        }
    }
    for (int c = 0; c < 3; c++) {
        for (int v = 0; v < 256; v++) {
            int32_t light = (int32_t)lround(cmsEvalToneCurveFloat(curves[c], (cmsFloat32Number)(v / 255.0)) * 16384);
            tsio_v4 lanes = {matrix[c] * light, matrix[3 + c] * light, matrix[6 + c] * light, 0};
            t->contribution[c][v] = lanes;
        }
    }
    for (int i = 0; i < 4096; i++) t->encode[i] = srgb_encode(i / 4095.0);
    t->channels = layout == TSIO_ICC_RGBA ? 4 : 3;
    t->fast = 1;
}

static const char *space_name(cmsColorSpaceSignature s) {
    switch (s) {
    case cmsSigRgbData: return "RGB";
    case cmsSigGrayData: return "gray";
    case cmsSigCmykData: return "CMYK";
    case cmsSigLabData: return "Lab";
    default: return "another colour space";
    }
}

tsio_icc *tsio_icc_open(const uint8_t *profile, size_t size, int layout, tsio_status *st) {
    int exact = (layout & TSIO_ICC_EXACT) != 0;
    int wide = (layout & TSIO_ICC_WIDE) != 0;
    layout &= ~(TSIO_ICC_EXACT | TSIO_ICC_WIDE);
    tsio_status_clear(st);
    if (profile == NULL || size < 132) {
        tsio_status_fail(st, TSIO_ERR_CORRUPT, "an ICC profile of %zu bytes (a header alone is 128)", size);
        return NULL;
    }
    uint32_t declared = (uint32_t)profile[0] << 24 | (uint32_t)profile[1] << 16 | (uint32_t)profile[2] << 8 | profile[3];
    if (declared != size) {
        tsio_status_fail(st, TSIO_ERR_CORRUPT, "an ICC profile that says it has %u bytes but has %zu", declared, size);
        return NULL;
    }
    tsio_icc *t = calloc(1, sizeof *t);
    if (t == NULL) {
        tsio_status_fail(st, TSIO_ERR_NOMEM, "out of memory for a colour transform");
        return NULL;
    }
    t->context = cmsCreateContext(NULL, st);
    if (t->context == NULL) {
        free(t);
        tsio_status_fail(st, TSIO_ERR_NOMEM, "out of memory for a colour transform");
        return NULL;
    }
    cmsSetLogErrorHandlerTHR(t->context, on_lcms_error);
    cmsHPROFILE in = cmsOpenProfileFromMemTHR(t->context, profile, (cmsUInt32Number)size);
    cmsHPROFILE out = cmsCreate_sRGBProfileTHR(t->context);
    cmsUInt32Number in_format = 0, out_format = TYPE_RGB_8, flags = cmsFLAGS_NOCACHE;
    cmsColorSpaceSignature wanted = cmsSigRgbData;
    switch (layout) {
    case TSIO_ICC_RGB: in_format = TYPE_RGB_8; break;
    case TSIO_ICC_RGBA:
        in_format = TYPE_RGBA_8;
        out_format = TYPE_RGBA_8;
        flags |= cmsFLAGS_COPY_ALPHA;
        break;
    case TSIO_ICC_GRAY_IN_RGB:
        /* Gray the decoder has already spread over R, G and B: read the first sample, write all three. */
        in_format = COLORSPACE_SH(PT_GRAY) | CHANNELS_SH(1) | BYTES_SH(1) | EXTRA_SH(2);
        wanted = cmsSigGrayData;
        break;
    case TSIO_ICC_CMYK: in_format = TYPE_CMYK_8; wanted = cmsSigCmykData; break;
    case TSIO_ICC_CMYK_INVERTED: in_format = TYPE_CMYK_8_REV; wanted = cmsSigCmykData; break;
    default:
        tsio_status_fail(st, TSIO_ERR_ARGUMENT, "no pixel layout %d", layout);
        break;
    }
    if (wide && in_format != 0) {
        if (layout == TSIO_ICC_CMYK || layout == TSIO_ICC_CMYK_INVERTED) {
            tsio_status_fail(st, TSIO_ERR_ARGUMENT, "16-bit CMYK is not a layout any decoder hands over");
            in_format = 0;
        } else {
            /* The same layout with two bytes a sample, most significant first. */
            in_format = (in_format & ~BYTES_SH(7)) | BYTES_SH(2) | ENDIAN16_SH(1);
        }
    }
    if (in != NULL && out != NULL && in_format != 0) {
        cmsColorSpaceSignature space = cmsGetColorSpace(in);
        cmsProfileClassSignature cls = cmsGetDeviceClass(in);
        if (space != wanted) {
            tsio_status_fail(st, TSIO_ERR_UNSUPPORTED, "an ICC profile for %s on %s pixels", space_name(space), space_name(wanted));
        } else if (cls == cmsSigLinkClass || cls == cmsSigAbstractClass || cls == cmsSigNamedColorClass) {
            tsio_status_fail(st, TSIO_ERR_UNSUPPORTED, "an ICC profile that describes no image colour space (a link, abstract or named-colour profile)");
        } else {
            t->transform = cmsCreateTransformTHR(t->context, in, in_format, out, out_format,
                                                 INTENT_RELATIVE_COLORIMETRIC, flags);
            if (t->transform != NULL && !exact && !wide) setup_fast(t, in, out, layout);
        }
    }
    if (in != NULL) cmsCloseProfile(in);
    if (out != NULL) cmsCloseProfile(out);
    if (t->transform == NULL) {
        tsio_status_fail(st, TSIO_ERR_CORRUPT, "lcms2 could not use the ICC profile");
        tsio_icc_close(t);
        return NULL;
    }
    /* Errors from now on belong to no call: nothing to write them into. */
    cmsSetLogErrorHandlerTHR(t->context, NULL);
    return t;
}

void tsio_icc_apply(const tsio_icc *t, const uint8_t *in, uint8_t *out, size_t pixels) {
    if (t == NULL || pixels == 0) return;
    if (!t->fast) {
        cmsDoTransform(t->transform, in, out, (cmsUInt32Number)pixels);
        return;
    }
    /* Everything in locals: `out` is bytes, which may alias the tables as far as the compiler knows. */
    const tsio_v4 *cr = t->contribution[0], *cg = t->contribution[1], *cb = t->contribution[2];
    const int n = t->channels;
    const uint8_t *enc = t->encode;
    const tsio_v4 half = {1 << 15, 1 << 15, 1 << 15, 0}, low = {0, 0, 0, 0}, high = {4095, 4095, 4095, 4095};
    for (size_t i = 0; i < pixels; i++, in += n, out += n) {
        /* Q28 linear light to the encode table's 4096 steps (Q12), rounded and clamped. */
        tsio_v4 v = (cr[in[0]] + cg[in[1]] + cb[in[2]] + half) >> 16;
        v &= ~(v < low);                              /* comparisons give lanes of all ones or zeros */
        tsio_v4 over = v > high;
        v = (v & ~over) | (high & over);
        uint8_t alpha = n == 4 ? in[3] : 0;
        uint8_t x = enc[v[0]], y = enc[v[1]], z = enc[v[2]];
        out[0] = x;
        out[1] = y;
        out[2] = z;
        if (n == 4) out[3] = alpha;
    }
}

int tsio_icc_is_fast(const tsio_icc *t) { return t != NULL && t->fast; }

void tsio_icc_close(tsio_icc *t) {
    if (t == NULL) return;
    if (t->transform != NULL) cmsDeleteTransform(t->transform);
    if (t->context != NULL) cmsDeleteContext(t->context);
    free(t);
}

int tsio_icc_rgb_profile(double white_x, double white_y, const double primaries[6], double gamma,
                         uint8_t **profile, size_t *size) {
    *profile = NULL;
    *size = 0;
    cmsContext context = cmsCreateContext(NULL, NULL);
    if (context == NULL) return 0;
    cmsCIExyY white = {white_x, white_y, 1.0};
    cmsCIExyYTRIPLE xy = {{primaries[0], primaries[1], 1.0}, {primaries[2], primaries[3], 1.0},
                          {primaries[4], primaries[5], 1.0}};
    cmsToneCurve *curve = cmsBuildGamma(context, gamma);
    cmsToneCurve *curves[3] = {curve, curve, curve};
    cmsHPROFILE made = curve != NULL ? cmsCreateRGBProfileTHR(context, &white, &xy, curves) : NULL;
    cmsUInt32Number length = 0;
    int ok = 0;
    if (made != NULL && cmsSaveProfileToMem(made, NULL, &length) && length > 0) {
        uint8_t *bytes = malloc(length);
        if (bytes != NULL && cmsSaveProfileToMem(made, bytes, &length)) {
            *profile = bytes;
            *size = length;
            ok = 1;
        } else {
            free(bytes);
        }
    }
    if (made != NULL) cmsCloseProfile(made);
    if (curve != NULL) cmsFreeToneCurve(curve);
    cmsDeleteContext(context);
    return ok;
}

int tsio_icc_adobe_rgb(uint8_t **profile, size_t *size) {
    static const double primaries[6] = {0.64, 0.33, 0.21, 0.71, 0.15, 0.06};
    return tsio_icc_rgb_profile(0.3127, 0.3290, primaries, 563.0 / 256.0, profile, size);
}
