#ifndef CIMAGEIO_H
#define CIMAGEIO_H

/*
 * The prefixed ABI over libjpeg-turbo, libpng, lcms2, libtiff, OpenJPEG and libwebp, and our own JPEG entry index,
 * extracts and joins: what the Swift side calls, nothing else (test hooks are in CImageIOTesting.h; helpers the C
 * files share, in the internal headers beside them).
 *
 * Every function here sets up its own setjmp point before it calls into the
 * libraries, so a library error never exits, aborts or prints: it comes back
 * as a non-zero code with a readable message in `tsio_status`. Warnings are
 * counted and the first one is kept, never printed.
 *
 * Decoders of files read from a `tsio_input` the caller owns (a file
 * descriptor, or an object in object storage read by range), through a
 * 64 KiB buffer, so the encoded file is never mapped or held whole in memory
 * and the byte offset of a truncation is known. The `*_open_mem` decoders
 * read a buffer the caller already holds: an encoded tile, a TIFF's JPEG
 * tile, an entry-index extract, each small.
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    TSIO_OK = 0,
    TSIO_ERR_IO = 1,          /* read(2) failed; message has the errno text */
    TSIO_ERR_TRUNCATED = 2,   /* the file ends before the image does */
    TSIO_ERR_CORRUPT = 3,     /* the library rejected the data */
    TSIO_ERR_UNSUPPORTED = 4, /* valid, but a variant we do not decode */
    TSIO_ERR_NOMEM = 5,       /* allocation failed or a memory cap was hit */
    TSIO_ERR_ARGUMENT = 6     /* the caller asked for something impossible */
};

/*
 * Where a decoder's bytes come from: the file at `fd`, read with pread(2), when `read` is NULL; otherwise the
 * caller's `read`, which fills `dst` with up to `count` bytes at `offset` of an input of `size` bytes and returns
 * how many (fewer only at the end), or -1 with errno set (the caller keeps its own account of why). Decoders copy
 * the struct; `context` must outlive them.
 */
typedef long long (*tsio_read_fn)(void *context, uint8_t *dst, size_t count, uint64_t offset);
typedef struct {
    int fd;
    tsio_read_fn read;
    void *context;
    uint64_t size;            /* bytes in the input; for a descriptor, 0 asks fstat(2) */
} tsio_input;

enum {
    TSIO_COLOR_GRAY = 1,
    TSIO_COLOR_RGB = 2,       /* JPEG: YCbCr or RGB in the file */
    TSIO_COLOR_CMYK = 3,
    TSIO_COLOR_YCCK = 4,
    TSIO_COLOR_GRAY_ALPHA = 5,
    TSIO_COLOR_RGBA = 6,
    TSIO_COLOR_PALETTE = 7
};

typedef struct tsio_status {
    int code;
    int warning_count;
    uint64_t offset;          /* input bytes consumed when the error happened */
    uint64_t file_size;       /* size of the input file, from fstat(2) */
    uint32_t rows_done;       /* output rows delivered before the error */
    char message[200];
    char warning[200];        /* the first warning, if any */
} tsio_status;

typedef struct tsio_info {
    uint32_t width;           /* as stored, before EXIF orientation */
    uint32_t height;
    int components;           /* samples per pixel in the file */
    int channels;             /* samples per pixel the decoder delivers: 3 or 4 */
    int color_space;          /* TSIO_COLOR_* of the file */
    int bit_depth;
    int progressive;          /* JPEG progressive, or PNG Adam7 interlaced */
    int restart_interval;     /* JPEG, in MCUs; 0 when none */
    int orientation;          /* EXIF orientation 1..8; 1 when absent */
    int adobe_inverted;       /* JPEG CMYK stored inverted (Adobe APP14) */
    int chroma_subsampled;    /* JPEG: 1 when chroma is subsampled */
    int exif_adobe_rgb;       /* EXIF says Adobe RGB (1998) without a profile (tsio_exif_adobe_rgb) */
    int ycbcr;                /* JPEG: three components libjpeg reads as YCbCr */
} tsio_info;

