#!/usr/bin/env bash
# Peak memory under maximal renders: 16 clients at once ask for the largest IIIF outputs of the 20,000 x 20,000
# photo (full/max JPEG, full/max turned PNG, 15,000² PNG regions, 4096² view images) with --cache-mb 64 and the
# default --render-memory-mb 512. Prints every status, the peak RSS (VmHWM) against the goal 64 + 512 + 100 MB,
# the render budget's own peak from /metrics, and the RSS curve. Asserts nothing.
#   bench/render-memory.sh [IMAGES_DIR]   knobs: CLIENTS=16 ROUNDS=2 PORT=18095 BIN=
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
DIR=${1:-/var/tmp/tileserver-images}
JPG=$DIR/big-20000.jpg PNG=$DIR/big-20000.png
for f in "$JPG" "$PNG"; do [ -s "$f" ] || { echo "missing $f: run SIZES=20000 ../shared/tools/make-images.sh" >&2; exit 1; }; done
CLIENTS=${CLIENTS:-16}; ROUNDS=${ROUNDS:-2}; PORT=${PORT:-18095}
if [ -z "${BIN:-}" ]; then swift build -c release --product tileserver >/dev/null; BIN=$PWD/.build/release/tileserver; fi
WORK=$(mktemp -d /var/tmp/tileserver-render-bench.XXXX)
cleanup() { [ -n "${SERVER:-}" ] && kill "$SERVER" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

ln -s "$PNG" "$WORK/big-20000-png.png"   # its own id beside the JPEG of the same name
"$BIN" serve "$JPG" "$WORK/big-20000-png.png" --host 127.0.0.1 --store-dir "$WORK/store" --port "$PORT" --cache-mb 64 --access-log off --raster-dir "$WORK" >"$WORK/log" 2>&1 &
SERVER=$!
until curl -fs "http://127.0.0.1:$PORT/healthz" >/dev/null; do sleep 0.1; done
sample_rss "$SERVER" "$WORK/rss" 0.5 &
FDS_BEFORE=$(open_fds "$SERVER")
URLS=(
  "/iiif/3/big-20000/full/max/0/default.jpg"
  "/iiif/3/big-20000-png/0,0,15000,15000/max/0/default.png"
  "/iiif/3/big-20000/full/max/90/default.png"
  "/iiif/3/big-20000-png/2000,2000,15000,15000/max/0/gray.jpg"
  "/api/images/big-20000/viewport.png?width=4096&height=4096&zoom=1"
)
START=$(date +%s.%N)
for i in $(seq 0 $((CLIENTS * ROUNDS - 1))); do echo "${URLS[$((i % ${#URLS[@]}))]}"; done |
  xargs -P "$CLIENTS" -I{} curl -s -o /dev/null -w '%{http_code} %{size_download} %{time_total} {}\n' --max-time 900 "http://127.0.0.1:$PORT{}" \
  >"$WORK/results"
ELAPSED=$(echo "$(date +%s.%N) - $START" | bc -l)
sort "$WORK/results" | awk '{printf "  %s %10d bytes %7.1f s  %s\n", $1, $2, $3, $4}'
HEALTH=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/healthz")
METRICS=$(curl -s "http://127.0.0.1:$PORT/metrics")
PEAK_KB=$(peak_rss_kb "$SERVER")
FDS_AFTER=$(open_fds "$SERVER")
BUDGET_PEAK=$(echo "$METRICS" | awk '/^tileserver_render_memory_peak_bytes/ {print $2}')
echo "statuses: $(awk '{print $1}' "$WORK/results" | sort | uniq -c | tr -s ' ' | tr '\n' ';')  healthz after: $HEALTH"
printf 'wall %.0f s; descriptors before %s, after %s\n' "$ELAPSED" "$FDS_BEFORE" "$FDS_AFTER"
echo "RSS curve (seconds, MB):"
awk '{printf "%s %.0f\n", $1, $2 / 1024}' "$WORK/rss" | awk 'NR % 4 == 1' | tr '\n' ';' | fold -w 120; echo
figure "peak RSS, $CLIENTS clients of maximal renders, --cache-mb 64" "$((PEAK_KB / 1024)) MB" "" "" "" "<= 676 MB"
figure "render budget peak (of 512 MB)" "$((BUDGET_PEAK / 1048576)) MB" "" "" "" "<= 512 MB"
