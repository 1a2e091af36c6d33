#!/usr/bin/env bash
# Does a listing hold up tiles? One client fetches a cached tile over and over on its own keep-alive connection;
# on a fresh server it does so alone for DURATION seconds, then on another fresh server (cold: no header read yet) while a
# second client pages through the whole library of IMAGES images (limit LIMIT). Prints the tile p50/p99 of both
# and their ratio (goal: p99 with the listing <= 2x without). Alternates the two ROUNDS times; medians.
#   bench/listing-latency.sh     knobs: IMAGES (100000) FOLDERS (1000) LIMIT (1000) DURATION (5) ROUNDS (3)
#                                       EVENT_LOOPS (server default) BIN (release, else debug) PORT
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
IMAGES=${IMAGES:-100000}; FOLDERS=${FOLDERS:-1000}; LIMIT=${LIMIT:-1000}; DURATION=${DURATION:-5}; ROUNDS=${ROUNDS:-3}
PORT=${PORT:-18099}
BIN=${BIN:-.build/release/tileserver}; [ -x "$BIN" ] || BIN=.build/debug/tileserver
FIX=.build-fixtures/formats
[ -s "$FIX/baseline.jpg" ] || scripts/make-fixtures.sh >/dev/null
WORK=$(mktemp -d /var/tmp/tileserver-listing.XXXX)
cleanup() { [ -n "${SERVER:-}" ] && kill "$SERVER" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
make_library "$WORK/lib" "$IMAGES" "$FOLDERS" "$PWD/$FIX"
echo "library: $IMAGES links in $FOLDERS folders; binary $BIN${EVENT_LOOPS:+, $EVENT_LOOPS event loops}"

start_server() {
  if curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1; then echo "port $PORT is taken: set PORT" >&2; exit 1; fi
  "$BIN" serve "$WORK/lib" --host 127.0.0.1 --store-dir "$WORK/store" --port "$PORT" --access-log off --raster-dir "$WORK" \
    ${EVENT_LOOPS:+--event-loops "$EVENT_LOOPS"} >"$WORK/server.log" 2>&1 &
  SERVER=$!
  until curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null; do
    kill -0 "$SERVER" 2>/dev/null || { cat "$WORK/server.log"; exit 1; }
    sleep 0.02
  done
}
stop_server() { kill "$SERVER"; wait "$SERVER" 2>/dev/null || true; SERVER=; }

# run MODE: writes "p50 p99 requests listing-seconds" (milliseconds) for the tile client to $WORK/result.
run() {
  start_server
  python3 - "$PORT" "$1" "$DURATION" "$LIMIT" "$IMAGES" >"$WORK/result" <<'PY'
import http.client, json, sys, threading, time
port, mode, seconds, limit, expected = int(sys.argv[1]), sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
tile = "/tiles/0/0/0"
warm = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
warm.request("GET", tile); warm.getresponse().read()
stop, times = threading.Event(), []
def tiles():
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    while not stop.is_set():
        t = time.perf_counter()
        c.request("GET", tile)
        r = c.getresponse(); r.read()
        assert r.status == 200, r.status
        times.append(time.perf_counter() - t)
client = threading.Thread(target=tiles); client.start()
listing = 0.0
if mode == "listing":
    t0, url, seen = time.perf_counter(), f"/api/images?limit={limit}", 0
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    while url:
        c.request("GET", url)
        r = c.getresponse(); page = json.loads(r.read())
        seen += len(page["images"]); url = page.get("next")
    listing = time.perf_counter() - t0
    assert seen == expected, (seen, expected)
else:
    time.sleep(seconds)
stop.set(); client.join()
times.sort()
q = lambda p: times[min(len(times) - 1, int(p * len(times)))] * 1000
print(f"{q(0.5):.3f} {q(0.99):.3f} {len(times)} {listing:.2f}")
PY
  stop_server
}

alone=(); listed=(); lseconds=()
for round in $(seq "$ROUNDS"); do
  run alone; read -r p50 p99 n _ <"$WORK/result"; alone+=("$p99"); echo "round $round alone:   tile p50 $p50 ms p99 $p99 ms ($n requests)"
  run listing; read -r p50 p99 n secs <"$WORK/result"; listed+=("$p99"); lseconds+=("$secs")
  echo "round $round listing: tile p50 $p50 ms p99 $p99 ms ($n requests) while paging $IMAGES images took $secs s"
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
A=$(median "${alone[@]}"); L=$(median "${listed[@]}")
figure "cached tile p99 alone (ms)" "$A" "" "" "" ""
figure "cached tile p99 while paging $IMAGES images (ms)" "$L" "" "" "" ""
figure "p99 with listing / alone" "$(ratio "$L" "$A")" "" "" "" "<= 2"
figure "paging $IMAGES images cold, limit $LIMIT (s)" "$(median "${lseconds[@]}")" "" "" "" ""
