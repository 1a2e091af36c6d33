#!/usr/bin/env bash
# Installs the Debian packages the project needs, only when something is missing.
#   scripts/install-deps.sh run    build and run: the build packages of scripts/system-libraries.txt, pkg-config
#   scripts/install-deps.sh test   also what the tests use: nginx, wrk, libvips-tools, cjpeg/djpeg, tiffcp, opj_compress, ojph_compress (HTJ2K with precincts), cwebp, heif-enc, avifenc, exiftool, ICC profiles
#                                  (colord-data, icc-profiles-free) and Argyll (a CMYK profile from FOGRA39), curl, python3-venv,
#                                  chromium (driven by Playwright from PyPI: no browser download), podman with buildah and runc
#                                  (the container test, which still skips, saying why, where the base images cannot be had)
#   scripts/install-deps.sh --list MODE   prints MODE's packages, one a line, and installs nothing
set -euo pipefail
list=0; [ "${1:-}" = --list ] && { list=1; shift; }
mapfile -t packages < <(awk '!/^#/ && NF >= 3 {print $3}' "$(dirname "$0")/system-libraries.txt")
packages+=(pkg-config)
if [ "${1:-run}" = test ]; then
  packages+=(nginx wrk libvips-tools libjpeg-turbo-progs libtiff-tools libopenjp2-tools openjph-tools webp libheif-examples libavif-bin libimage-exiftool-perl colord-data icc-profiles-free argyll curl python3 python3-venv chromium fonts-dejavu-core podman buildah runc)
fi
if [ "$list" = 1 ]; then printf '%s\n' "${packages[@]}"; exit 0; fi
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
