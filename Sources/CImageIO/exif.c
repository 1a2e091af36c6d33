#include "CImageIO.h"

static uint32_t read16(const uint8_t *p, int big) {
    return big ? (uint32_t)(p[0] << 8 | p[1]) : (uint32_t)(p[1] << 8 | p[0]);
}

static uint32_t read32(const uint8_t *p, int big) {
    return big ? ((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3])
               : ((uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0]);
}

int tsio_exif_orientation(const uint8_t *data, size_t size) {
    if (data == NULL || size < 8) return 1;
    int big;
    if (data[0] == 'I' && data[1] == 'I') big = 0;
    else if (data[0] == 'M' && data[1] == 'M') big = 1;
    else return 1;
    if (read16(data + 2, big) != 42) return 1;
    uint32_t ifd = read32(data + 4, big);
    if (ifd > size || size - ifd < 2) return 1;
    uint32_t count = read16(data + ifd, big);
    for (uint32_t i = 0; i < count; i++) {
        size_t entry = (size_t)ifd + 2 + (size_t)i * 12;
        if (entry + 12 > size) return 1;
        if (read16(data + entry, big) != 0x0112) continue;
        uint32_t type = read16(data + entry + 2, big);
        if (type != 3) return 1; /* SHORT */
        uint32_t value = read16(data + entry + 8, big);
        return (value >= 1 && value <= 8) ? (int)value : 1;
    }
    return 1;
}
