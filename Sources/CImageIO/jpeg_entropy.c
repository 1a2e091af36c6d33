#include "jpeg_entropy.h"

#include <string.h>

const uint8_t jidx_natural_order[64 + 16] = {
    0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21,
    28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61,
    54, 47, 55, 62, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63};

/* The canonical code of a DHT table, as libjpeg's jpeg_make_d_derived_tbl builds it; -1 when the counts
 * describe no valid code. */
int jidx_build_huff(jidx_huff *t, const uint8_t counts[16], const uint8_t *vals, int nvals) {
    uint8_t size[257];
    uint32_t code_of[257];
    int p = 0;
    memset(t, 0, sizeof *t);
    for (int l = 1; l <= 16; l++) {
        for (int i = 0; i < counts[l - 1]; i++) {
            if (p >= 256) return -1;
            size[p++] = (uint8_t)l;
        }
    }
    if (p != nvals) return -1;
    size[p] = 0;
    uint32_t code = 0;
    int si = size[0];
    p = 0;
    while (size[p]) {
        while (size[p] == si) code_of[p++] = code++;
        if (code >= (1u << si)) return -1;
        code <<= 1;
        si++;
    }
    p = 0;
    for (int l = 1; l <= 16; l++) {
        if (counts[l - 1]) {
            t->valoffset[l] = p - (int32_t)code_of[p];
            p += counts[l - 1];
            t->maxcode[l] = (int32_t)code_of[p - 1];
        } else {
            t->maxcode[l] = -1;
        }
    }
    t->maxcode[17] = 0xFFFFF;
    memcpy(t->vals, vals, (size_t)nvals);
    for (int i = 0; i < nvals; i++) {
        if (vals[i] < 16 && t->enc_len[vals[i]] == 0) {
            t->enc_code[vals[i]] = (uint16_t)code_of[i];
            t->enc_len[vals[i]] = size[i];
        }
    }
    p = 0;
    for (int l = 1; l <= 9; l++) {
        for (int i = 0; i < counts[l - 1]; i++, p++) {
            uint32_t look = code_of[p] << (9 - l);
            for (int n = 0; n < (1 << (9 - l)); n++, look++) {
                t->look_len[look] = (uint8_t)l;
                t->look_sym[look] = vals[p];
            }
        }
    }
    p = 0;
    for (int l = 1; l <= JIDX_SKIP_BITS; l++) {
        for (int i = 0; i < counts[l - 1]; i++, p++) {
            int r = vals[p] >> 4, n = vals[p] & 15;
            if (l + n > JIDX_SKIP_BITS) continue;
            /* Coefficients passed: the run and the coefficient, 16 for ZRL, or all 64 at the end of the block. */
            int advance = n ? r + 1 : r == 15 ? 16 : 64;
            uint32_t entry = (uint32_t)((l + n) | advance << 5);
            uint32_t look = code_of[p] << (JIDX_SKIP_BITS - l);
            for (int k = 0; k < (1 << (JIDX_SKIP_BITS - l)); k++) t->skip[look + (uint32_t)k] = entry;
        }
    }
    /* The pairs: the symbol after the first, when its bits are all within the lookahead. */
    for (uint32_t v = 0; v < (1u << JIDX_SKIP_BITS); v++) {
        uint32_t e = t->skip[v];
        uint32_t len = e & 31, advance = e >> 5;
        uint32_t pair = e;
        if (e && advance != 64) {
            uint32_t next = t->skip[(v << len) & ((1u << JIDX_SKIP_BITS) - 1)] & 0xFFF;
            uint32_t len2 = next & 31, advance2 = next >> 5;
            if (next && len + len2 <= JIDX_SKIP_BITS)
                pair = len + len2 | (advance2 == 64 ? 64 : advance + advance2) << 5;
        }
        t->skip[v] = e | (pair & 0xFFF) << 12;
    }
    t->defined = 1;
    return 0;
}



int jidx_decode_slow(jidx_bits *b, const jidx_huff *t, uint32_t *code, int *len) {
    int l = 10;
    uint32_t c = (uint32_t)(b->buf >> (b->left - l)) & ((1u << l) - 1);
    while ((int32_t)c > t->maxcode[l]) {
        if (++l > 16) return -1;
        c = (uint32_t)(b->buf >> (b->left - l)) & ((1u << l) - 1);
    }
    *code = c;
    *len = l;
    b->left -= l;
    return t->vals[(uint32_t)((int32_t)c + t->valoffset[l]) & 0xFF];
}