/* ---- JPEG decoding ---------------------------------------------------- */

typedef struct tsio_jpeg tsio_jpeg;

/*
 * jpeg_read_header over `in` from its start. `max_memory` caps what
 * libjpeg may allocate (0: no cap); progressive files need a coefficient
 * buffer of about 2 bytes per sample, and hitting the cap is TSIO_ERR_NOMEM.
 */
tsio_jpeg *tsio_jpeg_open(const tsio_input *in, uint64_t max_memory, tsio_info *info, tsio_status *st);

/* The same over `size` bytes at `data` (an encoded tile held in memory); `data` must outlive the decoder. */
tsio_jpeg *tsio_jpeg_open_mem(const uint8_t *data, size_t size, uint64_t max_memory, tsio_info *info, tsio_status *st);

/*
 * jpeg_start_decompress at 1/`scale_denom` (1, 2, 4 or 8), then
 * jpeg_crop_scanline to columns [crop_x, crop_x + crop_w) of the scaled
 * image. libjpeg widens the crop to iMCU boundaries: `crop_x_out` and
 * `crop_w_out` say what rows will actually hold. `out_w`/`out_h` are the
 * scaled image size.
 */
int tsio_jpeg_start(tsio_jpeg *j, int scale_denom, uint32_t crop_x, uint32_t crop_w,
                    uint32_t *out_w, uint32_t *out_h,
                    uint32_t *crop_x_out, uint32_t *crop_w_out, tsio_status *st);

/* jpeg_skip_scanlines: returns rows skipped, -1 on error. */
int64_t tsio_jpeg_skip(tsio_jpeg *j, uint32_t rows, tsio_status *st);

/*
 * jpeg_read_scanlines into `dst` (`rows` rows of `stride` bytes, 8-bit RGB,
 * cropped width). Gray becomes RGB; CMYK and YCCK are converted to RGB,
 * undoing Adobe inversion. Returns rows read, -1 on error.
 */
int64_t tsio_jpeg_read(tsio_jpeg *j, uint8_t *dst, size_t stride, uint32_t rows, tsio_status *st);

/* jpeg_destroy_decompress and free; NULL is fine. The fd stays open. */
void tsio_jpeg_close(tsio_jpeg *j);

/* ---- JPEG entry index ------------------------------------------------- */

/*
 * Where decoding can enter a baseline JPEG that has no restart markers to enter at. One scan of the entropy
 * data (Huffman symbols only: no coefficients, no IDCT) records, every 256 pixels of every MCU row, the bit it
 * starts at and the DC predictions there. From those, any rectangle of MCUs becomes a small JPEG of its own
 * (tsio_jidx_extract) that libjpeg decodes to the same pixels as the whole file, without the entropy decode of
 * everything above and left of it that jpeg_skip_scanlines costs.
 */
typedef struct tsio_jidx tsio_jidx;

/*
 * Reads the header of the JPEG at `in`. TSIO_ERR_UNSUPPORTED for anything but one 8-bit
 * sequential Huffman scan of every component (progressive, arithmetic, 12-bit, multi-scan files).
 */
tsio_jidx *tsio_jidx_open(const tsio_input *in, tsio_status *st);

/* The frame's size as the index read it, the MCU size in pixels, and MCUs across and down. */
void tsio_jidx_geometry(const tsio_jidx *x, uint32_t *width, uint32_t *height, uint32_t *mcu_w, uint32_t *mcu_h,
                        uint32_t *cols, uint32_t *rows);

/* Memory the index holds. */
size_t tsio_jidx_bytes(const tsio_jidx *x);

/*
 * A complete index's entries as bytes to keep (a tile store), so a restarted server need not scan the file again:
 * malloc'd (tsio_free); -1 while the index does not reach the foot of the image.
 */
int tsio_jidx_export(const tsio_jidx *x, uint8_t **out, size_t *size);

