#!/usr/bin/env bash
# Makes the test images and their libvips reference decodes into OUT (default .build-fixtures/ in the repo).
# Everything is synthetic and seeded, so a fresh clone gets the same files without any download.
#
#   scripts/make-fixtures.sh [OUT]
#
# OUT/formats/NAME.{jpg,png,tif,jp2,webp,heic,avif}  the variants a server meets (same recipes as ../shared/tools/make-images.sh)
# OUT/reference/NAME.raw       libvips' decode, upright (autorot), as 8-bit RGB or RGBA: CMYK is turned into
#                              RGB with the naive (1-C)(1-K) formula, 16-bit keeps its high byte, gray is
#                              repeated into three bands
# OUT/reference/NAME.txt       "WIDTH HEIGHT BANDS" of that raw file
# OUT/gallery/large.jpg        a 3,996 x 2,582 photo-like JPEG for the browser tests
# Needs: libvips-tools, libjpeg-turbo-progs, libimage-exiftool-perl, libtiff-tools, libopenjp2-tools, webp, libheif-examples,
# libavif-bin (scripts/test.sh
# installs them).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-$ROOT/.build-fixtures}
F=$OUT/formats
R=$OUT/reference
STAMP=$OUT/.complete-v13
[ -f "$STAMP" ] && exit 0
rm -rf "$OUT.tmp"
mkdir -p "$OUT.tmp/formats" "$OUT.tmp/reference" "$OUT.tmp/work" "$OUT.tmp/gallery"
W=$OUT.tmp/work
cd "$W"

# A photo-like base: smooth colour fields (Perlin), cell texture (Worley), a gradient and fine grain.
vips perlin p1.v 701 453 --cell-size 96 --seed 11
vips perlin p2.v 701 453 --cell-size 48 --seed 12
vips perlin p3.v 701 453 --cell-size 160 --seed 13
vips worley wo.v 701 453 --cell-size 40 --seed 14
vips xyz xy.v 701 453
vips extract_band xy.v gx.v 0
vips gaussnoise gn.v 701 453 --sigma 6 --mean 0 --seed 15
vips linear p1.v r1.v 90 120
vips linear p2.v g1.v 80 130
vips linear p3.v b1.v 100 110
vips linear wo.v w1.v 0.9 0
vips linear gx.v gx1.v 0.08 0
vips bandjoin "r1.v g1.v b1.v" rgb.v
vips add rgb.v gx1.v rgb2.v
vips subtract rgb2.v w1.v rgb3.v
vips add rgb3.v gn.v rgb4.v
vips cast rgb4.v base.v uchar

cd "$OUT.tmp/formats"
vips jpegsave "$W/base.v" baseline.jpg --Q 85
vips jpegsave "$W/base.v" progressive.jpg --Q 85 --interlace
vips colourspace "$W/base.v" "$W/g.v" b-w && vips jpegsave "$W/g.v" gray.jpg --Q 85
vips colourspace "$W/base.v" "$W/c.v" cmyk && vips jpegsave "$W/c.v" cmyk.jpg --Q 90
vips ppmsave "$W/base.v" "$W/base.ppm" && cjpeg -quality 85 -restart 1 "$W/base.ppm" > restart.jpg
vips jpegsave "$W/base.v" q100-444.jpg --Q 100 --subsample-mode off
vips jpegsave "$W/base.v" optimized.jpg --Q 85 --optimize-coding
cjpeg -quality 85 -sample 2x1 -restart 3B -optimize "$W/base.ppm" > restart-422.jpg
cjpeg -quality 90 -sample 1x2 "$W/base.ppm" > sample-440.jpg
cjpeg -quality 90 -sample 4x1 "$W/base.ppm" > sample-411.jpg
cjpeg -quality 90 -rgb "$W/base.ppm" > rgb-components.jpg
for o in 1 2 3 4 5 6 7 8; do
  vips jpegsave "$W/base.v" "orient-$o.jpg" --Q 90
  exiftool -q -overwrite_original -Orientation="$o" -n "orient-$o.jpg"
