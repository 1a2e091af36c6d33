#!/usr/bin/env bash
# Every performance figure in one go, ours beside the peer in each row:
#   cached tile mix and one hot tile against nginx, access logs on and off (bench/serve.sh),
#   uncached mix against IIPImage and our cold p99 against one full djpeg (bench/uncached.sh),
#   builds against vips dzsave (bench/build.sh), cold first view and bottom-right tile against djpeg
#   (bench/first-view.sh), serving RSS against nginx.
# Each script alternates ours and the peer RUNS times and reports medians; each stops what it started by PID.
# The table, the machine, the date and the commands go to docs/performance.md (between the compare.sh markers)
# and to standard output. About 9 minutes on 2 cores.
#   bench/compare.sh [IMAGES_DIR]   (default /var/tmp/tileserver-images; make it with
#                                    SIZES=20000 ../shared/tools/make-images.sh)
#   knobs: RUNS=3 DURATION=6 (cached loads) UNCACHED_DURATION=15 DOC=docs/performance.md
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-/var/tmp/tileserver-images}
RUNS=${RUNS:-3}; DURATION=${DURATION:-6}; UNCACHED_DURATION=${UNCACHED_DURATION:-15}; DOC=${DOC:-docs/performance.md}
for f in big-20000.jpg big-20000.png; do
  [ -s "$DIR/$f" ] || { echo "missing $DIR/$f: run SIZES=20000 ../shared/tools/make-images.sh" >&2; exit 1; }
done
need=""
for p in nginx:nginx wrk:wrk vips:libvips-tools djpeg:libjpeg-turbo-progs lighttpd:lighttpd spawn-fcgi:spawn-fcgi bc:bc \
         /usr/lib/iipimage-server/iipsrv.fcgi:iipimage-server /usr/bin/time:time; do
  command -v "${p%%:*}" >/dev/null || need="$need ${p#*:}"
done
[ -z "$need" ] || { apt-get update -qq; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need >/dev/null; }
swift build -c release --product tileserver >/dev/null
OUT=$(mktemp -d /tmp/tileserver-compare.XXXX)
trap 'rm -rf "$OUT"' EXIT
# One frozen copy of the binary for every step, so edits and rebuilds during the run change nothing.
cp .build/release/tileserver "$OUT/tileserver"
export BIN=$OUT/tileserver
STEPS=(
  "LOG=on RUNS=$RUNS DURATION=$DURATION bench/serve.sh $DIR/big-20000.jpg"
  "LOG=off RUNS=$RUNS DURATION=$DURATION bench/serve.sh $DIR/big-20000.jpg"
  "RUNS=$RUNS DURATION=$UNCACHED_DURATION bench/uncached.sh $DIR"
  "RUNS=$RUNS bench/build.sh $DIR"
  "RUNS=$RUNS bench/first-view.sh $DIR"
)
started=$(date +%s)
commit="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- Sources Package.swift || echo '+uncommitted changes')"
for step in "${STEPS[@]}"; do
  echo "== $step" >&2
  bash -c "$step" | tee -a "$OUT/figures"
  [ "${PIPESTATUS[0]}" = 0 ] || { echo "failed: $step" >&2; exit 1; }
done
minutes=$(( ($(date +%s) - started + 59) / 60 ))

table() {
  echo "| figure | ours | peer | peer's | ratio | goal |"
  echo "|---|---|---|---|---|---|"
  awk -F'\t' '$1 == "FIGURE" { printf "| %s | %s | %s | %s | %s× | %s |\n", $2, $3, $4, $5, $6, $7 }' "$OUT/figures"
}
section() {
  echo "<!-- bench/compare.sh: begin (generated; rerun the script to refresh) -->"
  echo "## All figures in one run (\`bench/compare.sh\`)"
  echo
  echo "Run $(date -u +%Y-%m-%dT%H:%MZ), $minutes min, commit \`$commit\`."
  echo "Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), $(awk '/MemTotal/ {printf "%d GiB", $2 / 1048576 + 0.5}' /proc/meminfo),"
  echo "$(. /etc/os-release; echo "$PRETTY_NAME"), kernel $(uname -r), $(swift --version 2>/dev/null | head -1 | sed 's/ (.*//'),"
  echo "$(nginx -v 2>&1 | sed 's/.*: //'), vips $(vips --version | sed 's/vips-//'), iipsrv $(dpkg-query -W -f='${Version}' iipimage-server), $(wrk -v 2>&1 | head -1 | cut -d' ' -f1-2)."
  echo "Server and load generator share the cores. Medians of $RUNS alternated runs; tile size 256, quality 85."
  echo
  echo '```sh'
  echo "bench/compare.sh $DIR   # runs, in order:"
  printf '%s\n' "${STEPS[@]}"
  echo '```'
  echo
  table
  echo "<!-- bench/compare.sh: end -->"
}
section > "$OUT/section"
if grep -q '<!-- bench/compare.sh: begin' "$DOC" 2>/dev/null; then
  awk -v f="$OUT/section" '
    /<!-- bench\/compare.sh: begin/ { while ((getline l < f) > 0) print l; skip = 1; next }
    /<!-- bench\/compare.sh: end/ { skip = 0; next }
    !skip' "$DOC" > "$DOC.tmp"
else
  { cat "$DOC" 2>/dev/null; echo; cat "$OUT/section"; } > "$DOC.tmp"
fi
mv "$DOC.tmp" "$DOC"
echo
cat "$OUT/section"
