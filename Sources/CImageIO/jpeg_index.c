#include "jpeg_index_internal.h"
#include "status.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Where a header is read from: a file, or a stream in memory. */
typedef struct {
    const tsio_input *in;
    const uint8_t *mem;
    size_t size;
} header_source;

/* Reads exactly `n` bytes at `off`; 0, or -1 at the end of the data or on an error (errno set). */
static int read_at(const header_source *src, uint64_t off, uint8_t *dst, size_t n) {
    if (src->mem != NULL) {
        if (off > src->size || n > src->size - off) {
            errno = 0;
            return -1;
        }
        memcpy(dst, src->mem + off, n);
        return 0;
    }
    long long got = tsio_input_pread(src->in, dst, n, off);
    if (got < 0) return -1;
    if ((size_t)got < n) {
        errno = 0;
        return -1;
    }
    return 0;
}

static int keep(tsio_jidx *x, const uint8_t *seg, size_t n) {
    if (x->header_len + n > JIDX_MAX_HEADER) return -1;
    uint8_t *grown = realloc(x->header, x->header_len + n);
    if (grown == NULL) return -1;
    x->header = grown;
    memcpy(x->header + x->header_len, seg, n);
    x->header_len += n;
    return 0;
}

static int parse_dht(tsio_jidx *x, const uint8_t *p, size_t n) {
    while (n > 0) {
        if (n < 17) return -1;
        int cls = p[0] >> 4, id = p[0] & 15;
        int total = 0;
        for (int i = 0; i < 16; i++) total += p[1 + i];
        if (cls > 1 || id > 3 || (size_t)(17 + total) > n || total > 256) return -1;
        if (jidx_build_huff(cls == 0 ? &x->dc[id] : &x->ac[id], p + 1, p + 17, total) != 0) return -1;
        p += 17 + total;
        n -= 17 + (size_t)total;
    }
    return 0;
}

static int parse_dqt(tsio_jidx *x, const uint8_t *p, size_t n) {
    while (n > 0) {
        int precision = p[0] >> 4, id = p[0] & 15;
        size_t size = 1 + 64 * (size_t)(precision + 1);
        if (precision > 1 || id > 3 || size > n) return -1;
        for (int i = 0; i < 64; i++)
            x->qt[id][jidx_natural_order[i]] = precision ? (uint16_t)(p[1 + 2 * i] << 8 | p[2 + 2 * i]) : p[1 + i];
        x->qt_defined[id] = 1;
        p += size;
        n -= size;
    }
    return 0;
}

static int parse_sof(tsio_jidx *x, const uint8_t *p, size_t n, uint8_t ids[4], int sampling[4][3]) {
    if (n < 6 || p[0] != 8) return -1;
    x->height = (uint32_t)(p[1] << 8 | p[2]);
    x->width = (uint32_t)(p[3] << 8 | p[4]);
    x->ncomp = p[5];
    if (x->width == 0 || x->height == 0 || x->ncomp < 1 || x->ncomp > 4 || n != 6 + 3 * (size_t)x->ncomp) return -1;
    for (int i = 0; i < x->ncomp; i++) {
        ids[i] = p[6 + 3 * i];
        sampling[i][0] = p[7 + 3 * i] >> 4;
        sampling[i][1] = p[7 + 3 * i] & 15;
        sampling[i][2] = p[8 + 3 * i];
        if (sampling[i][2] > 3) return -1;
        if (sampling[i][0] < 1 || sampling[i][0] > 4 || sampling[i][1] < 1 || sampling[i][1] > 4) return -1;
    }
    return 0;
}

/* The scan must hold every component, whole (spectral 0..63, no successive approximation). */
static int parse_sos(tsio_jidx *x, const uint8_t *p, size_t n, const uint8_t ids[4], int sampling[4][3]) {
    if (n < 1 || p[0] != x->ncomp || n != 4 + 2 * (size_t)x->ncomp) return -1;
    const uint8_t *tail = p + 1 + 2 * x->ncomp;
    if (tail[0] != 0 || tail[1] != 63 || tail[2] != 0) return -1;
    int hmax = 1, vmax = 1;
    for (int i = 0; i < x->ncomp; i++) {
        int f = -1;
        for (int k = 0; k < x->ncomp; k++) if (ids[k] == p[1 + 2 * i]) f = k;
        if (f < 0) return -1;
        x->comp[i].h = sampling[f][0];
        x->comp[i].v = sampling[f][1];
        x->comp[i].q = sampling[f][2];
        x->comp[i].dc = p[2 + 2 * i] >> 4;
        x->comp[i].ac = p[2 + 2 * i] & 15;
        if (x->comp[i].dc > 3 || x->comp[i].ac > 3) return -1;
        if (x->comp[i].h > hmax) hmax = x->comp[i].h;
        if (x->comp[i].v > vmax) vmax = x->comp[i].v;
    }
    if (x->ncomp == 1) {
        /* One component is never interleaved: an MCU is one block. */
        x->comp[0].h = x->comp[0].v = 1;
        hmax = vmax = 1;
    }
    x->blocks = 0;
    for (int i = 0; i < x->ncomp; i++) {
        if (!x->dc[x->comp[i].dc].defined || !x->ac[x->comp[i].ac].defined) return -1;
        x->dc_used[x->comp[i].dc] = 1;
        for (int b = 0; b < x->comp[i].h * x->comp[i].v; b++) {
            if (x->blocks == JIDX_MAX_BLOCKS) return -1;
            x->block_comp[x->blocks++] = i;
        }
    }
    x->mcu_w = 8 * (uint32_t)hmax;
    x->mcu_h = 8 * (uint32_t)vmax;
    x->mcu_cols = (x->width + x->mcu_w - 1) / x->mcu_w;
    x->mcu_rows = (x->height + x->mcu_h - 1) / x->mcu_h;
    x->span = JIDX_SPAN_PIXELS / x->mcu_w;
    x->per_row = 1 + x->mcu_cols / x->span;
    return 0;
}

