#!/usr/bin/env bash
# Two replicas behind nginx running deploy/nginx/tileserver.conf, all on 127.0.0.1. A bounded wrk load over the
# tiles of two images; one replica is killed with SIGKILL in the middle. Checks that no client request failed,
# that each image's tiles went to one replica while both lived, and that a second pass is served from nginx's
# cache (hit ratio >= 90 %, from $upstream_cache_status in its log), that a restricted tile fetched by a
# signed-in user is never served from nginx's cache to anyone else, that a poisoned `Host` never reaches another
# client through the cache, that client-sent identity headers do not reach the replicas and that share tokens
# are logged by their id alone. Prints throughput through the proxy beside direct throughput. Under two minutes.
#   scripts/scaleout-test.sh [BIN]   (default .build/debug/tileserver; knobs DURATION=8 CONNS=16)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$(realpath "${1:-.build/debug/tileserver}")
DURATION=${DURATION:-8}; CONNS=${CONNS:-16}
[ -x "$BIN" ] || { echo "build first: swift build" >&2; exit 1; }
for p in nginx wrk curl python3; do command -v $p >/dev/null || { echo "needs $p: scripts/install-deps.sh test" >&2; exit 1; }; done
scripts/make-fixtures.sh >/dev/null
WORK=$(mktemp -d /var/tmp/tileserver-scaleout.XXXX)
chmod 755 "$WORK"
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  [ -f "$WORK/nginx.pid" ] && kill -QUIT "$(cat "$WORK/nginx.pid")" 2>/dev/null
  sleep 0.3; [ -n "${KEEP:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
read -r PROXY R1 R2 < <(python3 -c 'import socket
s=[socket.socket() for _ in range(3)]
[x.bind(("127.0.0.1",0)) for x in s]; print(*[x.getsockname()[1] for x in s])')

mkdir -p "$WORK/photos"
cp .build-fixtures/gallery/large.jpg "$WORK/photos/large.jpg"
cp .build-fixtures/formats/q100-444.jpg "$WORK/photos/second.jpg"
# A restricted folder, as a museum's staff-only works: its tiles must never reach anyone else from the cache. The
# replicas believe a sign-on proxy's identity headers from 127.0.0.1 (where nginx is): nginx must clear a client's.
mkdir -p "$WORK/photos/staff"
cp .build-fixtures/formats/baseline.jpg "$WORK/photos/staff/plan.jpg"
printf '[folder."staff"]\nview = "restricted"\ngroups = ["staff"]\n' > "$WORK/access.toml"
printf 'staff-password\n' | "$BIN" user add curator --group staff --users "$WORK/users.txt" > /dev/null
for port in $R1 $R2; do
  "$BIN" serve "$WORK/photos" --host 127.0.0.1 --port "$port" --store-dir "$WORK/store-$port" --access-log off \
    --access "$WORK/access.toml" --users "$WORK/users.txt" \
    --trusted-proxies 127.0.0.1 --user-header X-Remote-User --groups-header X-Remote-Groups > "$WORK/replica-$port.log" 2>&1 &
  PIDS+=($!)
done
for port in $R1 $R2; do
  for _ in $(seq 100); do curl -sf -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.1; done
done

# deploy/nginx/tileserver.conf as it is, but for the replicas, the listen port and the two paths.
scripts/nginx-front.py "$WORK" "$PROXY" "$R1" "$R2"
nginx -t -c "$WORK/nginx.conf" -p "$WORK" 2> "$WORK/nginx-t.log" || { cat "$WORK/nginx-t.log" >&2; fail "nginx -t"; }
nginx -c "$WORK/nginx.conf" -p "$WORK"
for _ in $(seq 100); do curl -sf -o /dev/null "http://127.0.0.1:$PROXY/healthz" && break; sleep 0.1; done

# The load is sized by what this binary does, not by how slow it is: a replica's rate on IIIF regions it has
# not seen is measured first (2 s, straight at it), and pass 1 gets enough distinct regions that neither
# replica runs out of new work before the end, whatever the build.
python3 - "$R1" "$WORK/calibrate.txt" <<'PY'
import json, random, sys, urllib.request
port, out = sys.argv[1], sys.argv[2]
rnd, urls = random.Random(99), []
for image in json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/api/images"))["images"]:
    if image.get("locked"):
        continue
    w, h = image["width"], image["height"]
    for _ in range(20000):
        rw, rh = rnd.randint(64, w // 3), rnd.randint(64, h // 3)
        urls.append(f"/iiif/3/{image['id']}/{rnd.randint(0, w - rw)},{rnd.randint(0, h - rh)},{rw},{rh}/{rnd.randint(32, min(rw, 300))},/0/default.jpg")
open(out, "w").write("\n".join(urls) + "\n")
PY
RATE=$(wrk -t2 -c"$CONNS" -d2s -s bench/wrk-paths.lua "http://127.0.0.1:$R1" -- "$WORK/calibrate.txt" | sed -n 's/.*rps=\([0-9]*\).*/\1/p')
REGIONS=$(( ${RATE:-0} * DURATION * 2 > 2000 ? ${RATE:-0} * DURATION * 2 : 2000 ))
echo "a replica renders ${RATE:-?} new regions/s here: $REGIONS regions per image for pass 1"

# Every tile of levels 6 and up of both images, by their versioned DeepZoom URLs (as the API hands them out), and
# REGIONS seeded IIIF regions per image (renders from those tiles), so replicas still have work when one is
# killed (decode passes store every tile of an image at once: tiles alone are all made and cached by nginx in a
# second or two).
python3 - "$PROXY" "$WORK/urls.txt" "$REGIONS" <<'PY'
import json, math, random, sys, urllib.request
port, out, regions = sys.argv[1], sys.argv[2], int(sys.argv[3])
urls = []
for image in json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/api/images"))["images"]:
    if image.get("locked"):
        continue
    w, h, t, top = image["width"], image["height"], image["tileSize"], image["maxLevel"]
    for level in range(6, top + 1):
        s = 2 ** (top - level)
        cols, rows = math.ceil(math.ceil(w / s) / t), math.ceil(math.ceil(h / s) / t)
        urls += [f"/images/{image['id']}_files/{level}/{x}_{y}.jpg?v={image['version']}" for x in range(cols) for y in range(rows)]
    rnd = random.Random(7)
    for _ in range(regions):
        rw, rh = rnd.randint(64, w // 3), rnd.randint(64, h // 3)
        urls.append(f"/iiif/3/{image['id']}/{rnd.randint(0, w - rw)},{rnd.randint(0, h - rh)},{rw},{rh}/{rnd.randint(32, min(rw, 300))},/0/default.jpg")
rnd.shuffle(urls)
open(out, "w").write("\n".join(urls) + "\n")
print(f"{len(urls)} URLs of 2 images (tiles and IIIF regions)", file=sys.stderr)
PY

# The replica that the hash gives the larger image is the one to kill (which one depends on the ports).
curl -sf -o /dev/null "http://127.0.0.1:$PROXY/api/images/large"; sleep 1.2
HOLDER=$(grep '"GET /api/images/large ' "$WORK/access.log" | sed 's/.*upstream=127.0.0.1:\([0-9]*\).*/\1/')
if [ "$HOLDER" = "$R1" ]; then VICTIM=${PIDS[0]}; SURVIVOR=$R2; else VICTIM=${PIDS[1]}; SURVIVOR=$R1; fi
[ "$HOLDER" = "$R1" ] || [ "$HOLDER" = "$R2" ] || fail "no upstream for /api/images/large in the log"
echo "== pass 1: wrk ${DURATION}s x $CONNS connections through nginx; the replica on port $HOLDER killed with SIGKILL half-way"
wrk -t2 -c"$CONNS" -d"${DURATION}s" --timeout 30s -s bench/wrk-paths.lua "http://127.0.0.1:$PROXY" -- "$WORK/urls.txt" > "$WORK/wrk1.txt" 2>&1 &
WRK=$!
sleep "$(echo "$DURATION / 2" | bc -l)"
KILLED_AT=$(date +%s.%N)
kill -9 "$VICTIM"
wait "$WRK"
PASS1_END=$(date +%s.%N)
grep WRK_RESULT "$WORK/wrk1.txt"
grep -q ' errors=0 non2xx=0' "$WORK/wrk1.txt" || fail "client requests failed during the kill: $(grep WRK_RESULT "$WORK/wrk1.txt")"
sleep 1.2   # nginx flushes its log buffer every second

echo "== pass 2: every URL that pass 1 got, once more, through nginx"
PASS2_AT=$(date +%s.%N)
python3 - "$PROXY" "$WORK/access.log" "$WORK/cached.txt" "$PASS1_END" <<'PY'
import http.client, re, sys
port, log, out, ended = int(sys.argv[1]), sys.argv[2], sys.argv[3], float(sys.argv[4])
# Only what a client received: requests wrk left in flight when it stopped are logged 200 once the upstream
# finishes, but their responses went nowhere and nginx does not cache them.
urls = sorted({m.group(2) for line in open(log) if (m := re.search(r' (\d+\.\d+) "GET (\S+) HTTP/1.1" 200 ', line))
               and float(m.group(1)) < ended} - {"/healthz", "/api/images"})
open(out, "w").write("\n".join(urls) + "\n")
c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
bad = 0
for u in urls:
    c.request("GET", u); r = c.getresponse(); r.read(); bad += r.status != 200
print(f"{len(urls)} URLs, {bad} failed")
sys.exit(1 if bad else 0)
PY
sleep 1.2

python3 - "$WORK/access.log" "$KILLED_AT" "$PASS2_AT" "$HOLDER" <<'PY'
import re, sys
log, killed, pass2, victim = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
before, after, second = {}, [], []
for line in open(log):
    m = re.search(r" (\d+\.\d+) \"GET (\S+) [^\"]*\" (\d+) \d+ image=(\S*) cache=(\S+) upstream=(\S+)", line)
    if not m or not m.group(4):
        continue
    at, status, image, cache, upstream = float(m.group(1)), m.group(3), m.group(4), m.group(5), m.group(6)
    if at < killed - 0.2 and upstream != "-":
        before.setdefault(image, set()).update(u.strip() for u in upstream.split(","))
    if killed <= at < pass2 and upstream != "-":
        after.append((image, [u.strip() for u in upstream.split(",")]))
    if at >= pass2:
        second.append(cache)
print("replicas per image while both lived:", {k: sorted(v) for k, v in before.items()})
assert len(before) == 2, "both images were asked for before the kill"
assert all(len(v) == 1 for v in before.values()), "an image's requests went to more than one replica"
dead = f"127.0.0.1:{victim}"
moved = [u for image, u in after if before.get(image) == {dead} and u[-1] != dead]
print(f"after the kill: {len(moved)} requests for the killed replica's image answered by the other one "
      f"({sum(len(u) > 1 for _, u in after)} of them retried there by nginx)")
assert moved, "no request failed over: the kill came too late to test anything"
hits = second.count("HIT")
print(f"pass 2: {hits} of {len(second)} from nginx's cache ({100 * hits / max(len(second), 1):.1f} %, goal >= 90 %)")
assert second and hits / len(second) >= 0.9, "hit ratio below 90 %"
PY

echo "== a restricted tile fetched by staff through nginx, then asked for without signing in"
COOKIE=$(curl -s -D - -o /dev/null -X POST -d 'username=curator&password=staff-password' "http://127.0.0.1:$PROXY/auth/login" \
  | tr -d '\r' | sed -n 's/^[Ss]et-[Cc]ookie: \(tileserver_session=[^;]*\).*/\1/p')
[ -n "$COOKIE" ] || fail "signing in through nginx gave no session cookie"
for url in "/images/staff%2Fplan/tiles/8/0/0.jpg" "/images/staff%2Fplan/tiles/8/0/0.jpg" "/iiif/3/staff%2Fplan/full/max/0/default.jpg"; do
  for _ in 1 2; do
    code=$(curl -s -o /dev/null -w '%{http_code}' -H "Cookie: $COOKIE" "http://127.0.0.1:$PROXY$url")
    [ "$code" = 200 ] || fail "staff got $code for $url through nginx"
  done
  curl -s -D "$WORK/anon.txt" -o /dev/null "http://127.0.0.1:$PROXY$url"
  code=$(head -1 "$WORK/anon.txt" | cut -d' ' -f2); cache=$(tr -d '\r' < "$WORK/anon.txt" | sed -n 's/^X-Cache-Status: //p')
  echo "$url: staff 200 twice; anonymous $code (nginx cache: ${cache:-none})"
  [ "$code" = 401 ] || fail "anonymous got $code for a restricted tile through nginx (cache: $cache)"
  [ "$cache" != HIT ] || fail "nginx answered anonymous from its cache"
done

echo "== a poisoned Host, then an honest viewer: info.json must name the honest host"
curl -s -o /dev/null -H "Host: evil.example" "http://127.0.0.1:$PROXY/iiif/3/large/info.json"
curl -s -o /dev/null -H "Host: evil.example" "http://127.0.0.1:$PROXY/iiif/3/large/info.json"
HONEST=$(curl -s "http://127.0.0.1:$PROXY/iiif/3/large/info.json")
echo "$HONEST" | grep -q '"id":"http://127.0.0.1:'"$PROXY"'/iiif/3/large"' || fail "the honest viewer got: ${HONEST:0:200}"
echo "$HONEST" | grep -q evil.example && fail "a poisoned Host reached another client through the cache"
echo "info.json after two poisoned requests names 127.0.0.1:$PROXY"

echo "== identity headers from a client, and a share token in the log"
code=$(curl -s -o /dev/null -w '%{http_code}' -H "X-Remote-User: curator" -H "X-Remote-Groups: staff" \
  "http://127.0.0.1:$PROXY/images/staff%2Fplan/tiles/8/0/0.jpg")
[ "$code" = 401 ] || fail "client-sent identity headers opened a restricted tile ($code)"
code=$(curl -s -o /dev/null -w '%{http_code}' -H "X-Remote-User: curator" -H "X-Remote-Groups: staff" \
  "http://127.0.0.1:$SURVIVOR/images/staff%2Fplan/tiles/8/0/0.jpg")
[ "$code" = 200 ] || fail "the replica does not believe its proxy's headers ($code): the check above proves nothing"
curl -s -o /dev/null "http://127.0.0.1:$PROXY/?folder=staff&share=s2.0123abcd.1999999999.fc3RhZmY.SECRETMAC"
for _ in $(seq 50); do grep -q 'share=s2' "$WORK/access.log" && break; sleep 0.2; done   # each worker flushes its own buffer
grep -qF 'share=s2.0123abcd... ' "$WORK/access.log" || fail "the share token's id is not in nginx's log"
grep -q SECRETMAC "$WORK/access.log" && fail "nginx logged a share token whole"
echo "client identity headers refused (401); share token logged as s2.0123abcd..."

echo "== throughput over pass 2's tile URLs: through nginx (from its cache) and straight at the surviving replica (warmed)"
grep '_files/' "$WORK/cached.txt" > "$WORK/tiles.txt"
while read -r u; do curl -sf -o /dev/null "http://127.0.0.1:$SURVIVOR$u" || true; done < "$WORK/tiles.txt"
for target in "nginx:$PROXY" "replica:$SURVIVOR"; do
  wrk -t2 -c"$CONNS" -d3s -s bench/wrk-paths.lua "http://127.0.0.1:${target#*:}" -- "$WORK/tiles.txt" | grep WRK_RESULT \
    | sed "s/^WRK_RESULT/${target%%:*}/"
done
echo "scaleout-test: passed"
