#!/usr/bin/env bash
# Uncached tiles: the first DURATION seconds after a fresh start of our server on the raw 20,000 x 20,000 JPEG
# (nothing decoded, no disk cache) against IIPImage (iipsrv behind lighttpd FastCGI, 2 processes, JPEG quality 85)
# freshly started on a pyramidal TIFF of the same image built by `vips tiffsave`. Same seeded 5,000-tile list
# (the levels the TIFF has), same wrk load, alternated RUNS times; medians. Also times one full `djpeg` of the
# JPEG, the yardstick for our cold p99. Both source files are in the page cache before each start, as djpeg's is.
# Prints figures and FIGURE lines; asserts nothing.
#   bench/uncached.sh [IMAGES_DIR]   (default /var/tmp/tileserver-images)
#   knobs: RUNS=3 DURATION=15 CONNS=64 THREADS=2 N_URLS=5000 OURS_PORT=18092 IIP_PORT=18093
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-/var/tmp/tileserver-images}
JPG=$DIR/big-20000.jpg
[ -s "$JPG" ] || { echo "missing $JPG: run SIZES=20000 ../shared/tools/make-images.sh" >&2; exit 1; }
RUNS=${RUNS:-3}; DURATION=${DURATION:-15}; CONNS=${CONNS:-64}; THREADS=${THREADS:-2}; N_URLS=${N_URLS:-5000}
OURS_PORT=${OURS_PORT:-18092}; IIP_PORT=${IIP_PORT:-18093}
IIPSRV=/usr/lib/iipimage-server/iipsrv.fcgi
need=""
for p in wrk:wrk vips:libvips-tools djpeg:libjpeg-turbo-progs lighttpd:lighttpd spawn-fcgi:spawn-fcgi "$IIPSRV":iipimage-server; do
  command -v "${p%%:*}" >/dev/null || need="$need ${p#*:}"
done
[ -z "$need" ] || { apt-get update -qq; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need >/dev/null; }
if [ -z "${BIN:-}" ]; then swift build -c release --product tileserver >/dev/null; BIN=$PWD/.build/release/tileserver; fi
WORK=$(mktemp -d /var/tmp/tileserver-uncached-bench.XXXX)
chmod 755 "$WORK"
source bench/lib.sh
PIDS=()
stop_all() {
  local p
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done; done
  PIDS=()
}
trap 'stop_all; rm -rf "$WORK"' EXIT

echo "building the pyramidal TIFF for IIPImage (vips tiffsave)..." >&2
vips tiffsave "$JPG" "$WORK/pyr.tif" --tile --pyramid --compression jpeg --tile-width 256 --tile-height 256
PAGES=$(vipsheader -f n-pages "$WORK/pyr.tif")

# The same tiles for both: a seeded sample of the levels the TIFF holds (iipsrv cannot serve lower ones).
python3 - "$JPG" "$PAGES" "$N_URLS" "$WORK" <<'PY'
import math, random, subprocess, sys
jpg, pages, n, work = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
w, h = (int(subprocess.check_output(["vipsheader", "-f", f, jpg])) for f in ("width", "height"))
top = math.ceil(math.log2(max(w, h)))
tiles = []
for level in range(top - pages + 1, top + 1):
    s = 2 ** (top - level)
    lw, lh = math.ceil(w / s), math.ceil(h / s)
    tiles += [(level, x, y) for x in range(math.ceil(lw / 256)) for y in range(math.ceil(lh / 256))]
sample = random.Random(42).sample(tiles, min(n, len(tiles)))
name = jpg.rsplit("/", 1)[1].rsplit(".", 1)[0]
with open(f"{work}/ours.txt", "w") as o, open(f"{work}/iip.txt", "w") as i:
    for l, x, y in sample:
        o.write(f"/images/{name}_files/{l}/{x}_{y}.jpg\n")
        i.write(f"/fcgi-bin/iipsrv.fcgi?DeepZoom={work}/pyr.tif_files/{l}/{x}_{y}.jpg\n")
print(f"{len(sample)} tiles from {len(tiles)} at levels {top - pages + 1}..{top}", file=sys.stderr)
PY

