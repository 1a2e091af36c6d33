#!/usr/bin/env bash
# IIIF tiles against DeepZoom tiles on the same server and the same tiles: OpenSeadragon/Mirador-style IIIF
# URLs (x,y,w,h/w,/0/default.jpg) for a seeded sample of the pyramid's tiles, and their DeepZoom URLs, both
# warm, wrk alternated RUNS times; prints medians and the ratio (goal >= 0.95), then system calls per request
# for each under `strace -c -f`. Asserts nothing.
#   bench/iiif-tiles.sh [PHOTO]   (default: the real photo of ../shared/tools/make-images.sh)
#   knobs: RUNS=3 DURATION=10 CONNS=32 THREADS=2 N_URLS=2000 PORT=18095 BIN=.build/release/tileserver
set -euo pipefail
cd "$(dirname "$0")/.."
PHOTO=${1:-/var/tmp/tileserver-images/real-elephants-5640x3172.jpg}
[ -s "$PHOTO" ] || { echo "missing $PHOTO: run ../shared/tools/make-images.sh" >&2; exit 1; }
RUNS=${RUNS:-3}; DURATION=${DURATION:-10}; CONNS=${CONNS:-32}; THREADS=${THREADS:-2}; N_URLS=${N_URLS:-2000}; PORT=${PORT:-18095}
for p in wrk strace; do command -v $p >/dev/null || { apt-get update -qq; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $p >/dev/null; }; done
if [ -z "${BIN:-}" ]; then swift build -c release --product tileserver >/dev/null; BIN=$PWD/.build/release/tileserver; fi
WORK=$(mktemp -d /var/tmp/tileserver-iiif-bench.XXXX)
PID=
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
"$BIN" serve "$PHOTO" --host 127.0.0.1 --store-dir "$WORK/store" --port "$PORT" --access-log off --cache-mb 512 > "$WORK/server.log" 2>&1 &
PID=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.1; done
INFO=$(curl -sf "http://127.0.0.1:$PORT/api/images")
python3 - "$INFO" "$N_URLS" "$WORK" <<'PY'
import json, math, random, sys
image = json.loads(sys.argv[1])["images"][0]
n, work = int(sys.argv[2]), sys.argv[3]
W, H, T, M, ident = image["width"], image["height"], image["tileSize"], image["maxLevel"], image["id"]
tiles = []
for level in range(8, M + 1):
    s = 1 << (M - level)
    lw, lh = math.ceil(W / s), math.ceil(H / s)
    tiles += [(level, x, y) for x in range(math.ceil(lw / T)) for y in range(math.ceil(lh / T))]
sample = random.Random(42).sample(tiles, min(n, len(tiles)))
with open(f"{work}/dz.txt", "w") as dz, open(f"{work}/iiif.txt", "w") as iiif:
    for level, x, y in sample:
        s = 1 << (M - level); cell = T * s
        x0, y0 = x * cell, y * cell
        tw = min(T, math.ceil(W / s) - x * T)
        dz.write(f"/images/{ident}_files/{level}/{x}_{y}.jpg\n")
        iiif.write(f"/iiif/3/{ident}/{x0},{y0},{min(cell, W - x0)},{min(cell, H - y0)}/{tw},/0/default.jpg\n")
print(f"{len(sample)} tiles of {ident} ({W}x{H}) at levels 8..{M}", file=sys.stderr)
PY
# Warm through the DeepZoom URLs only: the IIIF run must be served by the tiles they cached.
python3 - "$PORT" "$WORK/dz.txt" <<'PY'
import http.client, sys
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=120)
for p in open(sys.argv[2]):
    c.request("GET", p.strip()); r = c.getresponse(); r.read()
    assert r.status == 200, (p, r.status)
PY
rendered() { curl -s "http://127.0.0.1:$PORT/metrics" | awk '/^tileserver_tiles_rendered_total/ {print $2}'; }
BEFORE=$(rendered)
run() {  # name paths -> WRK_RESULT line
  wrk -t"$THREADS" -c"$CONNS" -d"${DURATION}s" --latency -s bench/wrk-paths.lua "http://127.0.0.1:$PORT" -- "$2" | grep WRK_RESULT
}
DZ=(); IIIF=()
for i in $(seq "$RUNS"); do
  out=$(run dz "$WORK/dz.txt"); echo "deepzoom run $i: ${out#WRK_RESULT }"; DZ+=("$(sed 's/.*rps=\([0-9]*\).*/\1/' <<<"$out")")
  out=$(run iiif "$WORK/iiif.txt"); echo "iiif     run $i: ${out#WRK_RESULT }"; IIIF+=("$(sed 's/.*rps=\([0-9]*\).*/\1/' <<<"$out")")
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
MDZ=$(median "${DZ[@]}"); MIIIF=$(median "${IIIF[@]}")
echo "SUMMARY iiif-tiles rps iiif=$MIIIF deepzoom=$MDZ ratio=$(echo "scale=2; $MIIIF / $MDZ" | bc -l | sed 's/^\./0./')x (goal >= 0.95); tiles rendered during the runs: $(( $(rendered) - BEFORE ))"

# System calls per request: strace attached for a short wrk run of each list.
syscalls() {  # name paths
  strace -c -f -qq -p "$PID" -o "$WORK/strace-$1.txt" & local st=$!
  sleep 0.5
  local out; out=$(wrk -t1 -c8 -d3s -s bench/wrk-paths.lua "http://127.0.0.1:$PORT" -- "$2" | grep WRK_RESULT)
  kill -INT "$st"; wait "$st" 2>/dev/null || true
  local n; n=$(sed 's/.*requests=\([0-9]*\).*/\1/' <<<"$out")
  echo "syscalls per request ($1, $n requests):"
  awk -v n="$n" '$NF ~ /^[a-z_0-9]+$/ && $4 ~ /^[0-9]+$/ && $NF != "total" && $NF != "epoll_wait" && $NF != "futex" { printf "  %-14s %.2f\n", $NF, $4 / n }' "$WORK/strace-$1.txt" | sort -k2 -nr | head -8
}
syscalls deepzoom "$WORK/dz.txt"
syscalls iiif "$WORK/iiif.txt"