done
vips bandjoin_const "$W/base.v" "$W/a.v" 200 && vips pngsave "$W/a.v" rgba.png
vips colourspace "$W/base.v" "$W/g16.v" grey16 && vips pngsave "$W/g16.v" gray16.png
vips colourspace "$W/base.v" "$W/c16.v" rgb16 && vips pngsave "$W/c16.v" rgb16.png
vips bandjoin_const "$W/g.v" "$W/ga.v" 128 && vips pngsave "$W/ga.v" gray-alpha.png
vips pngsave "$W/base.v" rgb.png
vips pngsave "$W/base.v" palette.png --palette --bitdepth 8
vips bandjoin_const "$W/base.v" "$W/pa.v" 128 && vips pngsave "$W/pa.v" palette-trns.png --palette
vips pngsave "$W/base.v" interlaced.png --interlace
vips black "$W/t.v" 1 1 --bands 3 && vips linear "$W/t.v" "$W/t2.v" 1 77 --uchar && vips pngsave "$W/t2.v" tiny-1x1.png
vips resize "$W/base.v" "$W/w.v" 12.873 --vscale 0.00663 && vips jpegsave "$W/w.v" wide-9024x3.jpg --Q 85
# Tagged photos: the sRGB base converted into wide-gamut spaces, the profile embedded (APP2, iCCP).
ICC=/usr/share/color/icc/colord
vips icc_transform "$W/base.v" "prophoto.jpg[Q=95]" "$ICC/ProPhotoRGB.icc" --input-profile srgb
vips icc_transform "$W/base.v" "eci-rgb-v2.jpg[Q=95,subsample-mode=on]" "$ICC/ECI-RGBv2.icc" --input-profile srgb
vips icc_transform "$W/base.v" adobe-rgb.png "$ICC/AdobeRGB1998.icc" --input-profile srgb
# 16-bit tagged PNGs (one interlaced): converted at full depth, before the samples are rounded to 8 bits.
vips icc_transform "$W/base.v" "$W/p16.v" "$ICC/ProPhotoRGB.icc" --input-profile srgb --depth 16
vips pngsave "$W/p16.v" prophoto16.png && vips pngsave "$W/p16.v" prophoto16-interlaced.png --interlace
# A camera in Adobe RGB mode: no profile, EXIF ColorSpace "uncalibrated" and interoperability index R03.
vips icc_transform "$W/base.v" "adobe-exif-r03.jpg[Q=95,strip]" "$ICC/AdobeRGB1998.icc" --input-profile srgb
exiftool -q -overwrite_original -ColorSpace=0xffff -n -InteropIndex=R03 adobe-exif-r03.jpg
# TIFF as archives hold it: pyramidal (pages and SubIFDs), flat tiled, striped, BigTIFF, planes, 16-bit, alpha,
# 1-bit, CMYK, a profile and an orientation tag; every compression this libtiff decodes. Names differ from the JPEG
# and PNG variants' by more than the extension: references are named without it.
vips tiffsave "$W/base.v" pyramid-jpeg.tif --tile --pyramid --compression jpeg --Q 95 --tile-width 128 --tile-height 128
# At Q 95 libvips stores RGB JPEG tiles; below 90 YCbCr with chroma halved both ways, as museums' files mostly are.
vips tiffsave "$W/base.v" pyramid-jpeg-q85.tif --tile --pyramid --compression jpeg --Q 85 --tile-width 128 --tile-height 128
vips tiffsave "$W/base.v" pyramid-subifd.tif --tile --pyramid --subifd --compression deflate --tile-width 128 --tile-height 128
vips tiffsave "$W/base.v" pyramid-bigtiff.tif --tile --pyramid --bigtiff --compression lzw --predictor horizontal \
  --tile-width 64 --tile-height 64
vips tiffsave "$W/base.v" tiled-deflate.tif --tile --compression deflate --predictor horizontal --tile-width 256 --tile-height 128
vips tiffsave "$W/base.v" tiled-zstd.tif --tile --compression zstd --tile-width 128 --tile-height 128
vips tiffsave "$W/base.v" tiled-webp.tif --tile --compression webp --lossless --tile-width 128 --tile-height 128
vips tiffsave "$W/base.v" striped-lzw.tif --compression lzw
tiffcp -c none -r 7 striped-lzw.tif striped-none.tif
tiffcp -c packbits -p separate -r 16 striped-lzw.tif planar-packbits.tif
tiffcp -c jpeg:95 -r 16 striped-lzw.tif striped-jpeg.tif
vips tiffsave "$W/c16.v" tiff-rgb16.tif --tile --compression deflate
vips tiffsave "$W/g16.v" tiff-gray16.tif
vips tiffsave "$W/a.v" tiff-rgba.tif --tile --compression lzw
vips tiffsave "$W/a.v" tiff-rgba-premultiplied.tif --premultiply --compression lzw
vips tiffsave "$W/g.v" tiff-bilevel.tif --bitdepth 1 --miniswhite
vips tiffsave "$W/c.v" tiff-cmyk.tif --compression lzw
vips icc_transform "$W/base.v" tiff-prophoto.tif "$ICC/ProPhotoRGB.icc" --input-profile srgb
vips tiffsave "$W/base.v" tiff-orient-6.tif --compression deflate && exiftool -q -overwrite_original -Orientation=6 -n tiff-orient-6.tif
# JPEG 2000: lossless and lossy, in tiles, a JP2 file and a bare code-stream.
vips pngsave "$W/base.v" "$W/base.png"
opj_compress -i "$W/base.png" -o lossless.jp2 -n 5 >/dev/null
opj_compress -i "$W/base.png" -o tiled-lossy.jp2 -n 4 -t 256,256 -r 20 -p RPCL >/dev/null
opj_compress -i "$W/base.png" -o codestream.j2k -n 6 -r 10 >/dev/null
vips pngsave "$W/a.v" "$W/a.png" && opj_compress -i "$W/a.png" -o jp2-rgba.jp2 >/dev/null
# The formats phones and the web save photos in: WebP (lossy; with alpha; EXIF orientation 6; a ProPhoto profile),
# HEIC (HEVC; a ProPhoto profile) and AVIF (AV1; with alpha), as Debian's cwebp, heif-enc and avifenc write them.
cwebp -quiet -q 95 "$W/base.png" -o photo.webp
cwebp -quiet -q 95 -alpha_q 100 "$W/a.png" -o webp-alpha.webp
cwebp -quiet -q 95 -metadata exif orient-6.jpg -o webp-orient-6.webp
cwebp -quiet -q 95 -metadata icc prophoto.jpg -o webp-prophoto.webp
heif-enc -q 95 "$W/base.png" -o photo.heic >/dev/null
heif-enc -q 95 prophoto.jpg -o heic-prophoto.heic >/dev/null
avifenc --min 0 --max 8 "$W/base.png" photo.avif >/dev/null
avifenc --min 0 --max 8 "$W/a.png" avif-alpha.avif >/dev/null

