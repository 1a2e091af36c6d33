#include "status.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void tsio_status_clear(tsio_status *st) {
    int warnings = st->warning_count;
    char first[sizeof st->warning];
    memcpy(first, st->warning, sizeof first);
    memset(st, 0, sizeof *st);
    st->warning_count = warnings;
    memcpy(st->warning, first, sizeof first);
}

void tsio_status_fail(tsio_status *st, int code, const char *fmt, ...) {
    if (st->code != TSIO_OK) return; /* keep the first, most specific error */
    st->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st->message, sizeof st->message, fmt, ap);
    va_end(ap);
}

void tsio_status_warn(tsio_status *st, const char *message) {
    if (st->warning_count++ == 0) {
        snprintf(st->warning, sizeof st->warning, "%s", message);
    }
}

long long tsio_input_pread(const tsio_input *in, uint8_t *buf, size_t count, uint64_t offset) {
    size_t done = 0;
    while (done < count) {
        long long n;
        if (in->read != NULL) {
            n = in->read(in->context, buf + done, count - done, offset + done);
        } else {
            n = pread(in->fd, buf + done, count - done, (off_t)(offset + done));
            if (n < 0 && errno == EINTR) continue;
        }
        if (n < 0) return -1;
        if (n == 0) break;
        done += (size_t)n;
    }
    return (long long)done;
}

uint64_t tsio_input_size(const tsio_input *in) {
    if (in->size > 0 || in->read != NULL) return in->size;
    struct stat sb;
    if (fstat(in->fd, &sb) != 0) return 0;
    return (uint64_t)sb.st_size;
}

/* The box at `at` (ending before `end`): its type, where its body starts and where it ends; 0 at the end or on a
 * box that runs past `end`. */
int tsio_box_next(const tsio_input *in, uint64_t at, uint64_t end, uint32_t *type, uint64_t *body, uint64_t *box_end) {
    uint8_t b[16];
    if (at + 8 > end || tsio_input_pread(in, b, 8, at) != 8) return 0;
    uint64_t length = (uint64_t)b[0] << 24 | (uint64_t)b[1] << 16 | (uint64_t)b[2] << 8 | b[3];
    *type = (uint32_t)b[4] << 24 | (uint32_t)b[5] << 16 | (uint32_t)b[6] << 8 | b[7];
    *body = at + 8;
    if (length == 1) { /* a 64-bit length follows */
        if (at + 16 > end || tsio_input_pread(in, b + 8, 8, at + 8) != 8) return 0;
        length = 0;
        for (int i = 8; i < 16; i++) length = length << 8 | b[i];
        *body = at + 16;
    } else if (length == 0) {
        length = end - at;
    }
    if (length < *body - at || length > end - at) return 0;
    *box_end = at + length;
    return 1;
}