/* jidx_mcu without the copy. */
static int skip_mcu(const tsio_jidx *x, jidx_bits *b, int32_t *pred) {
    for (int k = 0; k < x->blocks; k++) {
        int ci = x->block_comp[k];
        const jidx_comp *comp = &x->comp[ci];
        if (jidx_dc(b, &x->dc[comp->dc], &pred[ci]) == INT32_MIN) return -1;
        if (jidx_skip_ac(b, &x->ac[comp->ac]) != 0) return -1;
    }
    return 0;
}

#define FAIL(code, ...) do { tsio_status_fail(st, code, __VA_ARGS__); tsio_jidx_close(x); return NULL; } while (0)

static tsio_jidx *open_header(const header_source *src, tsio_status *st) {
    tsio_status_clear(st);
    tsio_jidx *x = calloc(1, sizeof *x);
    if (x == NULL) {
        tsio_status_fail(st, TSIO_ERR_NOMEM, "out of memory opening a JPEG index");
        return NULL;
    }
    uint8_t ids[4] = {0}, m[4];
    int sampling[4][3] = {{0}};
    int have_sof = 0;
    uint64_t off = 2;
    if (read_at(src, 0, m, 2) != 0 || m[0] != 0xFF || m[1] != 0xD8) FAIL(TSIO_ERR_CORRUPT, "not a JPEG file");
    uint8_t *seg = malloc(65536 + 4);
    if (seg == NULL) FAIL(TSIO_ERR_NOMEM, "out of memory reading a JPEG header");
    for (;;) {
        if (read_at(src, off, m, 2) != 0) { free(seg); FAIL(TSIO_ERR_TRUNCATED, "JPEG header ends at byte %llu", (unsigned long long)off); }
        if (m[0] != 0xFF) { free(seg); FAIL(TSIO_ERR_CORRUPT, "no marker at byte %llu of the JPEG header", (unsigned long long)off); }
        if (m[1] == 0xFF) { off++; continue; }
        int marker = m[1];
        off += 2;
        if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD8)) continue;
        if (marker == 0xD9) { free(seg); FAIL(TSIO_ERR_CORRUPT, "the JPEG file ends before its image data"); }
        if (read_at(src, off, m, 2) != 0) { free(seg); FAIL(TSIO_ERR_TRUNCATED, "JPEG header ends at byte %llu", (unsigned long long)off); }
        size_t len = (size_t)(m[0] << 8 | m[1]);
        if (len < 2) { free(seg); FAIL(TSIO_ERR_CORRUPT, "a JPEG segment of length %zu", len); }
        int wanted = marker == 0xC0 || marker == 0xC1 || marker == 0xC4 || marker == 0xDB || marker == 0xDD ||
                     marker == 0xDA || marker == 0xE0 || marker == 0xEE;
        if (!wanted) {
            int frame = marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
            if (frame) { free(seg); FAIL(TSIO_ERR_UNSUPPORTED, "not a baseline Huffman JPEG"); }
            off += len;
            continue;
        }
        seg[0] = 0xFF;
        seg[1] = (uint8_t)marker;
        seg[2] = m[0];
        seg[3] = m[1];
        if (read_at(src, off + 2, seg + 4, len - 2) != 0) {
            free(seg);
            FAIL(TSIO_ERR_TRUNCATED, "JPEG header ends at byte %llu", (unsigned long long)(off + len));
        }
        const uint8_t *p = seg + 4;
        size_t n = len - 2;
        off += len;
        int bad = 0;
        switch (marker) {
        case 0xC0: case 0xC1:
            bad = have_sof || n + 4 > sizeof x->sof || parse_sof(x, p, n, ids, sampling) != 0;
            if (!bad) { memcpy(x->sof, seg, n + 4); x->sof_len = n + 4; have_sof = 1; }
            break;
        case 0xC4: bad = parse_dht(x, p, n) != 0 || keep(x, seg, n + 4) != 0; break;
        case 0xDB: bad = parse_dqt(x, p, n) != 0 || keep(x, seg, n + 4) != 0; break;
        case 0xDD: bad = n != 2; if (!bad) x->restart = (uint32_t)(p[0] << 8 | p[1]); break;
        case 0xDA:
            bad = !have_sof || n + 4 > sizeof x->sos || parse_sos(x, p, n, ids, sampling) != 0;
            if (!bad) { memcpy(x->sos, seg, n + 4); x->sos_len = n + 4; }
            break;
        default: bad = keep(x, seg, n + 4) != 0; break;
        }
        if (bad) { free(seg); FAIL(TSIO_ERR_UNSUPPORTED, "a JPEG header the entry index does not handle (marker 0x%02X)", marker); }
        if (marker == 0xDA) break;
    }
    free(seg);
    x->data_start = off;
    x->entries = calloc((size_t)x->mcu_rows * x->per_row, sizeof *x->entries);
    if (x->entries == NULL) FAIL(TSIO_ERR_NOMEM, "out of memory for a JPEG index of %u x %u MCUs", x->mcu_cols, x->mcu_rows);
    return x;
}

