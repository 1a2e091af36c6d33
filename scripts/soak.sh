#!/usr/bin/env bash
# Soak: 256 connections ask for random tiles of one image for SECONDS with a tile cache far smaller than the
# pyramid, so evictions and renders never stop. Fails (exit 1) on any error or timeout, on RSS above the cache
# budget + 100 MB, on RSS still growing in the last third of the run, or on descriptor growth. Prints the RSS
# curve, and with PLOT=FILE.png draws it.
#   scripts/soak.sh SECONDS [IMAGE]      (the test command runs 60 s on the fixtures' 3,996 x 2,582 photo)
#   knobs: CACHE_MB (1 for the fixture, 64 otherwise) CONNS=256 THREADS=2 PORT=18097 BIN= PLOT=
#   long form: BIN=.build/release/tileserver PLOT=docs/soak-rss.png scripts/soak.sh 600 /var/tmp/tileserver-images/big-20000.jpg
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
SECONDS_=${1:?usage: scripts/soak.sh SECONDS [IMAGE]}
IMAGE=${2:-.build-fixtures/gallery/large.jpg}
[ -s "$IMAGE" ] || { echo "missing $IMAGE (scripts/make-fixtures.sh makes the default)" >&2; exit 1; }
CONNS=${CONNS:-256}; THREADS=${THREADS:-2}; PORT=${PORT:-18097}
if [ -z "${CACHE_MB:-}" ]; then [ "$(stat -c %s "$IMAGE")" -lt 50000000 ] && [ -z "${2:-}" ] && CACHE_MB=1 || CACHE_MB=64; fi
BIN=${BIN:-.build/debug/tileserver}
command -v wrk >/dev/null || { echo "soak needs wrk (apt-get install wrk)" >&2; exit 1; }
WORK=$(mktemp -d /var/tmp/tileserver-soak.XXXX)
cleanup() { [ -n "${SERVER:-}" ] && kill "$SERVER" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

"$BIN" serve "$IMAGE" --host 127.0.0.1 --store-dir "$WORK/store" --port "$PORT" --cache-mb "$CACHE_MB" --access-log off --raster-dir "$WORK" \
  >"$WORK/server.log" 2>&1 &
SERVER=$!
for _ in $(seq 300); do curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.1; done
ID=$(curl -sf "http://127.0.0.1:$PORT/api/images" | python3 -c 'import json,sys; print(json.load(sys.stdin)["images"][0]["id"])')
# Every tile of every level, shuffled with a fixed seed; the decode passes are started before counting descriptors.
curl -sf "http://127.0.0.1:$PORT/images/$ID.dzi" | python3 -c '
import math, random, re, sys
d = sys.stdin.read()
w, h = int(re.search(r"Width=\"(\d+)", d).group(1)), int(re.search(r"Height=\"(\d+)", d).group(1))
size = int(re.search(r"TileSize=\"(\d+)", d).group(1))
top = math.ceil(math.log2(max(w, h)))
urls = []
for level in range(top + 1):
    s = 2 ** (top - level)
    lw, lh = -(-w // s), -(-h // s)
    urls += [f"/images/'"$ID"'/tiles/{level}/{x}/{y}.jpg" for x in range(-(-lw // size)) for y in range(-(-lh // size))]
random.Random(7).shuffle(urls)
print("\n".join(urls))' >"$WORK/urls"
curl -sf -o /dev/null "http://127.0.0.1:$PORT/images/$ID/tiles/0/0/0.jpg"
curl -sf -o /dev/null "http://127.0.0.1:$PORT$(grep -m1 -E "/tiles/[0-9]{2}/" "$WORK/urls" || head -1 "$WORK/urls")"
FDS_BEFORE=$(open_fds "$SERVER")
sample_rss "$SERVER" "$WORK/rss" 1 &
echo "soak: $(wc -l <"$WORK/urls") tile URLs of $IMAGE, --cache-mb $CACHE_MB, $CONNS connections, ${SECONDS_} s, $BIN" >&2
OUT=$(wrk -t"$THREADS" -c"$CONNS" -d"${SECONDS_}s" --timeout 30s --latency -s bench/wrk-paths.lua "http://127.0.0.1:$PORT" -- "$WORK/urls" | grep WRK_RESULT)
sleep 1
FDS_AFTER=$(settle=0; for _ in $(seq 50); do n=$(open_fds "$SERVER"); [ "$n" -le "$FDS_BEFORE" ] && break; sleep 0.1; done; echo "$n")
HEALTH=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/healthz")
METRICS=$(curl -s "http://127.0.0.1:$PORT/metrics")
EVICTIONS=$(awk '/^tileserver_tile_cache_evictions_total/ {print $2}' <<<"$METRICS")
RENDERED=$(awk '/^tileserver_tiles_rendered_total/ {print $2}' <<<"$METRICS")
echo "${OUT#WRK_RESULT }; evictions $EVICTIONS, renders $RENDERED; descriptors $FDS_BEFORE -> $FDS_AFTER; healthz $HEALTH"
python3 - "$WORK/rss" "$CACHE_MB" "${PLOT:-}" "$OUT" "$FDS_BEFORE" "$FDS_AFTER" "$HEALTH" <<'PY'
import sys
path, cache_mb, plot, wrk, fds_before, fds_after, health = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6]), sys.argv[7]
points = [(float(t), int(kb) / 1024) for t, kb in (line.split() for line in open(path))]
rss = [mb for _, mb in points]
third = max(1, len(rss) // 3)
middle, last = max(rss[third:2 * third] or rss), max(rss[2 * third:] or rss)
fields = dict(item.split("=") for item in wrk.split()[1:])
print("RSS MB every 10 s: " + " ".join(f"{mb:.0f}" for t, mb in points[::10]))
print(f"RSS peak {max(rss):.0f} MB (limit {cache_mb + 100}), middle third peak {middle:.0f}, last third peak {last:.0f}")
if plot:
    from PIL import Image, ImageDraw
    W, H, pad = 720, 300, 40
    img = Image.new("RGB", (W, H), "white")
    d = ImageDraw.Draw(img)
    top = max(cache_mb + 100, max(rss)) * 1.1
    tmax = points[-1][0] or 1
    xy = lambda t, mb: (pad + (W - 2 * pad) * t / tmax, H - pad - (H - 2 * pad) * mb / top)
    d.line([xy(0, cache_mb + 100), xy(tmax, cache_mb + 100)], fill=(200, 60, 60))
    d.text((pad + 4, xy(0, cache_mb + 100)[1] - 14), f"limit: cache {cache_mb} MB + 100 MB", fill=(200, 60, 60))
    d.line([xy(t, mb) for t, mb in points], fill=(30, 90, 200), width=2)
    d.rectangle([pad, pad, W - pad, H - pad], outline="black")
    d.text((pad, H - pad + 6), f"0 s", fill="black"); d.text((W - pad - 40, H - pad + 6), f"{tmax:.0f} s", fill="black")
    d.text((4, pad - 16), f"RSS, MB (peak {max(rss):.0f})", fill="black"); d.text((4, H - pad - 6), "0", fill="black")
    img.save(plot)
    print(f"plot: {plot}")
problems = []
if int(fields["errors"]) or int(fields["non2xx"]): problems.append(f"{fields['errors']} errors, {fields['non2xx']} non-2xx")
if max(rss) > cache_mb + 100: problems.append(f"RSS {max(rss):.0f} MB over {cache_mb + 100}")
if last > middle + 16: problems.append(f"RSS still growing: {middle:.0f} -> {last:.0f} MB")
if fds_after > fds_before: problems.append(f"descriptors grew {fds_before} -> {fds_after}")
if health != "200": problems.append(f"healthz {health}")
print("soak: " + ("FAILED: " + "; ".join(problems) if problems else "passed"))
sys.exit(1 if problems else 0)
PY
