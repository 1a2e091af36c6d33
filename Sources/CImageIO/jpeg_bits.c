#include "jpeg_bits.h"
#include "status.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

ssize_t jidx_bits_load(jidx_bits *b, uint64_t off, size_t n) {
    if (b->mem != NULL) {
        if (off >= b->mem_size) return 0;
        size_t got = b->mem_size - off < n ? (size_t)(b->mem_size - off) : n;
        if (got > JIDX_MEM_WINDOW) got = JIDX_MEM_WINDOW;
        memcpy(b->win, b->mem + off, got);
        return (ssize_t)got;
    }
    long long got = tsio_input_pread(&b->in, b->win, n, off);
    if (got < 0) b->io_error = errno;
    return (ssize_t)got;
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

int jidx_copy_bits(jidx_bits *b, jidx_writer *w, uint64_t from, uint64_t to) {
    if (to < from) return -1;
    uint64_t off = from >> 3, end = to >> 3;
    int used = (int)(from & 7), tail = (int)(to & 7);
    int after_ff = 0;
    while (off <= end) {
        if (off == end && tail <= used) return tail == used && !after_ff ? 0 : -1;
        ssize_t got = jidx_bits_load(b, off, end - off + 1 < JIDX_WINDOW ? (size_t)(end - off + 1) : JIDX_WINDOW);
        if (got <= 0) return -1;
        for (ssize_t i = 0; i < got; i++, off++) {
            /* Eight whole bytes short of the end with no 0xFF among them (the usual case): 64 bits at once. */
            if (!after_ff && used == 0 && end - off > 8 && got - i >= 8) {
                uint64_t v8 = jidx_load_be64(b->win + i);
                if (jidx_ff_bytes(v8) == 0) {
                    jidx_put_bits(w, v8 >> 32, 32);
                    jidx_put_bits(w, v8, 32);
                    i += 7;
                    off += 7;
                    continue;
                }
            }
            uint8_t v = b->win[i];
            if (after_ff) {
                after_ff = 0;
                if (v != 0) return -1;
                continue;
            }
            int first = used, last = off == end ? tail : 8;
            used = 0;
            if (last > first) jidx_put_bits(w, (uint64_t)(v >> (8 - last)), last - first);
            if (off == end) return w->failed ? -1 : 0;
            after_ff = v == 0xFF;
        }
    }
    return -1;
}
