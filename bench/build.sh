#!/usr/bin/env bash
# Full pyramid build: `tileserver build` against `vips dzsave` on the 20,000 x 20,000 JPEG and PNG, same
# tile size and overlap, one run. Prints wall time, peak RSS and the ratios; asserts nothing about time.
#   bench/build.sh [IMAGES_DIR]   (default /var/tmp/tileserver-images)
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-/var/tmp/tileserver-images}
for f in "$DIR/big-20000.jpg" "$DIR/big-20000.png"; do
  [ -s "$f" ] || { echo "missing $f: run SIZES=20000 ../shared/tools/make-images.sh" >&2; exit 1; }
done
if [ -z "${BIN:-}" ]; then swift build -c release --product tileserver >/dev/null; BIN=$PWD/.build/release/tileserver; fi
OUT=$(mktemp -d /var/tmp/tileserver-build-bench.XXXX)
trap 'rm -rf "$OUT"' EXIT
source bench/lib.sh
BEFORE_EACH='rm -rf "$OUT"/*'

echo "build benchmark: median of ${RUNS:-3} runs, $(nproc) cores, tile 256, overlap 0"
printf '%-34s %10s %11s\n' "" "wall" "peak RSS"
for kind in jpg png; do
  src=$DIR/big-20000.$kind
  measure "ours_$kind" "$BIN" build "$src" --out "$OUT/ours" --quiet
  measure "vips_$kind" vips dzsave "$src" "$OUT/vips" --tile-size 256 --overlap 0 --suffix .jpg
done
echo
for kind in jpg png; do
  w_ours=WALL_ours_$kind; w_vips=WALL_vips_$kind; r_ours=RSS_ours_$kind; r_vips=RSS_vips_$kind
  figure "build of the 20,000² $kind, wall (s)" "${!w_ours}" "vips dzsave" "${!w_vips}" "$(ratio "${!w_ours}" "${!w_vips}")" "<= 0.5"
  figure "build of the 20,000² $kind, peak RSS (MB)" "$((${!r_ours} / 1024))" "vips dzsave" "$((${!r_vips} / 1024))" "$(ratio "${!r_ours}" "${!r_vips}")" "<= 1.0"
done
