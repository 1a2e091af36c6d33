/// ICU's common data with nothing in it, built for the container in place of Debian's 31 MB libicudata.
///
/// Nothing the server does needs ICU's data. ICU is in the image only because OpenSlide needs libxml2, and Debian
/// builds libxml2 with ICU, which it asks for a converter only when neither its own (UTF-8, UTF-16, Latin-1, ASCII)
/// nor glibc's iconv know an XML file's declared encoding. With this package such a file is refused ("unsupported
/// encoding"), as it would be without ICU; everything else parses as before. ICU ships the same thing itself (its
/// `stubdata` library, for builds whose data comes later); Debian does not package it.
///
/// The layout is ICU's: a data header (headerSize, magic 0xda 0x27, UDataInfo) naming the format "CmnD" version 1,
/// padded to 32 bytes, then a table of contents with no entries. ICU checks the header and finds no item in it.
/// The symbol's name carries ICU's major version: build with -DICU_MAJOR=72 for Debian 12's libicu72.
#include <stdint.h>

#ifndef ICU_MAJOR
#error "ICU_MAJOR (the major version of the libicu it replaces the data of) must be given"
#endif
#define ENTRY_NAME(major) icudt##major##_dat
#define ENTRY(major) ENTRY_NAME(major)

struct EmptyCommonData {
    uint16_t headerSize;
    uint8_t magic1, magic2;
    uint16_t infoSize, reservedWord;
    uint8_t isBigEndian, charsetFamily, sizeofUChar, reservedByte;
    uint8_t dataFormat[4], formatVersion[4], dataVersion[4];
    uint8_t padding[8];
    uint32_t count;
};

__attribute__((visibility("default"), aligned(16)))
const struct EmptyCommonData ENTRY(ICU_MAJOR) = {
    .headerSize = 32, .magic1 = 0xda, .magic2 = 0x27,
    .infoSize = 20,
    .isBigEndian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__,
    .charsetFamily = 0,                     /* ASCII */
    .sizeofUChar = 2,
    .dataFormat = {'C', 'm', 'n', 'D'}, .formatVersion = {1, 0, 0, 0}, .dataVersion = {ICU_MAJOR, 0, 0, 0},
    .count = 0,
};
