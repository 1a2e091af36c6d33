#!/usr/bin/env bash
# Cached-tile throughput: our server on the 20,000 x 20,000 JPEG against nginx serving a static DeepZoom copy
# of the same pyramid, same URL list (N_URLS tiles of levels MIN_LEVEL and up, seeded), both warmed first, in one run.
# Prints requests/s, p99, each server's CPU a request and the ratios; asserts nothing.
#   bench/serve.sh [IMAGE]   (default /var/tmp/tileserver-images/big-20000.jpg; a real photo: real-elephants-5640x3172.jpg)
#   knobs: DURATION=15 CONNS=64 THREADS=2 N_URLS=5000 OURS_PORT=18090 NGINX_PORT=18091
#          HOT=median|first: the hot tile is the sample's tile of median size (a typical tile), or its first
#          RUNS=3 (each load alternates nginx and ours, RUNS times; medians reported)
#          LOG=off|on (on: both write an access-log line per request to a file, as by default in production)
set -euo pipefail
cd "$(dirname "$0")/.."
JPG=${1:-/var/tmp/tileserver-images/big-20000.jpg}
[ -s "$JPG" ] || { echo "missing $JPG: run SIZES=20000 ../shared/tools/make-images.sh" >&2; exit 1; }
RUNS=${RUNS:-3}; LOG=${LOG:-off}; DURATION=${DURATION:-15}; CONNS=${CONNS:-64}; THREADS=${THREADS:-2}; N_URLS=${N_URLS:-5000}; MIN_LEVEL=${MIN_LEVEL:-8}
OURS_PORT=${OURS_PORT:-18090}; NGINX_PORT=${NGINX_PORT:-18091}
for p in nginx wrk; do command -v $p >/dev/null || { apt-get update -qq; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $p >/dev/null; }; done
if [ -z "${BIN:-}" ]; then swift build -c release --product tileserver >/dev/null; BIN=$PWD/.build/release/tileserver; fi
WORK=$(mktemp -d /var/tmp/tileserver-serve-bench.XXXX)
chmod 755 "$WORK"   # nginx workers run as www-data
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; [ -f "$WORK/nginx.pid" ] && kill -QUIT "$(cat "$WORK/nginx.pid")" 2>/dev/null; sleep 0.5; rm -rf "$WORK"; }
trap cleanup EXIT

echo "building the static pyramid for nginx (tileserver build)..." >&2
"$BIN" build "$JPG" --out "$WORK/static" --quiet
NAME=$(basename "$JPG" .jpg)

# The same tiles for both: a seeded sample of levels >= 8.
python3 - "$WORK/static/${NAME}_files" "$N_URLS" "$WORK" "$NAME" "$MIN_LEVEL" <<'PY'
import os, random, sys
root, n, work, name, low = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5])
tiles = []
for level in sorted(os.listdir(root), key=int):
    if int(level) < low: continue
    for f in os.listdir(os.path.join(root, level)):
        x, y = f.split(".")[0].split("_")
        tiles.append((int(level), int(x), int(y)))
sample = random.Random(42).sample(sorted(tiles), min(n, len(tiles)))
with open(f"{work}/ours.txt", "w") as o, open(f"{work}/nginx.txt", "w") as g:
    for l, x, y in sample:
        o.write(f"/images/{name}/tiles/{l}/{x}/{y}.jpg\n")
        g.write(f"/{name}_files/{l}/{x}_{y}.jpg\n")
mean = sum(os.path.getsize(f"{root}/{l}/{x}_{y}.jpg") for l, x, y in sample) / len(sample)
print(f"{len(sample)} tiles from {len(tiles)} at levels {low} and up, mean {mean / 1000:.1f} KB", file=sys.stderr)
PY

cat > "$WORK/nginx.conf" <<NGINX
worker_processes 2;
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log warn;
events { worker_connections 4096; }
http {
  include /etc/nginx/mime.types;
  $( [ "$LOG" = on ] && echo "access_log $WORK/nginx-access.log;" || echo "access_log off;" ) sendfile on; tcp_nopush on; keepalive_requests 100000; open_file_cache max=10000;
  client_body_temp_path $WORK/nb; proxy_temp_path $WORK/np; fastcgi_temp_path $WORK/nf; uwsgi_temp_path $WORK/nu; scgi_temp_path $WORK/ns;
  server { listen 127.0.0.1:$NGINX_PORT; root $WORK/static; add_header Access-Control-Allow-Origin *; }
}
NGINX
nginx -c "$WORK/nginx.conf" -p "$WORK"
"$BIN" serve "$JPG" --host 127.0.0.1 --store-dir "$WORK/store" --port "$OURS_PORT" --access-log "$LOG" > "$WORK/ours.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$OURS_PORT/healthz" >/dev/null && break; sleep 0.1; done

echo "warming both (every URL once)..." >&2
warm() {  # port paths: every path once over 4 keep-alive connections; fails on any non-200
  python3 - "$1" "$2" <<'PY'
import http.client, sys, threading
port, paths = int(sys.argv[1]), [l.strip() for l in open(sys.argv[2]) if l.strip()]
bad = []
def worker(part):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    for p in part:
        c.request("GET", p); r = c.getresponse(); r.read()
        if r.status != 200: bad.append((p, r.status))
threads = [threading.Thread(target=worker, args=(paths[i::4],)) for i in range(4)]
[t.start() for t in threads]; [t.join() for t in threads]
if bad: sys.exit(f"warm-up failures on port {port}: {bad[:5]}")
PY
}
warm "$OURS_PORT" "$WORK/ours.txt"; warm "$NGINX_PORT" "$WORK/nginx.txt"
warm "$OURS_PORT" "$WORK/ours.txt"