/*
 * Takes entries `tsio_jidx_export` made from the same file into an index no scan has begun on: the index then
 * reaches the foot. -1 (`st` says why) for bytes of another frame, cut short or altered (a checksum covers them).
 */
int tsio_jidx_import(tsio_jidx *x, const uint8_t *data, size_t size, tsio_status *st);

/*
 * Continues the scan until MCU rows [0, rows) are indexed, reading `in` (the same file) from where the last call
 * stopped. Returns the rows indexed: fewer when the data stops making sense (a warning says so; libjpeg must
 * decode those rows the usual way); -1 on a read error. Not reentrant: one scan at a time per index.
 */
int64_t tsio_jidx_scan(tsio_jidx *x, const tsio_input *in, uint32_t rows, tsio_status *st);

/*
 * A JPEG of MCU rows [r0, r1) and columns [c0, c1), into a malloc'd buffer (free with tsio_free). The rows
 * must be indexed. Safe to call from several threads at once, and during a scan (it reads only entries of
 * rows already indexed). `copied_rows` (may be NULL) gets how many rows had most of their bits copied whole,
 * without decoding their symbols (the source's own DC tables code every category, and no restart markers).
 */
int tsio_jidx_extract(const tsio_jidx *x, const tsio_input *in, uint32_t r0, uint32_t r1, uint32_t c0, uint32_t c1,
                      uint8_t **out, size_t *out_size, uint32_t *copied_rows, tsio_status *st);

/*
 * Makes the scan decode too: MCU row by MCU row, the image at 1/8 as libjpeg's decode at scale 1/8 makes it (to
 * the bit), while the index is built, so a master's thumbnail levels and its index cost one pass over the entropy
 * data. Only before the scan has started, for 1 or 3 components (`ycc`: the three are YCbCr, as libjpeg reads the
 * file's JFIF/Adobe markers; else RGB) whose sampling libjpeg scales at 1/8 without fancy upsampling. Returns the
 * rows at 1/8 one MCU row makes, 0 when this file's 1/8 decode cannot come from the scan, -1 without memory.
 */
int tsio_jidx_eighth_begin(tsio_jidx *x, int ycc, tsio_status *st);

/*
 * Scans the next MCU row (its entries recorded) and writes its rows at 1/8 to `dst`, `stride` apart: RGB,
 * ceil(width / 8) pixels. Returns the rows written (fewer at the foot of the image, 0 after it), -1 on a read
 * error, -2 when the data stops making sense there (the index stops too: libjpeg must decode the rest). A call
 * of tsio_jidx_scan ends the 1/8 decode.
 */
int64_t tsio_jidx_eighth_row(tsio_jidx *x, const tsio_input *in, uint8_t *dst, size_t stride, tsio_status *st);

void tsio_jidx_close(tsio_jidx *x);

/* ---- Colour ----------------------------------------------------------- */

/* How the pixels a transform converts are laid out, 8 bits a sample. */
enum {
    TSIO_ICC_RGB = 1,
    TSIO_ICC_RGBA = 2,          /* alpha copied through */
    TSIO_ICC_GRAY_IN_RGB = 3,   /* gray spread over RGB triplets: the first sample is read */
    TSIO_ICC_CMYK = 4,
    TSIO_ICC_CMYK_INVERTED = 5, /* Adobe's inverted CMYK */
    TSIO_ICC_EXACT = 0x100,     /* or'ed in: always lcms2's own transform, never the matrix/TRC fast path */
    TSIO_ICC_WIDE = 0x200       /* or'ed in: 16-bit big-endian input samples (PNG's), 8-bit output; lcms2's transform */
};

/*
 * A transform (lcms2, relative colorimetric, as libvips converts) from the colour space `profile`
 * describes to sRGB, for pixels in `layout`. Matrix/TRC RGB profiles (no lookup tables) take a fast path of
 * two tables and a matrix, within a level of lcms2's result; RGB output (RGBA for TSIO_ICC_RGBA). NULL with a readable message
 * for a truncated, inconsistent or hostile profile, or one of another colour space than the pixels. The
 * profile bytes may be freed afterwards. Safe to share between threads.
 */
