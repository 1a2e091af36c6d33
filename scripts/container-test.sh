#!/usr/bin/env bash
# Builds the container image and tries it as a deployment would: a read-only folder with a photo mounted on
# /images, a tile, /api/images, /healthz and the image's own health check; the disk cache surviving a restart
# (no tile rendered again); SIGTERM during a slow request (it completes, the container exits 0 within 10 s).
# Prints the image size and the time from `run` to the first served tile.
# Uses `docker` when an engine answers, else podman (set up by ../shared/tools/container-env.sh where no
# registry is reachable). Several minutes: the image build compiles the server in release mode.
#   scripts/container-test.sh        knobs: IMAGE=tileserver:test PORT=18480 KEEP_IMAGE=0
set -euo pipefail
cd "$(dirname "$0")/.."
IMAGE=${IMAGE:-tileserver:test}; PORT=${PORT:-18480}; NAME=tileserver-test-$$
scripts/make-fixtures.sh >/dev/null
if command -v docker >/dev/null && docker info >/dev/null 2>&1; then
  ENGINE=docker; BUILD=(docker build)
else
  [ -f ../shared/tools/container-env.sh ] || { echo "no docker engine and no ../shared/tools/container-env.sh for podman" >&2; exit 1; }
  # shellcheck source=/dev/null
  source ../shared/tools/container-env.sh
  ENGINE=podman; BUILD=(podman build --pull=never --format docker)
  # No Git host is reachable here: the build resolves the Swift packages from a copy of this machine's SwiftPM cache.
  if [ -d "$HOME/.cache/org.swift.swiftpm" ]; then
    SPM=$(mktemp -d /var/tmp/tileserver-spm.XXXX); cp -a "$HOME/.cache/org.swift.swiftpm/." "$SPM/"
    BUILD+=(-v "$SPM:/root/.cache/org.swift.swiftpm")
  fi
fi
WORK=$(mktemp -d /var/tmp/tileserver-container-test.XXXX)
cleanup() {
  $ENGINE rm -f "$NAME" >/dev/null 2>&1 || true
  $ENGINE volume rm -f "$NAME-cache" >/dev/null 2>&1 || true
  [ "${KEEP_IMAGE:-0}" = 1 ] || $ENGINE rmi -f "$IMAGE" >/dev/null 2>&1 || true
  rm -rf "$WORK" "${SPM:-}"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; $ENGINE logs "$NAME" 2>&1 | tail -20 >&2 || true; exit 1; }
now() { date +%s.%N; }
since() { printf '%.2f' "$(echo "$(now) - $1" | bc -l)"; }

echo "== building $IMAGE with $ENGINE"
started=$(now)
"${BUILD[@]}" -t "$IMAGE" . > "$WORK/build.log" 2>&1 || { tail -30 "$WORK/build.log" >&2; fail "image build"; }
echo "built in $(since "$started") s"
size=$($ENGINE image inspect "$IMAGE" --format '{{.Size}}')
echo "image size: $((size / 1000000)) MB (goal <= 150 MB)"

mkdir -p "$WORK/photos"; cp .build-fixtures/gallery/large.jpg "$WORK/photos/large.jpg"; chmod -R a+rX "$WORK"
$ENGINE volume create "$NAME-cache" >/dev/null
run() {
  $ENGINE run -d --name "$NAME" -p "127.0.0.1:$PORT:8080" -v "$WORK/photos:/images:ro" -v "$NAME-cache:/cache" "$IMAGE" >/dev/null
}
first_tile() {  # waits for the first tile; prints seconds since $1
  for _ in $(seq 600); do
    curl -sf -o "$WORK/tile.jpg" "http://127.0.0.1:$PORT/images/large/tiles/12/3/2.jpg" && { since "$1"; return 0; }
    sleep 0.05
  done
  fail "no tile within 30 s"
}
metric() { curl -sf "http://127.0.0.1:$PORT/metrics" | awk -v m="$1" '$1 == m {print $2}'; }

echo "== run"
started=$(now); run
echo "run to first served tile: $(first_tile "$started") s"
[ "$(head -c 2 "$WORK/tile.jpg" | od -An -tx1 | tr -d ' ')" = ffd8 ] || fail "tile is not a JPEG"
curl -sf "http://127.0.0.1:$PORT/api/images" | grep -q '"id":"large"' || fail "/api/images does not list the photo"
[ "$(curl -sf "http://127.0.0.1:$PORT/healthz")" = ok ] || fail "/healthz"
curl -sf "http://127.0.0.1:$PORT/" | grep -qi '<!doctype html>' || fail "the viewer is not served"
[ "$($ENGINE exec "$NAME" id -u)" != 0 ] || fail "runs as root"
if [ "$ENGINE" = podman ]; then
  podman healthcheck run "$NAME" || fail "health check"
else
  for _ in $(seq 60); do [ "$(docker inspect -f '{{.State.Health.Status}}' "$NAME")" = healthy ] && break; sleep 0.5; done
  [ "$(docker inspect -f '{{.State.Health.Status}}' "$NAME")" = healthy ] || fail "health check"
fi
echo "tile, /api/images, /healthz, viewer, non-root user, health check: ok"

echo "== restart: tiles come back from the disk cache in /cache"
$ENGINE stop -t 10 "$NAME" >/dev/null; $ENGINE rm "$NAME" >/dev/null
started=$(now); run
echo "run to first served tile after a restart: $(first_tile "$started") s"
[ "$(metric tileserver_tiles_rendered_total)" = 0 ] || fail "the restarted container rendered the tile again"
echo "served from the disk cache, nothing rendered: ok"

echo "== SIGTERM during a slow request"
curl -s -o "$WORK/slow.png" -w '%{http_code}' "http://127.0.0.1:$PORT/api/images/large/viewport.png?width=4096&height=4096&zoom=1" \
  > "$WORK/slow.status" &
CURL=$!
for _ in $(seq 200); do [ "$(metric tileserver_open_connections)" = 2 ] && break; sleep 0.01; done
started=$(now)
$ENGINE stop -t 10 "$NAME" >/dev/null
stopped=$(since "$started")
wait "$CURL" || true
code=$($ENGINE inspect "$NAME" --format '{{.State.ExitCode}}')
echo "stopped in $stopped s, exit code $code, slow request: HTTP $(cat "$WORK/slow.status"), $(stat -c %s "$WORK/slow.png") bytes"
[ "$(cat "$WORK/slow.status")" = 200 ] && [ "$(head -c 4 "$WORK/slow.png" | tail -c 3)" = PNG ] || fail "the in-flight request did not complete"
[ "$code" = 0 ] || fail "exit code $code"
[ "$(echo "$stopped < 10" | bc -l)" = 1 ] || fail "took $stopped s to stop"
echo "container-test: passed"
