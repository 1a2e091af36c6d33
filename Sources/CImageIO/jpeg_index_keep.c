#include "jpeg_index_internal.h"
#include "status.h"

#include <string.h>

/*
 * A complete entry index as bytes, and back: "TSJX", a version, the frame's geometry (so entries of another frame
 * are refused), the entries, and an FNV-1a hash of everything before it (so a damaged copy is refused, never
 * turned into extracts that start at the wrong bit).
 */

#define KEEP_MAGIC 0x584A5354u /* "TSJX" little-endian */
#define KEEP_VERSION 1u

typedef struct {
    uint32_t magic, version;
    uint32_t width, height, mcu_cols, mcu_rows, per_row, ncomp;
    uint64_t data_start;
    uint32_t entry_size, reserved;
} keep_header;

static uint64_t fnv1a(const uint8_t *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static keep_header header_of(const tsio_jidx *x) {
    keep_header h;
    memset(&h, 0, sizeof h);
    h.magic = KEEP_MAGIC;
    h.version = KEEP_VERSION;
    h.width = x->width;
    h.height = x->height;
    h.mcu_cols = x->mcu_cols;
    h.mcu_rows = x->mcu_rows;
    h.per_row = x->per_row;
    h.ncomp = (uint32_t)x->ncomp;
    h.data_start = x->data_start;
    h.entry_size = (uint32_t)sizeof(jidx_entry);
    return h;
}

int tsio_jidx_export(const tsio_jidx *x, uint8_t **out, size_t *size) {
    *out = NULL;
    *size = 0;
    if (x->rows_done < x->mcu_rows || x->stopped) return -1;
    keep_header h = header_of(x);
    size_t entries = (size_t)x->mcu_rows * x->per_row * sizeof *x->entries;
    size_t total = sizeof h + entries + sizeof(uint64_t);
    uint8_t *buf = malloc(total);
    if (buf == NULL) return -1;
    memcpy(buf, &h, sizeof h);
    memcpy(buf + sizeof h, x->entries, entries);
    uint64_t hash = fnv1a(buf, sizeof h + entries);
    memcpy(buf + sizeof h + entries, &hash, sizeof hash);
    *out = buf;
    *size = total;
    return 0;
}

int tsio_jidx_import(tsio_jidx *x, const uint8_t *data, size_t size, tsio_status *st) {
    tsio_status_clear(st);
    if (x->started || x->rows_done > 0) {
        tsio_status_fail(st, TSIO_ERR_ARGUMENT, "the index has been scanned already");
        return -1;
    }
    keep_header want = header_of(x), got;
    size_t entries = (size_t)x->mcu_rows * x->per_row * sizeof *x->entries;
    if (size != sizeof got + entries + sizeof(uint64_t)) {
        tsio_status_fail(st, TSIO_ERR_CORRUPT, "a kept entry index of %zu bytes, not %zu", size, sizeof got + entries + sizeof(uint64_t));
        return -1;
    }
    memcpy(&got, data, sizeof got);
    if (memcmp(&got, &want, sizeof got) != 0) {
        tsio_status_fail(st, TSIO_ERR_CORRUPT, "a kept entry index of another frame");
        return -1;
    }
    uint64_t hash;
    memcpy(&hash, data + sizeof got + entries, sizeof hash);
    if (hash != fnv1a(data, sizeof got + entries)) {
        tsio_status_fail(st, TSIO_ERR_CORRUPT, "a kept entry index that does not match its checksum");
        return -1;
    }
    memcpy(x->entries, data + sizeof got, entries);
    x->rows_done = x->mcu_rows;
    x->started = 1;
    x->stopped = 0;
    return 0;
}
