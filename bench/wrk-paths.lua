-- Rotates through a list of request paths (one per line); each thread starts at its own offset.
-- Prints one parseable line: WRK_RESULT requests=… rps=… p50_ms=… p99_ms=… errors=… non2xx=…
--   wrk -t2 -c64 -d15s -s bench/wrk-paths.lua http://127.0.0.1:PORT -- paths.txt
local paths, idx = {}, 0
local threads = {}

function setup(thread)
  table.insert(threads, thread)
  thread:set("tid", #threads - 1)
end

function init(args)
  for line in io.lines(args[1]) do
    if #line > 0 then table.insert(paths, line) end
  end
  idx = (tid or 0) * 997 % #paths
end

function request()
  idx = idx % #paths + 1
  return wrk.format("GET", paths[idx])
end

function done(summary, latency, requests)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
  io.write(string.format("WRK_RESULT requests=%d rps=%.0f p50_ms=%.2f p99_ms=%.2f errors=%d non2xx=%d\n",
    summary.requests, summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000,
    latency:percentile(99) / 1000, errors, summary.errors.status))
end