typedef struct tsio_icc tsio_icc;
tsio_icc *tsio_icc_open(const uint8_t *profile, size_t size, int layout, tsio_status *st);
/* Converts `pixels` pixels; `in` and `out` may be the same buffer when the layouts have the same size. */
void tsio_icc_apply(const tsio_icc *t, const uint8_t *in, uint8_t *out, size_t pixels);
void tsio_icc_close(tsio_icc *t);

/* Adobe RGB (1998) as an ICC profile made by lcms2, in a malloc'd buffer (tsio_free); 0 on failure. */
int tsio_icc_adobe_rgb(uint8_t **profile, size_t *size);

/* The ICC profile a JPEG carries in its APP2 segments (joined), in a malloc'd buffer (tsio_free); 0 when none. */
int tsio_jpeg_icc_profile(tsio_jpeg *j, uint8_t **profile, size_t *size);
/*
 * Converts every row read from now on with `t` (NULL: none): after libjpeg's own YCbCr and gray conversion,
 * or instead of the plain CMYK formula. The transform must outlive the reader.
 */
void tsio_jpeg_set_icc(tsio_jpeg *j, const tsio_icc *t);

/* ---- PNG decoding ----------------------------------------------------- */

typedef struct tsio_png tsio_png;

/*
 * png_read_info over `fd`, with transforms that turn every colour type and
 * bit depth into 8-bit RGB (3 channels) or RGBA (4, when the file has alpha
 * or tRNS). 16-bit samples keep their high byte (png_set_strip_16).
 */
tsio_png *tsio_png_open(const tsio_input *in, tsio_info *info, tsio_status *st);

/* The same over `size` bytes at `data`; `data` must outlive the decoder. */
tsio_png *tsio_png_open_mem(const uint8_t *data, size_t size, tsio_info *info, tsio_status *st);

/*
 * The next `rows` rows, top to bottom, into `dst` (NULL skips them).
 * Non-interlaced files stream row by row with png_read_row. Adam7 files must
 * be decoded whole first (png_read_image): that costs width x height x
 * channels bytes, once, on the first call. Returns rows read, -1 on error.
 */
int64_t tsio_png_read(tsio_png *p, uint8_t *dst, size_t stride, uint32_t rows, tsio_status *st);

void tsio_png_close(tsio_png *p);

/*
 * The profile of the PNG's iCCP chunk, inflated, in a malloc'd buffer (tsio_free); without one (and without
 * an sRGB chunk), a profile made from its gAMA and cHRM chunks when they describe something other than sRGB;
 * 0 when neither.
 */
int tsio_png_icc_profile(tsio_png *p, uint8_t **profile, size_t *size);
/* Converts every row read into `dst` from now on with `t` (NULL: none); it must outlive the reader. For a
 * 16-bit file (info->bit_depth 16) `t` takes 16-bit samples: made with TSIO_ICC_WIDE. */
void tsio_png_set_icc(tsio_png *p, const tsio_icc *t);

/* ---- Encoding --------------------------------------------------------- */

/*
 * jpeg_compress into a malloc'd buffer (jpeg_mem_dest). `channels` is 1 or
 * 3; `subsample` 1 gives 4:2:0 chroma, 0 gives 4:4:4. `icc` (NULL: none) is
 * embedded as APP2 ICC_PROFILE segments. Free with tsio_free.
 */
int tsio_jpeg_encode(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride,
                     int channels, int quality, int subsample, const uint8_t *icc, size_t icc_size,
                     uint8_t **out, size_t *out_size, tsio_status *st);

