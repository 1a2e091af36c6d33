#!/usr/bin/env bash
# Installs the Debian packages the project needs, only when something is missing.
#   scripts/install-deps.sh run    build and run: libjpeg, libpng, lcms2, libtiff, OpenJPEG, libwebp, pkg-config
#   scripts/install-deps.sh test   also what the tests use: nginx, wrk, libvips-tools, cjpeg/djpeg, tiffcp, opj_compress, exiftool, ICC profiles
#                                  (colord-data, icc-profiles-free) and Argyll (a CMYK profile from FOGRA39), curl, python3-venv,
#                                  chromium (driven by Playwright from PyPI: no browser download)
set -euo pipefail
packages=(libjpeg-dev libpng-dev liblcms2-dev libtiff-dev libopenjp2-7-dev libwebp-dev pkg-config)
if [ "${1:-run}" = test ]; then
  packages+=(nginx wrk libvips-tools libjpeg-turbo-progs libtiff-tools libopenjp2-tools libimage-exiftool-perl colord-data icc-profiles-free argyll curl python3 python3-venv chromium fonts-dejavu-core)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if ! command -v swift >/dev/null; then
  echo "swift is not on PATH: install the Swift 6 toolchain for Linux (swift.org) first" >&2
  exit 1
fi
