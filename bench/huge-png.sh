#!/usr/bin/env bash
# A 100,000 x 30,000 PNG served from cold: when /healthz answers, when the fitted view's tiles are in, what a
# full-resolution tile costs at the top, middle and bottom of the image before the pass has reached it, when every
# tile is stored, and the server's RSS (peak and current) at each step. The PNG (about 5 GB) is made once with
# libvips from PHOTO, stretched to the size, and kept in /var/tmp. Prints figures; asserts nothing.
#   bench/huge-png.sh [PHOTO]   (default /var/tmp/tileserver-images/real-elephants-5640x3172.jpg; knobs BIN= PORT=18095)
set -euo pipefail
cd "$(dirname "$0")/.."
for p in vips curl python3; do command -v $p >/dev/null || { echo "needs $p: scripts/install-deps.sh bench" >&2; exit 1; }; done
if [ -z "${BIN:-}" ]; then swift build -c release --product tileserver >/dev/null; BIN=$PWD/.build/release/tileserver; fi
DIR=/var/tmp/tileserver-huge-png
PNG=$DIR/pano-100000x30000.png
if [ ! -s "$PNG" ]; then
  PHOTO=${1:-/var/tmp/tileserver-images/real-elephants-5640x3172.jpg}
  [ -s "$PHOTO" ] || { echo "missing $PHOTO: run ../shared/tools/make-images.sh, or name a photo" >&2; exit 1; }
  W=$(vipsheader -f width "$PHOTO"); H=$(vipsheader -f height "$PHOTO")
  mkdir -p "$DIR"
  echo "making $PNG from $PHOTO (${W} x ${H})" >&2
  vips resize "$PHOTO" "$DIR/.making.png[compression=1]" \
    "$(python3 -c "print(100000 / $W)")" --vscale "$(python3 -c "print(30000 / $H)")" --kernel linear
  mv "$DIR/.making.png" "$PNG"
fi
WORK=$(mktemp -d /var/tmp/tileserver-huge-png-run.XXXX)
STORE=$WORK/store
PORT=${PORT:-18095}
PID=
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
T0=$(date +%s.%N)
"$BIN" serve --host 127.0.0.1 --port "$PORT" --max-pixels 3000000000 --store-dir "$STORE" --access-log off "$DIR" >"$WORK/log" 2>&1 &
PID=$!
at() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f} s')" "$T0" "$(date +%s.%N)"; }
rss() { awk '/VmHWM|VmRSS/ {printf "%s %d MB  ", $1, $2 / 1024}' /proc/$PID/status; }
URL=http://127.0.0.1:$PORT
until curl -sf "$URL/healthz" >/dev/null; do
  kill -0 "$PID" 2>/dev/null || { echo "the server stopped:" >&2; cat "$WORK/log" >&2; exit 1; }
  sleep 0.02
done
echo "healthz: $(at)"
ID=$(curl -sf "$URL/api/images" | python3 -c 'import json,sys; print(json.load(sys.stdin)["images"][0]["id"])')
VIEW=$(curl -sf "$URL/api/images/$ID/viewport?width=1440&height=900&zoom=fit")
for tile in $(echo "$VIEW" | python3 -c 'import json,sys; print(" ".join(t["url"] for t in json.load(sys.stdin)["tiles"]))'); do
  curl -sf -o /dev/null "$URL$tile"
done
echo "fitted view (1440 x 900, level $(echo "$VIEW" | python3 -c 'import json,sys; print(json.load(sys.stdin)["level"])')): $(at)  $(rss)"
MAX=$(curl -sf "$URL/api/images/$ID" | python3 -c 'import json,sys; print(json.load(sys.stdin)["maxLevel"])')
for where in "top 0 0" "middle 200 60" "bottom 390 117"; do
  set -- $where
  took=$(curl -sf -o /dev/null -w "%{time_total}" "$URL/images/$ID/tiles/$MAX/$2/$3.jpg")
  echo "full-resolution tile at the $1: ${took} s (at $(at))  $(rss)"
done
full_passes() { curl -sf "$URL/metrics" | awk '/^tileserver_passes_completed_total\{pass="full"\}/ {print $2}'; }
until [ "$(full_passes)" -ge 1 ]; do
  kill -0 "$PID" 2>/dev/null || { echo "the server stopped:" >&2; cat "$WORK/log" >&2; exit 1; }
  sleep 1
done
echo "every tile stored: $(at)  $(rss)  store $(du -sh "$STORE" | cut -f1)"
echo "a full-resolution tile after the pass: $(curl -sf -o /dev/null -w "%{time_total}" "$URL/images/$ID/tiles/$MAX/300/100.jpg") s"
