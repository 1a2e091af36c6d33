#!/usr/bin/env bash
# Runs every test: installs what they need, makes the synthetic fixtures, builds, runs the Swift test targets.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh test
scripts/make-fixtures.sh
swift build --build-tests
swift test --skip-build
