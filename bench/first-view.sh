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
if [ -z "${BIN:-}" ]; then swift build -c release --product tileserver >/dev/null; BIN=$PWD/.build/release/tileserver; fi
RUNS=${RUNS:-3}
cat "$JPG" > /dev/null   # the file in the page cache for everyone alike

median() { printf '%s\n' $1 | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
wall() { local s e; s=$(date +%s.%N); "$@" > /dev/null; e=$(date +%s.%N); printf "%.3f" "$(echo "$e - $s" | bc -l)"; }
ours() { $BIN first-view "$JPG" "$@" | sed 's/.*"seconds":\([0-9.]*\).*/\1/'; }

# Alternated: each run times ours and the peer back to back.
for _ in $(seq "$RUNS"); do
  fits+=" $(ours)"; d8s+=" $(wall sh -c "djpeg -scale 1/8 '$JPG'")"
  corners+=" $(ours --bottom-right)"; d1s+=" $(wall sh -c "djpeg '$JPG'")"
done
fit=$(median "$fits"); d8=$(median "$d8s"); corner=$(median "$corners"); d1=$(median "$d1s")
printf '%-44s %8.2f s\n' "ours: fitted 1280x800 view, all tiles" "$fit" "djpeg -scale 1/8" "$d8" \
  "ours: bottom-right full-resolution tile" "$corner" "djpeg (full)" "$d1"
source bench/lib.sh
figure "cold first view, every tile of a fitted 1280x800 view (s)" "$fit" "djpeg -scale 1/8" "$d8" "$(ratio "$fit" "$d8")" "<= 0.8"
figure "cold bottom-right full-resolution tile (s)" "$corner" "djpeg" "$d1" "$(ratio "$corner" "$d1")" "<= 0.59"