ticks() { local p t=0; for p in "$@"; do t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat"))); done; echo "$t"; }
run() {  # name port paths pids: one wrk run, its line printed, its rps, p99 and the server's CPU a request
  # (user + system time of pids, µs) appended to RPS_name, P99_name and CPU_name
  local out before after requests cpu
  before=$(ticks $4)
  out=$(wrk -t"$THREADS" -c"$CONNS" -d"${DURATION}s" --latency -s bench/wrk-paths.lua "http://127.0.0.1:$2" -- "$3" | grep WRK_RESULT)
  after=$(ticks $4)
  requests=$(sed 's/.*requests=\([0-9]*\).*/\1/' <<<"$out")
  cpu=$(awk -v t=$((after - before)) -v hz="$(getconf CLK_TCK)" -v r="$requests" 'BEGIN {printf "%.1f", t * 1e6 / hz / r}')
  printf '%-8s %s server_cpu_us=%s\n' "$1" "${out#WRK_RESULT }" "$cpu"
  eval "RPS_$1+=\" $(sed 's/.*rps=\([0-9]*\).*/\1/' <<<"$out")\"; P99_$1+=\" $(sed 's/.*p99_ms=\([0-9.]*\).*/\1/' <<<"$out")\"; CPU_$1+=\" $cpu\""
}
median() { printf '%s\n' $1 | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "access logs: $LOG"
echo "wrk: $THREADS threads, $CONNS connections, ${DURATION}s, $(nproc) cores shared by server and client, $RUNS alternated runs"
HOT_LINE=1
if [ "${HOT:-median}" = median ]; then   # the line of the sample's median-sized tile
  HOT_LINE=$(sed "s|^|$WORK/static|" "$WORK/nginx.txt" | xargs stat -c %s | awk '{print NR, $1}' |
    sort -k2n -k1n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
fi
sed -n "${HOT_LINE}p" "$WORK/ours.txt" > "$WORK/ours-hot.txt"; sed -n "${HOT_LINE}p" "$WORK/nginx.txt" > "$WORK/nginx-hot.txt"
HOT_BYTES=$(stat -c %s "$WORK/static$(cat "$WORK/nginx-hot.txt")")
echo "hot tile: $(cat "$WORK/ours-hot.txt"), $HOT_BYTES bytes (${HOT:-median} of the sample)"
N=$(wc -l < "$WORK/ours.txt")
NGINX_WORKERS=$(pgrep -P "$(cat "$WORK/nginx.pid")" | tr '\n' ' ')
for _ in $(seq "$RUNS"); do
  run nginx "$NGINX_PORT" "$WORK/nginx.txt" "$NGINX_WORKERS"
  run ours "$OURS_PORT" "$WORK/ours.txt" "${PIDS[0]}"
  run nginxhot "$NGINX_PORT" "$WORK/nginx-hot.txt" "$NGINX_WORKERS"
  run ourshot "$OURS_PORT" "$WORK/ours-hot.txt" "${PIDS[0]}"
done
for v in ours nginx ourshot nginxhot; do eval "RPS_$v=\$(median \"\$RPS_$v\"); P99_$v=\$(median \"\$P99_$v\"); CPU_$v=\$(median \"\$CPU_$v\")"; done
source bench/lib.sh
figure "cached $N-tile mix, logs $LOG (req/s)" "$RPS_ours" nginx "$RPS_nginx" "$(ratio "$RPS_ours" "$RPS_nginx")" ">= 1.2"
figure "cached $N-tile mix, logs $LOG, p99 (ms)" "$P99_ours" nginx "$P99_nginx" "$(ratio "$P99_ours" "$P99_nginx")" "<= 1.0"
figure "one hot tile ($HOT_BYTES B), logs $LOG (req/s)" "$RPS_ourshot" nginx "$RPS_nginxhot" "$(ratio "$RPS_ourshot" "$RPS_nginxhot")" ">= 1.2"
figure "one hot tile, logs $LOG, p99 (ms)" "$P99_ourshot" nginx "$P99_nginxhot" "$(ratio "$P99_ourshot" "$P99_nginxhot")" "<= 1.0"
# The servers' own CPU a request: what each costs, apart from wrk's share of the same two cores.
figure "cached $N-tile mix, logs $LOG, server CPU a request (µs)" "$CPU_ours" nginx "$CPU_nginx" "$(ratio "$CPU_ours" "$CPU_nginx")"
figure "one hot tile, logs $LOG, server CPU a request (µs)" "$CPU_ourshot" nginx "$CPU_nginxhot" "$(ratio "$CPU_ourshot" "$CPU_nginxhot")"
NGINX_PIDS="$(cat "$WORK/nginx.pid") $NGINX_WORKERS"
RSS_ours=$(peak_rss_kb "${PIDS[@]}"); RSS_nginx=$(peak_rss_kb $NGINX_PIDS)
CACHE_MB=$(curl -sf "http://127.0.0.1:$OURS_PORT/metrics" | awk '/^tileserver_tile_cache_budget_bytes/ {printf "%d", $2 / 1048576}')
figure "peak RSS serving the mix, logs $LOG (MB; ours: cache budget ${CACHE_MB:-?} MB)" "$((RSS_ours / 1024))" nginx "$((RSS_nginx / 1024))" "$(ratio "$RSS_ours" "$RSS_nginx")" "ours <= cache + 60 MB"
