#!/usr/bin/env bash
# The tile store's layout (issue 20): one file a tile (what TileStore does) against a few append-only pack files
# with a length-prefixed record a tile, on the same real tiles: write time, disk bytes, cold and warm random reads,
# the restart scan, a pack cut inside its last record, and getting half the space back by LRU eviction. The C
# harness (bench/store-layout.c) is compiled into the run folder; the page cache is dropped before each cold phase.
#   bench/store-layout.sh [TILES_DIR]   (default: the collection's cold store, /var/tmp/tileserver-collection/run/store-cold;
#                                        READS=20000 random reads)
set -euo pipefail
cd "$(dirname "$0")/.."
INPUT=${1:-/var/tmp/tileserver-collection/run/store-cold}
[ -d "$INPUT" ] || { echo "no tiles in $INPUT: run PHASES=cold bench/collection.sh first, or name a folder of tiles" >&2; exit 1; }
WORK=$(mktemp -d /var/tmp/tileserver-store-layout.XXXX)
trap 'rm -rf "$WORK"' EXIT
cc -O2 -o "$WORK/store-layout" bench/store-layout.c
drop() { sync; echo 3 > /proc/sys/vm/drop_caches; }
coproc H { "$WORK/store-layout" "$INPUT" "$WORK/data" "${READS:-20000}"; }
while read -r line <&"${H[0]}"; do
  case $line in
    DROP*) drop; echo go >&"${H[1]}" ;;
    *) echo "$line"
       case $line in "FIGURE write"*)
         echo "FIGURE disk files_MB $(du -sm "$WORK/data/files" | cut -f1) packs_MB $(du -sm "$WORK/data/packs" | cut -f1) (du)" ;;
       esac ;;
  esac
done
