#!/usr/bin/env bash
# A library of IMAGES images (default 100,000) in FOLDERS folders (1,000), made as symbolic links to the fixture
# photos: how long until /healthz answers, how long paging through /api/images takes (limit 10,000), the RSS after
# listing everything, and how long a file copied in takes to appear. Prints FIGURE rows.
#   bench/library.sh            knobs: IMAGES FOLDERS BIN (default .build/release/tileserver, else debug) PORT
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
IMAGES=${IMAGES:-100000}; FOLDERS=${FOLDERS:-1000}; PORT=${PORT:-18098}
BIN=${BIN:-.build/release/tileserver}; [ -x "$BIN" ] || BIN=.build/debug/tileserver
FIX=.build-fixtures/formats
[ -s "$FIX/baseline.jpg" ] || scripts/make-fixtures.sh >/dev/null
WORK=$(mktemp -d /var/tmp/tileserver-library.XXXX)
cleanup() { [ -n "${SERVER:-}" ] && kill "$SERVER" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

make_library "$WORK/lib" "$IMAGES" "$FOLDERS" "$PWD/$FIX"
echo "library: $IMAGES links in $FOLDERS folders under $WORK/lib; binary $BIN"

started=$(date +%s.%N)
"$BIN" serve "$WORK/lib" --host 127.0.0.1 --store-dir "$WORK/store" --port "$PORT" --access-log off --raster-dir "$WORK" >"$WORK/server.log" 2>&1 &
SERVER=$!
until curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null; do
  kill -0 "$SERVER" 2>/dev/null || { cat "$WORK/server.log"; exit 1; }
  sleep 0.02
done
ready=$(echo "$(date +%s.%N) - $started" | bc -l)
rss_start=$(awk '/^VmRSS/ {print $2}' "/proc/$SERVER/status")

started=$(date +%s.%N)
python3 - "$PORT" "$IMAGES" <<'PY'
import json, sys, urllib.request
port, expected = int(sys.argv[1]), int(sys.argv[2])
url, seen, pages = "/api/images?limit=10000", [], 0
while url:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{url}", timeout=600) as r:
        page = json.load(r)
    seen += [i["id"] for i in page["images"]]
    pages += 1
    url = page.get("next")
assert len(seen) == expected == len(set(seen)) and seen == sorted(seen), (len(seen), expected)
print(f"paged {len(seen)} images in {pages} pages")
PY
listed=$(echo "$(date +%s.%N) - $started" | bc -l)
rss_listed=$(awk '/^VmRSS/ {print $2}' "/proc/$SERVER/status")

cp "$FIX/baseline.jpg" "$WORK/lib/00/folder-0000/arrived.jpg"
started=$(date +%s.%N)
until curl -sf "http://127.0.0.1:$PORT/api/images/00%2Ffolder-0000%2Farrived" >/dev/null; do sleep 0.01; done
arrived=$(echo "$(date +%s.%N) - $started" | bc -l)

figure "library of $IMAGES: start to /healthz (s)" "$(printf %.2f "$ready")" "" "" "" "<= 2"
figure "library of $IMAGES: RSS at start (MB)" "$((rss_start / 1024))" "" "" "" ""
figure "library of $IMAGES: page through all, limit 10000 (s)" "$(printf %.2f "$listed")" "" "" "" ""
figure "library of $IMAGES: RSS after listing all (MB)" "$((rss_listed / 1024))" "" "" "" "< 150"
figure "library of $IMAGES: a copied file listed after (s)" "$(printf %.2f "$arrived")" "" "" "" "<= 1"
