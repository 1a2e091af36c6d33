#!/usr/bin/env bash
# Heap allocations per cached tile request: the server runs with a small LD_PRELOAD counter (malloc, calloc,
# realloc and the aligned allocators, counted in a file the script reads), its tiles are warmed, then wrk asks
# for them for DURATION seconds. The counter is read before and after; the same window with no load is measured
# first and subtracted (the access log's and the sweeps' own once-a-second work). Prints allocations per request
# for each kind of cached request: a tile mix, one hot tile, If-None-Match (304) and HEAD; asserts nothing.
#   bench/allocations.sh [IMAGE]   (default: the built-in image; knobs DURATION=5 CONNS=16 LOG=on|off BIN=)
set -euo pipefail
cd "$(dirname "$0")/.."
IMAGE=${1:-}
DURATION=${DURATION:-5}; CONNS=${CONNS:-16}; LOG=${LOG:-on}
for p in wrk cc curl python3; do command -v $p >/dev/null || { echo "needs $p" >&2; exit 1; }; done
if [ -z "${BIN:-}" ]; then swift build -c release --product tileserver >/dev/null; BIN=$PWD/.build/release/tileserver; fi
WORK=$(mktemp -d /var/tmp/tileserver-alloc.XXXX)
PID=
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; sleep 0.3; rm -rf "$WORK"; }
trap cleanup EXIT

