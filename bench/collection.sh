#!/usr/bin/env bash
# A collection of huge JPEG masters under real viewers' traffic (bench/traces.py: Mirador, the Universal
# Viewer, a mixed IIIF set), against what an IIPImage user has: the time `vips tiffsave --tile --pyramid` takes to
# convert the masters first, and IIPImage serving those pyramidal TIFFs. Prints one FIGURE line per measure and
# a table at the end.
#
#   bench/collection.sh                      everything, 3 rounds of the restarted comparison
#   PHASES="cold warm" ROUNDS=1 bench/collection.sh
#
# Phases (PHASES, default all):
#   convert  vips tiffsave of every master (one after another; vips uses every core), then djpeg -scale 1/8 of every
#            master two at a time: the floor for showing every thumbnail from JPEG masters. Page cache dropped first.
#   cold     per trace: a fresh store, the masters dropped from the page cache, a fresh server, the trace replayed
#            over 6 keep-alive connections; time, p50, p99, and how often a master was read twice (/metrics).
#   warm     one store filled by all traces (waits until no pass runs), then per round and trace: our server restarted
#            on it, then IIPImage on the TIFFs, alternated; medians.
#   tiff     issue 22: the same traces from a cold start against the pyramidal TIFFs `convert` wrote, our server on the
#            TIFF folder (a fresh store, no passes: tiles come from the files' levels) and IIPImage on the same files,
#            alternated, page cache dropped before each; ROUNDS rounds, medians.
#   disk     the store's bytes against `vips dzsave` output of the same masters at the same quality.
#   soak     SOAK seconds (600) of the mixed trace over and over with a store budget of SOAK_STORE_MB (half the
#            collection's pyramids): the largest RSS and store size seen, sampled every 2 s.
# Knobs: BIN (.build/release/tileserver) WORK (/var/tmp/tileserver-collection) ROUNDS (3) PORT (18560)
#        IIP_PORT (18561) SOAK SOAK_STORE_MB CACHE_MB (256)
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$ROOT/.build/release/tileserver}
WORK=${WORK:-/var/tmp/tileserver-collection}
PHASES=${PHASES:-"convert cold warm tiff disk soak"}
ROUNDS=${ROUNDS:-3}; PORT=${PORT:-18560}; IIP_PORT=${IIP_PORT:-18561}
SOAK=${SOAK:-600}; CACHE_MB=${CACHE_MB:-256}
MASTERS=$WORK/masters; TIFS=$WORK/tiff; TRACES=$WORK/traces; RUN=$WORK/run
has() { [[ " $PHASES " == *" $1 "* ]]; }
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }
figure() { echo "FIGURE $*"; echo "$*" >> "$RUN/figures.txt"; }
IIPSRV=/usr/lib/iipimage-server/iipsrv.fcgi

