#!/usr/bin/env bash
# The long form of the hostile-clients suite against a release build: every malformed and smuggling shape,
# 1,000 slowloris connections for 60 s beside a healthy client (its p99), 10,000 pipelined requests,
# 20,000 connect-and-close cycles, 5,000 keep-alive connections, then whether the server still answers and
# its descriptor count against the start. Prints figures; the short form runs in the test command.
#   bench/hostile-clients.sh [IMAGE]   knobs: PORT=18098 BIN= HEADER_TIMEOUT=10
set -euo pipefail
cd "$(dirname "$0")/.."
IMAGE=${1:-.build-fixtures/gallery/large.jpg}
PORT=${PORT:-18098}
if [ -z "${BIN:-}" ]; then swift build -c release --product tileserver >/dev/null; BIN=$PWD/.build/release/tileserver; fi
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
"$BIN" serve "$IMAGE" --host 127.0.0.1 --port "$PORT" --store-dir off --access-log off --header-timeout "${HEADER_TIMEOUT:-10}" >/dev/null 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait 2>/dev/null || true' EXIT
until curl -fs "http://127.0.0.1:$PORT/healthz" >/dev/null; do sleep 0.1; done
curl -fs -o /dev/null "http://127.0.0.1:$PORT/tiles/0/0/0.jpg"; curl -fs -o /dev/null "http://127.0.0.1:$PORT/tiles/9/0/0.jpg"
python3 Tests/e2e/hostile_clients.py "$PORT" "$SERVER" /tiles/9/0/0.jpg --long