/*
 * JPEG tiles joined into one JPEG of `width × height` with no decode and no loss: `tiles` are `columns × rows` whole
 * JPEG streams in row order, each `tile_size` square but the last column and row, which make up the rest of the
 * width and height. `icc` (NULL: none) is embedded. 1 with the JPEG in `*out` (tsio_free); 0 when the tiles were not
 * coded alike (components, sampling, colour space, quantisation tables) or not at those sizes, and the caller makes
 * the image another way; -1 when a tile is damaged (`st` says how).
 * It joins the tiles' bits where it can, else their DCT coefficients (as jpegtran does); each way alone is in
 * CImageIOTesting.h.
 */
int tsio_jpeg_join(const uint8_t *const *tiles, const size_t *sizes, uint32_t columns, uint32_t rows,
                   uint32_t tile_size, uint32_t width, uint32_t height, const uint8_t *icc, size_t icc_size,
                   uint8_t **out, size_t *out_size, tsio_status *st);

/*
 * png_write_* into a malloc'd buffer. `channels` 1..4 (gray, gray+alpha,
 * RGB, RGBA); `level` is the zlib compression level 0..9; `icc` (NULL: none)
 * becomes an iCCP chunk. Free with tsio_free.
 */
int tsio_png_encode(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride,
                    int channels, int level, const uint8_t *icc, size_t icc_size,
                    uint8_t **out, size_t *out_size, tsio_status *st);

/*
 * Lossy WebP (libwebp) into a malloc'd buffer (tsio_free). `channels` 3 or 4 (alpha kept); `quality` 0..100 as
 * libwebp reads it; `method` 0 (fastest) .. 6 (smallest); `icc` (NULL: none) goes in an ICCP chunk.
 */
int tsio_webp_encode(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride, int channels, float quality,
                     int method, const uint8_t *icc, size_t icc_size, uint8_t **out, size_t *out_size, tsio_status *st);
/*
 * A WebP image in memory (an encoded tile), read as the other decoders read: tsio_webp_open_mem fills `info` (its
 * size; `channels` 3, or 4 with alpha) or returns NULL with `st` set; tsio_webp_read delivers the next `rows` rows
 * (RGB or RGBA as `info` says) and returns how many it delivered, -1 on an error. libwebp decodes the picture whole
 * on the first read: straight into `dst` when all rows are asked for at once, else into a buffer the rows are copied
 * from. `data` must stay valid until tsio_webp_close.
 */
typedef struct tsio_webp tsio_webp;
tsio_webp *tsio_webp_open_mem(const uint8_t *data, size_t size, tsio_info *info, tsio_status *st);
int64_t tsio_webp_read(tsio_webp *w, uint8_t *dst, size_t stride, uint32_t rows, tsio_status *st);
void tsio_webp_close(tsio_webp *w);

/*
 * HEIC/HEIF and AVIF photos (libheif). tsio_heif_open reads the file's boxes and fills `h` with the primary image's
 * upright size (libheif applies the file's rotation and mirroring), or returns NULL with `st` set; `max_side` caps
 * either side before anything is decoded (0: libheif's own cap). tsio_heif_decode decodes the whole primary image
 * (grids assembled) as 8-bit RGB or RGBA into `dst`, or fails: never fewer rows or samples than the header gives.
 * tsio_heif_profile and tsio_heif_metadata (0 EXIF as a TIFF structure, 1 XMP) hand over malloc'd copies
 * (tsio_free); 0 when there is none.
 */
