#!/usr/bin/env bash
# Runs one libFuzzer target of the Fuzz/ package for SECONDS with its seed corpus, and prints how many inputs
# it executed. A crash, leak or timeout stops the run with the input saved in Fuzz/Regressions/TARGET/, where the
# normal test suite replays it once it is fixed.
#   scripts/fuzz.sh TARGET SECONDS [extra libFuzzer flags]    TARGET: http | urls | access | s3 | jpeg | png | tiff | jp2 | webp | heic | avif
#   JOBS=N runs N fuzzing processes at once (default 1).
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET=${1:?usage: scripts/fuzz.sh http|urls|access|s3|jpeg|png|tiff|jp2|webp|heic|avif SECONDS}; SECONDS_=${2:?seconds}; shift 2
case $TARGET in
  http) PRODUCT=FuzzHTTPParser ;; urls) PRODUCT=FuzzRequestURLs ;; access) PRODUCT=FuzzAccess ;; s3) PRODUCT=FuzzObjectStorage ;; jpeg|png|tiff|jp2|webp|heic|avif) PRODUCT=FuzzDecoders ;;
  *) echo "unknown target $TARGET: http, urls, access, s3, jpeg, png, tiff, jp2, webp, heic or avif" >&2; exit 2 ;;
esac
swift build --package-path Fuzz -c release --product "$PRODUCT" \
  -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -enable-testing -Xcc -fsanitize=fuzzer-no-link,address >&2
BIN=Fuzz/.build/release/$PRODUCT
WORK=.build-fuzz/$TARGET
mkdir -p "$WORK/corpus" "Fuzz/Regressions/$TARGET"
cp -n Fuzz/Corpus/"$TARGET"/* "$WORK/corpus/" 2>/dev/null || true
cp -n Fuzz/Regressions/"$TARGET"/* "$WORK/corpus/" 2>/dev/null || true
LOG=$WORK/log
BEFORE=$(ls "Fuzz/Regressions/$TARGET" | sort)
"$BIN" "$WORK/corpus" -max_total_time="$SECONDS_" -timeout=10 -rss_limit_mb=2048 -max_len=16384 -print_final_stats=1 \
  -artifact_prefix="Fuzz/Regressions/$TARGET/" ${JOBS:+-jobs=$JOBS -workers=$JOBS} "$@" 2>&1 | tee "$LOG" | grep -E "^#[0-9]+ .*(DONE|pulse)|ERROR|SUMMARY|stat::" >&2 || true
STATS=$LOG; [ -n "${JOBS:-}" ] && STATS="fuzz-*.log"
RUNS=$(cat $STATS 2>/dev/null | grep "stat::number_of_executed_units" | awk '{s += $2} END {print s + 0}')
rm -f fuzz-*.log
echo "$TARGET: $RUNS executions in $SECONDS_ s"
NEW=$(comm -13 <(echo "$BEFORE") <(ls "Fuzz/Regressions/$TARGET" | sort))
if [ -n "$NEW" ]; then
  echo "new findings saved in Fuzz/Regressions/$TARGET/: $NEW" >&2; exit 1
fi
