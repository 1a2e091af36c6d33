#!/usr/bin/env bash
# Whole-slide images against openslide-python's DeepZoom server: see bench/slides.py. Builds the release binary
# first unless TILESERVER_BIN names one.
#   bench/slides.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${TILESERVER_BIN:-}" ]; then
  swift build -c release --product tileserver >/dev/null
  export TILESERVER_BIN=$PWD/.build/release/tileserver
fi
exec .build-venv/bin/python bench/slides.py "$@"