typedef struct tsio_heif_header {
    uint32_t width;
    uint32_t height;
    int channels;             /* 3, or 4 with alpha */
    int bit_depth;            /* luma bits as stored */
    int avif;                 /* AV1 (AVIF), else HEVC (HEIC) or another HEIF codec */
    int has_profile;          /* an ICC profile (colr prof or rICC) */
    int depth_images;         /* a depth image is attached (not served) */
    int images;               /* top-level images (the primary one is served) */
} tsio_heif_header;
typedef struct tsio_heif tsio_heif;
tsio_heif *tsio_heif_open(const tsio_input *in, uint32_t max_side, tsio_heif_header *h, tsio_status *st);
int tsio_heif_profile(const tsio_heif *h, uint8_t **profile, size_t *size);
int tsio_heif_metadata(const tsio_heif *h, int xmp, uint8_t **data, size_t *size);
int tsio_heif_decode(const tsio_heif *h, uint8_t *dst, size_t stride, int channels, tsio_status *st);
void tsio_heif_close(tsio_heif *h);
/* The same over an encoded image in memory (an AVIF tile), which must outlive the handle; sides up to 16,384. */
tsio_heif *tsio_heif_open_mem(const uint8_t *data, size_t size, tsio_heif_header *h, tsio_status *st);
/*
 * AVIF (AV1 through libheif's libaom encoder, 4:2:0) into a malloc'd buffer (tsio_free). `channels` 3 or 4 (alpha
 * kept); `quality` 0..100 as libheif reads it (`AVIFQuality` maps ours to it); `speed` 0 (smallest) .. 9 (fastest);
 * `icc` (NULL: none) goes in a colr box.
 */
int tsio_avif_encode(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride, int channels, int quality,
                     int speed, const uint8_t *icc, size_t icc_size, uint8_t **out, size_t *out_size, tsio_status *st);

/* The orientation (1..8) of an EXIF block (a TIFF structure from "II"/"MM"); 1 when it has none or is damaged. */
int tsio_exif_orientation(const uint8_t *data, size_t size);

void tsio_free(void *p);

/*
 * A JPEG (`format` 0, quality) or PNG (`format` 1, zlib level) written row by
 * row to `fd` as the rows arrive, so an image larger than memory can be
 * encoded in bands. tsio_writer_finish writes the trailer and frees the
 * writer; tsio_writer_abort frees it after a failure or an abandoned image.
 * The fd stays open. `icc` (NULL: none) is embedded as the encoders above do.
 */
typedef struct tsio_writer tsio_writer;
tsio_writer *tsio_writer_open(int fd, int format, uint32_t width, uint32_t height, int channels,
                              int quality_or_level, const uint8_t *icc, size_t icc_size, tsio_status *st);
int tsio_writer_rows(tsio_writer *w, const uint8_t *pixels, size_t stride, uint32_t rows, tsio_status *st);
int tsio_writer_finish(tsio_writer *w, tsio_status *st);
void tsio_writer_abort(tsio_writer *w);


/* ---- JPEG 2000 --------------------------------------------------------- */

/* What a JPEG 2000 header says. */
typedef struct tsio_jp2_header {
    uint32_t width;
    uint32_t height;
    int components;
    int precision;            /* bits of the first component */
    int colour_space;         /* OpenJPEG's: 1 sRGB, 2 gray, 3 sYCC, 5 CMYK, 0 unspecified */
    int codestream;           /* 1: a bare code-stream (.j2k), 0: a JP2 file */
    int has_profile;          /* an ICC profile in the JP2 colour box (method 2 or 3) */
    int channels;             /* what reads deliver: 3 (RGB) or 4 (RGBA) */
    int gray;                 /* one colour component */
    int resolutions;          /* resolution levels: reads reduce by up to 2^(resolutions - 1) */
    uint32_t tile_width;      /* the whole image when untiled */
    uint32_t tile_height;
    uint32_t tiles;
    int layers;               /* quality layers */
    int progression;          /* 0 LRCP, 1 RLCP, 2 RPCL, 3 PCRL, 4 CPRL */
    int high_throughput;      /* HTJ2K (Part 15) code-blocks: reads decode whole tiles, then cut the area */
} tsio_jp2_header;

/*
 * The JPEG 2000 file or code-stream at `fd`, which stays the caller's and open until tsio_jp2_close (read with
 * pread(2): its offset is not used). With `h`, its header is read now, and with `profile` (may be NULL) its ICC
 * profile into a malloc'd buffer (tsio_free; NULL when it has none); with `h` NULL nothing is read yet (a decode
 * that knows the header already). NULL with `st` set when the header cannot be read.
 */
