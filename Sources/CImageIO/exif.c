#include "CImageIO.h"

#include <string.h>

static uint32_t read16(const uint8_t *p, int big) {
    return big ? (uint32_t)(p[0] << 8 | p[1]) : (uint32_t)(p[1] << 8 | p[0]);
}

static uint32_t read32(const uint8_t *p, int big) {
    return big ? ((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3])
               : ((uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0]);
}

/* The byte order of a TIFF/EXIF block ("II" or "MM", then 42) and the offset of its first IFD; 0 when it is
 * not one. */
static int tiff_header(const uint8_t *data, size_t size, int *big, uint32_t *ifd0) {
    if (data == NULL || size < 8) return 0;
    if (data[0] == 'I' && data[1] == 'I') *big = 0;
    else if (data[0] == 'M' && data[1] == 'M') *big = 1;
    else return 0;
    if (read16(data + 2, *big) != 42) return 0;
    *ifd0 = read32(data + 4, *big);
    return 1;
}

static size_t find_tag(const uint8_t *data, size_t size, uint32_t ifd, int big, uint32_t tag);

int tsio_exif_orientation(const uint8_t *data, size_t size) {
    int big;
    uint32_t ifd;
    if (!tiff_header(data, size, &big, &ifd)) return 1;
    size_t entry = find_tag(data, size, ifd, big, 0x0112);
    if (entry == 0 || read16(data + entry + 2, big) != 3) return 1; /* SHORT */
    uint32_t value = read16(data + entry + 8, big);
    return (value >= 1 && value <= 8) ? (int)value : 1;
}

/* The entry of `tag` in the IFD at `ifd`, or 0. */
static size_t find_tag(const uint8_t *data, size_t size, uint32_t ifd, int big, uint32_t tag) {
    if (ifd > size || size - ifd < 2) return 0;
    uint32_t count = read16(data + ifd, big);
    for (uint32_t i = 0; i < count; i++) {
        size_t entry = (size_t)ifd + 2 + (size_t)i * 12;
        if (entry + 12 > size) return 0;
        if (read16(data + entry, big) == tag) return entry;
    }
    return 0;
}

int tsio_exif_adobe_rgb(const uint8_t *data, size_t size) {
    int big;
    uint32_t ifd;
    if (!tiff_header(data, size, &big, &ifd)) return 0;
    size_t exif = find_tag(data, size, ifd, big, 0x8769);
    if (exif == 0) return 0;
    uint32_t exif_ifd = read32(data + exif + 8, big);
    size_t space = find_tag(data, size, exif_ifd, big, 0xA001);
    if (space == 0 || read16(data + space + 8, big) != 0xFFFF) return 0; /* not "uncalibrated" */
    size_t interop = find_tag(data, size, exif_ifd, big, 0xA005);
    if (interop == 0) return 0;
    size_t index = find_tag(data, size, read32(data + interop + 8, big), big, 0x0001);
    /* InteroperabilityIndex: ASCII, 4 bytes with the NUL, so stored in the entry itself. */
    return index != 0 && read32(data + index + 4, big) <= 4 && memcmp(data + index + 8, "R03", 3) == 0;
}
