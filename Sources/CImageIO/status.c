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

long tsio_read_fd(int fd, uint8_t *buf, size_t cap) {
    for (;;) {
        ssize_t n = read(fd, buf, cap);
        if (n >= 0) return (long)n;
        if (errno != EINTR) return -1;
    }
}

uint64_t tsio_fd_size(int fd) {
    struct stat sb;
    if (fstat(fd, &sb) != 0) return 0;
    return (uint64_t)sb.st_size;
}
