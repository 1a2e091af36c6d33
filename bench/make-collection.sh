#!/usr/bin/env bash
# Makes a collection of large JPEG masters of museum-like sizes (the IIIF performance set's shape, scaled down:
# one of 34137 x 18712, then fewer large and more small ones), photo-like (a real photo mirror-tiled, plus noise,
# so they compress like photographs). Idempotent; the first run takes a few minutes.
#
#   bench/make-collection.sh [OUT]     default /var/tmp/tileserver-collection/masters
#   SIZES="34137x18712 20000x14000 ..." to choose the sizes (default: 20 images, 1.5 gigapixels)
set -euo pipefail
OUT=${1:-/var/tmp/tileserver-collection/masters}
SIZES=${SIZES:-"34137x18712 20000x14000 12000x9000 9000x12000 8000x6000 6000x8000 8000x6000 7500x5000
  6000x4000 4000x6000 6000x4000 5616x3744 6000x4000 4000x6000 4000x3000 3000x4000 4000x3000 4288x2848 3000x4000 4000x3000"}
WORK=$(dirname "$OUT")/.make
mkdir -p "$OUT" "$WORK"
REAL=$WORK/real.jpg
if [ ! -s "$REAL" ]; then
  src=/usr/share/backgrounds/mate/abstract/Elephants_5640x3172.jpg
  if [ ! -s "$src" ]; then
    d=$(mktemp -d); (cd "$d" && apt-get download mate-backgrounds >/dev/null 2>&1) || { apt-get update -qq; (cd "$d" && apt-get download mate-backgrounds >/dev/null); }
    dpkg-deb -x "$d"/mate-backgrounds_*.deb "$d/x"; src=$d/x$src
  fi
  cp "$src" "$REAL"
fi
if [ ! -s "$WORK/grid.v" ]; then
  vips copy "$REAL" "$WORK/a.v"; vips flip "$WORK/a.v" "$WORK/b.v" horizontal
  vips flip "$WORK/a.v" "$WORK/c.v" vertical; vips flip "$WORK/b.v" "$WORK/d.v" vertical
  L=""; for r in 0 1 2 3 4 5 6; do for c in 0 1 2 3 4 5 6; do
    if [ $((r % 2)) = 0 ]; then v=$([ $((c % 2)) = 0 ] && echo a || echo b); else v=$([ $((c % 2)) = 0 ] && echo c || echo d); fi
    L="${L:+$L }$WORK/$v.v"; done; done
  vips arrayjoin "$L" "$WORK/grid.v" --across 7
fi
i=0
for S in $SIZES; do
  i=$((i + 1)); W=${S%x*}; H=${S#*x}
  J=$OUT/$(printf 'master-%02d-%s.jpg' "$i" "$S")
  [ -s "$J" ] && continue
  echo "make-collection: $J" >&2
  x=$(( (i * 977) % (39480 - W + 1) )); y=$(( (i * 613) % (22204 - H + 1) ))
  vips crop "$WORK/grid.v" "$WORK/crop.v" "$x" "$y" "$W" "$H"
  vips gaussnoise "$WORK/noise.v" "$W" "$H" --sigma 4 --mean 0 --seed "$i"
  vips add "$WORK/crop.v" "$WORK/noise.v" "$WORK/sum.v"; vips cast "$WORK/sum.v" "$WORK/img.v" uchar
  vips jpegsave "$WORK/img.v" "$J.tmp.jpg" --Q 90 --strip && mv "$J.tmp.jpg" "$J"
  rm -f "$WORK/crop.v" "$WORK/noise.v" "$WORK/sum.v" "$WORK/img.v"
done
ls -l "$OUT"