cat > "$WORK/count.c" <<'C'
/* Counts every heap allocation of the process in a shared 8-byte file ($ALLOC_COUNT_FILE). */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
extern void *__libc_malloc(size_t), *__libc_calloc(size_t, size_t), *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
static uint64_t *counter, unused;
__attribute__((constructor)) static void open_counter(void) {
    counter = &unused;
    const char *path = getenv("ALLOC_COUNT_FILE");
    int fd = path ? open(path, O_RDWR) : -1;
    if (fd < 0) return;
    void *p = mmap(0, 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p != MAP_FAILED) counter = p;
}
static inline void count(void) { if (counter) __atomic_fetch_add(counter, 1, __ATOMIC_RELAXED); }
void *malloc(size_t n) { count(); return __libc_malloc(n); }
void *calloc(size_t a, size_t b) { count(); return __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { count(); return __libc_realloc(p, n); }
void *memalign(size_t a, size_t n) { count(); return __libc_memalign(a, n); }
void *aligned_alloc(size_t a, size_t n) { count(); return __libc_memalign(a, n); }
int posix_memalign(void **out, size_t a, size_t n) {
    count();
    void *p = __libc_memalign(a, n);
    if (!p) return 12;
    *out = p;
    return 0;
}
C
cc -O2 -shared -fPIC -o "$WORK/count.so" "$WORK/count.c"
head -c 8 /dev/zero > "$WORK/count"
read_count() { python3 -c 'import struct,sys; print(struct.unpack("<Q", open(sys.argv[1],"rb").read(8))[0])' "$WORK/count"; }

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
ARGS=(serve --host 127.0.0.1 --port "$PORT" --access-log "$LOG" --store-dir "$WORK/store")
[ -n "$IMAGE" ] && ARGS+=("$IMAGE")
ALLOC_COUNT_FILE=$WORK/count LD_PRELOAD=$WORK/count.so "$BIN" "${ARGS[@]}" > "$WORK/server.log" 2>&1 &
PID=$!
for _ in $(seq 100); do curl -sf -o /dev/null "http://127.0.0.1:$PORT/healthz" && break; sleep 0.1; done

# Every tile of the default image's top four levels, by /images/{id}/tiles/... and DeepZoom URLs.
python3 - "$PORT" "$WORK" <<'PY'
import json, math, sys, urllib.request
port, work = sys.argv[1], sys.argv[2]
image = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/api/images"))["images"][0]
w, h, t, top, i = image["width"], image["height"], image["tileSize"], image["maxLevel"], image["id"]
urls = []
for level in range(max(0, top - 3), top + 1):
    s = 2 ** (top - level)
    for x in range(math.ceil(math.ceil(w / s) / t)):
        for y in range(math.ceil(math.ceil(h / s) / t)):
            urls.append(f"/images/{i}/tiles/{level}/{x}/{y}.jpg" if (x + y) % 2 else f"/images/{i}_files/{level}/{x}_{y}.jpg")
open(f"{work}/mix.txt", "w").write("\n".join(urls) + "\n")
open(f"{work}/hot.txt", "w").write(urls[len(urls) // 2] + "\n")
for u in urls:
    urllib.request.urlopen(f"http://127.0.0.1:{port}{u}").read()
req = urllib.request.Request(f"http://127.0.0.1:{port}{urls[len(urls) // 2]}")
etag = urllib.request.urlopen(req).headers["ETag"]
open(f"{work}/etag", "w").write(etag)
print(f"{len(urls)} tiles warmed, levels {max(0, top - 3)}-{top} of {i} ({w} x {h})", file=sys.stderr)
PY

# The decode passes the warm-up started store the rest of the pyramid in the background: wait until they are done.
for _ in $(seq 600); do
  curl -sf "http://127.0.0.1:$PORT/metrics" | awk '/^tileserver_(region_)?passes_(running|queued) / {busy += $2} END {exit busy > 0}' && break
  sleep 0.2
done
sleep 1
cat > "$WORK/conditional.lua" <<LUA
wrk.headers["If-None-Match"] = '$(cat "$WORK/etag")'
LUA
window() {  # label cmd...: allocations during cmd, less the idle rate over the same time
  local before after start end requests
  start=$(date +%s.%N); before=$(read_count)
  local out; out=$("${@:2}")
  after=$(read_count); end=$(date +%s.%N)
  requests=$(sed -n 's/.*requests=\([0-9]*\).*/\1/p' <<<"$out"); requests=${requests:-0}
  python3 - "$1" "$before" "$after" "$start" "$end" "$requests" "$IDLE_RATE" <<'PY'
import sys
label, before, after, start, end, requests, idle = sys.argv[1], *map(float, sys.argv[2:])
spent = after - before
background = idle * (end - start)
print(f"{label:<34} {int(requests):>9} requests  {int(spent):>8} allocations  "
      f"{spent / max(requests, 1):8.4f} per request  ({max(spent - background, 0) / max(requests, 1):.4f} less the idle rate)")
PY
}
b=$(read_count); sleep "$DURATION"; a=$(read_count)
IDLE_RATE=$(python3 -c "print(($a - $b) / $DURATION)")
echo "idle: $((a - b)) allocations in ${DURATION}s ($IDLE_RATE/s); access log $LOG"
URL="http://127.0.0.1:$PORT"
window "tile mix (GET)" wrk -t2 -c"$CONNS" -d"${DURATION}s" -s bench/wrk-paths.lua "$URL" -- "$WORK/mix.txt"
window "one hot tile (GET)" wrk -t2 -c"$CONNS" -d"${DURATION}s" -s bench/wrk-paths.lua "$URL" -- "$WORK/hot.txt"
cat bench/wrk-paths.lua >> "$WORK/conditional.lua"
sed -i 's/return wrk.format("GET", paths\[idx\])/return wrk.format(nil, paths[idx])/' "$WORK/conditional.lua"
window "one hot tile (If-None-Match: 304)" wrk -t2 -c"$CONNS" -d"${DURATION}s" -s "$WORK/conditional.lua" "$URL" -- "$WORK/hot.txt"
head_loop() {  # HEAD over keep-alive connections (wrk waits for the body a HEAD answer announces)
  python3 - "$PORT" "$WORK/mix.txt" "$DURATION" <<'PY'
import http.client, sys, threading, time
port, paths, seconds = int(sys.argv[1]), [l.strip() for l in open(sys.argv[2]) if l.strip()], float(sys.argv[3])
done = [0] * 4
def worker(k):
    c, end, i = http.client.HTTPConnection("127.0.0.1", port), time.time() + seconds, k
    while time.time() < end:
        c.request("HEAD", paths[i % len(paths)]); r = c.getresponse(); r.read(); i += 1
        assert r.status == 200, r.status
        done[k] += 1
threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
[t.start() for t in threads]; [t.join() for t in threads]
print(f"requests={sum(done)}")
PY
}
window "tile mix (HEAD)" head_loop
