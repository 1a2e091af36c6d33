#!/usr/bin/env bash
# Builds the release binary and runs the server; arguments go to `tileserver serve` (no argument: the built-in image).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh run
swift build -c release --product tileserver
exec .build/release/tileserver serve "$@"