typedef struct tsio_jp2 tsio_jp2;
tsio_jp2 *tsio_jp2_open(const tsio_input *in, tsio_jp2_header *h, uint8_t **profile, size_t *profile_size, tsio_status *st);
/*
 * Pixels [x, x + w) × [y, y + h) of the image reduced by 2^`reduce` (OpenJPEG's cp_reduce: its size is
 * ceil(width / 2^reduce) × ceil(height / 2^reduce)), only the code-blocks under them decoded, as 8-bit RGB or RGBA
 * (`channels`) into `dst`. Safe on several threads at once, on one handle too: every call has a codec of its own.
 */
int tsio_jp2_read(const tsio_jp2 *j, uint32_t reduce, uint32_t x, uint32_t y, uint32_t w, uint32_t h, uint8_t *dst,
                  size_t stride, int channels, tsio_status *st);
void tsio_jp2_close(tsio_jp2 *j);

/* ---- TIFF and BigTIFF ---------------------------------------------------- */

/* Directories listed at most: pages of the main chain plus the first page's SubIFDs. */
#define TSIO_TIFF_MAX_DIRS 64

/* One image file directory: a page, a reduced-resolution level or a SubIFD. */
typedef struct tsio_tiff_dir {
    uint64_t offset;          /* where the IFD is: what tsio_tiff_select takes */
    uint32_t width;
    uint32_t height;
    uint32_t tile_width;      /* 0 when striped */
    uint32_t tile_height;
    uint32_t rows_per_strip;  /* striped: rows a strip holds */
    int compression;          /* TIFF's code: 1 none, 5 LZW, 7 JPEG, 8 deflate, 32773 PackBits, 50000 ZSTD, 50001 WebP */
    int photometric;          /* 0 white-is-zero, 1 black-is-zero, 2 RGB, 3 palette, 5 CMYK, 6 YCbCr, 8 CIELab */
    int bits;                 /* bits per sample */
    int samples;              /* samples per pixel */
    int planar;               /* 1 contiguous, 2 a plane per sample */
    int sample_format;        /* 1 unsigned, 2 signed, 3 float */
    int subfile_type;         /* bit 0: a reduced-resolution image; bit 2: a mask */
    int orientation;          /* 1..8, as EXIF */
    int resolution_unit;      /* ResolutionUnit: 2 inch, 3 centimetre; 0 when absent */
    double x_resolution;      /* XResolution: pixels per unit; 0 when absent */
    int has_profile;          /* an ICC profile is embedded */
    int subifd;               /* found in the first page's SubIFDs rather than the main chain */
    int alpha;                /* 0 none, 1 unassociated, 2 associated (premultiplied) */
    int channels;             /* what reads deliver: 3 (RGB) or 4 (RGBA) */
    int direct;               /* 1: 8- or 16-bit gray/RGB(A)/CMYK (or JPEG YCbCr) converted here; 0: libtiff's RGBA image */
    int readable;             /* 0: neither can read it, `reason` says why */
    char reason[120];
} tsio_tiff_dir;

typedef struct tsio_tiff tsio_tiff;

/*
 * Opens the TIFF or BigTIFF at `fd` (read with pread(2): handles on one file are independent; one handle is used by
 * one thread at a time) and selects its first directory. The fd stays the caller's.
 */
tsio_tiff *tsio_tiff_open(const tsio_input *in, tsio_status *st);
/* Describes up to `cap` directories into `out`: the main chain, then the first page's SubIFDs; returns how many
 * there are (at most TSIO_TIFF_MAX_DIRS), -1 on error. A broken chain after the first page is a warning. */
int tsio_tiff_directories(tsio_tiff *t, tsio_tiff_dir *out, int cap, tsio_status *st);
/* Makes the directory at `offset` the one reads come from; `d` (may be NULL) gets its description. */
int tsio_tiff_select(tsio_tiff *t, uint64_t offset, tsio_tiff_dir *d, tsio_status *st);
/*
 * Pixels [x, x + w) × [y, y + h) of the selected directory shrunk by `shrink` (its size at that shrink is
 * ceil(width / shrink) × ceil(height / shrink); each pixel averages the block under it) into `dst`, `stride` bytes
 * a row, as 8-bit RGB or RGBA (`channels`). Gray becomes RGB, 16-bit samples are rounded to 8 bits, associated
 * alpha is undone. 0, or -1 with `st` saying why.
 */
