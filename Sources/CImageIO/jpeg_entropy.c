#include "jpeg_entropy.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

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

ssize_t jidx_bits_load(jidx_bits *b, uint64_t off, size_t n) {
    if (b->mem != NULL) {
        if (off >= b->mem_size) return 0;
        size_t got = b->mem_size - off < n ? (size_t)(b->mem_size - off) : n;
        if (got > JIDX_MEM_WINDOW) got = JIDX_MEM_WINDOW;
        memcpy(b->win, b->mem + off, got);
        return (ssize_t)got;
    }
    ssize_t got;
    do {
        got = pread(b->fd, b->win, n, (off_t)off);
    } while (got < 0 && errno == EINTR);
    if (got < 0) b->io_error = errno;
    return got;
}

/* The next raw byte of the data, -1 at its end or on a read error. `off` gets its offset. */
static int raw(jidx_bits *b, uint64_t *off) {
    if (b->pos == b->win_len) {
        b->win_off += b->win_len;
        b->win_len = 0;
        b->pos = 0;
        ssize_t n = jidx_bits_load(b, b->win_off, JIDX_WINDOW);
        if (n <= 0) {
            if (off) *off = b->win_off;
            return -1;
        }
        b->win_len = (uint32_t)n;
    }
    if (off) *off = b->win_off + b->pos;
    return b->win[b->pos++];
}

void jidx_bits_fill(jidx_bits *b) {
    while (b->left <= 56) {
        uint64_t off = UINT64_MAX;
        int byte;
        if (b->marker) {
            byte = 0;
            b->zeros++;
        } else {
            byte = raw(b, &off);
            if (byte < 0) {
                b->marker = -1;
                b->marker_off = off;
                continue;
            }
            if (byte == 0xFF) {
                int next;
                do {
                    next = raw(b, NULL);
                } while (next == 0xFF);
                if (next != 0) {
                    b->marker = next < 0 ? -1 : next;
                    b->marker_off = off;
                    continue;
                }
            }
        }
        b->buf = (b->buf << 8) | (uint64_t)byte;
        b->left += 8;
        b->ring[b->loaded & 7] = off;
        b->loaded++;
    }
}

void jidx_bits_seek(jidx_bits *b, uint64_t bit) {
    b->win_off = bit >> 3;
    b->win_len = 0;
    b->pos = 0;
    b->buf = 0;
    b->left = 0;
    b->loaded = 0;
    b->zeros = 0;
    b->marker = 0;
    jidx_bits_fill(b);
    int used = (int)(bit & 7);
    if (b->left >= used) b->left -= used;
}

uint64_t jidx_bits_position(const jidx_bits *b) {
    /* Every bit of the data used, up to the marker (or the end) after it: the data ended on a byte's edge. */
    if (b->marker && b->left == b->zeros * 8) return b->marker_off * 8;
    if (b->left == 0) return b->marker ? UINT64_MAX : (b->win_off + b->pos) * 8;
    uint64_t bytes = (uint64_t)(b->left + 7) / 8;
    uint64_t off = b->ring[(b->loaded - bytes) & 7];
    if (off == UINT64_MAX) return UINT64_MAX;
    return off * 8 + (uint64_t)((8 - b->left % 8) % 8);
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

int jidx_bits_restart(jidx_bits *b, int expected) {
    b->left -= b->left % 8;
    if (!b->marker) jidx_bits_fill(b);
    if (b->marker != 0xD0 + (expected & 7) || b->left != b->zeros * 8) return -1;
    /* raw() has stepped past the marker: the next data starts at the window's position. */
    b->buf = 0;
    b->left = 0;
    b->loaded = 0;
    b->zeros = 0;
    b->marker = 0;
    return 0;
}