tsio_jidx *tsio_jidx_open(const tsio_input *in, tsio_status *st) {
    header_source src = {in, NULL, 0};
    return open_header(&src, st);
}

tsio_jidx *jidx_open_mem(const uint8_t *data, size_t size, tsio_status *st) {
    header_source src = {NULL, data, size};
    tsio_jidx *x = open_header(&src, st);
    if (x != NULL) {
        x->bits.mem = data;
        x->bits.mem_size = size;
    }
    return x;
}

void tsio_jidx_geometry(const tsio_jidx *x, uint32_t *width, uint32_t *height, uint32_t *mcu_w, uint32_t *mcu_h,
                        uint32_t *cols, uint32_t *rows) {
    *width = x->width;
    *height = x->height;
    *mcu_w = x->mcu_w;
    *mcu_h = x->mcu_h;
    *cols = x->mcu_cols;
    *rows = x->mcu_rows;
}

size_t tsio_jidx_bytes(const tsio_jidx *x) {
    return sizeof *x + x->header_len + (size_t)x->mcu_rows * x->per_row * sizeof *x->entries;
}

int jidx_scan_row(tsio_jidx *x) {
    jidx_bits *b = &x->bits;
    uint32_t r = x->rows_done;
    for (uint32_t c = 0; c < x->mcu_cols && !x->stopped; c++) {
        uint64_t mcu = (uint64_t)r * x->mcu_cols + c;
        if (x->restart && mcu > 0 && mcu % x->restart == 0) {
            if (jidx_bits_restart(b, (int)x->restarts) != 0) { x->stopped = 1; break; }
            x->restarts++;
            memset(x->pred, 0, sizeof x->pred);
        }
        if (c == 0 || (c + 1) % x->span == 0) {
            jidx_entry *e = &x->entries[(size_t)r * x->per_row + jidx_entry_before(x, c)];
            e->bit = jidx_bits_position(b);
            if (e->bit == UINT64_MAX) { x->stopped = 1; break; }
            for (int i = 0; i < x->ncomp; i++) {
                if (x->pred[i] < INT16_MIN || x->pred[i] > INT16_MAX) x->stopped = 1;
                e->dc[i] = (int16_t)x->pred[i];
            }
        }
        int bad = x->eighth ? x->eighth_mcu(x, b, c) : skip_mcu(x, b, x->pred);
        if (bad) x->stopped = 1;
    }
    if (b->io_error) return -1;
    if (x->stopped || jidx_overran(b)) {
        x->stopped = 1;
        return -1;
    }
    x->rows_done++;
    return 0;
}

int64_t tsio_jidx_scan(tsio_jidx *x, const tsio_input *in, uint32_t rows, tsio_status *st) {
    tsio_status_clear(st);
    jidx_bits *b = &x->bits;
    b->in = *in;
    /* A 1/8 decode left unfinished: the scan goes on without it. */
    if (x->eighth) x->eighth_free(x->eighth);
    x->eighth = NULL;
    if (!x->started) {
        jidx_bits_seek(b, x->data_start * 8);
        x->started = 1;
    }
    if (rows > x->mcu_rows) rows = x->mcu_rows;
    while (x->rows_done < rows && !x->stopped) {
        int bad = jidx_scan_row(x);
        if (b->io_error) {
            tsio_status_fail(st, TSIO_ERR_IO, "read failed: %s", strerror(b->io_error));
            return -1;
        }
        if (bad) {
            tsio_status_warn(st, "the JPEG data stops making sense: later rows are not indexed");
            break;
        }
    }
    return x->rows_done;
}

void tsio_jidx_close(tsio_jidx *x) {
    if (x == NULL) return;
    free(x->header);
    free(x->entries);
    if (x->eighth) x->eighth_free(x->eighth);
    free(x);
}
