#!/usr/bin/env bash
# Search and sort on a library of 100,000 images (symbolic links, in 100 folders, to 20 small JPEGs carrying
# different keywords, creators and dates written with exiftool): the time until the metadata index is complete,
# then the first page (100 images) of searches and sorts over the whole library, timed with curl. Prints each
# request's median and worst of RUNS, and the goal: the first page <= 200 ms. Asserts nothing.
#   bench/search.sh      knobs: IMAGES=100000 RUNS=7 BIN=
set -euo pipefail
cd "$(dirname "$0")/.."
IMAGES=${IMAGES:-100000}; RUNS=${RUNS:-7}
for p in exiftool curl python3; do command -v $p >/dev/null || { echo "needs $p: scripts/install-deps.sh test" >&2; exit 1; }; done
if [ -z "${BIN:-}" ]; then swift build -c release --product tileserver >/dev/null; BIN=$PWD/.build/release/tileserver; fi
WORK=$(mktemp -d /var/tmp/tileserver-search-bench.XXXX)
PID=
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; sleep 0.3; rm -rf "$WORK"; }
trap cleanup EXIT
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')

mkdir -p "$WORK/masters" "$WORK/lib"
python3 - "$WORK/masters" <<'PY'
import subprocess, sys
# Twenty small JPEGs of different colours, from PPM through libjpeg-turbo's cjpeg.
for i in range(20):
    ppm = f"{sys.argv[1]}/m{i:02d}.ppm"
    with open(ppm, "wb") as f:
        f.write(b"P6 64 64 255\n" + bytes((i * 12 + x) % 256 for x in range(64 * 64 * 3)))
    subprocess.run(["cjpeg", "-outfile", ppm[:-4] + ".jpg", ppm], check=True)
PY
words=(glacier forest harbour dunes river summit canyon meadow reef tundra)
people=("Ana Ruiz" "Bo Lind" "Cy Okafor" "Dee Park")
for i in $(seq 0 19); do
  exiftool -q -overwrite_original "-Keywords=${words[$((i % 10))]}" "-Creator=${people[$((i % 4))]}" \
    "-DateTimeOriginal=20$((10 + i)):0$((1 + i % 9)):1$((i % 9)) 12:00:00" "-Title=Photo $i" "$WORK/masters/m$(printf %02d "$i").jpg"
done
python3 - "$WORK" "$IMAGES" <<'PY'
import os, sys
work, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    folder = f"{work}/lib/f{i % 100:03d}"
    if i < 100:
        os.mkdir(folder)
    os.symlink(f"{work}/masters/m{i % 20:02d}.jpg", f"{folder}/p{i:06d}.jpg")
PY
started=$(date +%s.%N)
"$BIN" serve "$WORK/lib" --host 127.0.0.1 --port "$PORT" --store-dir off --access-log off > "$WORK/serve.log" 2>&1 &
PID=$!
for _ in $(seq 600); do curl -sf -o /dev/null "http://127.0.0.1:$PORT/healthz" && break; sleep 0.1; done
until curl -s "http://127.0.0.1:$PORT/api/images?q=x&limit=1" | grep -q '"complete":true'; do sleep 0.5; done
indexed=$(python3 -c "import time; print(f'{time.time() - $started:.1f}')")
echo "images: $IMAGES; serving and the metadata index complete after ${indexed} s (start included)"
RSS=$(awk '/VmRSS/ {print int($2/1024)}' /proc/$PID/status)
echo "server RSS with the index: ${RSS} MB"
for query in "q=glacier" "q=ana%20ruiz" "q=glacier%20ana&sort=taken" "sort=taken" "sort=added" "q=p099999" "q=nothing-matches"; do
  times=()
  for _ in $(seq "$RUNS"); do
    times+=("$(curl -s -o "$WORK/out.json" -w '%{time_total}' "http://127.0.0.1:$PORT/api/images?$query&limit=100")")
  done
  total=$(python3 -c "import json; print(json.load(open('$WORK/out.json'))['total'])")
  printf '%-28s total %6d  first page: median %5.0f ms, worst %5.0f ms\n' "$query" "$total" \
    "$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)] * 1000}')" \
    "$(printf '%s\n' "${times[@]}" | sort -n | tail -1 | awk '{print $1 * 1000}')"
done
echo "goal: the first page of a 100,000-image library <= 200 ms"
