#!/usr/bin/env bash
# What access control costs on cached tiles, in one run: the same public image served by a server without an
# access file and by one with an access file (rules for other folders, users, a share key), the two alternated;
# and on the second, one hot tile of a restricted image fetched by a signed-in user (session cookie) beside one
# hot public tile. Prints requests/s and each server's CPU a request (user + system, µs), medians of RUNS runs,
# and the two goals: public tiles with an access file <= 3 % slower; a signed-in cached tile <= 2 µs more CPU.
# The runs alternate order; the ratios are the medians of each run's pair, and the signed-in cost the median of
# each run's difference (the machine's noise moves both of a pair alike). Asserts nothing. For where the time
# goes: perf record -e cpu-clock -g -p PID.
#   bench/access.sh      knobs: RUNS=3 DURATION=10 CONNS=32 THREADS=2 N_URLS=2000 BIN=
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
RUNS=${RUNS:-3}; DURATION=${DURATION:-10}; CONNS=${CONNS:-32}; THREADS=${THREADS:-2}; N_URLS=${N_URLS:-2000}
for p in wrk vips curl; do command -v $p >/dev/null || { echo "needs $p: scripts/install-deps.sh test" >&2; exit 1; }; done
if [ -z "${BIN:-}" ]; then swift build -c release --product tileserver >/dev/null; BIN=$PWD/.build/release/tileserver; fi
WORK=$(mktemp -d /var/tmp/tileserver-access-bench.XXXX)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; sleep 0.3; rm -rf "$WORK"; }
trap cleanup EXIT
read -r OPEN GATED < <(python3 -c 'import socket
s=[socket.socket() for _ in range(2)]
[x.bind(("127.0.0.1",0)) for x in s]; print(*[x.getsockname()[1] for x in s])')

mkdir -p "$WORK/lib/public" "$WORK/lib/staff" "$WORK/lib/works"
vips gaussnoise "$WORK/lib/public/photo.jpg" 6000 4000
vips gaussnoise "$WORK/lib/staff/plan.jpg" 3000 2000
vips gaussnoise "$WORK/lib/works/print.jpg" 3000 2000
cat > "$WORK/access.toml" <<'TOML'
[folder."works"]
max_public_size = 1000
[folder."staff"]
view = "restricted"
groups = ["staff"]
[folder."drafts"]
view = "hidden"
groups = ["staff"]
TOML
printf 'bench-password\n' | "$BIN" user add curator --group staff --users "$WORK/users.txt" >/dev/null
"$BIN" serve "$WORK/lib" --host 127.0.0.1 --port "$OPEN" --store-dir off --access-log off > "$WORK/open.log" 2>&1 &
PIDS+=($!)
"$BIN" serve "$WORK/lib" --host 127.0.0.1 --port "$GATED" --store-dir off --access-log off --access "$WORK/access.toml" \
  --users "$WORK/users.txt" --secret-file "$WORK/secret.key" > "$WORK/gated.log" 2>&1 &
PIDS+=($!)
for port in $OPEN $GATED; do for _ in $(seq 100); do curl -sf -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.1; done; done
COOKIE=$(curl -s -D - -o /dev/null -X POST -d 'username=curator&password=bench-password' "http://127.0.0.1:$GATED/auth/login" \
  | tr -d '\r' | sed -n 's/^[Ss]et-[Cc]ookie: \(tileserver_session=[^;]*\).*/\1/p')
[ -n "$COOKIE" ] || { echo "sign-in failed" >&2; exit 1; }

# Every tile of levels 8 and up of the public photo (a seeded sample of N_URLS), and one hot tile of each kind.
python3 - "$WORK" "$N_URLS" <<'PY'
import math, random, sys
work, n = sys.argv[1], int(sys.argv[2])
w, h, t, top = 6000, 4000, 256, 13
urls = []
for level in range(8, top + 1):
    s = 2 ** (top - level)
    cols, rows = math.ceil(math.ceil(w / s) / t), math.ceil(math.ceil(h / s) / t)
    urls += [f"/images/public%2Fphoto/tiles/{level}/{x}/{y}.jpg" for x in range(cols) for y in range(rows)]
urls = random.Random(3).sample(urls, min(n, len(urls)))
open(f"{work}/mix.txt", "w").write("\n".join(urls) + "\n")
open(f"{work}/public-hot.txt", "w").write("/images/public%2Fphoto/tiles/12/3/2.jpg\n")
open(f"{work}/staff-hot.txt", "w").write("/images/staff%2Fplan/tiles/11/3/2.jpg\n")
PY
warm() {  # port file [header]: every path until the memory cache has it (twice), failing on any non-200
  for _ in 1 2; do
    while read -r u; do
      code=$(curl -s -o /dev/null -w '%{http_code}' ${3:+-H "$3"} "http://127.0.0.1:$1$u")
      [ "$code" = 200 ] || { echo "warm-up: $u gave $code on $1" >&2; exit 1; }
    done < "$2"
  done
}
echo "warming..." >&2
warm "$OPEN" "$WORK/mix.txt"; warm "$GATED" "$WORK/mix.txt"
warm "$GATED" "$WORK/public-hot.txt"; warm "$GATED" "$WORK/staff-hot.txt" "Cookie: $COOKIE"
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$GATED$(cat "$WORK/staff-hot.txt")")" = 401 ] \
  || { echo "the restricted tile is not restricted" >&2; exit 1; }

ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
run() {  # name port paths pid [header]
  local out before after requests cpu
  before=$(ticks "$4")
  out=$(wrk -t"$THREADS" -c"$CONNS" -d"${DURATION}s" ${5:+-H "$5"} -s bench/wrk-paths.lua "http://127.0.0.1:$2" -- "$3" | grep WRK_RESULT)
  after=$(ticks "$4")
  requests=$(sed 's/.*requests=\([0-9]*\).*/\1/' <<<"$out")
  grep -q ' non2xx=0' <<<"$out" || { echo "$1: non-200 answers: $out" >&2; exit 1; }
  cpu=$(awk -v t=$((after - before)) -v hz="$(getconf CLK_TCK)" -v r="$requests" 'BEGIN {printf "%.2f", t * 1e6 / hz / r}')
  printf '%-12s %s server_cpu_us=%s\n' "$1" "${out#WRK_RESULT }" "$cpu"
  eval "RPS_$1+=\" $(sed 's/.*rps=\([0-9]*\).*/\1/' <<<"$out")\"; CPU_$1+=\" $cpu\""
}
median() { printf '%s\n' $1 | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
last() { printf '%s\n' $1 | tail -1; }
DIFFS= RPS_RATIOS= CPU_RATIOS=
echo "wrk: $THREADS threads, $CONNS connections, ${DURATION}s, $(nproc) cores shared by servers and client, $RUNS alternated runs"
for i in $(seq "$RUNS"); do
  if [ $((i % 2)) = 1 ]; then run open "$OPEN" "$WORK/mix.txt" "${PIDS[0]}"; run gated "$GATED" "$WORK/mix.txt" "${PIDS[1]}"
  else run gated "$GATED" "$WORK/mix.txt" "${PIDS[1]}"; run open "$OPEN" "$WORK/mix.txt" "${PIDS[0]}"; fi
  if [ $((i % 2)) = 1 ]; then run publichot "$GATED" "$WORK/public-hot.txt" "${PIDS[1]}"; run signedin "$GATED" "$WORK/staff-hot.txt" "${PIDS[1]}" "Cookie: $COOKIE"
  else run signedin "$GATED" "$WORK/staff-hot.txt" "${PIDS[1]}" "Cookie: $COOKIE"; run publichot "$GATED" "$WORK/public-hot.txt" "${PIDS[1]}"; fi
  DIFFS+=" $(echo "$(last "$CPU_signedin") - $(last "$CPU_publichot")" | bc -l | sed 's/^\./0./; s/^-\./-0./')"
  RPS_RATIOS+=" $(ratio "$(last "$RPS_gated")" "$(last "$RPS_open")")"
  CPU_RATIOS+=" $(ratio "$(last "$CPU_gated")" "$(last "$CPU_open")" 3)"
done
echo "signed-in minus public CPU a request, run by run (µs):$DIFFS"
echo "with / without an access file, run by run: req/s$RPS_RATIOS; CPU a request$CPU_RATIOS"
for v in open gated publichot signedin; do eval "RPS_$v=\$(median \"\$RPS_$v\"); CPU_$v=\$(median \"\$CPU_$v\")"; done
figure "cached public tiles, access file present (req/s)" "$RPS_gated" none "$RPS_open" "$(median "$RPS_RATIOS")" ">= 0.97"
figure "cached public tiles, access file present, CPU a request (µs)" "$CPU_gated" none "$CPU_open" "$(median "$CPU_RATIOS")" "<= 1.03"
figure "hot restricted tile signed in, CPU a request (µs)" "$CPU_signedin" public "$CPU_publichot" \
  "$(ratio "$CPU_signedin" "$CPU_publichot")" "<= public + 2 µs (median of the runs' differences: $(median "$DIFFS") µs)"
