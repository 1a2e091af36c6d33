# Shared by the bench scripts: `source bench/lib.sh`.

# measure NAME CMD...: runs CMD $RUNS times; prints and records the median wall time (WALL_NAME, seconds)
# and the largest peak RSS (RSS_NAME, KB), both from /usr/bin/time.
measure() {
  local name=$1; shift
  local walls=() rss=0 out tf m median
  for _ in $(seq "${RUNS:-3}"); do
    [ -n "${BEFORE_EACH:-}" ] && eval "$BEFORE_EACH"
    tf=$(mktemp)
    /usr/bin/time -o "$tf" -f "%e %M" "$@" >/dev/null 2>&1 || { echo "$name failed: $*" >&2; rm -f "$tf"; return 1; }
    out=$(tail -1 "$tf"); rm -f "$tf"
    walls+=("${out% *}")
    m=${out#* }; [ "$m" -gt "$rss" ] && rss=$m
  done
  median=$(printf '%s\n' "${walls[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  printf '%-34s %8.2f s %8.1f MB\n' "$name" "$median" "$(echo "$rss / 1024" | bc -l)"
  printf -v "WALL_$name" '%s' "$median"
  printf -v "RSS_$name" '%s' "$rss"
}

# ratio A B [DIGITS]: A / B to DIGITS decimals (2).
ratio() { echo "scale=${3:-2}; $1 / $2" | bc -l | sed 's/^\./0./'; }

# peak_rss_kb PID...: the summed peak resident set (VmHWM, KB) of the processes.
peak_rss_kb() {
  local p kb total=0
  for p in "$@"; do
    kb=$(awk '/^VmHWM/ {print $2}' "/proc/$p/status" 2>/dev/null || true)
    total=$((total + ${kb:-0}))
  done
  echo "$total"
}

# figure LOAD OURS PEER PEER_VALUE RATIO GOAL: one row of the comparison table, for people and for
# bench/compare.sh (the tab-separated FIGURE line).
figure() {
  printf '%-58s ours %10s  %-10s %10s  %sx %s\n' "$1" "$2" "$3" "$4" "$5" "${6:+(goal $6)}"
  printf 'FIGURE\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@"
}

# sample_rss PID FILE [INTERVAL]: appends "SECONDS_SINCE_START RSS_KB" to FILE every INTERVAL seconds (0.5)
# while PID lives. Run it in the background.
sample_rss() {
  local pid=$1 file=$2 interval=${3:-0.5} start kb
  start=$(date +%s.%N)
  while kb=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null) && [ -n "$kb" ]; do
    printf '%.1f %s\n' "$(echo "$(date +%s.%N) - $start" | bc -l)" "$kb" >>"$file"
    sleep "$interval"
  done
}

# open_fds PID: descriptors the process holds.
open_fds() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }

# make_library DIR IMAGES FOLDERS FIXTURES: IMAGES symbolic links to the fixture photos in FOLDERS folders below DIR
# (two levels: DIR/NN/folder-NNNN/scan-NNNNN.ext).
make_library() {
  python3 - "$@" <<'PY'
import os, sys
root, images, folders, fix = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
targets = [os.path.join(fix, n) for n in ("baseline.jpg", "gray.jpg", "rgb.png", "progressive.jpg")]
per = images // folders
for f in range(folders):
    d = os.path.join(root, f"{f // 100:02d}", f"folder-{f:04d}")
    os.makedirs(d, exist_ok=True)
    for i in range(per):
        t = targets[(f + i) % len(targets)]
        os.symlink(t, os.path.join(d, f"scan-{i:05d}{os.path.splitext(t)[1]}"))
PY
}
