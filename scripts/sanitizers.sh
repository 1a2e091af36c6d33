#!/usr/bin/env bash
# The whole Swift suite under ThreadSanitizer, then the decoder tests (C layer, hostile files, fuzz findings,
# region decodes, encoders, banded outputs) under AddressSanitizer. Separate build folders, so the normal
# debug build is untouched. Leak checking is off under XCTest (its own objects outlive the run and would be
# reported); the fuzz targets (scripts/fuzz.sh) run with LeakSanitizer on.
set -euo pipefail
cd "$(dirname "$0")/.."
swift test --sanitize=thread --scratch-path .build-tsan 2>&1 | tee .build-tsan.log | grep -E "Executed [0-9]+ tests|ThreadSanitizer" | tail -3
! grep -q "WARNING: ThreadSanitizer" .build-tsan.log || { echo "ThreadSanitizer reported races: .build-tsan.log" >&2; exit 1; }
ASAN_OPTIONS=detect_leaks=0 swift test --sanitize=address --scratch-path .build-asan \
  --filter "CImageIOTests|HostileInputTests|RegionDecodeTests|ReferenceDecodeTests|EncoderTests|FuzzRegressionTests|BandedRegionTests" \
  2>&1 | tee .build-asan.log | grep -E "Executed [0-9]+ tests|AddressSanitizer" | tail -3
