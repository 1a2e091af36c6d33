#!/usr/bin/env bash
# Runs every test: installs what they need, makes the synthetic fixtures, builds, runs the Swift test targets,
# then the end-to-end tests (real server on 127.0.0.1, real clients) with pytest from PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh test
scripts/make-fixtures.sh
VENV=.build-venv
[ -x "$VENV/bin/pytest" ] || { python3 -m venv "$VENV" && "$VENV/bin/pip" install -q pytest; }
swift build --build-tests
swift test --skip-build
"$VENV/bin/pytest" -q Tests/e2e
