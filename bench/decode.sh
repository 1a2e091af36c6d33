#!/usr/bin/env bash
# Decode speed and memory: our streaming decoder beside `vips avg` and djpeg on the same files, in one run.
# Prints figures; asserts nothing about time.
#   bench/decode.sh [IMAGES_DIR]   (default /var/tmp/tileserver-images; make it with
#                                   SIZES=20000 ../shared/tools/make-images.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-/var/tmp/tileserver-images}
JPG=$DIR/big-20000.jpg
PNG=$DIR/big-20000.png
for f in "$JPG" "$PNG"; do [ -s "$f" ] || { echo "missing $f: run SIZES=20000 ../shared/tools/make-images.sh" >&2; exit 1; }; done
command -v vips >/dev/null && command -v djpeg >/dev/null || { echo "needs libvips-tools and libjpeg-turbo-progs" >&2; exit 1; }
if [ -z "${BIN:-}" ]; then swift build -c release --product tileserver >/dev/null; BIN=$PWD/.build/release/tileserver; fi
RUNS=${RUNS:-3}

source bench/lib.sh

echo "decode benchmark: median of $RUNS runs, $(nproc) cores"
printf '%-34s %10s %11s\n' "" "wall" "peak RSS"
measure ours_jpeg_1    $BIN decode "$JPG" --shrink 1
measure vips_avg_jpeg  vips avg "$JPG"
measure djpeg_full     sh -c "djpeg '$JPG' > /dev/null"
measure ours_jpeg_8    $BIN decode "$JPG" --shrink 8
measure djpeg_scale_8  sh -c "djpeg -scale 1/8 '$JPG' > /dev/null"
measure ours_png_1     $BIN decode "$PNG" --shrink 1
measure vips_avg_png   vips avg "$PNG"

echo
echo "SUMMARY jpeg_full_vs_vips $(ratio "$WALL_ours_jpeg_1" "$WALL_vips_avg_jpeg")x (goal <= 1.0)"
echo "SUMMARY jpeg_1/8_vs_djpeg $(ratio "$WALL_ours_jpeg_8" "$WALL_djpeg_scale_8")x (goal <= 1.1)"
echo "SUMMARY png_full_vs_vips $(ratio "$WALL_ours_png_1" "$WALL_vips_avg_png")x (goal <= 1.0)"
echo "SUMMARY peak_rss_MB jpeg_1=$((RSS_ours_jpeg_1 / 1024)) jpeg_8=$((RSS_ours_jpeg_8 / 1024)) png_1=$((RSS_ours_png_1 / 1024)) (goal <= 100)"