missing=()
for p in libvips-tools libjpeg-turbo-progs iipimage-server lighttpd spawn-fcgi curl time; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
[ -x "$BIN" ] || (cd "$ROOT" && swift build -c release >/dev/null)
mkdir -p "$RUN" "$TIFS"
: > "$RUN/figures.txt"
"$ROOT/bench/make-collection.sh" "$MASTERS" >/dev/null
for f in "$MASTERS"/*.jpg; do
  b=$(basename "$f" .jpg); printf '%s\t%s\n' "$b" "$(vipsheader -f width "$f")	$(vipsheader -f height "$f")"
done > "$WORK/sizes.tsv"
python3 "$ROOT/bench/traces.py" make "$WORK/sizes.tsv" "$TRACES" >&2
TRACE_NAMES=${TRACE_NAMES:-"mirador uv mixed"}
figure "collection $(ls "$MASTERS"/*.jpg | wc -l) masters, $(awk '{s += $2 * $3} END {printf "%.2f", s / 1e9}' "$WORK/sizes.tsv") gigapixels, $(du -sm "$MASTERS" | cut -f1) MB"

drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || python3 - "$@" <<'EOF'
import os, sys
for root in sys.argv[1:]:
    for d, _, fs in os.walk(root):
        for f in fs:
            fd = os.open(os.path.join(d, f), os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED); os.close(fd)
EOF
}
seconds() { local t0=$1; python3 -c "import time; print(f'{time.time() - $t0:.2f}')"; }
now() { python3 -c "import time; print(time.time())"; }
metric() { curl -s "127.0.0.1:$PORT/metrics" | awk -v k="$1" '$1 == k {print $2}'; }

start_ours() {  # STORE [extra flags]
  local store=$1; shift
  "$BIN" serve "${SERVE:-$MASTERS}" --host 127.0.0.1 --port "$PORT" --store-dir "$store" --cache-mb "$CACHE_MB" --access-log off \
    --raster-dir "$RUN" "$@" > "$RUN/ours.log" 2>&1 &
  OURS=$!
  for _ in $(seq 200); do curl -sf "127.0.0.1:$PORT/healthz" >/dev/null && return 0; sleep 0.05; done
  log "our server did not start"; cat "$RUN/ours.log" >&2; return 1
}
stop_ours() { kill "$OURS" 2>/dev/null; wait "$OURS" 2>/dev/null; }
wait_passes() {  # until no pass runs or waits
  for _ in $(seq 3600); do
    [ "$(metric tileserver_passes_running)" = 0 ] && [ "$(metric tileserver_passes_queued)" = 0 ] && return 0; sleep 0.5
  done
}
start_iip() {
  cat > "$RUN/lighttpd.conf" <<EOF
server.bind = "127.0.0.1"
server.port = $IIP_PORT
server.document-root = "$RUN"
server.pid-file = "$RUN/lighttpd.pid"
server.errorlog = "$RUN/lighttpd.err"
server.modules = ( "mod_fastcgi" )
server.max-keep-alive-requests = 100000
fastcgi.server = ( "/fcgi-bin/iipsrv.fcgi" => (( "socket" => "$RUN/iipsrv.sock", "check-local" => "disable" )) )
EOF
  rm -f "$RUN/iipsrv.sock"
  env JPEG_QUALITY=85 spawn-fcgi -s "$RUN/iipsrv.sock" -F 2 -P "$RUN/iipsrv.pid" -- "$IIPSRV" > "$RUN/spawn.log" 2>&1
  lighttpd -f "$RUN/lighttpd.conf"
  for _ in $(seq 200); do curl -sf "127.0.0.1:$IIP_PORT/fcgi-bin/iipsrv.fcgi?IIIF=$TIFS/$(head -1 "$WORK/sizes.tsv" | cut -f1).tif/info.json" >/dev/null && return 0; sleep 0.05; done
  log "IIPImage did not start"; return 1
}
stop_iip() {
  kill "$(cat "$RUN/lighttpd.pid")" $(cat "$RUN/iipsrv.pid") 2>/dev/null; sleep 0.5; rm -f "$RUN/iipsrv.sock" "$RUN/lighttpd.pid" "$RUN/iipsrv.pid"
}
replay() {  # NAME PORT PREFIX TRACE -> prints "seconds p50 p99 errors"
  local out; out=$(python3 "$ROOT/bench/traces.py" replay 127.0.0.1 "$2" "$3" "$TRACES/$4.txt")
  echo "$out" >> "$RUN/replays.txt"
  echo "$out" | sed -E 's/.*seconds=([0-9.]+) p50_ms=([0-9.]+) p99_ms=([0-9.]+) errors=([0-9]+).*/\1 \2 \3 \4/'
}