int tsio_tiff_read(tsio_tiff *t, uint32_t x, uint32_t y, uint32_t w, uint32_t h, uint32_t shrink, uint8_t *dst,
                   size_t stride, tsio_status *st);
/* Converts CMYK directories' samples to RGB with `icc` (made for TSIO_ICC_CMYK; it must outlive the reads); NULL: with
 * the naive (1 - C)(1 - K) formula. */
void tsio_tiff_set_cmyk_icc(tsio_tiff *t, const tsio_icc *icc);
/* The selected directory's ICC profile, in a malloc'd buffer (tsio_free); 0 when none. */
int tsio_tiff_icc_profile(tsio_tiff *t, uint8_t **profile, size_t *size);
/*
 * The tile of the selected directory whose top-left pixel is (`x`, `y`), as the standalone JPEG it is stored as (its
 * stream with the directory's JPEGTables put in front), in a malloc'd buffer (tsio_free): 1. 0 when it is not one
 * that can be handed over as it is (not JPEG-compressed 8-bit YCbCr or RGB, not a whole tile inside the image, or a stream
 * that does not parse as a baseline JPEG of the tile's size); -1 on a read error.
 */
int tsio_tiff_jpeg_tile(tsio_tiff *t, uint32_t x, uint32_t y, uint8_t **out, size_t *size, tsio_status *st);
/*
 * Where the tiles of the selected directory under the rectangle (x, y, w, h) are stored: their offsets and byte
 * counts, at most `capacity`, row by row; the count written. Nothing is read but the tile tables in memory.
 */
size_t tsio_tiff_tile_extents(tsio_tiff *t, uint32_t x, uint32_t y, uint32_t w, uint32_t h, uint64_t *offsets,
                              uint64_t *counts, size_t capacity);
/* libtiff's name of a compression code ("JPEG", "AdobeDeflate", …). Directories whose codec this libtiff lacks are
 * described as not readable. */
const char *tsio_tiff_compression_name(int compression);
void tsio_tiff_close(tsio_tiff *t);

/*
 * Whole-slide images through OpenSlide (slide.c). `tsio_slide_vendor` names the format OpenSlide takes a file for
 * ("aperio", "hamamatsu", "generic-tiff", ...) or NULL. Regions are asked in level 0's frame at `x`, `y`, `width` x
 * `height` pixels of `level` (whose `downsample` the caller passes back), and come as RGB composited over
 * `background` (0xRRGGBB): what lies outside the scanned area is that colour, never transparent black. Handles are
 * safe to read from several threads at once.
 */
typedef struct tsio_slide tsio_slide;
const char *tsio_slide_vendor(const char *path);
tsio_slide *tsio_slide_open(const char *path, tsio_status *st);
void tsio_slide_close(tsio_slide *slide);
int32_t tsio_slide_level_count(tsio_slide *slide);
int tsio_slide_level(tsio_slide *slide, int32_t level, int64_t *width, int64_t *height, double *downsample);
const char *tsio_slide_property(tsio_slide *slide, const char *name);
const char *const *tsio_slide_associated_names(tsio_slide *slide);
int tsio_slide_associated_size(tsio_slide *slide, const char *name, int64_t *width, int64_t *height);
int tsio_slide_read(tsio_slide *slide, int32_t level, int64_t x, int64_t y, double downsample, int64_t width,
                    int64_t height, uint8_t *rgb, size_t stride, uint32_t background, tsio_status *st);
int tsio_slide_read_associated(tsio_slide *slide, const char *name, uint8_t *rgb, int64_t width, int64_t height,
                               uint32_t background, tsio_status *st);

#ifdef __cplusplus
}
#endif

#endif
