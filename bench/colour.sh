#!/usr/bin/env bash
# What colour conversion costs: one photo tagged ProPhoto RGB (its profile in APP2) against the same JPEG data with
# the profile removed (exiftool, no re-encode), ours against ours, alternated in one run: a cold fitted first view
# (`tileserver first-view`), a whole `tileserver build`, and a cached tile under wrk. Prints figures; asserts nothing.
#   bench/colour.sh [WORK_DIR]   (default /var/tmp/tileserver-colour; the photo is made there once, 45 MP)
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-/var/tmp/tileserver-colour}
PROFILE=/usr/share/color/icc/colord/ProPhotoRGB.icc
mkdir -p "$DIR"
if [ ! -s "$DIR/tagged.jpg" ] || [ ! -s "$DIR/untagged.jpg" ]; then
  # An 8,392 x 5,422 photo-like image: the fixture photo scaled up, with grain so it does not compress to nothing.
  [ -s .build-fixtures/gallery/large.jpg ] || scripts/make-fixtures.sh >/dev/null
  vips resize .build-fixtures/gallery/large.jpg "$DIR/big.v" 2.1 --kernel linear
  vips gaussnoise "$DIR/noise.v" "$(vipsheader -f width "$DIR/big.v")" "$(vipsheader -f height "$DIR/big.v")" --sigma 4 --seed 3
  vips add "$DIR/big.v" "$DIR/noise.v" "$DIR/sum.v" && vips cast "$DIR/sum.v" "$DIR/photo.v" uchar
  vips icc_transform "$DIR/photo.v" "$DIR/tagged.jpg[Q=90]" "$PROFILE" --input-profile srgb
  cp "$DIR/tagged.jpg" "$DIR/untagged.jpg" && exiftool -q -overwrite_original -ICC_Profile:all= "$DIR/untagged.jpg"
  rm -f "$DIR"/*.v
fi
if [ -z "${BIN:-}" ]; then swift build -c release --product tileserver >/dev/null; BIN=$PWD/.build/release/tileserver; fi
RUNS=${RUNS:-5}
source bench/lib.sh
cat "$DIR/tagged.jpg" "$DIR/untagged.jpg" > /dev/null

median() { printf '%s\n' $1 | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
wall() { local s e; s=$(date +%s.%N); "$@" > /dev/null 2>&1; e=$(date +%s.%N); printf "%.3f" "$(echo "$e - $s" | bc -l)"; }
first() { $BIN first-view "$DIR/$1.jpg" | sed 's/.*"seconds":\([0-9.]*\).*/\1/'; }
build() { rm -rf "$DIR/out"; wall "$BIN" build "$DIR/$1.jpg" --out "$DIR/out" --quiet; }

for _ in $(seq "$RUNS"); do
  ft+=" $(first tagged)"; fu+=" $(first untagged)"
  bu+=" $(build untagged)"; bt+=" $(build tagged)"
done
rm -rf "$DIR/out"

# Cached tiles: one server with both photos, a full-resolution tile of each made once, then wrk on each in turn.
PORT=${PORT:-18931}
"$BIN" serve "$DIR/tagged.jpg" "$DIR/untagged.jpg" --port "$PORT" --access-log off --store-dir off > "$DIR/serve.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$PORT/healthz" > /dev/null && break; sleep 0.1; done
level=$(curl -s "http://127.0.0.1:$PORT/api/images/tagged" | sed 's/.*"maxLevel":\([0-9]*\).*/\1/')
for name in tagged untagged; do curl -sf -o /dev/null "http://127.0.0.1:$PORT/images/$name/tiles/$level/10/10.jpg"; done
rps() { wrk -t2 -c32 -d4s "http://127.0.0.1:$PORT/images/$1/tiles/$level/10/10.jpg" | awk '/Requests\/sec/ {print $2}'; }
for _ in 1 2 3; do ct+=" $(rps tagged)"; cu+=" $(rps untagged)"; done

F_T=$(median "$ft"); F_U=$(median "$fu"); B_T=$(median "$bt"); B_U=$(median "$bu"); C_T=$(median "$ct"); C_U=$(median "$cu")
figure "cold fitted first view, ProPhoto-tagged vs untagged (s)" "$F_T" "untagged" "$F_U" "$(ratio "$F_T" "$F_U")" "<= 1.1"
figure "tileserver build, ProPhoto-tagged vs untagged (s)" "$B_T" "untagged" "$B_U" "$(ratio "$B_T" "$B_U")" "<= 1.15"
figure "cached full-resolution tile, tagged vs untagged (req/s)" "$C_T" "untagged" "$C_U" "$(ratio "$C_T" "$C_U")" "~ 1.0"