# A photo larger than a browser window, for the viewer tests (not a format variant).
vips resize "$W/base.v" "$W/big.v" 5.7 --kernel linear
vips gaussnoise "$W/bn.v" "$(vipsheader -f width "$W/big.v")" "$(vipsheader -f height "$W/big.v")" --sigma 5 --mean 0 --seed 16
vips add "$W/big.v" "$W/bn.v" "$W/big2.v" && vips cast "$W/big2.v" "$W/big3.v" uchar
vips jpegsave "$W/big3.v" "$OUT.tmp/gallery/large.jpg" --Q 85

cd "$OUT.tmp/reference"
for f in "$OUT.tmp"/formats/*; do
  name=$(basename "$f"); name=${name%.*}
  # A tagged file's reference is libvips' conversion of it to sRGB (lcms2, relative colorimetric), as ours is.
  if [[ $f == *-r03.* ]]; then
    vips icc_transform "$f" "$W/srgb.v" srgb --input-profile "$ICC/AdobeRGB1998.icc" && vips autorot "$W/srgb.v" "$W/up.v"
  elif vipsheader -f icc-profile-data "$f" >/dev/null 2>&1; then
    vips icc_transform "$f" "$W/srgb.v" srgb --embedded && vips autorot "$W/srgb.v" "$W/up.v"
  else
    vips autorot "$f" "$W/up.v"
  fi
  bands=$(vipsheader -f bands "$W/up.v"); fmt=$(vipsheader -f format "$W/up.v"); interp=$(vipsheader -f interpretation "$W/up.v")
  src=$W/up.v
  if [[ $fmt == *USHORT* || $fmt == ushort ]]; then vips boolean_const "$src" "$W/sh.v" rshift 8 && vips cast "$W/sh.v" "$W/u8.v" uchar && src=$W/u8.v; fi
  if [[ $interp == *CMYK* || $interp == cmyk ]]; then
    for i in 0 1 2 3; do vips extract_band "$src" "$W/k$i.v" "$i"; vips invert "$W/k$i.v" "$W/i$i.v"; done
    for i in 0 1 2; do vips multiply "$W/i$i.v" "$W/i3.v" "$W/m$i.v"; vips linear "$W/m$i.v" "$W/n$i.v" 0.00392156862745098 0.5 --uchar; done
    vips bandjoin "$W/n0.v $W/n1.v $W/n2.v" "$W/rgb.v"; src=$W/rgb.v; bands=3
  elif [ "$bands" = 1 ] || [ "$bands" = 2 ]; then
    vips extract_band "$src" "$W/y.v" 0
    if [ "$bands" = 2 ]; then vips extract_band "$src" "$W/al.v" 1; vips bandjoin "$W/y.v $W/y.v $W/y.v $W/al.v" "$W/gg.v"; bands=4
    else vips bandjoin "$W/y.v $W/y.v $W/y.v" "$W/gg.v"; bands=3; fi
    src=$W/gg.v
  fi
  vips rawsave "$src" "$name.raw"
  echo "$(vipsheader -f width "$src") $(vipsheader -f height "$src") $bands" > "$name.txt"
done
rm -rf "$W"
touch "$OUT.tmp/.complete-v13"
rm -rf "$OUT" && mv "$OUT.tmp" "$OUT"
echo "fixtures: $OUT" >&2
