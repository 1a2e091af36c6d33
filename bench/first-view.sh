#!/usr/bin/env bash
# Time to first pixels on a cold 20,000 x 20,000 JPEG: every tile of a 1280 x 800 fitted view, and the
# bottom-right full-resolution tile, each from a fresh process, beside djpeg -scale 1/8 and a full djpeg.
# Prints figures; asserts nothing about time.
#   bench/first-view.sh [IMAGES_DIR]   (default /var/tmp/tileserver-images)
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-/var/tmp/tileserver-images}
JPG=$DIR/big-20000.jpg
[ -s "$JPG" ] || { echo "missing $JPG: run SIZES=20000 ../shared/tools/make-images.sh" >&2; exit 1; }
swift build -c release --product tileserver >/dev/null
BIN=.build/release/tileserver
RUNS=${RUNS:-3}
cat "$JPG" > /dev/null   # the file in the page cache for everyone alike

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
wall() { local s e; s=$(date +%s.%N); "$@" > /dev/null; e=$(date +%s.%N); echo "$e - $s" | bc -l; }
ours() { for _ in $(seq "$RUNS"); do $BIN first-view "$JPG" "$@" | sed 's/.*"seconds":\([0-9.]*\).*/\1/'; done | median; }
theirs() { for _ in $(seq "$RUNS"); do wall sh -c "$1"; done | median; }

fit=$(ours)
corner=$(ours --bottom-right)
d8=$(theirs "djpeg -scale 1/8 '$JPG'")
d1=$(theirs "djpeg '$JPG'")
printf '%-44s %8.2f s\n' "ours: fitted 1280x800 view, all tiles" "$fit" "djpeg -scale 1/8" "$d8" \
  "ours: bottom-right full-resolution tile" "$corner" "djpeg (full)" "$d1"
echo "SUMMARY first_view_vs_djpeg_1/8 $(echo "scale=2; $fit / $d8" | bc -l)x (goal <= 1.1)"
echo "SUMMARY bottom_right_vs_djpeg $(echo "scale=2; $corner / $d1" | bc -l)x (goal <= 1.0)"