if has convert; then
  log "vips tiffsave of every master"
  drop_caches "$MASTERS"; t0=$(now)
  for f in "$MASTERS"/*.jpg; do
    vips tiffsave "$f" "$TIFS/$(basename "$f" .jpg).tif" --tile --pyramid --compression jpeg --Q 85 --tile-width 256 --tile-height 256 || exit 1
  done
  figure "convert tiffsave_s $(seconds "$t0")"
  log "djpeg -scale 1/8 of every master, two at a time"
  drop_caches "$MASTERS"; t0=$(now)
  ls "$MASTERS"/*.jpg | xargs -P 2 -I{} sh -c 'djpeg -scale 1/8 "{}" > /dev/null'
  figure "convert djpeg8_s $(seconds "$t0")"
fi

if has cold; then
  for trace in $TRACE_NAMES; do
    log "cold $trace"
    rm -rf "$RUN/store-cold"; drop_caches "$MASTERS"
    start_ours "$RUN/store-cold" || exit 1
    read -r s p50 p99 errors < <(replay ours "$PORT" /iiif/3/ "$trace")
    figure "cold $trace ours_s $s p50_ms $p50 p99_ms $p99 errors $errors repeated $(metric tileserver_passes_repeated_total) full_passes $(metric 'tileserver_passes_started_total{pass="full"}') region_passes $(metric 'tileserver_passes_started_total{pass="region"}') store_writes $(metric tileserver_store_writes_total)"
    stop_ours
  done
fi

if has warm; then
  log "filling one store with every trace's tiles"
  rm -rf "$RUN/store-warm"
  start_ours "$RUN/store-warm" || exit 1
  for trace in $TRACE_NAMES; do replay ours "$PORT" /iiif/3/ "$trace" >/dev/null; done
  wait_passes
  stop_ours
  for round in $(seq "$ROUNDS"); do
    for trace in $TRACE_NAMES; do
      drop_caches "$RUN/store-warm" "$TIFS"
      start_ours "$RUN/store-warm" || exit 1
      read -r s p50 p99 errors < <(replay ours "$PORT" /iiif/3/ "$trace")
      figure "warm $trace round $round ours_s $s p50_ms $p50 p99_ms $p99 errors $errors repeated $(metric tileserver_passes_repeated_total) started_full $(metric 'tileserver_passes_started_total{pass="full"}')"
      stop_ours
      drop_caches "$RUN/store-warm" "$TIFS"
      start_iip || exit 1
      read -r s p50 p99 errors < <(ID_SUFFIX=.tif replay iip "$IIP_PORT" "/fcgi-bin/iipsrv.fcgi?IIIF=$TIFS/" "$trace")
      figure "warm $trace round $round iip_s $s p50_ms $p50 p99_ms $p99 errors $errors"
      stop_iip
    done
  done
fi

if has tiff; then
  for round in $(seq "$ROUNDS"); do
    for trace in $TRACE_NAMES; do
      rm -rf "$RUN/store-tiff"; drop_caches "$TIFS"
      SERVE=$TIFS start_ours "$RUN/store-tiff" || exit 1
      read -r s p50 p99 errors < <(replay ours "$PORT" /iiif/3/ "$trace")
      figure "tiff $trace round $round ours_s $s p50_ms $p50 p99_ms $p99 errors $errors passes $(metric 'tileserver_passes_started_total{pass="full"}')"
      stop_ours
      drop_caches "$TIFS"
      start_iip || exit 1
      read -r s p50 p99 errors < <(ID_SUFFIX=.tif replay iip "$IIP_PORT" "/fcgi-bin/iipsrv.fcgi?IIIF=$TIFS/" "$trace")
      figure "tiff $trace round $round iip_s $s p50_ms $p50 p99_ms $p99 errors $errors"
      stop_iip
    done
  done
fi

if has disk; then
  log "vips dzsave of every master for the size comparison"
  rm -rf "$RUN/dz"; mkdir -p "$RUN/dz"
  for f in "$MASTERS"/*.jpg; do vips dzsave "$f" "$RUN/dz/$(basename "$f" .jpg)" --tile-size 256 --overlap 0 --suffix '.jpg[Q=85]'; done
  figure "disk store_MB $(du -sm "$RUN/store-warm" | cut -f1) dzsave_MB $(du -sm "$RUN/dz" | cut -f1)"
fi

if has soak; then
  store_mb=${SOAK_STORE_MB:-$(( $(du -sm "$RUN/store-warm" 2>/dev/null | cut -f1 || echo 1000) / 2 + 1 ))}
  log "soak: ${SOAK}s of the mixed trace, store budget $store_mb MiB"
  rm -rf "$RUN/store-soak"; : > "$RUN/soak.txt"
  start_ours "$RUN/store-soak" --store-mb "$store_mb" || exit 1
  end=$(( $(date +%s) + SOAK )); max_rss=0; max_store=0
  ( while [ "$(date +%s)" -lt "$end" ]; do python3 "$ROOT/bench/traces.py" replay 127.0.0.1 "$PORT" /iiif/3/ "$TRACES/mixed.txt" >> "$RUN/soak.txt"; done ) &
  loader=$!
  while [ "$(date +%s)" -lt "$end" ]; do
    rss=$(awk '/VmRSS/ {print int($2 / 1024)}' "/proc/$OURS/status")
    st=$(( $(metric tileserver_store_bytes) / 1048576 ))
    [ "$rss" -gt "$max_rss" ] && max_rss=$rss; [ "$st" -gt "$max_store" ] && max_store=$st
    sleep 2
  done
  wait "$loader"
  figure "soak seconds $SOAK max_rss_MB $max_rss cache_MB $CACHE_MB max_store_MB $max_store store_budget_MB $store_mb evictions $(metric tileserver_store_evictions_total) errors $(awk -F'errors=' '{split($2, a, " "); s += a[1]} END {print s}' "$RUN/soak.txt") replays $(wc -l < "$RUN/soak.txt")"
  stop_ours
fi

echo
echo "== figures (medians of rounds for warm and tiff) =="
python3 - "$RUN/figures.txt" <<'EOF'
import statistics, sys
lines = [l.split() for l in open(sys.argv[1]) if l.strip()]
warm = {}
for l in lines:
    if l[0] in ("warm", "tiff"):
        who = "ours" if "ours_s" in l else "iip"
        d = dict(zip(l[4::2], l[5::2]))
        warm.setdefault((l[0], l[1], who), []).append((float(d[f"{who}_s"]), float(d["p99_ms"])))
    else:
        print(" ".join(l))
for (phase, trace, who), v in sorted(warm.items()):
    print(f"{phase} {trace} {who}: median {statistics.median(s for s, _ in v):.2f} s, p99 median {statistics.median(p for _, p in v):.1f} ms ({len(v)} rounds)")
EOF