cat > "$WORK/lighttpd.conf" <<CONF
server.bind = "127.0.0.1"
server.port = $IIP_PORT
server.document-root = "$WORK"
server.errorlog = "$WORK/lighttpd-error.log"
server.modules = ( "mod_fastcgi" )
server.max-keep-alive-requests = 100000
server.max-connections = 4096
server.max-fds = 16384
fastcgi.server = ( "/fcgi-bin/iipsrv.fcgi" => (( "socket" => "$WORK/iipsrv.sock", "check-local" => "disable" )) )
CONF

wait_up() { for _ in $(seq 300); do curl -sf -o /dev/null "http://127.0.0.1:$1$2" && return 0; sleep 0.1; done; echo "port $1 did not come up" >&2; return 1; }
start_iip() {
  rm -f "$WORK/iipsrv.sock" "$WORK/iipsrv.pid"
  JPEG_QUALITY=85 spawn-fcgi -s "$WORK/iipsrv.sock" -F 2 -P "$WORK/iipsrv.pid" -- "$IIPSRV" >/dev/null 2>&1
  lighttpd -D -f "$WORK/lighttpd.conf" & PIDS+=($!)
  PIDS+=($(cat "$WORK/iipsrv.pid"))
  wait_up "$IIP_PORT" "/fcgi-bin/iipsrv.fcgi?DeepZoom=$WORK/pyr.tif.dzi"
}
start_ours() {
  rm -rf "$WORK/store"  # uncached: every start without the tiles of the last
  "$BIN" serve "$JPG" --host 127.0.0.1 --store-dir "$WORK/store" --port "$OURS_PORT" --access-log off > "$WORK/ours.log" 2>&1 & PIDS+=($!)
  wait_up "$OURS_PORT" /healthz
}
RSS_ours=0; RSS_iip=0
run() {  # name port paths
  local out
  out=$(wrk -t"$THREADS" -c"$CONNS" -d"${DURATION}s" --timeout 30s --latency -s bench/wrk-paths.lua "http://127.0.0.1:$2" -- "$3" | grep WRK_RESULT)
  printf '%-5s %s\n' "$1" "${out#WRK_RESULT }"
  eval "RPS_$1+=\" $(sed 's/.*rps=\([0-9]*\).*/\1/' <<<"$out")\"; P99_$1+=\" $(sed 's/.*p99_ms=\([0-9.]*\).*/\1/' <<<"$out")\""
  local kb; kb=$(peak_rss_kb "${PIDS[@]}")
  eval "[ $kb -gt \$RSS_$1 ] && RSS_$1=$kb || true"
}
median() { printf '%s\n' $1 | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "uncached: wrk $THREADS threads x $CONNS connections, first ${DURATION}s after a fresh start, $RUNS alternated runs"
for _ in $(seq "$RUNS"); do
  cat "$WORK/pyr.tif" > /dev/null; start_iip; run iip "$IIP_PORT" "$WORK/iip.txt"; stop_all
  cat "$JPG" > /dev/null; start_ours; run ours "$OURS_PORT" "$WORK/ours.txt"; stop_all
done
measure djpeg_full sh -c "djpeg '$JPG' > /dev/null"
for v in ours iip; do eval "RPS_$v=\$(median \"\$RPS_$v\"); P99_$v=\$(median \"\$P99_$v\")"; done
djpeg_ms=$(echo "$WALL_djpeg_full * 1000" | bc -l | cut -d. -f1)
figure "uncached 5,000-tile mix, first ${DURATION}s (req/s)" "$RPS_ours" IIPImage "$RPS_iip" "$(ratio "$RPS_ours" "$RPS_iip")" ">= 5"
figure "uncached mix p99 (ms)" "$P99_ours" IIPImage "$P99_iip" "$(ratio "$P99_ours" "$P99_iip")" ""
figure "uncached mix p99 against one full djpeg (ms)" "$P99_ours" "djpeg" "$djpeg_ms" "$(ratio "$P99_ours" "$djpeg_ms")" "<= 1.0"
figure "peak RSS, uncached mix (MB)" "$((RSS_ours / 1024))" IIPImage "$((RSS_iip / 1024))" "$(ratio "$RSS_ours" "$RSS_iip")" ""
