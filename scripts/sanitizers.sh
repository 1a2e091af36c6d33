#!/usr/bin/env bash
# The Swift suite under ThreadSanitizer and the decoder tests (C layer, hostile files, fuzz findings, region
# decodes, encoders, banded outputs) under AddressSanitizer, each in its own build folder so the normal debug
# build is untouched. Leak checking is off under XCTest (its own objects outlive the run and would be
# reported); the fuzz targets (scripts/fuzz.sh) run with LeakSanitizer on.
#   scripts/sanitizers.sh [thread|address|all]   (default all; the test command runs `address`)
set -euo pipefail
cd "$(dirname "$0")/.."
MODE=${1:-all}
if [ "$MODE" = thread ] || [ "$MODE" = all ]; then
  swift test --sanitize=thread --scratch-path .build-tsan >.build-tsan.log 2>&1 || { tail -30 .build-tsan.log >&2; exit 1; }
  grep -E "Executed [0-9]+ tests" .build-tsan.log | tail -1
  ! grep -q "WARNING: ThreadSanitizer" .build-tsan.log || { echo "ThreadSanitizer reported races: .build-tsan.log" >&2; exit 1; }
fi
if [ "$MODE" = address ] || [ "$MODE" = all ]; then
  ASAN_OPTIONS=detect_leaks=0 swift test --sanitize=address --scratch-path .build-asan \
    --filter "CImageIOTests|HostileInputTests|EntryIndexHostileTests|ColourProfileTests|RegionDecodeTests|ReferenceDecodeTests|EncoderTests|FuzzRegressionTests|BandedRegionTests" \
    >.build-asan.log 2>&1 || { tail -30 .build-asan.log >&2; exit 1; }
  grep -E "Executed [0-9]+ tests" .build-asan.log | tail -1
fi
